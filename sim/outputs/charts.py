"""Odds charts with matplotlib (Agg backend: files, no screen).

Every function takes an optional ``ax`` (or ``fig`` for small multiples) and returns the
Figure, so charts compose into a user's own layouts. Charts meant for print follow one
house style: a title, axes that name their units, a legend outside the plotting area (it never
covers data) and, when saved by a run, a footer line naming the experiment, the rounds and the
seed (:func:`save`). Heavy-tailed outcomes are drawn as stems on a log scale.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import (  # noqa: E402
    MaxNLocator,
    NullFormatter,
)

from sim import games  # noqa: E402
from sim.core.estimate import BASIS_LABELS  # noqa: E402
from sim.core.plotting import (  # noqa: E402
    GRID_COLUMNS,
    add_footer,
    figure_bytes,
    figure_legend,
    legend_outside,
    line_chart,
    mark_shared,
    new_axes,
    outer_axis_labels,
    panel_grid,
    save,
    saved_stand_in,
    spread,
)
from sim.core.stats import Z95  # noqa: E402

__all__ = ["add_footer", "figure_bytes", "line_chart", "mark_shared", "save", "saved_stand_in",
           "spread"]

METADATA = {"png": {"Software": None}, "svg": {"Date": None, "Creator": None},
            "pdf": {"CreationDate": None, "Creator": None, "Producer": None}}


# A chart of a large report stays the same size, and as quick to draw, whatever its rows:
LABELLED_ROWS = 60  # the edge chart gives each row a line of its own up to this many rows


PANELS = 12  # small multiples (outcomes, convergence) draw at most this many rows


SERIES = 10  # a grid chart draws a line per setting of the rest up to this many; then a map


def shown_note(shown: int, total: int, what: str, csv: str) -> str:
    """The line a chart of a large report adds to its title: which rows it draws."""
    return (f"{shown} of {total:,} {what} shown, spread evenly over the report (each panel "
            f"names its row); {csv} holds every one")


def footer_text(experiment: str, rounds: str, seed: int | str) -> str:
    """The footer line of a run's charts."""
    return f"houseedge · experiment {experiment} · {rounds} · seed {seed}"


@dataclass(frozen=True)
class HeadlineAxis:
    """How a chart draws a report's headline: an edge in %, or a points game's mean in its own
    units (``scale`` 100 or 1); ``what`` the values are, and the axis ``label``."""

    scale: float
    what: str
    label: str
    unit: str

    @classmethod
    def of(cls, frame: pd.DataFrame) -> HeadlineAxis:
        basis = frame["headline_basis"].iloc[0] if "headline_basis" in frame \
            else BASIS_LABELS["initial"]
        percent = games.get(frame["game"].iloc[0]).measure.percent if "game" in frame \
            else True
        if percent:
            return cls(100.0, f"house edge {basis}", f"house edge {basis}, %", "%")
        return cls(1.0, basis, basis, "")


def edge_axes(frame: pd.DataFrame, ax: Axes, edge: str = "edge", stderr: str = "edge_stderr",
              exact: str = "edge_exact", title: str = "") -> None:
    """Edge by strategy (rows) and variant (colours), with 95% error bars and exact values as
    crosses. The bars use the error z is taken with (the exact spread where known); a row
    whose sample error is unreliable is drawn hollow, and a bet not offered is written out."""
    axis = HeadlineAxis.of(frame)
    strategies = list(dict.fromkeys(frame["strategy"]))
    variants = list(dict.fromkeys(frame["variant"]))
    height = 0.8 / max(1, len(variants))
    notes = (frame["note"].astype(object) if "note" in frame
             else pd.Series("", index=frame.index, dtype=object))
    drawn = []  # (edges, errors, exact, y, colour) of each variant, on the axis's scale
    for vi, variant in enumerate(variants):
        part = frame[frame["variant"] == variant].set_index("strategy").reindex(strategies)
        part_notes = notes[frame["variant"] == variant].set_axis(
            frame.loc[frame["variant"] == variant, "strategy"]).reindex(strategies).fillna("")
        y = np.arange(len(strategies)) + (vi - (len(variants) - 1) / 2) * height
        colour = f"C{vi % 10}"
        values = part[edge].to_numpy(dtype=float) * axis.scale
        errors = Z95 * part[stderr].to_numpy(dtype=float) * axis.scale
        shaky = part_notes.str.startswith("sample SE unreliable").to_numpy()
        ax.errorbar(values[~shaky], y[~shaky], xerr=errors[~shaky], fmt="o", ms=4,
                    color=colour, capsize=3, label=variant)
        if shaky.any():
            ax.errorbar(values[shaky], y[shaky], xerr=errors[shaky], fmt="o", ms=5,
                        mfc="white", color=colour, capsize=3, ls="none")
        ax.plot(part[exact].to_numpy(dtype=float) * axis.scale, y, "x", color="black", ms=6,
                label="exact" if vi == 0 else None)
        drawn.append((values, errors, part[exact].to_numpy(dtype=float) * axis.scale, y,
                      colour))
        for yi, text in zip(y, part_notes):
            if text.startswith("not offered") or text.startswith("no bet"):
                ax.annotate(f"{variant}: {text.split(':')[0]}", (0, yi), xytext=(4, 0),
                            textcoords="offset points", va="center", fontsize="x-small",
                            color=colour)
    ax.set_yticks(np.arange(len(strategies)), strategies)
    ax.set_ylim(len(strategies) - 0.5, -0.5)
    ax.axvline(0, color="grey", lw=0.8)
    _clip_outliers(ax, drawn, axis.unit)
    exact_bars = (frame.get("stderr_source", pd.Series(dtype=str)) == "exact").any()
    bars = "bars: 95% CI" + (", from the exact SD where known" if exact_bars else "")
    ax.set_xlabel(f"{axis.label} ({bars})")
    if title:
        ax.set_title(title)
    ax.grid(axis="x", alpha=0.3)


OUTLIER_IQRS = 3.0  # an edge this many interquartile ranges beyond the middle half stands out


def body_limits(edges: np.ndarray) -> tuple[float, float] | None:
    """The range of the edges (in %) that are not outliers, when some are and leaving them
    out at least halves the axis; None otherwise. An outlier lies more than
    :data:`OUTLIER_IQRS` interquartile ranges beyond the middle half (lansquenet's -100% of
    a banker who never passes, +167% of a sharper, beside edges of 3% to 29%)."""
    finite = edges[np.isfinite(edges)]
    if finite.size < 4:
        return None
    q1, q3 = np.percentile(finite, [25, 75])
    reach = OUTLIER_IQRS * (q3 - q1)
    body = finite[(finite >= q1 - reach) & (finite <= q3 + reach)]
    if reach <= 0 or body.size == finite.size:
        return None
    low, high = min(float(body.min()), 0.0), max(float(body.max()), 0.0)
    whole = max(float(finite.max()), 0.0) - min(float(finite.min()), 0.0)
    return (low, high) if high - low <= whole / 2 else None


def _clip_outliers(ax: Axes, drawn, unit: str = "%") -> None:
    """Scale an edge chart to the body of its rows: an outlying row (:func:`body_limits`)
    would crush the others into one column. Each outlier is drawn as an arrow at the edge
    of the axis, in its variant's colour, with its value written beside it."""
    every = np.concatenate([np.concatenate([v, e]) for v, _, e, _, _ in drawn]) \
        if drawn else np.array([])
    limits = body_limits(every)
    if limits is None:
        return
    low, high = limits
    inside = [(v >= low) & (v <= high) for v, _, _, _, _ in drawn]
    spans = [np.where(keep, v - err, np.nan) for keep, (v, err, _, _, _) in zip(inside, drawn)]
    tops = [np.where(keep, v + err, np.nan) for keep, (v, err, _, _, _) in zip(inside, drawn)]
    low = min(low, float(np.nanmin(np.concatenate(spans))))
    high = max(high, float(np.nanmax(np.concatenate(tops))))
    pad = 0.16 * (high - low)  # room for the arrows and their values
    ax.set_xlim(low - pad, high + pad)
    for keep, (values, _err, exact, y, colour) in zip(inside, drawn):
        out = ~keep & np.isfinite(values)
        for value, known, yi in zip(values[out], exact[out], y[out]):
            right = value > high
            edge = high + pad if right else low - pad
            text = f"{value:+.0f}{unit}" + (f" (exact {known:+.0f}{unit})" if np.isfinite(known)
                                       and f"{known:+.0f}" != f"{value:+.0f}" else "")
            ax.annotate(text, (edge, yi), xytext=(-9 if right else 9, 0),
                        textcoords="offset points", ha="right" if right else "left",
                        va="center", fontsize="x-small", color=colour)
            ax.plot([edge], [yi], ">" if right else "<", color=colour, ms=6, clip_on=False)


def edge_overview(frame: pd.DataFrame, fig: Figure | None = None) -> Figure:
    """Every row's headline (an edge, or a points game's mean) in report
    order, as a line with its 95% band and the exact values dashed: the edge chart of a report
    too large for a labelled line per row. Its size does not grow with the rows."""
    fig, ax = new_axes(None if fig is None else fig.gca(), (9, 4.6))
    x = np.arange(1, len(frame) + 1)
    axis = HeadlineAxis.of(frame)
    value = frame["edge"].to_numpy(dtype=float) * axis.scale
    band = Z95 * frame["edge_stderr"].to_numpy(dtype=float) * axis.scale
    exact = frame["edge_exact"] * axis.scale
    ax.set_ylabel(axis.label)
    what = axis.what
    # Thousands of points: drawn as an image inside an SVG, the axes and text stay vectors.
    raster = {"rasterized": True} if len(x) > RASTER_POINTS else {}
    ax.fill_between(x, value - band, value + band, color="C0", alpha=0.25, lw=0,
                    label="95% CI", **raster)
    ax.plot(x, value, "-", lw=0.9, color="C0", label="estimate", **raster)
    exact = exact.to_numpy(dtype=float)
    if np.isfinite(exact).any():
        ax.plot(x, exact, "--", lw=0.9, color="black", label="exact", **raster)
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xlim(0.5, len(x) + 0.5)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("row of report.csv (variant by variant, each variant's strategies in order)")
    ax.set_title(f"{frame['game'].iloc[0]}: {what}, all {len(frame):,} rows in report order "
                 f"(report.csv names each)", fontsize="medium")
    ax.grid(alpha=0.3)
    legend_outside(ax)
    return fig


def edge_chart(frame: pd.DataFrame, fig: Figure | None = None) -> Figure:
    """The headline by variant and strategy (the house edge, the basis named on the axis; a
    points game's mean in its own units). Past :data:`LABELLED_ROWS` rows, every row in
    report order (:func:`edge_overview`): a labelled line each would make a chart of thousands
    of lines, metres tall, taking minutes and gigabytes to draw."""
    if len(frame) > LABELLED_ROWS:
        return edge_overview(frame, fig)
    rows = frame["strategy"].nunique()
    variants = frame["variant"].nunique()
    if fig is None:
        fig = plt.figure(figsize=(9, 1.4 + 0.32 * rows * max(1, variants) ** 0.7),
                         layout="constrained")
    ax = fig.subplots()
    edge_axes(frame, ax)
    handles = ax.get_legend_handles_labels()
    notes = frame.get("note", pd.Series(dtype=str))
    if notes.astype(str).str.startswith("sample SE unreliable").any():
        hollow = ax.plot([], [], "o", mfc="white", color="grey", ls="none")[0]
        handles = (handles[0] + [hollow], handles[1] + ["hollow: sample SE unreliable"])
    ax.legend(*handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small",
              frameon=False, title="variant", title_fontsize="small")
    ax.set_title(f"{frame['game'].iloc[0]}: {HeadlineAxis.of(frame).what}")
    return fig


RASTER_POINTS = 400


STEM_POINTS = 80


def _heavy(values: np.ndarray, probabilities: np.ndarray) -> bool:
    """An outcome range so wide that a linear axis would crush the mass near zero: the
    largest outcome is beyond 20 times the 90th percentile of the outcome's size."""
    size = np.abs(values)
    order = np.argsort(size)
    cumulative = np.cumsum(probabilities[order]) / max(probabilities.sum(), 1e-300)
    q90 = size[order][min(int(np.searchsorted(cumulative, 0.9)), len(size) - 1)]
    return bool(size.max() > 20 * max(q90, 1.0))


def outcome_chart(dist: pd.DataFrame, fig: Figure | None = None) -> Figure:
    """The distribution of the net result per round: one panel per strategy, stems per
    variant (a line each beyond three variants) on a log probability scale, with a symmetric
    log x axis where the range is wide."""
    all_strategies = list(dict.fromkeys(dist["strategy"]))
    all_variants = list(dict.fromkeys(dist["variant"]))
    strategies, variants = spread(all_strategies, PANELS), spread(all_variants, SERIES)
    fig, axes = panel_grid(fig, len(strategies), panel=(4.2, 3.0), cols=3)
    for ax, strategy in zip(axes, strategies):
        part = dist[dist["strategy"] == strategy]
        values = part["net"].to_numpy(dtype=float)
        heavy = _heavy(values, part["probability"].to_numpy(dtype=float))
        many = len(np.unique(values)) > STEM_POINTS
        steps = np.diff(np.unique(values))
        # Stems for a few discrete outcomes; beyond, they merge into a solid block.
        stems = len(variants) <= 3 and not many
        offset = 0.12 * (steps.min() if len(steps) else 1.0) if stems and not heavy else 0.0
        for vi, variant in enumerate(variants):
            rows = part[part["variant"] == variant].sort_values("net")
            if rows.empty:
                continue
            x = rows["net"].to_numpy(dtype=float) + (vi - (len(variants) - 1) / 2) * offset
            p = rows["probability"].to_numpy(dtype=float)
            colour = f"C{vi % 10}"
            # Thousands of outcomes (a progression, a bonus) would make an SVG of megabytes:
            # their points are drawn as an image inside it, the axes and text stay vectors.
            raster = {"rasterized": True} if len(x) > RASTER_POINTS else {}
            if stems:
                ax.vlines(x, 0, p, color=colour, lw=0.8, alpha=0.6, **raster)
                ax.plot(x, p, "o", ms=2.5, color=colour, label=variant, **raster)
            elif heavy or many:  # points only: a line across the gaps would invent mass
                ax.plot(x, p, "o", ms=2.5, color=colour, label=variant, alpha=0.8, **raster)
            else:  # many variants: stems would hide each other; a line per variant
                ax.plot(x, p, "o-", ms=2.5, lw=0.8, color=colour, label=variant, alpha=0.85,
                        **raster)
        ax.set_yscale("log")
        if heavy:
            # The linear part ends at a power of ten: a decade tick inside it (10⁰ with the
            # linear part out to 5) stood beside 0, the labels on top of each other.
            smallest = float(np.min(np.abs(values[values != 0]))) if (values != 0).any() else 1.0
            ax.set_xscale("symlog", linthresh=max(1.0, 10.0 ** math.floor(math.log10(smallest))))
            low, high = float(values.min()), float(values.max())
            ax.set_xlim(low * 1.3 if low < 0 else -1.0, high * 1.5 if high > 0 else 1.0)
        ax.set_title(strategy, fontsize="medium")
        ax.set_xlabel("net result (units of the base stake)" + (", symlog" if heavy else ""))
        ax.set_ylabel("probability (log)")
        ax.grid(alpha=0.3)
    outer_axis_labels(axes, 3)
    figure_legend(fig, axes, title="variant")
    notes = [shown_note(len(shown), len(every), what, "outcomes.csv")
             for shown, every, what in ((strategies, all_strategies, "strategies"),
                                        (variants, all_variants, "variants"))
             if len(shown) < len(every)]
    fig.suptitle("\n".join(["Distribution of the net result per round", *notes]))
    return fig


def convergence_axes(rows: pd.DataFrame, ax: Axes, exact: float | None, title: str,
                     scale: float = 100.0, ylabel: str = "edge, %") -> None:
    """The running estimate against rounds, its 95% band and the exact value (times
    ``scale``: an edge in %)."""
    ax.plot(rows["rounds"], rows["edge"] * scale, "o-", ms=2.5, color="C0", lw=1.2,
            label="estimate")
    ax.fill_between(rows["rounds"], rows["ci95_low"] * scale, rows["ci95_high"] * scale,
                    color="C0", alpha=0.2, label="95% CI")
    if exact is not None and math.isfinite(exact):
        ax.axhline(exact * scale, color="black", lw=1, ls="--", label="exact")
    if rows["edge"].notna().any():  # a row with no bet placed has nothing to draw
        ax.set_xscale("log")
        _round_count_ticks(ax.xaxis, *ax.get_xlim())
    ax.set_title(title, fontsize="medium")
    ax.set_xlabel("rounds played (log)")
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)


def count_label(x: float, _pos: int | None = None) -> str:
    """A count for a tick: 500, 20k, 1.5M, 2G (three figures at most)."""
    for size, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= size:
            return f"{x / size:.3g}{suffix}"
    return f"{x:.3g}"


# Round counts for a log axis, coarsest first: an axis takes the first that gives it three
# labelled ticks or more (decades over several; every digit in a narrow one).
_COUNT_SUBS = ((1.0,), (1.0, 3.0), (1.0, 2.0, 5.0), (1.0, 2.0, 3.0, 5.0),
               tuple(float(d) for d in range(1, 10)))


def _round_count_ticks(axis, low: float, high: float) -> None:
    """Label a log axis of counts from ``low`` to ``high`` at three or more round numbers in
    plain text (20k, 50k, 100k), never crowded: matplotlib labels every minor tick of an axis
    under a decade or so wide, in scientific form (2×10⁴ 3×10⁴ 4×10⁴ 6×10⁴), and the labels
    ran into each other. The ticks are fixed (a log locator turns linear, at 22.5k, 25k...,
    where a view holds one of its ticks or none)."""
    from matplotlib.ticker import FixedLocator, FuncFormatter

    decades = range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1)
    for subs in _COUNT_SUBS:
        ticks = [d * 10.0 ** e for e in decades for d in subs if low <= d * 10.0 ** e <= high]
        if len(ticks) >= 3:
            break
    minor = [d * 10.0 ** e for e in decades for d in _COUNT_SUBS[-1]
             if low <= d * 10.0 ** e <= high]
    axis.set_major_locator(FixedLocator(ticks))
    axis.set_major_formatter(FuncFormatter(count_label))
    axis.set_minor_locator(FixedLocator(minor))
    axis.set_minor_formatter(NullFormatter())


MIN_CONVERGENCE_POINTS = 2


def _finite_points(conv: pd.DataFrame) -> pd.DataFrame:
    """The running estimates a convergence chart can draw (a row with no bet has none)."""
    return conv[np.isfinite(conv["edge"].to_numpy(dtype=float))]


def no_convergence_reason(conv: pd.DataFrame, frame: pd.DataFrame, chunk_rounds: int) -> str:
    """Why a run has no convergence chart, or "" when it has one."""
    finite = _finite_points(conv)
    if finite.empty and not conv.empty:
        return "no row has an edge to follow (every bet is not offered or was never placed)"
    if finite.empty or finite.groupby(["variant", "strategy"]).size().max() < \
            MIN_CONVERGENCE_POINTS:
        return f"no row has two chunks or more (chunks of {chunk_rounds:,} rounds)"
    return ""


def convergence_chart(conv: pd.DataFrame, frame: pd.DataFrame, fig: Figure | None = None
                      ) -> Figure | None:
    """Convergence of each headline estimate, one panel per variant and strategy with at least
    two chunks; None when no row has (a one-chunk run has nothing to converge)."""
    finite = _finite_points(conv)  # no edge (no bet): not drawn
    counts = finite.groupby(["variant", "strategy"], sort=False).size()
    every = [pair for pair, n in counts.items() if n >= MIN_CONVERGENCE_POINTS]
    if not every:
        return None
    pairs = spread(every, PANELS)
    fig, axes = panel_grid(fig, len(pairs))
    axis = HeadlineAxis.of(frame)
    column = "edge_exact" if "edge_exact" in frame else "exact_edge"
    exact = frame.set_index(["variant", "strategy"])[column]
    for ax, (variant, strategy) in zip(axes, pairs):
        rows = conv[(conv["variant"] == variant) & (conv["strategy"] == strategy)]
        convergence_axes(rows, ax, exact.get((variant, strategy)), f"{variant} / {strategy}",
                         axis.scale, "edge, %" if axis.unit == "%" else "mean")
    outer_axis_labels(axes, GRID_COLUMNS)
    # Beside the panels' middle: at their top it stood under the end of the title, which
    # runs wider than one or two panels.
    figure_legend(fig, axes, loc="outside right center")
    title = f"Convergence of the {axis.what}, chunk by chunk"
    if len(pairs) < len(every):
        title += "\n" + shown_note(len(pairs), len(every), "rows", "convergence.csv")
    fig.suptitle(title)
    return fig


def _series_label(row: pd.Series, column: str, many_variants: bool) -> str:
    """A grid row's name without the swept value of ``column`` (the chart's x)."""
    from sim.engine.sweep import format_value

    token = f"{column}={format_value(row[column])}"
    parts = ([str(row["variant"])] if many_variants else []) + [str(row["strategy"])]
    label = " / ".join(" ".join(w for w in part.split(" ") if w != token) for part in parts)
    return label.strip() or "edge"


def grid_chart(frame: pd.DataFrame, column: str, ax: Axes | None = None) -> Figure:
    """The headline edge against one swept parameter of a grid: one line per setting of the
    rest, its 95% band, and the exact curve (dashed, x) where the game has one."""
    fig, ax = new_axes(ax, (8.5, 4.6))
    rows = frame[frame[column].notna()].copy()
    values = list(dict.fromkeys(rows[column]))
    numeric = all(isinstance(v, (int, float, np.integer, np.floating))
                  and not isinstance(v, (bool, np.bool_)) for v in values)
    positions = {v: (float(v) if numeric else i) for i, v in enumerate(values)}
    rows["_x"] = [positions[v] for v in rows[column]]
    many_variants = rows["variant"].nunique() > 1
    rows["_series"] = [_series_label(r, column, many_variants) for _, r in rows.iterrows()]
    axis = HeadlineAxis.of(frame)
    if rows["_series"].nunique() > SERIES:
        _grid_map(rows, column, values, ax, axis)
        return fig
    # Markers for a few points; along thousands they would merge into a thick line.
    marker = "o-" if len(values) <= RASTER_POINTS else "-"
    for i, (label, part) in enumerate(rows.groupby("_series", sort=False)):
        part = part.sort_values("_x")
        colour = f"C{i % 10}"
        x = part["_x"].to_numpy(dtype=float)
        edge = part["edge"].to_numpy(dtype=float) * axis.scale
        band = Z95 * part["edge_stderr"].to_numpy(dtype=float) * axis.scale
        ax.plot(x, edge, marker, ms=3.5, lw=1.3, color=colour, label=label)
        ax.fill_between(x, edge - band, edge + band, color=colour, alpha=0.15, lw=0)
        exact = part["edge_exact"].to_numpy(dtype=float) * axis.scale
        if np.isfinite(exact).any():
            ax.plot(x, exact, "x--" if marker == "o-" else "--", ms=5, lw=0.9, color=colour)
    if rows["edge_exact"].notna().any():
        ax.plot([], [], "x--", color="black", lw=0.9, label="exact")
    if numeric and all(float(v).is_integer() for v in values):
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    if not numeric:
        from sim.engine.sweep import format_value

        ax.set_xticks(list(positions.values()), [format_value(v) for v in values])
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xlabel(column.replace("_", " "))
    ax.set_ylabel(axis.label)
    ax.set_title(f"{axis.what[0].upper()}{axis.what[1:]} by {column.replace('_', ' ')}: 95% bands"
                 + (", exact dashed" if rows["edge_exact"].notna().any() else ""))
    ax.grid(alpha=0.3)
    legend_outside(ax)
    return fig


MAP_TICKS = 20  # labelled ticks at most on either axis of a heat map


def _map_ticks(axis, labels: list[str]) -> None:
    """At most :data:`MAP_TICKS` of a heat map's cells labelled on an axis, evenly spaced."""
    at = list(range(0, len(labels), math.ceil(len(labels) / MAP_TICKS)))
    axis.set_ticks(at, [labels[i] for i in at])


def _grid_map(rows: pd.DataFrame, column: str, values: list, ax: Axes,
              axis: HeadlineAxis) -> None:
    """A grid of more series than lines can tell apart, as a heat map: the swept parameter
    across, each setting of the rest down, the headline edge as colour (red: the house wins;
    white: no edge, or no row). One cell per row, whatever their number, in a chart of one
    size; report.csv holds the bands and exact values."""
    from matplotlib.colors import TwoSlopeNorm

    from sim.engine.sweep import format_value

    series = list(dict.fromkeys(rows["_series"]))
    table = rows.pivot_table(index="_series", columns=column, values="edge", aggfunc="first",
                             dropna=False).reindex(index=series, columns=values) * axis.scale
    cells = table.to_numpy(dtype=float)
    finite = cells[np.isfinite(cells)]
    reach = float(np.abs(finite).max()) if finite.size and np.abs(finite).max() > 0 else 1.0
    image = ax.imshow(cells, aspect="auto", interpolation="nearest", cmap="RdBu_r",
                      norm=TwoSlopeNorm(0.0, -reach, reach))
    _map_ticks(ax.xaxis, [format_value(v) for v in values])
    _map_ticks(ax.yaxis, series)
    ax.tick_params(axis="y", labelsize="x-small")
    ax.set_xlabel(column.replace("_", " "))
    ax.set_ylabel("the other parameters (a row each)")
    colourbar = ax.figure.colorbar(image, ax=ax, shrink=0.9)
    colourbar.set_label(axis.label)
    ax.set_title(f"{axis.what[0].upper()}{axis.what[1:]} by {column.replace('_', ' ')} and "
                 "the rest: "
                 f"{len(series):,} settings x {len(values):,} values (report.csv has the bands)",
                 fontsize="medium")
