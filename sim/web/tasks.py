"""What the page computes, each a task a worker process runs (:mod:`sim.web.workers`).

Every task starts from the page's state (:mod:`sim.web.state`) and goes through the command
line's code: the experiment is validated by :mod:`sim.engine.experiment`; exact values are
``houseedge exact``'s (:func:`sim.outputs.exact_report.values`); a simulation plays the runner's
own chunks (:func:`sim.engine.runner.run_chunk`, the same streams for the same seed) into a run
folder's checkpoints (:class:`sim.engine.checkpoints.CheckpointStore`, merged in chunk order,
with the same target rule), and reads its numbers with the report's code
(:func:`sim.outputs.report.build`, :func:`sim.engine.compare.comparison_frame`): the estimate
and interval streamed after the last chunk are those ``houseedge run`` reports for the
same seed and rounds. Results are plain data (JSON), numbers as the page shows them.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Iterator, Mapping
from fractions import Fraction
from pathlib import Path
from typing import Any

from sim import games
from sim.web import state as page_state

# The workers' fork server imports this module once (sim.web.workers): what every task uses is
# imported here, so that each worker forked from it starts with it in memory.
os.environ.setdefault("MPLBACKEND", "Agg")
import matplotlib.pyplot  # noqa: E402, F401

from sim.engine import runner  # noqa: E402
from sim.outputs import charts as _charts  # noqa: E402, F401
from sim.outputs import exact_report, report  # noqa: E402, F401

SNAPSHOT_SECONDS = 0.25  # the least time between two streamed estimates of a simulation
MAX_CHARTS = 6


# ---------------------------------------------------------------------------- numbers
def _finite(x: Any) -> float | None:
    try:
        value = float(x)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def _fraction(text: Any) -> Fraction | None:
    if not isinstance(text, str) or not text:
        return None
    try:
        return Fraction(text)
    except (ValueError, ZeroDivisionError):
        return None


def edge_value(value: Any, fraction: Fraction | None = None, percent: bool = True
               ) -> dict[str, Any] | None:
    """An exact edge as the page shows it: the fraction where exact, the decimal and the %
    (``houseedge exact``'s words, :func:`sim.outputs.exact_report.edge_words`); a points
    game's mean without the % (``percent`` false)."""
    from sim.outputs.exact_report import clean, number

    number_value = _finite(value)
    if number_value is None:
        return None
    number_value = clean(number_value)
    return {"value": number_value,
            "fraction": number(fraction) if fraction is not None else "",
            "percent": f"{100 * number_value:.4f}%" if percent else f"{number_value:.6g}",
            "decimal": f"{number_value:.6g}"}


# ------------------------------------------------------------------------------ tasks
def warm(kind: str = "task") -> str:
    """Import and run once what a worker's first questions use, so that they wait for no
    import or compiling: the exact code and a session's risk (``"task"``), the exact charts
    (``"charts"``), or a simulation's kernel (``"simulation"``)."""
    import tempfile

    folder = str(Path.cwd())
    query = {"game": "faro", "view": "risk"}
    if kind == "task":
        exact(query, folder)
        risk(query, folder)
        return "ready"
    if kind == "charts":
        charts(query, folder)
        return "ready"
    query = {"game": "pontoon", "rounds": "2000", "chunk_rounds": "1000"}
    with tempfile.TemporaryDirectory(prefix="houseedge-warm-") as out:
        for _ in simulate(query, folder, out, 60.0):
            pass
    return "ready"


def games_list() -> list[dict[str, str]]:
    """Every game's name and description."""
    return [{"name": n, "description": games.get(n).description} for n in games.names()]


def controls(name: str, folder: str) -> dict[str, Any]:
    """A game's controls (:func:`sim.web.state.game_controls`), with the strategy the page
    starts from (:func:`sim.web.state.start_strategy`)."""
    page_state.game_of({"game": name})
    out = page_state.game_controls(name)
    out["start"] = page_state.start_strategy(name, Path(folder))
    return out


def open_file(folder: str, name: str, variant: str | None, row: str | None) -> dict[str, Any]:
    """The state of an experiment file of the folder."""
    return page_state.open_file(Path(folder), name, variant, row)


def exact(query: Mapping[str, str], folder: str) -> dict[str, Any]:
    """The exact values of the state's rows on both bases, the SD of a round, and the
    difference of the what-if rules from their preset (fractions where both are exact)."""
    from sim.outputs.exact_report import values

    started = time.perf_counter()
    exp = page_state.load(query, Path(folder))
    game = games.get(exp.game)
    frame = values(exp)
    grid = exp.resolved.get("grid") or {}
    column = grid.get("columns", [None])[0] if grid else None
    measure = game.measure
    basis = exact_report.HEADLINE_VALUE[measure.basis]
    other = {"edge_per_total_wagered": "edge_per_initial_bet",
             "edge_per_initial_bet": "edge_per_total_wagered"}.get(basis)
    rows = []
    for record, fractions in zip(frame.to_dict("records"), frame.attrs["fractions"]):
        point = {**grid.get("variants", {}).get(record["variant"], {}),
                 **grid.get("strategies", {}).get(record["strategy"], {})}
        no_edge = record["note"].startswith("not offered") if record["note"] else False
        rows.append({
            "variant": record["variant"], "strategy": record["strategy"],
            "role": "what-if" if record["variant"] == page_state.WHAT_IF or len(frame) == 1
            else "preset",
            "x": _plain(point.get(column)) if column else None,
            "edge": None if no_edge else edge_value(record[basis], fractions.get(basis),
                                                    measure.percent),
            "other": None if no_edge or other is None else edge_value(
                record[other], fractions.get(other)),
            "mean_net": _finite(record["mean_net"]),
            "sd": _finite(record["sd_net"]) if _finite(record["sd_net"]) is not None
            else _law_sd(game, exp, record["variant"], record["strategy"]),
            "note": record["note"]})
    return {"rows": rows, "diff": _difference(rows) if len(rows) == 2 and not column else None,
            "basis": page_state.bases(game), "round_name": game.round_name,
            "column": column, "simulate": any(r["edge"] is None and r["mean_net"] is None
                                              for r in rows),
            "seconds": time.perf_counter() - started}


def _law_sd(game: Any, exp: Any, variant: str, strategy: str) -> float | None:
    """The SD of a round's net result from its exact law, where the exact value gives none
    (a faro deal) and the game has the law of a round (not a chain's)."""
    from sim.risk.law import RoundLaw

    rules = next(v.rules for v in exp.variants if v.name == variant)
    spec = next(s for s in exp.strategies if s.name == strategy)
    pairs = game.round_law(rules, spec.build(exp.game), spec.progression)
    return None if pairs is None else RoundLaw.from_pairs(*pairs).sd


def _difference(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    """What-if minus preset on both bases: exact fractions where both are."""
    what_if = next((r for r in rows if r["role"] == "what-if"), None)
    preset = next((r for r in rows if r["role"] == "preset"), None)
    if what_if is None or preset is None:
        return None
    out: dict[str, Any] = {}
    for key in ("edge", "other"):
        a, b = what_if[key], preset[key]
        if a is None or b is None:
            out[key] = None
            continue
        fa, fb = _fraction(a["fraction"]), _fraction(b["fraction"])
        out[key] = edge_value(a["value"] - b["value"],
                              fa - fb if fa is not None and fb is not None else None)
    return out


def charts(query: Mapping[str, str], folder: str) -> dict[str, Any]:
    """The game's exact odds charts of the what-if rules (those that belong to the state's
    strategy, as a run draws them), as SVG."""
    import matplotlib.pyplot as plt

    from sim.outputs.charts import figure_bytes
    from sim.outputs.exact_charts import variant_exact_charts

    exp = page_state.load({**query, "view": "edge"}, Path(folder))
    variant = exp.variants[-1]
    strategies = [spec.build(exp.game) for spec in exp.strategies]
    found = []
    try:
        for _variant, name, figure in variant_exact_charts(
                games.presentation(exp.game), [(variant.name, variant.rules)], strategies):
            if len(found) < MAX_CHARTS:
                found.append({"name": name, "svg": figure_bytes(figure, "svg").decode()})
            else:
                plt.close(figure)
    finally:
        plt.close("all")
    return {"variant": variant.name, "charts": found}


def risk(query: Mapping[str, str], folder: str) -> dict[str, Any]:
    """A session's risk for each row: exact ruin and the bankroll for the target risk from
    the round's exact law where the engine has one (:func:`sim.risk.table.model_risk`), else
    the diffusion from the mean and SD per round the page passes (``mu``, ``sigma``: the
    simulation's)."""
    from sim.engine.row_exact import row_exact
    from sim.risk.table import model_risk

    exp = page_state.load({**query, "view": "risk"}, Path(folder))
    game = games.get(exp.game)
    spec = exp.session
    out = []
    for variant in exp.variants:
        for strategy_spec in exp.strategies:
            # The law a run's risk files read: of a round, or of the chain of rounds.
            law = row_exact(game, variant.rules, strategy_spec.build(exp.game),
                            strategy_spec.progression, with_law=True).session_law()
            mu = _finite(query.get("mu")) if law is None else law.mean
            sigma = _finite(query.get("sigma")) if law is None else law.sd
            entry: dict[str, Any] = {"variant": variant.name, "strategy": strategy_spec.name,
                                     "exact": law is not None}
            if law is None and (mu is None or sigma is None):
                entry["note"] = ("no exact law of a round here: the risk follows from the "
                                 "simulation's mean and SD per round once it has them")
                out.append(entry)
                continue
            model = model_risk(exp.game, variant.name, strategy_spec.name,
                               strategy_spec.progression, spec, law, mu, sigma)
            row = model.rows[0]
            entry.update({
                "method": row["method"], "mu": mu, "sigma": sigma,
                "p_ruin": _finite(row["p_ruin"]),
                "p_ruin_long_run": _finite(row["p_ruin_long_run"]),
                "p_ahead": _finite(row.get("p_ahead")),
                "mean_result": _finite(row.get("mean_result")),
                "sd_result": _finite(row.get("sd_result")),
                "q5": _finite(row.get("q5")), "q95": _finite(row.get("q95")),
                "targets": [{"risk": r, "bankroll": _finite(
                    row.get(f"bankroll_risk_{_pct(r)}"))} for r in spec.target_risks],
                "curve": {"bankrolls": [float(b) for b in model.bankrolls],
                          "ruin": [float(x) for x in (model.curve_exact
                                                      if model.curve_exact is not None
                                                      else model.curve_diffusion)]}})
            out.append(entry)
    return {"session": {"bankroll": spec.bankroll, "rounds": spec.rounds,
                        "stop_win": spec.stop_win, "stop_loss": spec.stop_loss,
                        "target_risks": list(spec.target_risks)},
            "round_name": game.round_name, "rows": out}


def _pct(q: float) -> str:
    from sim.risk.table import _pct as pct

    return pct(q)


def experiment_toml(query: Mapping[str, str], folder: str) -> str:
    """The experiment file that reproduces the view with ``houseedge run`` (validated
    first: the page never offers a file the command line would refuse)."""
    data = page_state.experiment_data(query, Path(folder))
    page_state.load(query, Path(folder))
    return page_state.toml_text(data, query)


# -------------------------------------------------------------------------- simulation
def _row(record: Mapping[str, Any], column: str | None) -> dict[str, Any]:
    keys = ("rounds", "edge", "edge_stderr", "edge_ci95_low", "edge_ci95_high", "edge_exact",
            "edge_per_initial_bet", "ci95_low", "ci95_high", "edge_per_total_wagered",
            "stderr_per_total_wagered", "mean_net", "std_net")
    row: dict[str, Any] = {k: _finite(record.get(k)) for k in keys}
    row["rounds"] = int(record["rounds"])
    met = _plain(record.get("target_met"))
    row.update({"variant": record["variant"], "strategy": record["strategy"],
                "note": record.get("note") if isinstance(record.get("note"), str) else "",
                "target_met": met if isinstance(met, bool) else None,
                "x": _plain(record.get(column)) if column else None})
    if isinstance(row["x"], float) and not math.isfinite(row["x"]):
        row["x"] = None
    return row


def _plain(value: Any) -> Any:
    """A numpy scalar as the Python value it holds (for JSON)."""
    return value.item() if hasattr(value, "item") and not isinstance(value, str) else value


def snapshot(store: Any, started: float, total: int, done: bool,
             stopped: str = "") -> dict[str, Any]:
    """The run's numbers so far, read as the report reads a finished run's."""
    from sim.engine import compare
    from sim.engine.runner import RunResult

    exp = store.experiment
    result = RunResult.from_store(store)
    played = {pair for pair, p in store.progress.items() if p.chunks}
    if not played:
        return {"rows": [], "diffs": [], "chunks": 0, "total_chunks": total, "done": done,
                "seconds": time.perf_counter() - started, "stopped": stopped}
    frame = report.build(result)
    columns = compare.grid_columns(exp)
    column = columns[0] if columns else None
    keep = [(exp.variants[v].name, exp.strategies[s].name) for v, s in played]
    shown = frame[[(r.variant, r.strategy) in keep for r in frame.itertuples()]]
    diffs = []
    if len(played) == len(store.progress) and len(store.progress) > 1 and not column:
        paired = compare.comparison_frame(exp, result.totals, frame, columns)
        for r in paired.to_dict("records"):
            diffs.append({"variant": r["variant"], "baseline": r["baseline_variant"],
                          **{k: _finite(r[k]) for k in ("diff", "diff_stderr", "diff_ci95_low",
                                                        "diff_ci95_high", "diff_exact")},
                          "shared_cards": bool(r["shared_cards"])})
    trace: dict[str, list[dict[str, float]]] = {}
    if not column:  # the running estimate, as the report's convergence chart draws it
        conv = report.convergence(result, frame)
        for r in conv.to_dict("records"):
            if (r["variant"], r["strategy"]) in keep and _finite(r["edge"]) is not None:
                trace.setdefault(r["variant"], []).append(
                    {"x": int(r["rounds"]), "y": 100 * r["edge"],
                     "lo": 100 * r["ci95_low"], "hi": 100 * r["ci95_high"]})
    return {"rows": [_row(r, column) for r in shown.to_dict("records")], "diffs": diffs,
            "trace": trace,
            "chunks": sum(p.chunks for p in store.progress.values()), "total_chunks": total,
            "done": done, "seconds": time.perf_counter() - started, "stopped": stopped,
            "column": column}


def simulate(query: Mapping[str, str], folder: str, out_dir: str, seconds: float,
             cancelled: Callable[[], bool] = lambda: False) -> Iterator[dict[str, Any]]:
    """Play the state's experiment chunk by chunk into a run folder, yielding its numbers
    at most every :data:`SNAPSHOT_SECONDS` and after the last chunk, until every row has its
    rounds or has met its target, the page changes (``cancelled``), or ``seconds`` pass.

    The chunks are the runner's (:func:`sim.engine.runner.run_chunk` on the same seed), taken
    index by index across the rows so that every row's estimate moves from the start; the
    checkpoints merge each row's chunks in chunk order, whatever the order they came in, so
    the numbers are those of ``houseedge run`` with the same seed and rounds.
    """
    from sim.core.stats import Stats
    from sim.engine import checkpoints
    from sim.engine.row_exact import RowExact
    from sim.engine.run_folder import open_run

    started = time.perf_counter()
    exp = page_state.load(query, Path(folder))
    store, _notes = open_run(Path(out_dir), exp, resume=False, force=True)
    pairs = checkpoints.pairs(exp)
    counts = {pair: checkpoints.chunk_count(exp, pair[1]) for pair in pairs}
    total = sum(counts.values())
    files = tuple(sorted(exp.files.items()))
    # Each row's exact record first, as the runner makes it (the report reads it).
    for pair in store.exact_todo():
        _pair, data = runner.run_exact(exp.game, exp.variants[pair[0]].rules,
                                       exp.strategies[pair[1]], exp.session is not None, pair,
                                       files)
        store.add_exact(pair, RowExact.from_json(data))
    last = time.perf_counter()
    for index in range(max(counts.values())):
        for pair in pairs:
            if store.done(pair) or index >= counts[pair] or index < store.progress[pair].chunks:
                continue
            if cancelled():
                return
            if time.perf_counter() - started > seconds:
                yield snapshot(store, started, total, True,
                               f"stopped at the page's limit of {seconds:g} s a simulation")
                return
            chunk = checkpoints.chunk_of(exp, pair, index)
            variant, spec = exp.variants[pair[0]], exp.strategies[pair[1]]
            done_chunk, stats = runner.run_chunk(exp.game, variant.name, variant.rules, spec,
                                                 chunk.rounds, exp.seed, chunk, files)
            store.add(done_chunk, Stats.from_json(stats))
            if time.perf_counter() - last >= SNAPSHOT_SECONDS:
                last = time.perf_counter()
                yield snapshot(store, started, total, False)
    yield snapshot(store, started, total, True)


def report_html(query: Mapping[str, str], folder: str, out_dir: str) -> str:
    """``houseedge run`` of the state's experiment into ``out_dir``: the path of its
    report.html."""
    from sim.outputs import report

    exp = page_state.load(query, Path(folder))
    started = time.perf_counter()
    result = runner.run(exp, Path(out_dir), jobs=1, progress=False, force=True)
    report.write_all(result, Path(out_dir), time.perf_counter() - started, 1)
    return str(Path(out_dir) / "report.html")
