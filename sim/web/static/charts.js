// Small SVG line charts for what moves on the page (a simulation's estimate, ruin against
// bankroll, a grid's curve): served with the page, nothing fetched from elsewhere.
"use strict";

const Charts = (() => {
  const NS = "http://www.w3.org/2000/svg";
  const COLOURS = ["#0f5fa8", "#d9480f", "#2b8a3e", "#862e9c", "#c92a2a", "#5c7cfa"];

  function el(name, attrs, parent) {
    const node = document.createElementNS(NS, name);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (parent) parent.appendChild(node);
    return node;
  }

  function niceTicks(lo, hi, count) {
    if (!(hi > lo)) { const d = Math.abs(lo) || 1; lo -= d / 2; hi += d / 2; }
    const raw = (hi - lo) / count;
    const mag = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 2.5, 5, 10].map(m => m * mag).find(s => s >= raw) || 10 * mag;
    const ticks = [];
    for (let t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) ticks.push(+t.toPrecision(12));
    return ticks;
  }

  function logTicks(lo, hi) {
    const ticks = [];
    const few = Math.log10(hi / lo) < 3;  // a short range: 1, 2 and 5 of each decade
    for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) {
      for (const m of few ? [1, 2, 5] : [1]) ticks.push(m * Math.pow(10, e));
    }
    return ticks;
  }

  // spec: {title, xLabel, yLabel, series: [{name, points: [{x, y, lo, hi}], dashed, markers,
  //        band, colour}], xLog, yLog, yFormat, xFormat, marker: {x, label}, zero}
  function line(container, spec) {
    container.innerHTML = "";
    const W = 820, H = 330, m = {l: 70, r: 190, t: 34, b: 46};
    const svg = el("svg", {viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": spec.title || "chart"});
    el("rect", {x: 0, y: 0, width: W, height: H, fill: "#fff"}, svg);
    const pts = spec.series.flatMap(s => s.points).filter(p => Number.isFinite(p.y));
    if (!pts.length) { container.appendChild(svg); return; }
    const ys = pts.flatMap(p => [p.y, Number.isFinite(p.lo) ? p.lo : p.y, Number.isFinite(p.hi) ? p.hi : p.y]);
    const xs = pts.map(p => p.x);
    let [x0, x1] = [Math.min(...xs), Math.max(...xs)];
    let [y0, y1] = [Math.min(...ys), Math.max(...ys)];
    if (spec.zero) { y0 = Math.min(y0, 0); y1 = Math.max(y1, 0); }
    if (spec.yLog) { y0 = Math.max(Math.min(...ys.filter(v => v > 0)), 1e-12); y1 = Math.max(y1, y0 * 10); }
    if (x1 === x0) { x0 -= 1; x1 += 1; }
    if (!spec.yLog) { const pad = (y1 - y0 || Math.abs(y1) || 1) * 0.08; y0 -= pad; y1 += pad; }
    const fx = spec.xLog ? (x => Math.log10(x)) : (x => x);
    const fy = spec.yLog ? (y => Math.log10(Math.max(y, y0))) : (y => y);
    const X = x => m.l + (fx(x) - fx(x0)) / (fx(x1) - fx(x0)) * (W - m.l - m.r);
    const Y = y => H - m.b - (fy(y) - fy(y0)) / (fy(y1) - fy(y0)) * (H - m.t - m.b);
    const fmtY = spec.yFormat || (v => String(+v.toPrecision(4)));
    const fmtX = spec.xFormat || (v => v.toLocaleString("en"));
    const yt = spec.yLog ? logTicks(y0, y1) : niceTicks(y0, y1, 5);
    for (const t of yt) {
      if (t < y0 || t > y1) continue;
      el("line", {x1: m.l, x2: W - m.r, y1: Y(t), y2: Y(t), stroke: "#eef0f3"}, svg);
      el("text", {x: m.l - 6, y: Y(t) + 4, "text-anchor": "end", "font-size": 11, fill: "#667085"}, svg).textContent = fmtY(t);
    }
    const xt = spec.xTicks || (spec.xLog ? logTicks(x0, x1) : niceTicks(x0, x1, 6));
    for (const t of xt) {
      if (t < x0 || t > x1) continue;
      el("line", {x1: X(t), x2: X(t), y1: H - m.b, y2: H - m.b + 4, stroke: "#98a2b3"}, svg);
      el("text", {x: X(t), y: H - m.b + 17, "text-anchor": "middle", "font-size": 11, fill: "#667085"}, svg).textContent = fmtX(t);
    }
    el("line", {x1: m.l, x2: W - m.r, y1: H - m.b, y2: H - m.b, stroke: "#98a2b3"}, svg);
    el("line", {x1: m.l, x2: m.l, y1: m.t, y2: H - m.b, stroke: "#98a2b3"}, svg);
    if (spec.zero && y0 < 0 && y1 > 0) el("line", {x1: m.l, x2: W - m.r, y1: Y(0), y2: Y(0), stroke: "#98a2b3", "stroke-dasharray": "2 3"}, svg);
    el("text", {x: m.l, y: 20, "font-size": 13, "font-weight": 600, fill: "#1d2430"}, svg).textContent = spec.title || "";
    el("text", {x: (m.l + W - m.r) / 2, y: H - 8, "text-anchor": "middle", "font-size": 12, fill: "#1d2430"}, svg).textContent = spec.xLabel || "";
    const yl = el("text", {x: 16, y: (m.t + H - m.b) / 2, "text-anchor": "middle", "font-size": 12, fill: "#1d2430",
      transform: `rotate(-90 16 ${(m.t + H - m.b) / 2})`}, svg);
    yl.textContent = spec.yLabel || "";
    spec.series.forEach((s, i) => {
      const colour = s.colour || COLOURS[i % COLOURS.length];
      const p = s.points.filter(q => Number.isFinite(q.y)).sort((a, b) => a.x - b.x);
      if (!p.length) return;
      if (s.band && p.some(q => Number.isFinite(q.lo))) {
        const bp = p.filter(q => Number.isFinite(q.lo) && Number.isFinite(q.hi));
        const d = bp.map((q, j) => `${j ? "L" : "M"}${X(q.x)},${Y(q.hi)}`).join("") +
          bp.slice().reverse().map(q => `L${X(q.x)},${Y(q.lo)}`).join("") + "Z";
        if (bp.length > 1) el("path", {d, fill: colour, "fill-opacity": 0.14, stroke: "none"}, svg);
      }
      if (s.errorBars) {
        for (const q of p) if (Number.isFinite(q.lo)) {
          el("line", {x1: X(q.x), x2: X(q.x), y1: Y(q.lo), y2: Y(q.hi), stroke: colour, "stroke-width": 1.6}, svg);
          for (const v of [q.lo, q.hi]) el("line", {x1: X(q.x) - 4, x2: X(q.x) + 4, y1: Y(v), y2: Y(v), stroke: colour, "stroke-width": 1.6}, svg);
        }
      }
      if (!s.noLine && p.length > 1) {
        el("path", {d: p.map((q, j) => `${j ? "L" : "M"}${X(q.x)},${Y(q.y)}`).join(""), fill: "none", stroke: colour,
          "stroke-width": 1.8, "stroke-dasharray": s.dashed ? "6 4" : ""}, svg);
      }
      if (s.markers || p.length === 1) for (const q of p) el("circle", {cx: X(q.x), cy: Y(q.y), r: 3.5, fill: colour}, svg);
      const ly = m.t + 8 + i * 18;
      el("line", {x1: W - m.r + 14, x2: W - m.r + 36, y1: ly, y2: ly, stroke: colour, "stroke-width": 2, "stroke-dasharray": s.dashed ? "6 4" : ""}, svg);
      el("text", {x: W - m.r + 42, y: ly + 4, "font-size": 11, fill: "#1d2430"}, svg).textContent = s.name;
    });
    if (spec.marker && Number.isFinite(spec.marker.x) && spec.marker.x >= x0 && spec.marker.x <= x1) {
      el("line", {x1: X(spec.marker.x), x2: X(spec.marker.x), y1: m.t, y2: H - m.b, stroke: "#98a2b3", "stroke-dasharray": "3 3"}, svg);
      el("text", {x: X(spec.marker.x) + 4, y: m.t + 10, "font-size": 11, fill: "#667085"}, svg).textContent = spec.marker.label || "";
    }
    container.appendChild(svg);
  }

  return {line};
})();
