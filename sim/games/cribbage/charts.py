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
    from sim.charts import _axes

    fig, ax = _axes(ax, (9, 4.2))
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


def points_chart(rows: list[dict], ax: Axes | None = None, title: str = "") -> Figure:
    """Mean points per deal by strategy (rows of the chart) and variant (colours), with 95%
    error bars and the exact value (x) where known. Each row of ``rows`` has ``variant``,
    ``strategy``, ``mean``, ``se`` and ``exact`` (NaN if unknown)."""
    from sim.charts import _axes
    from sim.stats import Z95

    strategies = list(dict.fromkeys(r["strategy"] for r in rows))
    variants = list(dict.fromkeys(r["variant"] for r in rows))
    fig, ax = _axes(ax, (9, 1.2 + 0.5 * len(strategies) * max(1, len(variants)) ** 0.5))
    height = 0.8 / max(1, len(variants))
    for vi, variant in enumerate(variants):
        part = {r["strategy"]: r for r in rows if r["variant"] == variant}
        y = np.arange(len(strategies)) + (vi - (len(variants) - 1) / 2) * height
        mean = np.array([part[s]["mean"] if s in part else np.nan for s in strategies])
        se = np.array([part[s]["se"] if s in part else np.nan for s in strategies])
        exact = np.array([part[s]["exact"] if s in part else np.nan for s in strategies])
        ax.errorbar(mean, y, xerr=Z95 * se, fmt="o", ms=4, color=f"C{vi}", capsize=3,
                    label=variant)
        ax.plot(exact, y, "x", color="black", ms=7, label="exact" if vi == 0 else None)
    ax.set_yticks(np.arange(len(strategies)), strategies)
    ax.invert_yaxis()
    ax.set_xlabel("points per deal of the followed seat (95% CI)")
    ax.set_title(title)
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize="small")
    return fig
