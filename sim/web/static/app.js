// The what-if page. Its state is its URL's query (a link reproduces the view); every
// request sends that same query, and a change of any control cancels what the last state
// asked for (fetches aborted, the simulation's stream closed: the server stops the work).
"use strict";

const $ = id => document.getElementById(id);
const PAGE = {meta: null, game: null, state: {}, inflight: [], stream: null, simTrace: {},
  exact: null, sim: null, changedAt: null, latency: [], version: 0};
window.houseedge = PAGE;  // read by the end-to-end tests (latency, numbers shown)

// ------------------------------------------------------------------ state <-> URL
const ORDER = ["game", "preset", "file", "variant", "row", "view", "strategy", "banker"];

function queryOf(state, extra) {
  const q = new URLSearchParams();
  const keys = Object.keys(state).sort((a, b) => {
    const ia = ORDER.indexOf(a), ib = ORDER.indexOf(b);
    return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib) || a.localeCompare(b);
  });
  for (const k of keys) if (state[k] !== undefined && state[k] !== null && state[k] !== "") q.set(k, state[k]);
  for (const [k, v] of Object.entries(extra || {})) if (v !== undefined && v !== null) q.set(k, v);
  return q.toString();
}

function stateFromURL() {
  const s = {};
  for (const [k, v] of new URLSearchParams(location.search)) s[k] = v;
  return s;
}

function writeURL() {
  const q = queryOf(PAGE.state);
  history.replaceState(null, "", q ? `?${q}` : location.pathname);
  $("download-experiment").href = `/download/experiment.toml?${q}`;
  $("download-report").href = `/download/report.html?${q}`;
}

// ------------------------------------------------------------------- numbers
const nf = new Intl.NumberFormat("en");
const fmtInt = x => nf.format(Math.round(x));
function pct(x, digits = 3) { return Number.isFinite(x) ? `${(100 * x).toFixed(digits)}%` : "–"; }
function signed(text) { return text.startsWith("-") ? `−${text.slice(1)}` : (text === "0" || text.startsWith("0.0000") ? text : `+${text}`); }

function edgeHTML(e) {
  if (!e) return {big: "no value", sub: ""};
  if (e.fraction && e.fraction.length <= 22) return {big: e.fraction, sub: `= ${e.decimal} = ${e.percent}`};
  if (e.fraction) return {big: e.percent, sub: `= ${e.fraction}`};
  return {big: e.percent, sub: `= ${e.decimal}`};
}

function diffText(e) {
  if (!e) return "";
  if (e.value === 0) return "0 (no change)";
  const points = `${signed((100 * e.value).toFixed(4))} points`;
  return e.fraction ? `${signed(e.fraction)} = ${points}` : points;
}

// ------------------------------------------------------------------- requests
async function api(path, query, signal) {
  const response = await fetch(`${path}?${query}`, {signal});
  if (response.status === 204) throw {cancelled: true};
  let body;
  try { body = await response.json(); } catch (e) { throw {error: `${path}: the server answered ${response.status}`}; }
  if (!response.ok) throw body;
  return body;
}

function cancelAll() {
  for (const c of PAGE.inflight) c.abort();
  PAGE.inflight = [];
  if (PAGE.stream) { PAGE.stream.close(); PAGE.stream = null; }
  busy(false);
}

function controller() { const c = new AbortController(); PAGE.inflight.push(c); return c; }

function busy(on, text) {
  $("busy").hidden = !on;
  if (text) $("busy-text").textContent = text;
}

// -------------------------------------------------------------------- errors
function clearErrors() {
  document.querySelectorAll("[data-error-for]").forEach(n => { n.textContent = ""; });
  document.querySelectorAll(".control.invalid").forEach(n => n.classList.remove("invalid"));
  $("page-error").hidden = true;
}

function showError(err) {
  if (!err || err.cancelled || err.name === "AbortError") return;
  const message = err.error || String(err.message || err);
  const slot = err.control && document.querySelector(`[data-error-for="${CSS.escape(err.control)}"]`);
  if (slot) {
    slot.textContent = message;
    const wrap = slot.closest(".control");
    if (wrap) wrap.classList.add("invalid");
    // A control of a view not shown: say so at the top as well.
    if (slot.closest(".view[hidden]")) pageError(message);
  } else {
    pageError(message);
  }
}

function pageError(message) { $("page-error").textContent = message; $("page-error").hidden = false; }

// ------------------------------------------------------------------ controls
function literalOf(kind, value) {
  if (kind === "bool") return value ? "true" : "false";
  if (kind === "str") return JSON.stringify(value);
  return String(value);
}

function presetLiteral(spec) {
  const v = PAGE.game.presets[PAGE.state.preset][spec.name];
  if (spec.kind === "choice") return typeof v === "string" ? JSON.stringify(v) : String(v);
  if (spec.kind === "value") return tomlOf(v);
  return literalOf(spec.kind, v);
}

function tomlOf(v) {
  if (Array.isArray(v)) return `[${v.map(tomlOf).join(", ")}]`;
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "boolean") return v ? "true" : "false";
  return String(v);
}

function valueOfLiteral(spec, literal) {
  if (spec.kind === "bool") return literal === "true";
  if (spec.kind === "str" || (spec.kind === "choice" && spec.choices.some(c => typeof c === "string"))) {
    try { return JSON.parse(literal); } catch (e) { return literal; }
  }
  return literal;
}

// One control: label, input, help and the slot for its error. key: the state's key.
function control(key, spec, literal, onInput, opts = {}) {
  const wrap = document.createElement("div");
  wrap.className = "control";
  wrap.dataset.wrap = key;
  const label = document.createElement("label");
  label.htmlFor = `in-${key}`;
  label.textContent = opts.label || spec.name.replaceAll("_", " ");
  wrap.appendChild(label);
  let input;
  const value = valueOfLiteral(spec, literal);
  if (spec.kind === "bool") {
    const row = document.createElement("div");
    row.className = "row";
    input = document.createElement("input");
    input.type = "checkbox";
    input.checked = value === true;
    const words = document.createElement("span");
    words.className = "muted small";
    words.textContent = input.checked ? "yes" : "no";
    input.addEventListener("change", () => { words.textContent = input.checked ? "yes" : "no"; });
    row.append(input, words);
    wrap.appendChild(row);
  } else if (spec.kind === "choice") {
    input = document.createElement("select");
    for (const c of spec.choices) {
      const o = document.createElement("option");
      o.value = typeof c === "string" ? JSON.stringify(c) : String(c);
      o.textContent = String(c);
      input.appendChild(o);
    }
    input.value = literal;
    if (input.value !== literal) {  // a value the choices do not hold (from a link)
      const o = document.createElement("option"); o.value = literal; o.textContent = literal; input.appendChild(o); input.value = literal;
    }
    wrap.appendChild(input);
  } else if (spec.kind === "int" || spec.kind === "float") {
    input = document.createElement("input");
    input.type = "number";
    if (spec.min !== undefined) input.min = spec.min;
    if (spec.max !== undefined) input.max = spec.max;
    input.step = spec.step || (spec.kind === "int" ? 1 : "any");
    input.value = literal;
    wrap.appendChild(input);
  } else {
    input = document.createElement("input");
    input.type = "text";
    input.value = spec.kind === "str" ? value : literal;
    wrap.appendChild(input);
  }
  input.id = `in-${key}`;
  input.dataset.control = key;
  const read = () => {
    if (spec.kind === "bool") return input.checked ? "true" : "false";
    if (spec.kind === "choice") return input.value;
    if (spec.kind === "str") return JSON.stringify(input.value);
    return input.value.trim();
  };
  const fire = () => onInput(read(), wrap);
  if (input.tagName === "SELECT" || input.type === "checkbox") input.addEventListener("change", fire);
  else {
    let timer = null;
    input.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(fire, 400); });
    input.addEventListener("change", () => { clearTimeout(timer); fire(); });
  }
  if (spec.help || spec.allowed) {
    const help = document.createElement("div");
    help.className = "help";
    help.textContent = [spec.help, spec.allowed ? `(${spec.allowed})` : ""].filter(Boolean).join(" ");
    wrap.appendChild(help);
  }
  const error = document.createElement("div");
  error.className = "error";
  error.dataset.errorFor = key;
  wrap.appendChild(error);
  return wrap;
}

function markChanged(wrap, changed, fromText) {
  wrap.classList.toggle("changed", changed);
  const label = wrap.querySelector("label");
  let from = label.querySelector(".from");
  if (changed) {
    if (!from) { from = document.createElement("span"); from.className = "from"; label.appendChild(from); }
    from.textContent = ` (preset: ${fromText})`;
  } else if (from) from.remove();
}

function renderRules() {
  const box = $("rules");
  box.innerHTML = "";
  for (const spec of PAGE.game.rules) {
    const key = `r.${spec.name}`;
    const base = presetLiteral(spec);
    const literal = PAGE.state[key] !== undefined ? PAGE.state[key] : base;
    const wrap = control(key, spec, literal, (value, w) => {
      if (value === presetLiteral(spec)) delete PAGE.state[key]; else PAGE.state[key] = value;
      markChanged(w, PAGE.state[key] !== undefined, base);
      changed();
    });
    markChanged(wrap, PAGE.state[key] !== undefined, base);
    box.appendChild(wrap);
  }
}

function paramControls(box, params, prefix) {
  box.innerHTML = "";
  for (const p of params) {
    const key = `${prefix}${p.name}`;
    const spec = {name: p.name, kind: p.kind === "value" ? "value" : p.kind, help: ""};
    const literal = PAGE.state[key] !== undefined ? PAGE.state[key] : p.default;
    const wrap = control(key, spec, literal, value => {
      if (value === p.default || (value === "" && p.default === "") || (spec.kind === "str" && value === JSON.stringify("") && p.default === "")) delete PAGE.state[key];
      else PAGE.state[key] = value;
      changed();
    }, {label: p.name.replaceAll("_", " ")});
    box.appendChild(wrap);
  }
}

function renderStrategy() {
  const select = $("strategy");
  select.innerHTML = "";
  for (const s of PAGE.game.strategies) {
    const o = document.createElement("option");
    o.value = s.name; o.textContent = s.name + (s.counts_cards ? " (counts cards)" : "");
    select.appendChild(o);
  }
  const use = PAGE.state.strategy;
  if (use && ![...select.options].some(o => o.value === use)) {
    const o = document.createElement("option"); o.value = use; o.textContent = `${use} (experiments folder)`; select.appendChild(o);
  }
  select.value = use;
  const info = PAGE.game.strategies.find(s => s.name === use);
  $("strategy-description").textContent = info ? info.description : "a strategy of the experiments folder";
  paramControls($("params"), info ? info.params : [], "p.");
  const bankers = PAGE.game.bankers;
  $("banker-box").hidden = !(info && info.banker && bankers.length);
  if (!$("banker-box").hidden) {
    const b = $("banker");
    b.innerHTML = "";
    const none = document.createElement("option"); none.value = ""; none.textContent = "the strategy's own (stand on 17)"; b.appendChild(none);
    for (const x of bankers) { const o = document.createElement("option"); o.value = x.name; o.textContent = x.name; b.appendChild(o); }
    b.value = PAGE.state.banker || "";
    const binfo = bankers.find(x => x.name === PAGE.state.banker);
    $("banker-description").textContent = binfo ? binfo.description : "";
    paramControls($("banker-params"), binfo ? binfo.params : [], "b.");
  }
}

function renderSettings() {
  const d = PAGE.meta.defaults;
  const box = $("sim-settings");
  box.innerHTML = "";
  const items = [
    ["seed", {name: "seed", kind: "int", min: 0, help: "the root seed: the same seed gives the same numbers as houseedge run"}, d.seed],
    ["rounds", {name: "rounds", kind: "int", min: 1, max: PAGE.meta.limits.max_rounds, help: `the round budget per row (at most ${fmtInt(PAGE.meta.limits.max_rounds)} here)`}, d.rounds],
    ["chunk_rounds", {name: "chunk_rounds", kind: "int", min: 1, help: "rounds per chunk: the estimate moves chunk by chunk"}, d.chunk_rounds],
    ["target_ci", {name: "target_ci", kind: "float", min: 0, step: "any", help: "stop once the 95% half-width of the headline edge is at most this (0.002: 0.2 points); 0: play the whole budget"}, d.target_ci],
  ];
  for (const [key, spec, def] of items) {
    const literal = PAGE.state[key] !== undefined ? PAGE.state[key] : String(def);
    box.appendChild(control(key, spec, literal, value => {
      if (value === String(def)) delete PAGE.state[key]; else PAGE.state[key] = value;
      changed();
    }, {label: {seed: "seed", rounds: "rounds (budget)", chunk_rounds: "chunk rounds", target_ci: "target 95% half-width"}[key]}));
  }
}

function renderSession() {
  const d = PAGE.meta.defaults.session;
  const box = $("session");
  box.innerHTML = "";
  const round = PAGE.game.round_name;
  const items = [
    ["s.bankroll", {name: "bankroll", kind: "float", min: 1, step: "any", help: "what you bring, in base stakes"}, d.bankroll],
    ["s.rounds", {name: "rounds", kind: "int", min: 1, help: `the session's length in ${round}s`}, d.rounds],
    ["s.stop_win", {name: "stop_win", kind: "float", min: 0, step: "any", help: "leave once ahead by this (empty: never)"}, ""],
    ["s.stop_loss", {name: "stop_loss", kind: "float", min: 0, step: "any", help: "leave once behind by this (empty: play on)"}, ""],
    ["s.target_risks", {name: "target_risks", kind: "value", help: "risks of ruin to size a bankroll for, e.g. [0.01, 0.05]"}, d.target_risks],
  ];
  for (const [key, spec, def] of items) {
    const literal = PAGE.state[key] !== undefined ? PAGE.state[key] : String(def);
    box.appendChild(control(key, spec, literal, value => {
      if (value === String(def)) delete PAGE.state[key]; else PAGE.state[key] = value;
      changed();
    }, {label: {bankroll: "bankroll", rounds: `length (${round}s)`, stop_win: "stop win", stop_loss: "stop loss", target_risks: "target risks"}[spec.name]}));
  }
}

function renderSweep() {
  const select = $("sweep");
  select.innerHTML = "";
  const add = (value, text) => { const o = document.createElement("option"); o.value = value; o.textContent = text; select.appendChild(o); };
  add("", "choose…");
  for (const r of PAGE.game.rules) if (r.kind !== "value") add(`r.${r.name}`, `rule: ${r.name}`);
  const info = PAGE.game.strategies.find(s => s.name === PAGE.state.strategy);
  for (const p of (info ? info.params : [])) if (p.kind === "int" || p.kind === "float" || p.kind === "bool") add(`p.${p.name}`, `parameter: ${p.name}`);
  select.value = PAGE.state.sweep || "";
  $("sweep_values").value = PAGE.state.sweep_values || "";
}

function renderAll() {
  const g = PAGE.game;
  $("game").value = g.name;
  const preset = $("preset");
  preset.innerHTML = "";
  for (const p of Object.keys(g.presets)) { const o = document.createElement("option"); o.value = p; o.textContent = p; preset.appendChild(o); }
  preset.value = PAGE.state.preset;
  $("game-description").innerHTML = "";
  $("game-description").append(g.description + " ");
  if (g.rules_doc) {
    const a = document.createElement("span"); a.className = "small"; a.textContent = `Rules as modelled: ${g.rules_doc}.`; $("game-description").appendChild(a);
  }
  $("basis-headline").textContent = g.headline_basis;
  $("basis-other").textContent = g.other_basis;
  document.querySelectorAll(".round-name").forEach(n => { n.textContent = g.round_name; });
  $("diff-preset").textContent = PAGE.state.preset;
  renderRules();
  renderStrategy();
  renderSettings();
  renderSession();
  renderSweep();
  renderFile();
  showView();
}

function renderFile() {
  $("file").value = PAGE.state.file || "";
  $("file-rows").hidden = !PAGE.state.file || !PAGE.fileRows;
  if (PAGE.fileRows) {
    for (const [id, items, key] of [["file-variant", PAGE.fileRows.variants, "variant"], ["file-row", PAGE.fileRows.strategies, "row"]]) {
      const s = $(id); s.innerHTML = "";
      for (const name of items) { const o = document.createElement("option"); o.value = name; o.textContent = name; s.appendChild(o); }
      s.value = PAGE.state[key] || items[0];
    }
  }
}

function showView() {
  const view = PAGE.state.view || "edge";
  for (const v of ["edge", "risk", "grid"]) $(`view-${v}`).hidden = v !== view;
  document.querySelectorAll(".tab").forEach(t => t.classList.toggle("active", t.dataset.view === view));
}

// ------------------------------------------------------------------ loading
async function loadGame(name, keep) {
  const g = await api("/api/game", new URLSearchParams({game: name}).toString());
  PAGE.game = g;
  if (!keep) {
    PAGE.state = {game: name, preset: Object.keys(g.presets)[0], view: PAGE.state.view || "edge", ...g.start};
  }
  if (!PAGE.state.preset || !(PAGE.state.preset in g.presets)) PAGE.state.preset = PAGE.state.preset || Object.keys(g.presets)[0];
  if (!PAGE.state.strategy) Object.assign(PAGE.state, g.start);
}

async function openFile(file, variant, row) {
  cancelAll();
  clearErrors();
  try {
    const q = new URLSearchParams({file});
    if (variant) q.set("variant", variant);
    if (row) q.set("row", row);
    const opened = await api("/api/open", q.toString());
    PAGE.fileRows = {variants: opened.variants, strategies: opened.strategies};
    const view = PAGE.state.view || "edge";
    PAGE.state = {...opened.query, view: opened.query["s.bankroll"] ? "risk" : view};
    await loadGame(PAGE.state.game, true);
    renderAll();
    changed();
  } catch (err) { showError(err); }
}

// ------------------------------------------------------------------ refreshing
function changed() {
  PAGE.changedAt = performance.now();
  PAGE.version += 1;
  writeURL();
  refresh();
}

function summary() {
  const s = PAGE.state;
  const params = Object.keys(s).filter(k => k.startsWith("p.")).map(k => `${k.slice(2)} = ${s[k]}`);
  const banker = s.banker ? ` against ${s.banker}${Object.keys(s).filter(k => k.startsWith("b.")).map(k => ` ${k.slice(2)} = ${s[k]}`).join(",")}` : "";
  const rules = Object.keys(s).filter(k => k.startsWith("r.")).map(k => `${k.slice(2)} = ${s[k]}`);
  const box = $("summary");
  box.innerHTML = "";
  const add = (text, code) => { const n = document.createElement(code ? "code" : "span"); n.textContent = text; box.appendChild(n); };
  add(`${PAGE.game.name}: `);
  add(`${s.strategy}${params.length ? ` (${params.join(", ")})` : ""}${banker}`, true);
  add(" on the preset ");
  add(s.preset, true);
  add(rules.length ? " with " : ", no rule changed");
  if (rules.length) add(rules.join(", "), true);
}

function refresh() {
  cancelAll();
  summary();
  clearErrors();
  PAGE.simTrace = {};
  PAGE.sim = null;
  const view = PAGE.state.view || "edge";
  const q = queryOf(PAGE.state);
  const version = PAGE.version;
  $("foot").textContent = `Equivalent command: houseedge run what-if.toml (the experiment file this page downloads; the same seed, rounds and chunks give the same numbers).`;
  if (view === "edge") { loadExact(q, version); loadCharts(q, version); }
  if (view === "grid") loadGrid(q, version);
  if (view === "risk") loadRisk(q, version, true);
}

function setPending() {
  for (const id of ["edge-main", "edge-other", "sd", "diff-main"]) $(id).textContent = "…";
  for (const id of ["edge-main-sub", "edge-other-sub", "diff-other"]) $(id).textContent = "";
}

async function loadExact(q, version) {
  setPending();
  $("sim-panel").hidden = true;
  $("exact-note").textContent = "";
  const c = controller();
  const timer = setTimeout(() => busy(true, "computing the exact value…"), 300);
  try {
    const r = await api("/api/exact", q, c.signal);
    if (version !== PAGE.version) return;
    PAGE.exact = r;
    renderExact(r);
    if (r.simulate) startSimulation(q, version);
  } catch (err) {
    if (version === PAGE.version) {
      showError(err);
      for (const id of ["edge-main", "edge-other", "sd", "diff-main"]) $(id).textContent = "–";
      if (err && err.control) $("exact-note").textContent = "No value for these settings: see the message beside the control marked in red.";
    }
  } finally {
    clearTimeout(timer);
    if (version === PAGE.version && !PAGE.stream) busy(false);
  }
}

function renderExact(r) {
  const rows = r.rows;
  const mine = rows.find(x => x.role === "what-if") || rows[0];
  const preset = rows.find(x => x.role === "preset");
  $("edge-kind").textContent = mine.edge ? "exact" : "simulated";
  $("edge-kind").classList.toggle("sim", !mine.edge);
  if (mine.edge) {
    const m = edgeHTML(mine.edge), o = edgeHTML(mine.other);
    $("edge-main").textContent = m.big; $("edge-main-sub").textContent = m.sub;
    $("edge-other").textContent = o.big; $("edge-other-sub").textContent = o.sub;
  } else if (mine.mean_net !== null) {
    $("edge-main").textContent = `${(+mine.mean_net).toPrecision(6)}`;
    $("edge-main-sub").textContent = "mean net result per " + r.round_name + " (no stakes)";
    $("edge-other").textContent = "–";
  } else {
    $("edge-main").textContent = "simulating…"; $("edge-main-sub").textContent = mine.note;
    $("edge-other").textContent = "…";
  }
  $("sd").textContent = mine.sd !== null && mine.sd !== undefined ? (+mine.sd).toPrecision(6) : "–";
  $("sd-sub").textContent = mine.sd !== null ? "in base stakes, exact" : "no exact SD here";
  if (r.diff && r.diff.edge) {
    $("diff-main").textContent = diffText(r.diff.edge);
    $("diff-other").textContent = r.diff.other ? `${diffText(r.diff.other)} ${r.basis.other}` : "";
  } else if (!preset) {
    $("diff-main").textContent = "0";
    $("diff-other").textContent = "the rules are the preset's";
  } else {
    $("diff-main").textContent = "simulated below";
    $("diff-other").textContent = "paired, on the same cards";
  }
  // Each reason once; where the preset's and the what-if's differ, each says whose it is.
  const bare = note => note.replace(/^no exact value: /, "");
  const noted = rows.filter(x => x.note);
  let notes = [...new Set(noted.map(x => bare(x.note)))];
  if (rows.length === 2 && notes.length > 1) {
    notes = noted.map(x => `${x.role === "what-if" ? "the what-if rules" : "the preset"}: ${bare(x.note)}`);
  }
  const any = rows.some(x => x.edge);
  $("exact-note").textContent = `${any ? "Exact values" : "No exact value here"} (houseedge exact, ${r.seconds.toFixed(2)} s)` +
    (notes.length ? `: ${notes.join("; ")}.` : ".");
  if (PAGE.changedAt !== null) { PAGE.latency.push(performance.now() - PAGE.changedAt); PAGE.changedAt = null; }
  PAGE.exactShown = {main: $("edge-main").textContent, other: $("edge-other").textContent, version: PAGE.version};
}

async function loadCharts(q, version) {
  $("charts").innerHTML = "";
  const c = controller();
  try {
    const r = await api("/api/charts", q, c.signal);
    if (version !== PAGE.version) return;
    const box = $("charts");
    box.innerHTML = "";
    for (const chart of r.charts) {
      const fig = document.createElement("figure");
      const cap = document.createElement("figcaption");
      cap.textContent = `${chart.name} (exact, ${r.variant})`;
      fig.appendChild(cap);
      const holder = document.createElement("div");
      holder.innerHTML = chart.svg;  // the engine's own matplotlib figure, as SVG
      fig.appendChild(holder);
      box.appendChild(fig);
    }
  } catch (err) { if (version === PAGE.version && !(err.control)) showError(err); }
}

// ------------------------------------------------------------------ simulation
function startSimulation(q, version, onDone) {
  if (PAGE.stream) PAGE.stream.close();
  const stream = new EventSource(`/api/simulate?${q}`);
  PAGE.stream = stream;
  busy(true, "simulating…");
  const view = PAGE.state.view || "edge";
  if (view === "edge") { $("sim-panel").hidden = false; $("sim-rows").textContent = "starting…"; $("sim-status").textContent = ""; $("sim-diff").textContent = ""; $("sim-chart").innerHTML = ""; $("sim-bar").style.width = "0"; }
  stream.addEventListener("estimate", ev => {
    if (version !== PAGE.version) return;
    const s = JSON.parse(ev.data);
    PAGE.sim = s;
    if (view === "edge") renderSimulation(s);
    if (view === "grid") renderGrid(PAGE.exact, s);
  });
  stream.addEventListener("done", () => {
    stream.close();
    if (PAGE.stream === stream) { PAGE.stream = null; busy(false); }
    if (PAGE.sim) PAGE.sim.finished = true;
    if (view === "edge" && PAGE.sim) renderSimulation(PAGE.sim);
    if (onDone) onDone(PAGE.sim);
  });
  stream.addEventListener("failure", ev => {
    stream.close();
    if (PAGE.stream === stream) { PAGE.stream = null; busy(false); }
    showError(JSON.parse(ev.data));
  });
  stream.onerror = () => { if (stream.readyState === EventSource.CLOSED && PAGE.stream === stream) { PAGE.stream = null; busy(false); } };
}

function rowLabel(row) {
  if (row.variant === "what-if") return "what-if rules";
  return `preset ${row.variant}`;
}

function renderSimulation(s) {
  const basis = PAGE.game.headline_basis;
  const box = $("sim-rows");
  box.innerHTML = "";
  for (const row of s.rows) {
    const div = document.createElement("div");
    div.className = "simrow";
    const name = document.createElement("div");
    name.innerHTML = `<b></b><div class="muted small"></div>`;
    name.querySelector("b").textContent = rowLabel(row);
    name.querySelector("div").textContent = `${fmtInt(row.rounds)} ${PAGE.game.round_name}s`;
    const est = document.createElement("div");
    est.className = "est";
    est.dataset.variant = row.variant;
    const half = (row.edge_ci95_high - row.edge_ci95_low) / 2;
    est.innerHTML = `<b class="estimate"></b> <span class="pm"></span><div class="muted small interval"></div>`;
    est.querySelector(".estimate").textContent = pct(row.edge);
    est.querySelector(".pm").textContent = `± ${pct(half)} (95%)`;
    const met = row.target_met === true ? "; target met" : row.target_met === false && s.done ? "; target not met within the budget" : "";
    est.querySelector(".interval").textContent = `house edge ${basis}: 95% interval ${pct(row.edge_ci95_low)} to ${pct(row.edge_ci95_high)}${met}${row.note ? `; ${row.note}` : ""}`;
    div.append(name, est);
    box.appendChild(div);
  }
  PAGE.simTrace = s.trace || {};  // the running estimate the run keeps (the report's convergence)
  const mine = s.rows.find(r => r.variant === "what-if") || s.rows[0];
  if (mine && !(PAGE.exact && (PAGE.exact.rows.find(x => x.role === "what-if") || PAGE.exact.rows[0]).edge)) {
    $("edge-main").textContent = pct(mine.edge);
    $("edge-main-sub").textContent = `± ${pct((mine.edge_ci95_high - mine.edge_ci95_low) / 2)} (95%), simulated`;
    $("edge-other").textContent = pct(PAGE.game.headline_basis === "per initial stake" ? mine.edge_per_total_wagered : mine.edge_per_initial_bet);
    $("edge-other-sub").textContent = "simulated";
    if (mine.std_net !== null) { $("sd").textContent = (+mine.std_net).toPrecision(4); $("sd-sub").textContent = "in base stakes, the sample's (simulated)"; }
  }
  $("sim-bar").style.width = `${Math.min(100, 100 * s.chunks / Math.max(1, s.total_chunks))}%`;
  const rounds = s.rows.reduce((a, r) => a + r.rounds, 0);
  $("sim-status").textContent = `${fmtInt(rounds)} ${PAGE.game.round_name}s in ${s.seconds.toFixed(1)} s, ${s.chunks} of at most ${s.total_chunks} chunks` +
    (s.done ? (s.stopped ? `; ${s.stopped}` : "; finished") : "") + ` (seed ${PAGE.state.seed || PAGE.meta.defaults.seed})`;
  $("sim-where").textContent = "houseedge run's chunks, streamed";
  const d = s.diffs && s.diffs[0];
  if (d) {
    $("sim-diff").innerHTML = `<b></b> <span class="muted small"></span>`;
    $("sim-diff").querySelector("b").textContent = `what-if − preset: ${signed((100 * d.diff).toFixed(3))} points ± ${(100 * (d.diff_ci95_high - d.diff_ci95_low) / 2).toFixed(3)}`;
    $("sim-diff").querySelector("span").textContent = d.shared_cards ? "(95%, paired on the same cards)" : "(95%; the variants deal different packs, so independent)";
    $("diff-main").textContent = `${signed((100 * d.diff).toFixed(3))} points`;
    $("diff-other").textContent = `± ${(100 * (d.diff_ci95_high - d.diff_ci95_low) / 2).toFixed(3)} (95%), simulated`;
  }
  Charts.line($("sim-chart"), {
    title: `Simulated house edge ${basis} and its 95% interval`, xLabel: `${PAGE.game.round_name}s played`, yLabel: "house edge (%)",
    series: Object.entries(PAGE.simTrace).map(([v, pts]) => ({name: v === "what-if" ? "what-if" : `preset ${v}`, points: pts, band: true})),
    xLog: Object.values(PAGE.simTrace).some(pts => pts.length > 1 && pts[pts.length - 1].x / pts[0].x > 50),
    yFormat: v => `${+v.toFixed(3)}`,
  });
}

// ------------------------------------------------------------------ risk
async function loadRisk(q, version, first) {
  const out = $("risk-out");
  if (first) { out.innerHTML = `<p class="muted">computing…</p>`; $("risk-chart").innerHTML = ""; }
  const c = controller();
  try {
    const r = await api("/api/risk", q, c.signal);
    if (version !== PAGE.version) return;
    renderRisk(r);
    const lacking = r.rows.some(x => x.p_ruin === undefined);
    if (lacking && first) {
      // No exact law of a round: the diffusion from the simulation's mean and SD.
      const e = await api("/api/exact", q, controller().signal);
      if (version !== PAGE.version) return;
      PAGE.exact = e;
      if (e.simulate) startSimulation(q, version, sim => {
        const mine = sim && (sim.rows.find(x => x.variant === "what-if") || sim.rows[0]);
        if (mine && version === PAGE.version) loadRisk(queryOf(PAGE.state, {mu: mine.mean_net, sigma: mine.std_net}), version, false);
      });
    }
  } catch (err) { if (version === PAGE.version) { out.innerHTML = ""; showError(err); } }
}

function renderRisk(r) {
  const out = $("risk-out");
  out.innerHTML = "";
  const s = r.session;
  const cards = document.createElement("div");
  cards.className = "risk-cards";
  for (const row of r.rows) {
    const card = document.createElement("div");
    card.className = "card";
    card.dataset.variant = row.variant;
    const title = row.variant === "what-if" ? "what-if rules" : `preset ${row.variant}`;
    if (row.p_ruin === undefined) {
      card.innerHTML = `<div class="label"></div><div class="sub"></div>`;
      card.querySelector(".label").textContent = title;
      card.querySelector(".sub").textContent = row.note;
      cards.appendChild(card);
      continue;
    }
    const how = row.exact ? "exact (from the round's exact law)" : "diffusion approximation (from the simulation's mean and SD)";
    const stops = [s.stop_win ? `stop win ${s.stop_win}` : "", s.stop_loss ? `stop loss ${s.stop_loss}` : ""].filter(Boolean).join(", ");
    card.innerHTML = `<div class="label"></div><div class="big p-ruin"></div><div class="sub what"></div><table class="nums"></table>`;
    card.querySelector(".label").innerHTML = `<b></b> <span class="tag"></span>`;
    card.querySelector(".label b").textContent = title;
    card.querySelector(".tag").textContent = row.exact ? "exact" : "diffusion";
    card.querySelector(".tag").classList.toggle("sim", !row.exact);
    card.querySelector(".p-ruin").textContent = pct(row.p_ruin, 2);
    card.querySelector(".what").textContent = `P(ruin) within ${fmtInt(s.rounds)} ${r.round_name}s on ${s.bankroll} base stakes${stops ? ` (${stops})` : ""}; ${how}`;
    const lines = [
      ["P(ruin) in the long run", pct(row.p_ruin_long_run, 2)],
      ["P(ahead at the end)", pct(row.p_ahead, 1)],
      ["mean result (base stakes)", Number.isFinite(row.mean_result) ? row.mean_result.toFixed(2) : "–"],
      ["EV per round / SD per round", `${row.mu.toFixed(4)} / ${row.sigma.toFixed(4)}`],
      ...row.targets.map(t => [`bankroll for a ${pct(t.risk, 1)} risk`, Number.isFinite(t.bankroll) ? `${t.bankroll.toFixed(1)} base stakes` : "beyond reach"]),
    ];
    const table = card.querySelector("table");
    for (const [k, v] of lines) { const tr = document.createElement("tr"); tr.innerHTML = "<td></td><td></td>"; tr.children[0].textContent = k; tr.children[1].textContent = v; table.appendChild(tr); }
    cards.appendChild(card);
  }
  out.appendChild(cards);
  const series = r.rows.filter(x => x.curve).map(x => ({name: x.variant === "what-if" ? "what-if" : `preset ${x.variant}`, points: x.curve.bankrolls.map((b, i) => ({x: b, y: x.curve.ruin[i]})), markers: true, dashed: !x.exact}));
  if (series.length) Charts.line($("risk-chart"), {title: `P(ruin) within ${fmtInt(s.rounds)} ${r.round_name}s against the bankroll`, xLabel: "bankroll (base stakes)", yLabel: "P(ruin)", series, yLog: true, yFormat: v => v >= 0.01 ? `${+(100 * v).toFixed(1)}%` : v.toExponential(0), marker: {x: s.bankroll, label: "your bankroll"}});
}

// ------------------------------------------------------------------ grid
async function loadGrid(q, version) {
  $("grid-chart").innerHTML = "";
  $("grid-table").innerHTML = "";
  if (!PAGE.state.sweep || !PAGE.state.sweep_values) { $("grid-table").innerHTML = `<p class="muted">Choose a rule or a strategy parameter and its values (e.g. 14,15,16,17,18).</p>`; return; }
  const c = controller();
  busy(true, "computing the grid's exact values…");
  try {
    const r = await api("/api/exact", q, c.signal);
    if (version !== PAGE.version) return;
    PAGE.exact = r;
    renderGrid(r, null);
    // Every point simulated too: the simulated points and their bands beside the exact curve.
    if (r.rows.some(x => x.edge || x.mean_net === null)) startSimulation(q, version);
    else busy(false);
  } catch (err) { if (version === PAGE.version) { busy(false); showError(err); } }
}

function renderGrid(r, sim) {
  if (!r) return;
  const column = r.column;
  const numeric = r.rows.every(x => typeof x.x === "number");
  const labels = r.rows.map(x => x.x);
  const X = v => numeric ? v : labels.indexOf(v);
  const exactPts = r.rows.filter(x => x.edge).map(x => ({x: X(x.x), y: 100 * x.edge.value}));
  const simRows = sim ? sim.rows : [];
  const simPts = simRows.filter(x => Number.isFinite(x.edge)).map(x => ({x: X(x.x), y: 100 * x.edge, lo: 100 * x.edge_ci95_low, hi: 100 * x.edge_ci95_high}));
  const series = [];
  if (exactPts.length) series.push({name: "exact", points: exactPts, dashed: true, markers: true});
  if (simPts.length) series.push({name: "simulated (95%)", points: simPts, errorBars: true, markers: true, band: true, colour: "#d9480f"});
  Charts.line($("grid-chart"), {title: `House edge ${PAGE.game.headline_basis} by ${column.replaceAll("_", " ")}` +
      (exactPts.length ? ": exact (dashed)" : "") + (simPts.length ? " and simulated with 95% bands" : ""), xLabel: column.replaceAll("_", " "),
    yLabel: "house edge (%)", series, yFormat: v => `${+v.toFixed(3)}`,
    xTicks: numeric ? undefined : labels.map((_, i) => i), xFormat: numeric ? undefined : (i => String(labels[i]))});
  const table = document.createElement("table");
  table.className = "nums";
  table.innerHTML = `<tr><th></th><th>exact</th><th>simulated</th><th>95% interval</th><th>rounds</th></tr>`;
  table.querySelector("th").textContent = column;
  for (const row of r.rows) {
    const s = simRows.find(x => x.variant === row.variant && x.strategy === row.strategy);
    const tr = document.createElement("tr");
    const cells = [String(row.x), row.edge ? `${row.edge.fraction && row.edge.fraction.length < 16 ? row.edge.fraction + " = " : ""}${row.edge.percent}` : "no exact value",
      s ? pct(s.edge) : (row.edge ? "" : "…"), s ? `${pct(s.edge_ci95_low)} to ${pct(s.edge_ci95_high)}` : "", s ? fmtInt(s.rounds) : ""];
    for (const c of cells) { const td = document.createElement("td"); td.textContent = c; tr.appendChild(td); }
    table.appendChild(tr);
  }
  $("grid-table").innerHTML = "";
  $("grid-table").appendChild(table);
  const notes = [...new Set(r.rows.filter(x => x.note).map(x => x.note))];
  if (notes.length) { const p = document.createElement("p"); p.className = "note"; p.textContent = notes.join("; "); $("grid-table").appendChild(p); }
  if (sim) { const p = document.createElement("p"); p.className = "note"; p.textContent = `Simulated: ${fmtInt(sim.rows.reduce((a, x) => a + x.rounds, 0))} ${PAGE.game.round_name}s in ${sim.seconds.toFixed(1)} s${sim.done ? (sim.stopped ? `; ${sim.stopped}` : "; finished") : "…"}.`; $("grid-table").appendChild(p); }
}

// ------------------------------------------------------------------ wiring
function wire() {
  $("game").addEventListener("change", async () => {
    cancelAll();
    PAGE.fileRows = null;
    PAGE.state = {view: PAGE.state.view};
    try { await loadGame($("game").value, false); renderAll(); changed(); } catch (err) { showError(err); }
  });
  $("preset").addEventListener("change", () => {
    PAGE.state.preset = $("preset").value;
    for (const k of Object.keys(PAGE.state)) if (k.startsWith("r.")) delete PAGE.state[k];
    renderAll(); changed();
  });
  $("strategy").addEventListener("change", () => {
    for (const k of Object.keys(PAGE.state)) if (k.startsWith("p.") || k.startsWith("b.")) delete PAGE.state[k];
    delete PAGE.state.banker;
    PAGE.state.strategy = $("strategy").value;
    renderStrategy(); renderSweep(); changed();
  });
  $("banker").addEventListener("change", () => {
    for (const k of Object.keys(PAGE.state)) if (k.startsWith("b.")) delete PAGE.state[k];
    if ($("banker").value) PAGE.state.banker = $("banker").value; else delete PAGE.state.banker;
    renderStrategy(); changed();
  });
  $("file").addEventListener("change", () => { if ($("file").value) openFile($("file").value); });
  $("file-variant").addEventListener("change", () => openFile(PAGE.state.file, $("file-variant").value, $("file-row").value));
  $("file-row").addEventListener("change", () => openFile(PAGE.state.file, $("file-variant").value, $("file-row").value));
  $("reset-rules").addEventListener("click", () => {
    for (const k of Object.keys(PAGE.state)) if (k.startsWith("r.")) delete PAGE.state[k];
    renderRules(); changed();
  });
  $("sweep").addEventListener("change", () => { if ($("sweep").value) PAGE.state.sweep = $("sweep").value; else delete PAGE.state.sweep; changed(); });
  $("sweep_values").addEventListener("change", () => { PAGE.state.sweep_values = $("sweep_values").value.trim(); changed(); });
  document.querySelectorAll(".tab").forEach(t => t.addEventListener("click", () => { PAGE.state.view = t.dataset.view; showView(); changed(); }));
  $("cancel").addEventListener("click", () => { cancelAll(); $("sim-status").textContent += " (cancelled)"; });
  $("copy-link").addEventListener("click", async () => {
    try { await navigator.clipboard.writeText(location.href); $("copy-link").textContent = "Link copied"; }
    catch (e) { window.prompt("A link to this view:", location.href); }
    setTimeout(() => { $("copy-link").textContent = "Copy link"; }, 1500);
  });
}

async function boot() {
  wire();
  try {
    PAGE.meta = await api("/api/meta", "");
    for (const g of PAGE.meta.games) { const o = document.createElement("option"); o.value = g.name; o.textContent = g.name; $("game").appendChild(o); }
    for (const f of PAGE.meta.experiments) { const o = document.createElement("option"); o.value = f.file; o.textContent = `${f.file} (${f.game})`; o.title = f.description; $("file").appendChild(o); }
    PAGE.state = stateFromURL();
    if (PAGE.state.file && !PAGE.state.game) { await openFile(PAGE.state.file, PAGE.state.variant, PAGE.state.row); return; }
    await loadGame(PAGE.state.game || "faro", Boolean(PAGE.state.game));
    if (PAGE.state.file) {
      try { const o = await api("/api/open", new URLSearchParams({file: PAGE.state.file}).toString()); PAGE.fileRows = {variants: o.variants, strategies: o.strategies}; } catch (e) { /* shown on use */ }
    }
    renderAll();
    writeURL();
    refresh();
  } catch (err) { showError(err); }
}

boot();
