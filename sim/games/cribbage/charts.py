"""Cribbage charts: show-score distributions, exact and simulated."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure


def score_chart(bars: Mapping[str, np.ndarray], lines: Mapping[str, np.ndarray] | None = None,
                ax: Axes | None = None, title: str = "", log: bool = True) -> Figure:
    """Probability of each show score: ``bars`` side by side (exact distributions), ``lines``
    as markers over them (simulated ones). Each value is an array of probabilities indexed by
    score. A log scale shows the rare 24, 28 and 29 beside the common scores."""
    from sim.core.plotting import new_axes

    fig, ax = new_axes(ax, (9, 4.2))
    top = max([int(np.flatnonzero(p).max()) for p in [*bars.values(), *(lines or {}).values()]
               if np.any(p)] + [1])
    x = np.arange(top + 1)
    width = 0.8 / max(1, len(bars))
    for i, (label, p) in enumerate(bars.items()):
        values = np.zeros(top + 1)
        values[:min(p.size, top + 1)] = p[:top + 1]
        ax.bar(x + (i - (len(bars) - 1) / 2) * width, np.where(values > 0, values, np.nan),
               width, color=f"C{i}", label=label)
    for i, (label, p) in enumerate((lines or {}).items()):
        values = np.zeros(top + 1)
        values[:min(p.size, top + 1)] = p[:top + 1]
        ax.plot(x, np.where(values > 0, values, np.nan), "o", ms=4, mfc="none",
                color=f"C{len(bars) + i}", label=label)
    if log:
        ax.set_yscale("log")
    ax.set_xticks(x[::2] if top > 30 else x)
    ax.set_xlabel("points in the show")
    ax.set_ylabel("probability")
    ax.set_title(title)
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize="small", loc="upper right")  # the rare high scores leave room there
    return fig
