"""The risk files of a run with a ``[session]`` table: ``risk.csv`` (every method, every
column of :mod:`sim.risk.table`), ``risk.md`` (the headline), ``risk_curves.csv`` (ruin
against bankroll, the charts' data) and the charts ``risk_fan.png``, ``risk_ruin.png`` and
``risk_results.png``, from the sessions a run played (:mod:`sim.engine.session_play`); nothing here
plays a round."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd

from sim.core.files import write_atomic
from sim.engine.runner import RunResult
from sim.risk.table import RiskResult, with_sessions

HEADLINE = ["variant", "strategy", "method", "p_ruin", "stderr_p_ruin", "z_p_ruin_vs_exact",
            "p_ruin_long_run", "p_ahead", "mean_result", "q5", "q50", "q95",
            "ev_per_hour", "sd_per_hour", "n0_rounds"]


def measure_all(result: RunResult) -> list[RiskResult]:
    """Exact, diffusion and Monte Carlo for every row of a run: its risk models and the
    sessions it played, side by side (nothing is computed here but the sessions' own
    figures against the models')."""
    exp = result.experiment
    return [with_sessions(result.risk[(vi, si)], exp.game, variant.name, spec.name,
                          spec.progression, exp.session, result.sessions[(vi, si)])
            for vi, variant in enumerate(exp.variants)
            for si, spec in enumerate(exp.strategies)]


def frame_of(results: list[RiskResult]) -> pd.DataFrame:
    """One row per (variant, strategy, method)."""
    return pd.DataFrame([row for r in results for row in r.rows])


def curves_of(results: list[RiskResult]) -> pd.DataFrame:
    rows = []
    for r in results:
        for i, b in enumerate(r.bankrolls):
            rows.append({"variant": r.variant, "strategy": r.strategy, "bankroll": b,
                         "exact": math.nan if r.curve_exact is None else r.curve_exact[i],
                         "diffusion": r.curve_diffusion[i], "mc": r.curve_mc[i],
                         "sessions": r.mc.sessions})
    return pd.DataFrame(rows)


def _fmt(x: Any) -> str:
    if isinstance(x, float):
        return "" if math.isnan(x) else f"{x:.4g}"
    return str(x)


def markdown(exp: Any, frame: pd.DataFrame) -> str:
    s = exp.session
    stops = "".join([f", stop-win +{s.stop_win:g}" if s.stop_win else "",
                     f", stop-loss -{s.stop_loss:g}" if s.stop_loss else ""])
    cols = [c for c in HEADLINE if c in frame]
    lines = [f"# {exp.name}: bankroll and risk of ruin", "",
             f"Bankroll {s.bankroll:g} base stakes, sessions of {s.rounds:,} rounds "
             f"({s.rounds_per_hour:g} an hour){stops}; {s.sessions:,} Monte Carlo sessions "
             "per row. Ruin: the bankroll is gone (the round in play is finished on credit). "
             "Methods: `exact` (a dynamic programme over the bankroll from the round's exact "
             "law, or under a progression from the chain of its unit), `diffusion` "
             "(Brownian motion with the round's mean and SD; `moments` says whose), `mc` "
             "(sessions on the kernel; `z_*_vs_exact` against the exact value).",
             "", "| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for _, row in frame[cols].iterrows():
        lines.append("| " + " | ".join(_fmt(row[c]) for c in cols) + " |")
    lines += ["", "Every column, the bankroll for each target risk and SCORE: `risk.csv`; "
              "charts: `risk_fan.png`, `risk_ruin.png`, `risk_results.png`.", ""]
    return "\n".join(lines)


def _risk_label(column: str) -> str:
    """``bankroll_risk_13_5`` -> ``13.5%``."""
    return column.removeprefix("bankroll_risk_").replace("_", ".") + "%"


def percent(p: float) -> str:
    """A probability for a reader: in %, to three significant figures (0.449%, 25.3%,
    100%), "0%" for none and "< 0.001%" below that."""
    if not isinstance(p, float | int) or math.isnan(p):
        return ""
    x = 100 * float(p)
    if x == 0:
        return "0%"
    if x < 1e-3:
        return "< 0.001%"
    decimals = min(3, max(0, 2 - math.floor(math.log10(x))))
    return f"{x:.{decimals}f}%"


def _units(x: Any, signed: bool = False) -> str:
    """An amount in base stakes, to the unit's tenth (none where missing)."""
    if not isinstance(x, float | int) or math.isnan(x):
        return ""
    return f"{x:+,.1f}" if signed else f"{x:,.1f}".removesuffix(".0")


def answers(frame: pd.DataFrame) -> pd.DataFrame:
    """The risk table's answers for a reader, one row per (variant, strategy, method):
    P(ruin) within the session and P(ahead) in %, the Monte Carlo's standard error and z
    against the exact value, the bankroll each target risk needs, and the EV and SD per
    hour in base stakes; formatted as text (``risk.csv`` has the raw figures)."""
    risks = [c for c in frame.columns if c.startswith("bankroll_risk_")]

    def column(name: str) -> pd.Series:
        return frame[name] if name in frame else pd.Series(math.nan, index=frame.index)

    rounds = int(frame["rounds"].iloc[0])
    shown = {
        "variant": frame["variant"], "strategy": frame["strategy"], "method": frame["method"],
        f"P(ruin) in {rounds:,} rounds": frame["p_ruin"].map(percent),
        "± SE": column("stderr_p_ruin").map(percent),
        "z": column("z_p_ruin_vs_exact").map(
            lambda z: "" if math.isnan(z) else f"{z:+.2f}"),
        "P(ahead)": frame["p_ahead"].map(percent),
        **{f"bankroll for {_risk_label(c)} risk": frame[c].map(_units) for c in risks},
        "EV per hour": frame["ev_per_hour"].map(lambda x: _units(x, signed=True)),
        "SD per hour": frame["sd_per_hour"].map(_units),
    }
    return pd.DataFrame(shown)


def answers_title(frame: pd.DataFrame) -> str:
    """What the answers are about: the bankroll, the session and the units."""
    row = frame.iloc[0]
    stops = "".join([f", stop-win +{row['stop_win']:g}" if row["stop_win"] > 0 else "",
                     f", stop-loss -{row['stop_loss']:g}" if row["stop_loss"] > 0 else ""])
    return (f"the answers: a bankroll of {row['bankroll']:g} base stakes, sessions of "
            f"{int(row['rounds']):,} rounds ({row['rounds_per_hour']:g} an hour){stops}; "
            "amounts in base stakes")


CHARTS = (("risk_fan.png", "Bankroll over the session: quantile bands and sample sessions.",
           "fan_chart"),
          ("risk_ruin.png", "Risk of ruin against bankroll: exact, diffusion and Monte Carlo "
           "with 95% intervals.", "ruin_chart"),
          ("risk_results.png", "The distribution of the session result.", "result_chart"))


def figures(results: list[RiskResult]) -> Iterator[tuple[str, str, Any]]:
    """(file name, caption, Figure) of each risk chart, one at a time (a caller saves and
    closes each before the next is drawn: memory stays flat)."""
    from sim.outputs import risk_charts

    for name, caption, chart in CHARTS:
        yield name, caption, getattr(risk_charts, chart)(results)


def write_risk(result: RunResult, out_dir: Path,
               footer: str | None = None, draw: bool = True
               ) -> tuple[pd.DataFrame, list[tuple[str, str, bytes]]]:
    """Write the risk files of a run with a ``[session]`` table into ``out_dir`` (its charts
    unless ``draw`` is False), from the sessions it played and its rows' exact records.

    Returns:
        risk.csv's frame, and (file name, caption, SVG bytes) of each risk chart for the page.
    """
    from sim.outputs import charts

    results = measure_all(result)
    frame = frame_of(results)
    write_atomic(out_dir / "risk.csv", frame.to_csv(index=False))
    write_atomic(out_dir / "risk_curves.csv", curves_of(results).to_csv(index=False))
    write_atomic(out_dir / "risk.md", markdown(result.experiment, frame))
    svgs: list[tuple[str, str, bytes]] = []
    if not draw:
        return frame, svgs
    for name, caption, figure in figures(results):
        if footer:
            charts.add_footer(figure, footer)
        write_atomic(out_dir / name, charts.figure_bytes(figure, "png", close=False))
        svgs.append((name, caption, charts.figure_bytes(figure, "svg")))
    return frame, svgs


def short_table(out_dir: Path) -> str:
    """The terminal's view of ``risk.csv``: ruin (with z against exact), P(ahead), the
    median result and the bankroll for the first target risk, by method."""
    frame = pd.read_csv(out_dir / "risk.csv")
    risk_col = next(c for c in frame.columns if c.startswith("bankroll_risk_"))
    label = risk_col.removeprefix("bankroll_risk_").replace("_", ".")
    vw = max(8, *(len(str(v)) for v in frame["variant"])) + 2
    sw = max(9, *(len(str(s)) for s in frame["strategy"])) + 2
    lines = [f"\n{'variant':<{vw}}{'strategy':<{sw}}{'method':<11}{'P(ruin) %':>10}"
             f"{'± se':>8}{'z':>7}{'P(ahead) %':>12}{'median':>9}{f'B({label}%)':>10}"]
    for _, r in frame.iterrows():
        se = "" if math.isnan(r.get("stderr_p_ruin", math.nan)) else (
            f"{100 * r['stderr_p_ruin']:.3f}")
        z = r.get("z_p_ruin_vs_exact", math.nan)
        lines.append(
            f"{r['variant']:<{vw}}{r['strategy']:<{sw}}{r['method']:<11}"
            f"{100 * r['p_ruin']:>10.3f}{se:>8}{'' if math.isnan(z) else f'{z:+.2f}':>7}"
            f"{_fmt(100 * r['p_ahead']):>12}{_fmt(r['q50']):>9}{_fmt(r[risk_col]):>10}")
    return "\n".join(lines)


def session_rounds_played(out_dir: Path) -> int:
    """The rounds the Monte Carlo sessions of ``risk.csv`` played, all rows together."""
    frame = pd.read_csv(out_dir / "risk.csv")
    mc = frame[frame["method"] == "mc"]
    return int(round((mc["sessions"] * mc["mean_rounds_played"]).sum()))
