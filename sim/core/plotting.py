"""Chart primitives in the house style, for the games' odds charts and the run's charts.

matplotlib on the Agg backend (files, no screen). A chart takes an optional ``ax`` (or ``fig``
for small multiples) and returns its Figure; its legend stands outside the plotting area; a
saved chart has a footer line and the same bytes for the same figure (no dates, fixed SVG
ids), laid out once however many formats it is saved in (:func:`figure_bytes`).
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
    NullFormatter,
)
from matplotlib.transforms import Bbox  # noqa: E402

# Deterministic files: SVG element ids from a fixed salt, and no creation date in any format.
matplotlib.rcParams["svg.hashsalt"] = "houseedge"
matplotlib.rcParams["svg.fonttype"] = "path"  # the page looks the same without the fonts
PAD_INCHES = 0.12  # the margin around the tight area of a saved chart
METADATA = {"png": {"Software": None}, "svg": {"Date": None, "Creator": None},
            "pdf": {"CreationDate": None, "Creator": None, "Producer": None}}

def new_axes(ax: Axes | None, size: tuple[float, float]) -> tuple[Figure, Axes]:
    if ax is None:
        fig, ax = plt.subplots(figsize=size, layout="constrained")
        return fig, ax
    return ax.figure, ax


GRID_COLUMNS = 4  # panels per row of small multiples, unless a chart asks for another


def panel_grid(fig: Figure | None, count: int, panel: tuple[float, float] = (3.6, 2.6),
          cols: int = GRID_COLUMNS):
    cols = min(count, cols)
    rows = math.ceil(count / cols)
    if fig is None:
        fig = plt.figure(figsize=(panel[0] * cols, panel[1] * rows + 0.4), layout="constrained")
    axes = fig.subplots(rows, cols, squeeze=False).ravel()
    for extra in axes[count:]:
        extra.set_visible(False)
    return fig, axes[:count]


def spread(items: list, count: int) -> list:
    """At most ``count`` of ``items``, spread evenly over them, the first and last included."""
    if len(items) <= count:
        return list(items)
    if count == 1:
        return [items[0]]
    return [items[round(i * (len(items) - 1) / (count - 1))] for i in range(count)]


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


def line_chart(frame: pd.DataFrame, x: str, y: str, hue: str, ax: Axes | None = None,
               title: str = "", xlabel: str | None = None, ylabel: str | None = None,
               percent: bool = False, legend_title: str | None = None) -> Figure:
    """One line of ``y`` against ``x`` per value of ``hue`` (an odds chart from a table)."""
    fig, ax = new_axes(ax, (8, 4.2))
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
    from sim.core.files import write_atomic

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
