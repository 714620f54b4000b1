"""Odds charts with matplotlib (Agg backend: files, no screen).

Every function takes an optional ``ax`` (or ``fig`` for small multiples) and returns the
Figure, so charts compose into a user's own layouts. Charts meant for print follow one
house style: a title, axes that name their units, a legend outside the plotting area (it never
covers data) and, when saved by a run, a footer line naming the experiment, the rounds and the
seed (:func:`save`). Heavy-tailed outcomes are drawn as stems on a log scale.
"""

from __future__ import annotations

import io
import math
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import (  # noqa: E402
    Formatter,
    Locator,
    LogFormatterSciNotation,
    MaxNLocator,
    NullFormatter,
)
from matplotlib.transforms import Bbox  # noqa: E402

from sim.stats import Z95  # noqa: E402

# Deterministic files: SVG element ids from a fixed salt, and no creation date in any format.
matplotlib.rcParams["svg.hashsalt"] = "houseedge"
matplotlib.rcParams["svg.fonttype"] = "path"  # the page looks the same without the fonts
PAD_INCHES = 0.12  # the margin around the tight area of a saved chart
METADATA = {"png": {"Software": None}, "svg": {"Date": None, "Creator": None},
            "pdf": {"CreationDate": None, "Creator": None, "Producer": None}}


def _axes(ax: Axes | None, size: tuple[float, float]) -> tuple[Figure, Axes]:
    if ax is None:
        fig, ax = plt.subplots(figsize=size, layout="constrained")
        return fig, ax
    return ax.figure, ax


GRID_COLUMNS = 4  # panels per row of small multiples, unless a chart asks for another


def _grid(fig: Figure | None, count: int, panel: tuple[float, float] = (3.6, 2.6),
          cols: int = GRID_COLUMNS):
    cols = min(count, cols)
    rows = math.ceil(count / cols)
    if fig is None:
        fig = plt.figure(figsize=(panel[0] * cols, panel[1] * rows + 0.4), layout="constrained")
    axes = fig.subplots(rows, cols, squeeze=False).ravel()
    for extra in axes[count:]:
        extra.set_visible(False)
    return fig, axes[:count]


# A chart of a large report stays the same size, and as quick to draw, whatever its rows:
LABELLED_ROWS = 60  # the edge chart gives each row a line of its own up to this many rows
PANELS = 12  # small multiples (outcomes, convergence) draw at most this many rows
SERIES = 10  # a grid chart draws a line per setting of the rest up to this many; then a map


def spread(items: list, count: int) -> list:
    """At most ``count`` of ``items``, spread evenly over them, the first and last included."""
    if len(items) <= count:
        return list(items)
    if count == 1:
        return [items[0]]
    return [items[round(i * (len(items) - 1) / (count - 1))] for i in range(count)]


def shown_note(shown: int, total: int, what: str, csv: str) -> str:
    """The line a chart of a large report adds to its title: which rows it draws."""
    return (f"{shown} of {total:,} {what} shown, spread evenly over the report (each panel "
            f"names its row); {csv} holds every one")


def outer_axis_labels(axes, cols: int) -> None:
    """In a grid of small multiples, name each axis once: the x axis under the lowest panel of
    each column, the y axis beside the first panel of each row, where every panel's label is
    the same. Tick labels stay on every panel (the panels' scales differ)."""
    axes = list(np.atleast_1d(axes))
    if len({ax.get_xlabel() for ax in axes}) == 1:
        for i, ax in enumerate(axes):
            if i + cols < len(axes):
                ax.set_xlabel("")
    if len({ax.get_ylabel() for ax in axes}) == 1:
        for i, ax in enumerate(axes):
            if i % cols:
                ax.set_ylabel("")


def legend_outside(ax: Axes, title: str | None = None, **kwargs) -> None:
    """A legend to the right of the axes, so that it never covers a point."""
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.01, 1.0),
                  fontsize="small", title=title, title_fontsize="small", frameon=False,
                  **kwargs)


def figure_legend(fig: Figure, axes, title: str | None = None,
                  loc: str = "outside right upper") -> None:
    """One legend for a figure of small multiples (every label of any panel, once), to the
    right of every panel (at its top, unless ``loc`` says otherwise)."""
    found: dict[str, object] = {}
    for ax in np.atleast_1d(axes):
        for handle, label in zip(*ax.get_legend_handles_labels()):
            found.setdefault(label, handle)
    handles, labels = list(found.values()), list(found)
    if handles:
        fig.legend(handles, labels, loc=loc, fontsize="small",
                   frameon=False, title=title, title_fontsize="small")


def footer_text(experiment: str, rounds: str, seed: int | str) -> str:
    """The footer line of a run's charts."""
    return f"houseedge · experiment {experiment} · {rounds} · seed {seed}"


def _pct_label(basis: str) -> str:
    return f"house edge {basis}, %"


def edge_axes(frame: pd.DataFrame, ax: Axes, edge: str = "edge", stderr: str = "edge_stderr",
              exact: str = "edge_exact", title: str = "") -> None:
    """Edge by strategy (rows) and variant (colours), with 95% error bars and exact values as
    crosses. The bars use the error z is taken with (the exact spread where known); a row
    whose sample error is unreliable is drawn hollow, and a bet not offered is written out."""
    strategies = list(dict.fromkeys(frame["strategy"]))
    variants = list(dict.fromkeys(frame["variant"]))
    height = 0.8 / max(1, len(variants))
    notes = (frame["note"].astype(object) if "note" in frame
             else pd.Series("", index=frame.index, dtype=object))
    drawn = []  # (edges, errors, exact, y, colour) of each variant, in %
    for vi, variant in enumerate(variants):
        part = frame[frame["variant"] == variant].set_index("strategy").reindex(strategies)
        part_notes = notes[frame["variant"] == variant].set_axis(
            frame.loc[frame["variant"] == variant, "strategy"]).reindex(strategies).fillna("")
        y = np.arange(len(strategies)) + (vi - (len(variants) - 1) / 2) * height
        colour = f"C{vi % 10}"
        values = part[edge].to_numpy(dtype=float) * 100
        errors = Z95 * part[stderr].to_numpy(dtype=float) * 100
        shaky = part_notes.str.startswith("sample SE unreliable").to_numpy()
        ax.errorbar(values[~shaky], y[~shaky], xerr=errors[~shaky], fmt="o", ms=4,
                    color=colour, capsize=3, label=variant)
        if shaky.any():
            ax.errorbar(values[shaky], y[shaky], xerr=errors[shaky], fmt="o", ms=5,
                        mfc="white", color=colour, capsize=3, ls="none")
        ax.plot(part[exact].to_numpy(dtype=float) * 100, y, "x", color="black", ms=6,
                label="exact" if vi == 0 else None)
        drawn.append((values, errors, part[exact].to_numpy(dtype=float) * 100, y, colour))
        for yi, text in zip(y, part_notes):
            if text.startswith("not offered") or text.startswith("no bet"):
                ax.annotate(f"{variant}: {text.split(':')[0]}", (0, yi), xytext=(4, 0),
                            textcoords="offset points", va="center", fontsize="x-small",
                            color=colour)
    ax.set_yticks(np.arange(len(strategies)), strategies)
    ax.set_ylim(len(strategies) - 0.5, -0.5)
    ax.axvline(0, color="grey", lw=0.8)
    _clip_outliers(ax, drawn)
    exact_bars = (frame.get("stderr_source", pd.Series(dtype=str)) == "exact").any()
    bars = "bars: 95% CI" + (", from the exact SD where known" if exact_bars else "")
    ax.set_xlabel(_pct_label(frame["headline_basis"].iloc[0]) + f" ({bars})"
                  if "headline_basis" in frame else f"house edge, % ({bars})")
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


def _clip_outliers(ax: Axes, drawn) -> None:
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
            text = f"{value:+.0f}%" + (f" (exact {known:+.0f}%)" if np.isfinite(known)
                                       and f"{known:+.0f}" != f"{value:+.0f}" else "")
            ax.annotate(text, (edge, yi), xytext=(-9 if right else 9, 0),
                        textcoords="offset points", ha="right" if right else "left",
                        va="center", fontsize="x-small", color=colour)
            ax.plot([edge], [yi], ">" if right else "<", color=colour, ms=6, clip_on=False)


def _no_stakes(frame: pd.DataFrame) -> bool:
    """A game where nobody stakes anything (bridge, piquet): every edge is NaN."""
    return bool(frame["edge_per_initial_bet"].isna().all())


def mean_net_chart(frame: pd.DataFrame, fig: Figure | None = None) -> Figure:
    """The mean net result per round (points, a score) by variant and strategy, with 95%
    error bars and the exact values: the edge chart of a game with no stakes."""
    rows = frame["strategy"].nunique() * max(1, frame["variant"].nunique()) ** 0.5
    fig, ax = _axes(None if fig is None else fig.gca(), (8, 1.4 + 0.45 * rows))
    strategies = list(dict.fromkeys(frame["strategy"]))
    variants = list(dict.fromkeys(frame["variant"]))
    height = 0.8 / max(1, len(variants))
    for vi, variant in enumerate(variants):
        part = frame[frame["variant"] == variant].set_index("strategy").reindex(strategies)
        y = np.arange(len(strategies)) + (vi - (len(variants) - 1) / 2) * height
        se = part["std_net"] / np.sqrt(part["rounds"])
        ax.errorbar(part["mean_net"], y, xerr=Z95 * se, fmt="o", ms=4, color=f"C{vi}",
                    capsize=3, label=variant)
        if "exact_mean_net" in part:
            ax.plot(part["exact_mean_net"], y, "x", color="black", ms=6,
                    label="exact" if vi == 0 else None)
    ax.set_yticks(np.arange(len(strategies)), strategies)
    ax.invert_yaxis()
    ax.set_xlabel("mean net result per round (95% CI)")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(loc="best", fontsize="small")
    ax.set_title(f"{frame['game'].iloc[0]}: mean net result by variant and strategy "
                 "(no stakes: no edge)")
    return fig


def edge_overview(frame: pd.DataFrame, fig: Figure | None = None) -> Figure:
    """Every row's headline edge (the mean net result where nobody stakes anything) in report
    order, as a line with its 95% band and the exact values dashed: the edge chart of a report
    too large for a labelled line per row. Its size does not grow with the rows."""
    fig, ax = _axes(None if fig is None else fig.gca(), (9, 4.6))
    x = np.arange(1, len(frame) + 1)
    if _no_stakes(frame):
        value = frame["mean_net"].to_numpy(dtype=float)
        band = Z95 * (frame["std_net"] / np.sqrt(frame["rounds"])).to_numpy(dtype=float)
        exact = frame.get("exact_mean_net", pd.Series(np.nan, index=frame.index))
        ax.set_ylabel("mean net result per round")
        what = "mean net result"
    else:
        value = frame["edge"].to_numpy(dtype=float) * 100
        band = Z95 * frame["edge_stderr"].to_numpy(dtype=float) * 100
        exact = frame["edge_exact"] * 100
        basis = frame["headline_basis"].iloc[0]
        ax.set_ylabel(_pct_label(basis))
        what = f"house edge {basis}"
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
    """The headline house edge by variant and strategy (the basis named on the axis); the mean
    net result where nobody stakes anything. Past :data:`LABELLED_ROWS` rows, every row in
    report order (:func:`edge_overview`): a labelled line each would make a chart of thousands
    of lines, metres tall, taking minutes and gigabytes to draw."""
    if len(frame) > LABELLED_ROWS:
        return edge_overview(frame, fig)
    if _no_stakes(frame):
        return mean_net_chart(frame, fig)
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
    ax.set_title(f"{frame['game'].iloc[0]}: house edge {frame['headline_basis'].iloc[0]}"
                 if "headline_basis" in frame else f"{frame['game'].iloc[0]}: house edge")
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
    fig, axes = _grid(fig, len(strategies), panel=(4.2, 3.0), cols=3)
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


def convergence_axes(rows: pd.DataFrame, ax: Axes, exact: float | None, title: str) -> None:
    """The running estimate against rounds, its 95% band and the exact value."""
    ax.plot(rows["rounds"], rows["edge"] * 100, "o-", ms=2.5, color="C0", lw=1.2,
            label="estimate")
    ax.fill_between(rows["rounds"], rows["ci95_low"] * 100, rows["ci95_high"] * 100,
                    color="C0", alpha=0.2, label="95% CI")
    if exact is not None and math.isfinite(exact):
        ax.axhline(exact * 100, color="black", lw=1, ls="--", label="exact")
    if rows["edge"].notna().any():  # a game without stakes has no edge to draw
        ax.set_xscale("log")
        _round_count_ticks(ax.xaxis, *ax.get_xlim())
    ax.set_title(title, fontsize="medium")
    ax.set_xlabel("rounds played (log)")
    ax.set_ylabel("edge, %")
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


def _convergence_points(conv: pd.DataFrame, frame: pd.DataFrame
                        ) -> tuple[pd.DataFrame, pd.DataFrame, bool]:
    """The running estimates a convergence chart draws (the mean net result, in its own units,
    in a game without stakes), the finite ones among them, and whether they are the mean net
    result."""
    no_stakes = _no_stakes(frame) and "mean_net" in conv
    if no_stakes:
        band = Z95 * conv["stderr_mean_net"]
        conv = conv.assign(edge=conv["mean_net"] / 100, ci95_low=(conv["mean_net"] - band) / 100,
                           ci95_high=(conv["mean_net"] + band) / 100)
    return conv, conv[np.isfinite(conv["edge"].to_numpy(dtype=float))], no_stakes


def no_convergence_reason(conv: pd.DataFrame, frame: pd.DataFrame, chunk_rounds: int) -> str:
    """Why a run has no convergence chart, or "" when it has one."""
    _, finite, _ = _convergence_points(conv, frame)
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
    conv, finite, no_stakes = _convergence_points(conv, frame)  # no edge (no bet): not drawn
    counts = finite.groupby(["variant", "strategy"], sort=False).size()
    every = [pair for pair, n in counts.items() if n >= MIN_CONVERGENCE_POINTS]
    if not every:
        return None
    pairs = spread(every, PANELS)
    fig, axes = _grid(fig, len(pairs))
    column = "edge_exact" if "edge_exact" in frame else "exact_edge"
    if no_stakes:
        column = "exact_mean_net" if "exact_mean_net" in frame else column
    exact = frame.set_index(["variant", "strategy"])[column]
    for ax, (variant, strategy) in zip(axes, pairs):
        rows = conv[(conv["variant"] == variant) & (conv["strategy"] == strategy)]
        value = exact.get((variant, strategy))
        if no_stakes and value is not None:
            value = value / 100
        convergence_axes(rows, ax, value, f"{variant} / {strategy}")
        if no_stakes:
            ax.set_ylabel("mean net result")
    outer_axis_labels(axes, GRID_COLUMNS)
    # Beside the panels' middle: at their top it stood under the end of the title, which
    # runs wider than one or two panels.
    figure_legend(fig, axes, loc="outside right center")
    basis = frame["headline_basis"].iloc[0] if "headline_basis" in frame else "per initial stake"
    title = ("Convergence of the mean net result, chunk by chunk" if no_stakes
             else f"Convergence of the house edge {basis}, chunk by chunk")
    if len(pairs) < len(every):
        title += "\n" + shown_note(len(pairs), len(every), "rows", "convergence.csv")
    fig.suptitle(title)
    return fig


def _series_label(row: pd.Series, column: str, many_variants: bool) -> str:
    """A grid row's name without the swept value of ``column`` (the chart's x)."""
    from sim.grid import format_value

    token = f"{column}={format_value(row[column])}"
    parts = ([str(row["variant"])] if many_variants else []) + [str(row["strategy"])]
    label = " / ".join(" ".join(w for w in part.split(" ") if w != token) for part in parts)
    return label.strip() or "edge"


def grid_chart(frame: pd.DataFrame, column: str, ax: Axes | None = None) -> Figure:
    """The headline edge against one swept parameter of a grid: one line per setting of the
    rest, its 95% band, and the exact curve (dashed, x) where the game has one."""
    fig, ax = _axes(ax, (8.5, 4.6))
    rows = frame[frame[column].notna()].copy()
    values = list(dict.fromkeys(rows[column]))
    numeric = all(isinstance(v, (int, float, np.integer, np.floating))
                  and not isinstance(v, (bool, np.bool_)) for v in values)
    positions = {v: (float(v) if numeric else i) for i, v in enumerate(values)}
    rows["_x"] = [positions[v] for v in rows[column]]
    many_variants = rows["variant"].nunique() > 1
    rows["_series"] = [_series_label(r, column, many_variants) for _, r in rows.iterrows()]
    basis = frame["headline_basis"].iloc[0] if "headline_basis" in frame else "per initial stake"
    if rows["_series"].nunique() > SERIES:
        _grid_map(rows, column, values, ax, basis)
        return fig
    # Markers for a few points; along thousands they would merge into a thick line.
    marker = "o-" if len(values) <= RASTER_POINTS else "-"
    for i, (label, part) in enumerate(rows.groupby("_series", sort=False)):
        part = part.sort_values("_x")
        colour = f"C{i % 10}"
        x = part["_x"].to_numpy(dtype=float)
        edge = part["edge"].to_numpy(dtype=float) * 100
        band = Z95 * part["edge_stderr"].to_numpy(dtype=float) * 100
        ax.plot(x, edge, marker, ms=3.5, lw=1.3, color=colour, label=label)
        ax.fill_between(x, edge - band, edge + band, color=colour, alpha=0.15, lw=0)
        exact = part["edge_exact"].to_numpy(dtype=float) * 100
        if np.isfinite(exact).any():
            ax.plot(x, exact, "x--" if marker == "o-" else "--", ms=5, lw=0.9, color=colour)
    if rows["edge_exact"].notna().any():
        ax.plot([], [], "x--", color="black", lw=0.9, label="exact")
    if numeric and all(float(v).is_integer() for v in values):
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    if not numeric:
        from sim.grid import format_value

        ax.set_xticks(list(positions.values()), [format_value(v) for v in values])
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xlabel(column.replace("_", " "))
    ax.set_ylabel(_pct_label(basis))
    ax.set_title(f"House edge {basis} by {column.replace('_', ' ')}: 95% bands"
                 + (", exact dashed" if rows["edge_exact"].notna().any() else ""))
    ax.grid(alpha=0.3)
    legend_outside(ax)
    return fig


MAP_TICKS = 20  # labelled ticks at most on either axis of a heat map


def _map_ticks(axis, labels: list[str]) -> None:
    """At most :data:`MAP_TICKS` of a heat map's cells labelled on an axis, evenly spaced."""
    at = list(range(0, len(labels), math.ceil(len(labels) / MAP_TICKS)))
    axis.set_ticks(at, [labels[i] for i in at])


def _grid_map(rows: pd.DataFrame, column: str, values: list, ax: Axes, basis: str) -> None:
    """A grid of more series than lines can tell apart, as a heat map: the swept parameter
    across, each setting of the rest down, the headline edge as colour (red: the house wins;
    white: no edge, or no row). One cell per row, whatever their number, in a chart of one
    size; report.csv holds the bands and exact values."""
    from matplotlib.colors import TwoSlopeNorm

    from sim.grid import format_value

    series = list(dict.fromkeys(rows["_series"]))
    table = rows.pivot_table(index="_series", columns=column, values="edge", aggfunc="first",
                             dropna=False).reindex(index=series, columns=values) * 100
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
    colourbar.set_label(_pct_label(basis))
    ax.set_title(f"House edge {basis} by {column.replace('_', ' ')} and the rest: "
                 f"{len(series):,} settings x {len(values):,} values (report.csv has the bands)",
                 fontsize="medium")


def line_chart(frame: pd.DataFrame, x: str, y: str, hue: str, ax: Axes | None = None,
               title: str = "", xlabel: str | None = None, ylabel: str | None = None,
               percent: bool = False, legend_title: str | None = None) -> Figure:
    """One line of ``y`` against ``x`` per value of ``hue`` (an odds chart from a table)."""
    fig, ax = _axes(ax, (8, 4.2))
    scale = 100 if percent else 1
    for i, (key, rows) in enumerate(frame.groupby(hue, sort=True)):
        rows = rows.sort_values(x)
        ax.plot(rows[x], rows[y] * scale, marker="o", ms=3, lw=1.2, color=f"C{i % 10}",
                label=f"{key}")
    ax.set_xlabel(xlabel or x.replace("_", " "))
    ax.set_ylabel((ylabel or y.replace("_", " ")) + (", %" if percent else ""))
    ax.set_title(title)
    ax.grid(alpha=0.3)
    legend_outside(ax, title=legend_title or hue.replace("_", " "))
    return fig


def add_footer(fig: Figure, text: str) -> None:
    """A small grey line under everything else on the figure (placed when it is saved, by
    :func:`figure_bytes`)."""
    if getattr(fig, "_houseedge_footer", None) == text:
        return  # a chart shared by several files: laid out and saved already
    if getattr(fig, "_houseedge_footer_placed", False):
        raise ValueError("this figure is saved with another footer already")
    fig._houseedge_footer = text  # type: ignore[attr-defined]
    fig._houseedge_area = None  # type: ignore[attr-defined]  # the saved area takes it in


def _place_footer(fig: Figure) -> None:
    text = getattr(fig, "_houseedge_footer", None)
    if not text or getattr(fig, "_houseedge_footer_placed", False):
        return
    # Under the figure's bottom edge: the layout keeps every axis, label and legend inside
    # the figure (legends stand to the right, never below), and the tight box of the saved
    # file reaches down to take the line in. A figure's plain texts take no part in its
    # layout, so the footer moves nothing.
    fig.text(0.005, 0.0, text, ha="left", va="top", fontsize=7, color="grey",
             gid="houseedge-footer")
    fig._houseedge_footer_placed = True  # type: ignore[attr-defined]


def figure_bytes(fig: Figure, fmt: str = "png", dpi: int = 110, footer: str | None = None,
                 close: bool = True) -> bytes:
    """The figure as PNG or SVG bytes, the same bytes for the same figure (no dates).

    A chart that several files may share (one variant's exact chart standing for others',
    marked by :func:`mark_shared`) keeps its bytes: it is drawn once, whichever file asks
    first, and answers even closed.
    """
    if footer:
        add_footer(fig, footer)
    saved = getattr(fig, "_houseedge_saved", None)
    if saved is not None and (fmt, dpi) in saved:
        data = saved[(fmt, dpi)]
    elif getattr(fig, "_houseedge_stand_in", False):
        raise ValueError(f"this chart was saved as {sorted(saved)} only, not as {fmt} at {dpi}")
    else:
        buffer = io.BytesIO()
        fig.savefig(buffer, format=fmt, dpi=dpi, bbox_inches=_settled_area(fig),
                    metadata=METADATA.get(fmt))
        data = buffer.getvalue()
        if saved is not None:
            saved[(fmt, dpi)] = data
    if close:
        plt.close(fig)
    return data


def saved_stand_in(fig: Figure) -> Figure:
    """For a shared figure already saved: an empty figure holding only its saved bytes and
    footer, which :func:`figure_bytes` answers from (and refuses a format not saved); the
    figure itself where nothing was saved yet."""
    saved = getattr(fig, "_houseedge_saved", None)
    if not saved:
        return fig
    stand_in = Figure()
    stand_in._houseedge_saved = dict(saved)  # type: ignore[attr-defined]
    stand_in._houseedge_stand_in = True  # type: ignore[attr-defined]
    stand_in._houseedge_footer = getattr(fig, "_houseedge_footer", None)  # type: ignore
    stand_in._houseedge_footer_placed = True  # type: ignore[attr-defined]
    return stand_in


def mark_shared(fig: Figure) -> None:
    """Keep the figure's saved bytes (:func:`figure_bytes`): several files will hold it."""
    if getattr(fig, "_houseedge_saved", None) is None:
        fig._houseedge_saved = {}  # type: ignore[attr-defined]


def _settled_area(fig: Figure) -> Bbox:
    """Lay the figure out once and keep it so: the area to save, in inches.

    ``savefig(bbox_inches="tight")`` lays a figure out and draws it twice for every file; a
    chart saved as PNG and as SVG was laid out twice and drawn four times. Here the layout
    runs once, the figure then keeps its positions (no layout engine) and every save draws it
    once, into the same tight area.
    """
    area = getattr(fig, "_houseedge_area", None)
    if area is None:
        _place_footer(fig)
        _plain_log_labels(fig)
        _ticks_in_view(fig)
        _spines_out_of_layout(fig)
        # The engine alone, as a draw would run it first: a whole draw without rendering
        # (Figure.draw_without_rendering) added a quarter to the cost of the layout and
        # placed nothing differently (every artist's extent is computed on demand).
        engine = fig.get_layout_engine()
        if fig.axes and engine is not None:
            engine.execute(fig)
        fig.set_layout_engine(None)
        area = fig.get_tightbbox(fig.canvas.get_renderer()).padded(PAD_INCHES)
        fig._houseedge_area = area  # type: ignore[attr-defined]
    return area


def save(fig: Figure, path: Path, dpi: int = 110, footer: str | None = None) -> None:
    """Save as PNG (or SVG, by the suffix) atomically and free the figure."""
    from sim.files import write_atomic

    fmt = path.suffix.lstrip(".").lower() or "png"
    write_atomic(path, figure_bytes(fig, fmt, dpi, footer))


_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")
_MATH_LABEL = re.compile(r"\$\\mathdefault\{(-?)(?:([0-9.]+)\\times)?([0-9.]+)"
                         r"(?:\^\{(-?[0-9]+)\})?\}\$")


def plain_log_label(label: str) -> str:
    """A log axis's tick label (``$\\mathdefault{2\\times10^{-3}}$``) as plain text
    (``2×10⁻³``), the same label without mathtext; a label of another form is kept."""
    found = _MATH_LABEL.fullmatch(label)
    if found is None:
        return label
    sign, coefficient, base, exponent = found.groups()
    text = (f"{coefficient}×" if coefficient else "") + base
    return ("−" if sign else "") + text + (exponent.translate(_SUPERSCRIPT) if exponent else "")


class _PlainLabels(Formatter):
    """Another formatter's labels in plain text (:func:`plain_log_label`)."""

    def __init__(self, inner: Formatter) -> None:
        self.inner = inner

    def set_axis(self, axis) -> None:
        super().set_axis(axis)
        self.inner.set_axis(axis)

    def set_locs(self, locs) -> None:
        self.inner.set_locs(locs)

    def __call__(self, x: float, pos: int | None = None) -> str:
        return plain_log_label(self.inner(x, pos))

    def format_data_short(self, value: float) -> str:
        return self.inner.format_data_short(value)


def _plain_log_labels(fig: Figure) -> None:
    """Log and symlog axes labelled in plain text: matplotlib parses each of its own labels
    as mathtext at every draw (28% of the profiled chart time of bonus_operator's run)."""
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            if isinstance(axis.get_major_formatter(), LogFormatterSciNotation):
                axis.set_major_formatter(_PlainLabels(axis.get_major_formatter()))
            if isinstance(axis.get_minor_formatter(), LogFormatterSciNotation):
                axis.set_minor_formatter(_PlainLabels(axis.get_minor_formatter()))


class _InView(Locator):
    """Another locator's ticks, only those in the axis's view.

    A log locator also returns the ticks of the decades on either side of the view, and the
    axis makes a tick (two lines, two labels) for each, lays them out and formats them at every
    draw, to drop them when it draws: a panel from 10³ to 2×10³ (a convergence chart of a short
    run) made 16 minor ticks to draw one, and they were half of its cost. The ticks kept are a
    superset of those drawn (the axis filters them as before), so the chart is the same."""

    TOLERANCE = 1e-6  # of the view's width in the scale's coordinates: wider than the axis's

    def __init__(self, inner: Locator) -> None:
        self.inner = inner

    def set_axis(self, axis) -> None:
        super().set_axis(axis)
        self.inner.set_axis(axis)

    def __call__(self):
        return self.tick_values(*self.axis.get_view_interval())

    def tick_values(self, vmin, vmax):
        ticks = np.asarray(self.inner.tick_values(vmin, vmax), dtype=float)
        if self.axis is None or ticks.size == 0:
            return ticks
        transform = self.axis.get_transform()
        low, high = sorted(transform.transform(np.array([vmin, vmax], dtype=float)))
        margin = self.TOLERANCE * (high - low)
        at = transform.transform(ticks)
        return ticks[(at >= low - margin) & (at <= high + margin)]

    def nonsingular(self, vmin, vmax):
        return self.inner.nonsingular(vmin, vmax)

    def view_limits(self, vmin, vmax):
        return self.inner.view_limits(vmin, vmax)


def _ticks_in_view(fig: Figure) -> None:
    """Log and symlog axes make ticks only in their view (:class:`_InView`)."""
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            if axis.get_scale() not in ("log", "symlog"):
                continue
            for ticker in (axis.major, axis.minor):
                if not isinstance(ticker.locator, _InView):
                    inner = ticker.locator
                    ticker.locator = _InView(inner)
                    ticker.locator.set_axis(axis)


# The axis and the tick side (1: bottom or left, 2: top or right) of each spine.
_SPINE_SIDES = {"left": ("yaxis", 1), "right": ("yaxis", 2), "bottom": ("xaxis", 1),
                "top": ("xaxis", 2)}


def _marks_under_labels(axis, side: int) -> bool:
    """Whether every tick mark an axis draws on one side has a label beyond it there."""
    for ticks in (axis.majorTicks, axis.minorTicks):
        tick = ticks[0]  # every tick of a kind is drawn alike (tick_params sets them all)
        if getattr(tick, f"tick{side}line").get_visible() and not (
                getattr(tick, f"label{side}").get_visible()
                and not isinstance(axis.get_major_formatter(), NullFormatter)):
            return False
    return True


def _spines_out_of_layout(fig: Figure) -> None:
    """Leave out of the layout and of the saved area each spine whose extent lies inside
    what is measured anyway: the axes' box and the tick labels beyond its tick marks.

    A spine's extent is the axes' edge widened by its tick marks; to find them it makes the
    axis's ticks again (and a layout measures every axes twice, the saved area once more):
    a sixth of the cost of laying a chart out. A spine moved off the axes' edge, or with tick
    marks but no labels on its side, still takes part."""
    for ax in fig.axes:
        for name, spine in ax.spines.items():
            axis_name, side = _SPINE_SIDES.get(name, ("", 0))
            axis = getattr(ax, axis_name, None) if axis_name else None
            if axis is not None and spine.get_position() == ("outward", 0.0) \
                    and _marks_under_labels(axis, side):
                spine.set_in_layout(False)
