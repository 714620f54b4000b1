"""The report: one tidy row per game x variant x strategy, and the files of a run.

Columns (DESIGN.md): ``game, variant, strategy, rounds, mean_initial_stake,
mean_total_wagered, mean_net, edge_per_initial_bet, edge_per_total_wagered, std_net, stderr,
ci95_low, ci95_high, win_freq, push_freq, loss_freq, exact_edge, z_vs_exact``, then the
per-total-wagered standard error and exact value, the engine path, and game-specific columns.
Edges are the house's: positive means the house wins.
"""

from __future__ import annotations

import io
import json
import math
import platform
import subprocess
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import pandas as pd

from sim import games
from sim.core.estimate import HEADLINE_COLUMNS, STAKES, Estimate, Measure, estimate_of, headline
from sim.core.files import recording, write_atomic
from sim.core.stats import Z95, Stats
from sim.engine import compare, control
from sim.engine.checkpoints import trace_point
from sim.engine.run_folder import MANIFEST
from sim.engine.runner import RunResult
from sim.games.base import ExactValue

CORE_COLUMNS = [
    "game", "variant", "strategy", "rounds", "mean_initial_stake", "mean_total_wagered",
    "mean_net", "edge_per_initial_bet", "edge_per_total_wagered", "std_net", "stderr",
    "ci95_low", "ci95_high", "win_freq", "push_freq", "loss_freq", "exact_edge", "z_vs_exact",
    "stderr_per_total_wagered", "exact_edge_per_total_wagered", "z_vs_exact_per_total_wagered",
    "path",
]
# A points game stakes nothing: its rows have no edge columns, only the mean and its spread.
POINTS_COLUMNS = ["game", "variant", "strategy", "rounds", "mean_net", "std_net", "win_freq",
                  "push_freq", "loss_freq", "path"]


def stats_row(stats: Stats, measure: Measure) -> dict[str, float]:
    """The Monte Carlo columns of a row (the edges on both bases where the game stakes)."""
    row = {"rounds": stats.rounds, "mean_net": stats.mean_net, "std_net": stats.std_net,
           "win_freq": stats.frequency("win"), "push_freq": stats.frequency("push"),
           "loss_freq": stats.frequency("loss")}
    if measure.kind != STAKES:
        return row
    low, high = stats.ci95()
    return {
        **row,
        "mean_initial_stake": stats.mean_initial_stake,
        "mean_total_wagered": stats.mean_total_wagered,
        "edge_per_initial_bet": stats.edge_per_initial_bet,
        "edge_per_total_wagered": stats.edge_per_total_wagered,
        "stderr": stats.stderr,
        "ci95_low": low,
        "ci95_high": high,
        "stderr_per_total_wagered": stats.stderr_per_total_wagered,
    }


def estimates(stats: Stats, exact: ExactValue | None, measure: Measure
              ) -> dict[str, Estimate]:
    """The row's estimate on each basis its report gives, beside the exact value."""
    return {basis: estimate_of(stats, basis, exact.value(basis) if exact else None,
                               exact.stderr(basis, stats.rounds) if exact else None)
            for basis in measure.bases}


def stakes_columns(found: Mapping[str, Estimate]) -> dict[str, Any]:
    """Both bases' exact values and z, each z and interval taken with the error the headline
    uses (the exact SD's where the game gives it: ``stderr_exact`` columns), so they never
    contradict; Student's t on the batches where the error is from batch means."""
    initial, total = found["initial"], found["wagered"]
    row: dict[str, Any] = {"exact_edge": initial.exact}
    if initial.source == "exact":
        row["stderr_exact"] = initial.stderr
    row.update({"ci95_low": initial.value - initial.halfwidth,
                "ci95_high": initial.value + initial.halfwidth, "z_vs_exact": initial.z,
                "exact_edge_per_total_wagered": total.exact})
    if total.source == "exact":
        row["stderr_exact_per_total_wagered"] = total.stderr
    row["z_vs_exact_per_total_wagered"] = total.z
    return row


def build(result: RunResult) -> pd.DataFrame:
    """The report DataFrame of a run."""
    exp = result.experiment
    game = games.get(exp.game)
    shows = games.presentation(exp.game)
    measure = game.measure
    rows = []
    for vi, variant in enumerate(exp.variants):
        for si, spec in enumerate(exp.strategies):
            stats = result.merged(vi, si)
            record = result.exact[(vi, si)]
            exact = record.value
            row: dict[str, Any] = {"game": exp.game, "variant": variant.name,
                                   "strategy": spec.name, **stats_row(stats, measure),
                                   **compare.row_columns(result, (vi, si))}
            found = estimates(stats, exact, measure)
            if measure.kind == STAKES:
                row.update(stakes_columns(found))
            # No note is an empty cell, alike in CSV and Parquet.
            row["path"], row["path_note"] = record.path, record.path_note or math.nan
            row.update(headline(measure, found[measure.basis], stats, record.not_offered))
            # Why there is no exact value, in words (the exact columns are empty then).
            row["exact_note"] = record.unavailable if exact is None and not row["note"] else ""
            row.update(shows.columns(stats))
            row["note"] = "; ".join(n for n in (row["note"], *shows.notes(stats)) if n)
            rows.append(row)
    frame = pd.DataFrame(rows)
    lent = control.columns(result, frame)
    if lent is not None:  # rows with no exact value, lent precision by exact rows
        frame = pd.concat([frame, lent], axis=1)
    core = CORE_COLUMNS if measure.kind == STAKES else POINTS_COLUMNS
    swept = compare.grid_columns(exp)  # one column per swept parameter, beside the names
    first = core[:3] + swept + core[3:]
    extra = [c for c in frame.columns if c not in first + HEADLINE_COLUMNS]
    return frame[first + HEADLINE_COLUMNS + extra]


TRACE_KEYS = {"initial": ("edge", "stderr"), "wagered": ("edge_total", "stderr_total"),
              "round": ("mean_net", "stderr_mean_net")}


def convergence(result: RunResult, frame: pd.DataFrame | None = None) -> pd.DataFrame:
    """The running headline estimate after each chunk, with its 95% band.

    Where ``frame`` (the report) says the standard error is exact, the band is the exact one
    scaled to the rounds played so far (the error shrinks as one over the root of the rounds);
    otherwise it is the sample's.
    """
    exp = result.experiment
    # The running estimate on the headline's basis, as the checkpoints keep it.
    edge_key, stderr_key = TRACE_KEYS[games.get(exp.game).measure.basis]
    final = {} if frame is None else {
        (r.variant, r.strategy): r for r in frame.itertuples(index=False)}
    # A row with no edge to show has no running one either: its net of 0 is no edge of 0%.
    without_edge = _rows_without_an_edge(frame)
    rows = []
    for (vi, si), trace in sorted(result.traces.items()):
        merged = result.merged(vi, si)
        points = [*trace] if trace and trace[-1]["rounds"] == merged.rounds else [
            *trace, trace_point(len(trace), merged)]
        variant, strategy = exp.variants[vi].name, exp.strategies[si].name
        last = final.get((variant, strategy))
        no_edge = (variant, strategy) in without_edge
        for point in points:
            edge, stderr = point.get(edge_key, math.nan), point.get(stderr_key, math.nan)
            source = "sample"
            if no_edge:
                edge = stderr = math.nan
            elif last is not None and last.stderr_source == "exact" and point["rounds"]:
                stderr = last.edge_stderr * math.sqrt(merged.rounds / point["rounds"])
                source = "exact"
            rows.append({"variant": variant, "strategy": strategy, "rounds": point["rounds"],
                         "edge": edge, "stderr": stderr, "stderr_source": source,
                         "mean_net": point.get("mean_net", math.nan),
                         "stderr_mean_net": point.get("stderr_mean_net", math.nan)})
    frame_out = pd.DataFrame(rows, columns=["variant", "strategy", "rounds", "edge", "stderr",
                                            "stderr_source", "mean_net", "stderr_mean_net"])
    frame_out["ci95_low"] = frame_out["edge"] - Z95 * frame_out["stderr"]
    frame_out["ci95_high"] = frame_out["edge"] + Z95 * frame_out["stderr"]
    return frame_out


def outcomes(result: RunResult) -> pd.DataFrame:
    """The distribution of the net result per round, per variant and strategy."""
    exp = result.experiment
    rows = []
    for (vi, si) in sorted(result.stats):
        stats = result.merged(vi, si)
        for net, count in sorted(stats.net_hist.items()):
            rows.append({"variant": exp.variants[vi].name, "strategy": exp.strategies[si].name,
                         "net": net, "count": count, "probability": count / stats.rounds})
    return pd.DataFrame(rows)


def _git_revision() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                             cwd=Path(__file__).parent, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def _versions() -> dict[str, str]:
    found = {"python": platform.python_version()}
    for name in ("houseedge", "numpy", "scipy", "pandas", "matplotlib", "joblib", "numba",
                 "tqdm", "pyarrow", "dask", "distributed"):
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            pass
    return found


def manifest(result: RunResult, extra: Mapping[str, Any]) -> dict[str, Any]:
    """What is needed to reproduce a run."""
    exp = result.experiment
    return {
        "experiment": exp.resolved,
        "source": exp.source,
        # where a strategy file named in the experiment is found: a rebuild needs it
        "base_dir": exp.strategies[0].base_dir if exp.strategies else None,
        "fingerprint": exp.fingerprint(),
        "files_read": dict(exp.files),
        "seed": exp.seed,
        "chunk_rounds": exp.chunk_rounds,
        **result.execution,
        "versions": _versions(),
        "git_revision": _git_revision(),
        **extra,
    }


def _fmt(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        if math.isnan(value):
            return ""
        return f"{value:.6g}"
    return str(value)


def markdown_table(frame: pd.DataFrame, columns: list[str]) -> str:
    """A GitHub-flavoured Markdown table of some columns."""
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for _, row in frame[columns].iterrows():
        lines.append("| " + " | ".join(_fmt(row[c]) for c in columns) + " |")
    return "\n".join(lines)


SUMMARY_COLUMNS = ["variant", "strategy", "rounds", "edge", "edge_stderr", "edge_exact",
                   "edge_z", "stderr_source", "edge_per_initial_bet", "edge_per_total_wagered",
                   "path", "note"]


POINTS_SUMMARY_COLUMNS = [c for c in SUMMARY_COLUMNS if not c.startswith("edge_per")]


def headline_words(measure: Measure) -> str:
    """What the headline columns hold, in a sentence for the summary and the page."""
    if measure.kind == STAKES:
        return (f"Edges are the house's (positive: the house wins). The headline `edge` is "
                f"{measure.label}; `edge_stderr` is its standard error (from the exact "
                "standard deviation where `stderr_source` says exact), and `edge_z` compares "
                "it with `edge_exact` where an exact value exists. Both bases are given "
                "beside it.")
    return (f"Nobody stakes anything in this game: the headline `edge` column holds the "
            f"{measure.label} (not a house edge); `edge_stderr` is its standard error (from "
            "the exact standard deviation where `stderr_source` says exact), and `edge_z` "
            "compares it with `edge_exact` where an exact value exists.")


def summary(result: RunResult, frame: pd.DataFrame, seconds: float,
            comparisons: pd.DataFrame | None = None) -> str:
    """A short Markdown summary of a run (with its paired comparisons, where given)."""
    exp = result.experiment
    game = games.get(exp.game)
    columns = SUMMARY_COLUMNS if game.measure.kind == STAKES else POINTS_SUMMARY_COLUMNS
    lines = [
        f"# {exp.name}",
        "",
        exp.description or game.description,
        "",
        f"Game `{exp.game}`; {exp.rounds:,} {game.round_name}s per variant and strategy "
        "(unless a strategy sets its own); "
        f"seed {exp.seed}; chunks of {exp.chunk_rounds:,}; {seconds:.1f} s.",
        "",
        headline_words(game.measure),
        "",
        markdown_table(frame, columns[:2] + compare.grid_columns(exp) + columns[2:]),
        "",
        *compare.target_lines(frame, exp),
        *comparison_lines(comparisons),
        "Files: `report.html` (the page to read), `report.csv` (every column), "
        "`manifest.json`, `convergence.csv`, `outcomes.csv`, "
        f"{'`comparisons.csv`, ' if comparisons is not None and len(comparisons) else ''}"
        "and the charts (PNG).",
        "",
    ]
    return "\n".join(lines)


def comparison_lines(comparisons: pd.DataFrame | None) -> list[str]:
    """The paired comparisons as a Markdown section (none for a one-row run)."""
    if comparisons is None or comparisons.empty:
        return []
    return [
        "## Paired comparisons", "",
        "Each row against its baseline (`diff` = row minus baseline, headline basis; "
        "positive: the row gives the house more). `diff_stderr` is the paired standard error, "
        "from the spread of the per-chunk differences (rows meet the same chunks); "
        "`independent_stderr` is what two independent runs would have given; "
        "`variance_reduction` is the square of their ratio. The 95% interval takes Student's "
        "t on the number of paired batches; `diff_z` compares with the exact difference.", "",
        markdown_table(comparisons, compare.SUMMARY_COMPARISON_COLUMNS), ""]


def _pct(value: float, digits: int = 4) -> str:
    return "" if value is None or math.isnan(value) else f"{100 * value:.{digits}f}"


def measure_of(frame: pd.DataFrame) -> Measure:
    """What the rows of a report (or of its comparisons) measure: their game's measure (a
    house edge per initial stake for a table that names no game)."""
    return games.get(frame["game"].iloc[0]).measure if "game" in frame else Measure.stakes()


def value_text(measure: Measure, digits: int = 4) -> Any:
    """How a headline value is written: in % where it is an edge, as it is where points."""
    if measure.percent:
        return lambda value: _pct(value, digits)
    return lambda value: "" if value is None or math.isnan(value) else f"{value:.{digits}f}"


def difference_unit(measure: Measure) -> str:
    """The unit differences of the headline are given in."""
    return "points of %" if measure.percent else "the measure's units"


def terminal_table(frame: pd.DataFrame) -> str:
    """The headline columns for the terminal, sized to the names. The edge is on the basis a
    player of the game means (named in the header); "± se" is the error that z and the 95%
    interval are taken with (the exact spread where the game gives it, marked ``*`` where the
    sample's is unreliable); a bet the variant does not offer says so."""
    measure = measure_of(frame)
    basis = frame["headline_basis"].iloc[0]
    if measure.kind == STAKES:
        other, other_label = (("edge_per_initial_bet", "edge/initial %")
                              if basis.endswith("wagered")
                              else ("edge_per_total_wagered", "edge/wagered %"))
        title, value, exact = f"house edge {basis} (+ = the house wins), in %", "edge %", "exact %"
    else:
        other, other_label = "std_net", "sd per round"
        title, value, exact = f"{basis}, with its exact value where known", "mean", "exact"
    text = value_text(measure)
    vw = max(8, *(len(v) for v in frame["variant"])) + 2
    sw = max(9, *(len(s) for s in frame["strategy"])) + 2
    lines = [title,
             f"{'variant':<{vw}}{'strategy':<{sw}}{'rounds':>12}{value:>11}{'± se':>10}"
             f"{exact:>11}{'z':>7}{other_label:>16}"]
    notes = []
    for _, r in frame.iterrows():
        head = f"{r.variant:<{vw}}{r.strategy:<{sw}}{r.rounds:>12,}"
        note = r.note if isinstance(r.note, str) else ""
        if note and math.isnan(r.edge):
            lines.append(f"{head}  {note}")
            continue
        z = "" if math.isnan(r.edge_z) else f"{r.edge_z:+.2f}"
        flag = "*" if note else " "
        if note:
            notes.append(f"* {r.variant} / {r.strategy}: {r.note}")
        lines.append(f"{head}{text(r.edge):>11}{text(r.edge_stderr):>9}{flag}"
                     f"{text(r.edge_exact):>11}{z:>7}{text(r[other]):>16}")
    return "\n".join(lines + notes)


def _vrf_text(r: Any) -> str:
    """A variance reduction as shown: marked ``?`` where its 95% range includes 1."""
    if math.isnan(r.variance_reduction):
        return ""
    low, high = (getattr(r, "variance_reduction_low", math.nan),
                 getattr(r, "variance_reduction_high", math.nan))
    flag = "?" if compare.reduction_uncertain(low, high) else ""
    return f"{r.variance_reduction:.1f}{flag}"


VRF_LEGEND = ("? the variance reduction's 95% range includes 1: these rows may gain nothing "
              "from pairing (its range is in comparisons.csv)")
OTHER_BASIS = {"per amount wagered": ("per initial stake", "per_initial_bet"),
               "per initial stake": ("per amount wagered", "per_total_wagered")}


def _other_basis(paired: pd.DataFrame) -> tuple[str, str] | None:
    """The other basis of the differences, where it tells something the headline does not:
    some difference on it differs from the headline's (a faro deal's soda, per deal)."""
    label, suffix = OTHER_BASIS.get(paired["headline_basis"].iloc[0], (None, None))
    if label is None or f"diff_{suffix}" not in paired or "game" not in paired or \
            not measure_of(paired).compare_other_basis:
        return None
    other, head = paired[f"diff_{suffix}"], paired["diff"]
    differs = ((other - head).abs() > 1e-9 * (1 + head.abs())) & other.notna()
    return (label, suffix) if differs.any() else None


def lent_table(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows lent precision by exact rows on the same cards (control variates), as the
    terminal and the page show them: the raw estimate, the estimate with the controls, both
    errors, the controls and the variance reduction; empty where no row was lent any."""
    if "edge_cv" not in frame:
        return pd.DataFrame()
    rows = frame[frame["edge_cv"].notna()]
    text = value_text(measure_of(frame), 3)
    return pd.DataFrame({
        "row": [f"{r.variant} / {r.strategy}" for r in rows.itertuples()],
        "estimate": [text(v) for v in rows["edge"]],
        "± SE": [text(v) for v in rows["edge_stderr"]],
        "with controls": [text(v) for v in rows["edge_cv"]],
        "± SE (controls)": [text(v) for v in rows["edge_cv_stderr"]],
        "95% CI": [f"{text(lo)} to {text(hi)}" for lo, hi in
                   zip(rows["edge_cv_ci95_low"], rows["edge_cv_ci95_high"])],
        "variance reduction": [f"{v:.1f}" for v in rows["cv_variance_reduction"]],
        "controls (exact, same cards)": list(rows["cv_controls"])})


LENT_WORDS = ("Rows without an exact value, estimated with the exact rows on the same cards as "
              "control variates (the regression of the row's chunk totals on the controls', "
              "Student's t on the degrees of freedom left; edge_cv* in report.csv):")


def comparison_section(paired: pd.DataFrame) -> dict[str, dict[str, pd.DataFrame]]:
    """The page's section of paired comparisons (none for a one-row run): each row minus its
    baseline in points of %, as the terminal shows it (comparisons.csv has the raw figures),
    and on the other basis too where it differs."""
    if paired.empty:
        return {}
    measure = measure_of(paired)
    text, unit = value_text(measure, 3), difference_unit(measure)

    def points(column: str) -> list[str]:
        return [text(v) for v in paired[column]]

    labels = {
        "row": [f"{r.variant} / {r.strategy}" for r in paired.itertuples()],
        "baseline": [f"{r.baseline_variant} / {r.baseline_strategy}"
                     for r in paired.itertuples()]}
    shown = pd.DataFrame({
        **labels,
        f"diff ({unit})": points("diff"),
        "± paired SE": points("diff_stderr"),
        "95% CI": [f"{text(lo)} to {text(hi)}" if not math.isnan(lo) else ""
                   for lo, hi in zip(paired["diff_ci95_low"], paired["diff_ci95_high"])],
        "± independent SE": points("independent_stderr"),
        "variance reduction": [_vrf_text(r) for r in paired.itertuples()],
        "exact diff": points("diff_exact"),
        "z": ["" if math.isnan(v) else f"{v:+.2f}" for v in paired["diff_z"]],
        "batches": paired["batches"] if "batches" in paired else "",
        "note": paired["note"].fillna("") if "note" in paired else "",
    })
    title = f"each row minus its baseline, {paired['headline_basis'].iloc[0]}"
    if shown["variance reduction"].str.endswith("?").any():
        title += f" ({VRF_LEGEND.removeprefix('? ')}: marked ?)"
    tables = {title: shown}
    other = _other_basis(paired)
    if other is not None:
        label, suffix = other
        tables[f"the same differences {label}"] = pd.DataFrame({
            **labels, f"diff ({unit})": points(f"diff_{suffix}"),
            "± paired SE": points(f"diff_stderr_{suffix}"),
            "exact diff": points(f"exact_diff_{suffix}"),
            "z": ["" if math.isnan(v) else f"{v:+.2f}" for v in paired[f"diff_z_{suffix}"]]})
    return {"Paired comparisons": tables}


def _columns_text(header: list[str], rows: list[list[str]], least: list[int]) -> list[str]:
    """Rows of cells as fixed-width lines: the first two columns left-aligned, the rest
    right-aligned, each column as wide as its widest cell and a space more, so that no two
    cells touch (a variance reduction in the thousands took the space before the next)."""
    widths = [max(least[i], max(len(row[i]) for row in [header, *rows]) + (2 if i < 2 else 1))
              for i in range(len(header))]
    return ["".join(f"{cell:<{w}}" if i < 2 else f"{cell:>{w}}"
                    for i, (cell, w) in enumerate(zip(row, widths))).rstrip()
            for row in [header, *rows]]


def comparison_terminal(paired: pd.DataFrame, limit: int = 40) -> str:
    """The paired differences for the terminal: each row minus its baseline, in points of %,
    with the paired and the independent error, the variance reduction, the exact difference
    and z (the first ``limit`` rows; comparisons.csv has every one), then the same on the
    other basis where it differs, and each note once."""
    if paired.empty:
        return ""
    measure = measure_of(paired)
    text, unit = value_text(measure, 3), difference_unit(measure)
    label = [f"{r.variant} / {r.strategy}" for r in paired.itertuples()]
    base = [f"{r.baseline_variant} / {r.baseline_strategy}" for r in paired.itertuples()]
    shown = list(zip(label[:limit], base[:limit], paired.itertuples()))
    rows = [[row, against, text(r.diff), text(r.diff_stderr), text(r.independent_stderr),
             _vrf_text(r), text(r.diff_exact), "" if math.isnan(r.diff_z) else f"{r.diff_z:+.2f}"]
            for row, against, r in shown]
    header = ["row", "baseline", "diff", "± paired", "± indep.", "VRF", "exact", "z"]
    lines = [f"paired differences from the baseline (row minus baseline), "
             f"{paired['headline_basis'].iloc[0]}, in {unit}",
             *_columns_text(header, rows, [14, 12, 9, 10, 10, 7, 9, 7])]
    if len(paired) > limit:
        lines.append(f"... {len(paired) - limit} more in comparisons.csv")
    other = _other_basis(paired)
    if other is not None:
        basis, suffix = other
        rows = [[row, against, text(getattr(r, f"diff_{suffix}")),
                 text(getattr(r, f"diff_stderr_{suffix}")),
                 text(getattr(r, f"exact_diff_{suffix}")),
                 "" if math.isnan(getattr(r, f"diff_z_{suffix}"))
                 else f"{getattr(r, f'diff_z_{suffix}'):+.2f}"]
                for row, against, r in shown]
        lines += ["", f"the same differences {basis}, in {unit}",
                  *_columns_text(["row", "baseline", "diff", "± paired", "exact", "z"], rows,
                                 [14, 12, 9, 10, 9, 7])]
    if any(_vrf_text(r).endswith("?") for _, _, r in shown):
        lines.append(VRF_LEGEND)
    lines += [f"* {note}" for note in _terminal_notes(paired, label, base)]
    return "\n".join(lines)


def _terminal_notes(paired: pd.DataFrame, label: list[str], base: list[str]) -> list[str]:
    """Each distinct part of the comparisons' notes once; a part that names neither of its
    rows is said of the comparison it belongs to."""
    parts: dict[str, None] = {}
    notes = paired["note"].astype(object).fillna("").astype(str)  # all blank: float NaNs
    for note, row, against in zip(notes, label, base):
        for part in (p for p in note.split("; ") if p):
            general = part.startswith(("only ", "one paired batch"))
            named = part.startswith((f"{row}:", f"{against}:"))
            parts[part if general or named else f"{row} against {against}: {part}"] = None
    return list(parts)


def write_parquet(frame: pd.DataFrame, path: Path) -> bool:
    """Write Parquet when pyarrow is installed; False otherwise."""
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return False
    buffer = io.BytesIO()
    frame.to_parquet(buffer, index=False)
    write_atomic(path, buffer.getvalue())
    return True


def _now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat()


def chart_footer(result: RunResult) -> str:
    """The footer line of a run's charts: experiment, rounds and seed."""
    from sim.outputs.charts import footer_text

    exp = result.experiment
    game = games.get(exp.game)
    return footer_text(exp.name, f"{exp.rounds:,} {game.round_name}s per variant and strategy",
                       exp.seed)


def _rows_without_an_edge(frame: pd.DataFrame | None) -> set[tuple[str, str]]:
    """(variant, strategy) of the rows the report gives no edge, with a note saying why (a bet
    not offered, none placed); a game without stakes has no note and is not among them."""
    if frame is None or "note" not in frame:
        return set()
    none = frame[frame["note"].fillna("").astype(str).ne("") & frame["edge"].isna()]
    return set(zip(none["variant"], none["strategy"]))


def _rows_with_an_edge(data: pd.DataFrame, frame: pd.DataFrame) -> pd.DataFrame:
    """``data`` without the rows the report gives no edge: their net of 0 in every round is
    no outcome of a bet."""
    dropped = _rows_without_an_edge(frame)
    if not dropped:
        return data
    return data[[(v, s) not in dropped for v, s in zip(data["variant"], data["strategy"])]]


EXACT_CHART_VARIANTS = 20  # variants whose exact odds charts a run draws, at most


def exact_chart_variants(exp: Any) -> list[Any]:
    """The variants whose exact odds charts a run draws: every one, or past
    :data:`EXACT_CHART_VARIANTS` (a grid over a rule) that many spread evenly over them, so
    that a sweep of thousands of variants does not draw thousands of charts."""
    from sim.core.plotting import spread

    return spread(list(exp.variants), EXACT_CHART_VARIANTS)


def run_charts(result: RunResult, frame: pd.DataFrame, conv: pd.DataFrame, dist: pd.DataFrame,
               exact_odds: bool = True) -> Iterator[tuple[str, str, Any]]:
    """Every chart of a run as (file name, caption, Figure), one at a time (a caller saves
    and closes each before the next is drawn, so memory stays flat): the headline edges, the
    outcome distribution, the convergence (where some row has two chunks or more), the game's
    own run charts, and the game's exact odds charts for each variant."""
    from sim.outputs import charts  # matplotlib is imported only when charts are drawn
    from sim.outputs.exact_charts import variant_exact_charts

    exp = result.experiment
    game = games.get(exp.game)
    shows = games.presentation(exp.game)
    what = charts.HeadlineAxis.of(frame).what
    yield ("edge.png", f"The {what} by variant and strategy: 95% intervals "
           "(from the exact standard deviation where known) and exact values (x).",
           charts.edge_chart(frame))
    dist = _rows_with_an_edge(dist, frame)
    if not dist.empty:
        yield ("outcomes.png", f"The distribution of the net result of a {game.round_name}, "
               "per strategy and variant (log probability).", charts.outcome_chart(dist))
    figure = charts.convergence_chart(conv, frame)
    if figure is not None:
        yield ("convergence.png", f"The running estimate of the {what} after each "
               "chunk, its 95% band and the exact value.", figure)
    for column in compare.grid_columns(exp):  # a grid: the edge against each swept parameter
        yield (f"grid-{column}.png", f"The {what} against {column} (swept), with "
               "its 95% band and the exact curve where there is one.",
               charts.grid_chart(frame, column))
    extra = shows.run_charts(
        {(v.name, st.name): result.merged(vi, si) for vi, v in enumerate(exp.variants)
         for si, st in enumerate(exp.strategies)}, {v.name: v.rules for v in exp.variants})
    for name, figure in extra.items():
        yield (name, f"{exp.game}: {name.rsplit('.', 1)[0].replace('_', ' ')} (simulated "
               "beside exact).", figure)
    if exact_odds:
        for variant, name, figure in variant_exact_charts(
                shows, ((v.name, v.rules) for v in exact_chart_variants(exp)),
                [spec.build(exp.game) for spec in exp.strategies]):
            yield (f"odds-{variant}-{name}.png",
                   f"{variant}: {name.replace('-', ' ').replace('_', ' ')} (exact).", figure)


TEXT_COLUMNS = ("note", "stderr_source", "exact_note", "cv_controls")


def for_files(frame: pd.DataFrame) -> pd.DataFrame:
    """The report as written to CSV and Parquet: an empty text cell is a missing value, and a
    text column empty in every row is an empty float column, so both files read back alike."""
    out = frame.copy()
    for column in TEXT_COLUMNS:
        if column in out:
            values = out[column].astype(object).where(out[column].astype(str) != "", None)
            out[column] = math.nan if values.isna().all() else values
    return out


def _listed_files(out_dir: Path) -> set[str]:
    try:
        listed = json.loads((out_dir / MANIFEST).read_text()).get("files", [])
    except (OSError, ValueError, AttributeError):
        return set()
    return {str(f) for f in listed if "/" not in str(f) and f != MANIFEST}


def write_all(result: RunResult, out_dir: Path, seconds: float, jobs: int,
              charts: bool = True) -> pd.DataFrame:
    """Write report.csv (and .parquet), convergence.csv, outcomes.csv, summary.md, charts
    (unless ``charts`` is False), report.html and manifest.json into ``out_dir``; each file
    appears whole or not at all."""
    return write_outputs(result, out_dir, {"seconds": round(seconds, 3), "jobs": jobs,
                                           "finished": _now(), "charts": charts})


def risk_section(risk: pd.DataFrame) -> dict[str, Any]:
    """The page's bankroll section: the answers first (:func:`sim.outputs.risk_report.answers`),
    risk.csv's every column folded below."""
    from sim.outputs.html import Folded
    from sim.outputs.risk_report import answers, answers_title

    return {answers_title(risk): answers(risk),
            "every column": Folded(risk, f"the full risk table ({len(risk.columns)} columns, "
                                         "as in risk.csv: every method, quantile, long-run "
                                         "risk and z)")}


def write_outputs(result: RunResult, out_dir: Path, run_info: Mapping[str, Any]
                  ) -> pd.DataFrame:
    """Every output file of a run from its chunks. ``run_info`` holds what the chunks do not
    (``seconds``, ``jobs``, ``finished`` and anything else for the manifest), so that a
    rebuild from the saved chunks and the old manifest writes the same bytes. With
    ``run_info["charts"]`` False no chart is drawn and the page says so."""
    from sim.outputs import charts, html

    draw = bool(run_info.get("charts", True))

    previous = _listed_files(out_dir)
    seconds = float(run_info.get("seconds", 0.0))
    with recording(out_dir) as written:
        frame = build(result)
        conv = convergence(result, frame)
        dist = outcomes(result)
        written_frame = for_files(frame)
        write_atomic(out_dir / "report.csv", written_frame.to_csv(index=False))
        write_parquet(written_frame, out_dir / "report.parquet")
        write_atomic(out_dir / "convergence.csv", conv.to_csv(index=False))
        write_atomic(out_dir / "outcomes.csv", dist.to_csv(index=False))
        paired = compare.comparison_frame(result.experiment, result.totals, frame,
                                          compare.grid_columns(result.experiment))
        if not paired.empty:
            write_atomic(out_dir / "comparisons.csv", for_files(paired).to_csv(index=False))
        footer = chart_footer(result)
        svgs = []
        for name, caption, figure in run_charts(result, frame, conv, dist) if draw else ():
            charts.add_footer(figure, footer)
            write_atomic(out_dir / name, charts.figure_bytes(figure, "png", close=False))
            svgs.append((name, caption, charts.figure_bytes(figure, "svg")))
        write_atomic(out_dir / "summary.md", summary(result, frame, seconds, paired))
        sections = comparison_section(paired)
        lent = lent_table(frame)
        if not lent.empty:
            sections["Precision lent by exact rows"] = {LENT_WORDS: lent}
        if result.experiment.session is not None:  # bankroll and risk: risk.csv, risk_*.png
            from sim.outputs.risk_report import write_risk

            risk, risk_svgs = write_risk(result, out_dir,
                                         footer, draw)
            sections["Bankroll and risk"] = risk_section(risk)
            svgs += risk_svgs
        info = manifest(result, {**run_info, "parquet": "report.parquet" in written,
                                 "files": sorted(written | {"report.html", MANIFEST})})
        missing = charts.no_convergence_reason(conv, frame, result.experiment.chunk_rounds
                                               ) if draw else ""
        chart_notes = [f"No convergence chart: {missing}; the running estimate is in "
                       "convergence.csv."] if missing else []
        if draw and _rows_with_an_edge(dist, frame).empty:
            chart_notes.insert(0, "No outcome chart: every bet is not offered or was never "
                                  "placed; the outcomes are in outcomes.csv.")
        shown = exact_chart_variants(result.experiment)
        if draw and len(shown) < len(result.experiment.variants):
            chart_notes.append(f"Exact odds charts of {len(shown)} of "
                               f"{len(result.experiment.variants):,} variants, spread evenly "
                               "over them.")
        if not draw:
            chart_notes.append(f"Charts not drawn (run with --no-charts): houseedge report "
                               f"{out_dir} --charts draws them from the saved chunks.")
        write_atomic(out_dir / "report.html", html.page(result, frame, svgs, info,
                                                        sections=sections,
                                                        chart_notes=chart_notes))
    # The manifest lists exactly this run's files; whatever an earlier write of this folder
    # left that this one did not write again is removed, so no stale file survives.
    for name in previous - written:
        (out_dir / name).unlink(missing_ok=True)
    write_atomic(out_dir / MANIFEST, json.dumps(info, indent=2, default=str))
    return frame
