"""Odds charts with matplotlib (Agg backend: files, no screen).

Every function takes an optional ``ax`` (or ``fig`` for small multiples) and returns the
Figure, so charts compose into a user's own layouts.
"""

from __future__ import annotations

import io
import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from sim.stats import Z95  # noqa: E402


def _axes(ax: Axes | None, size: tuple[float, float]) -> tuple[Figure, Axes]:
    if ax is None:
        fig, ax = plt.subplots(figsize=size, layout="constrained")
        return fig, ax
    return ax.figure, ax


def _grid(fig: Figure | None, count: int, panel: tuple[float, float] = (3.6, 2.6)):
    cols = min(count, 4)
    rows = math.ceil(count / cols)
    if fig is None:
        fig = plt.figure(figsize=(panel[0] * cols, panel[1] * rows + 0.4), layout="constrained")
    axes = fig.subplots(rows, cols, squeeze=False).ravel()
    for extra in axes[count:]:
        extra.set_visible(False)
    return fig, axes[:count]


def edge_axes(frame: pd.DataFrame, ax: Axes, edge: str, stderr: str, exact: str,
              title: str) -> None:
    """Edge by strategy (rows) and variant (colours), 95% error bars, exact values as x."""
    strategies = list(dict.fromkeys(frame["strategy"]))
    variants = list(dict.fromkeys(frame["variant"]))
    height = 0.8 / max(1, len(variants))
    for vi, variant in enumerate(variants):
        part = frame[frame["variant"] == variant].set_index("strategy").reindex(strategies)
        y = np.arange(len(strategies)) + (vi - (len(variants) - 1) / 2) * height
        colour = f"C{vi}"
        ax.errorbar(part[edge] * 100, y, xerr=Z95 * part[stderr] * 100, fmt="o", ms=4,
                    color=colour, capsize=3, label=variant)
        ax.plot(part[exact] * 100, y, "x", color="black", ms=6,
                label="exact" if vi == 0 else None)
    ax.set_yticks(np.arange(len(strategies)), strategies)
    ax.invert_yaxis()
    ax.axvline(0, color="grey", lw=0.8)
    ax.set_xlabel("house edge, % (95% CI)")
    ax.set_title(title)
    ax.grid(axis="x", alpha=0.3)


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


def edge_chart(frame: pd.DataFrame, fig: Figure | None = None) -> Figure:
    """House edge per initial stake and per total wagered, by variant and strategy (the mean
    net result where nobody stakes anything)."""
    if _no_stakes(frame):
        return mean_net_chart(frame, fig)
    rows = frame["strategy"].nunique()
    if fig is None:
        fig = plt.figure(figsize=(11, 1.2 + 0.45 * rows * max(1, frame["variant"].nunique())
                                  ** 0.5), layout="constrained")
    left, right = fig.subplots(1, 2, sharey=True)
    edge_axes(frame, left, "edge_per_initial_bet", "stderr", "exact_edge",
              "per initial stake")
    edge_axes(frame, right, "edge_per_total_wagered", "stderr_per_total_wagered",
              "exact_edge_per_total_wagered", "per total wagered")
    right.legend(loc="best", fontsize="small")
    fig.suptitle(f"{frame['game'].iloc[0]}: house edge by variant and strategy")
    return fig


def outcome_chart(dist: pd.DataFrame, fig: Figure | None = None) -> Figure:
    """Distribution of the net result per round: one panel per strategy, a line per variant."""
    strategies = list(dict.fromkeys(dist["strategy"]))
    fig, axes = _grid(fig, len(strategies))
    for ax, strategy in zip(axes, strategies):
        part = dist[dist["strategy"] == strategy]
        for vi, (variant, rows) in enumerate(part.groupby("variant", sort=False)):
            rows = rows.sort_values("net")
            cum = rows["probability"].cumsum()
            keep = rows[(cum >= 0.0005) & (cum - rows["probability"] <= 0.9995)]
            ax.plot(keep["net"], keep["probability"], drawstyle="steps-mid", color=f"C{vi}",
                    label=variant, lw=1.2)
        ax.set_title(strategy, fontsize="medium")
        ax.set_xlabel("net result per round (units)")
        ax.set_ylabel("probability")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize="small")
    fig.suptitle("Outcome distribution")
    return fig


def convergence_axes(rows: pd.DataFrame, ax: Axes, exact: float | None, title: str) -> None:
    """The running estimate against rounds, its 95% band and the exact value."""
    ax.plot(rows["rounds"], rows["edge"] * 100, color="C0", lw=1.2, label="estimate")
    ax.fill_between(rows["rounds"], rows["ci95_low"] * 100, rows["ci95_high"] * 100,
                    color="C0", alpha=0.2, label="95% CI")
    if exact is not None and math.isfinite(exact):
        ax.axhline(exact * 100, color="black", lw=1, ls="--", label="exact")
    if rows["edge"].notna().any():  # a game without stakes has no edge to draw
        ax.set_xscale("log")
    ax.set_title(title, fontsize="medium")
    ax.set_xlabel("rounds")
    ax.set_ylabel("edge, %")
    ax.grid(alpha=0.3)


def convergence_chart(conv: pd.DataFrame, frame: pd.DataFrame, fig: Figure | None = None
                      ) -> Figure:
    """Convergence of each estimate, one panel per variant and strategy."""
    pairs = list(dict.fromkeys(zip(conv["variant"], conv["strategy"])))
    fig, axes = _grid(fig, len(pairs))
    no_stakes = _no_stakes(frame) and "mean_net" in conv
    column = "exact_mean_net" if no_stakes and "exact_mean_net" in frame else "exact_edge"
    exact = frame.set_index(["variant", "strategy"])[column]
    for ax, (variant, strategy) in zip(axes, pairs):
        rows = conv[(conv["variant"] == variant) & (conv["strategy"] == strategy)]
        if no_stakes:  # the mean net itself, in its own units
            band = Z95 * rows["stderr_mean_net"]
            rows = pd.DataFrame({"rounds": rows["rounds"], "edge": rows["mean_net"] / 100,
                                 "ci95_low": (rows["mean_net"] - band) / 100,
                                 "ci95_high": (rows["mean_net"] + band) / 100})
            value = exact.get((variant, strategy))
            value = None if value is None else value / 100
            convergence_axes(rows, ax, value, f"{variant} / {strategy}")
            ax.set_ylabel("mean net")
        else:
            convergence_axes(rows, ax, exact.get((variant, strategy)), f"{variant} / {strategy}")
    axes[0].legend(fontsize="small")
    fig.suptitle("Convergence of the mean net result" if no_stakes
                 else "Convergence of the edge per initial stake")
    return fig


def line_chart(frame: pd.DataFrame, x: str, y: str, hue: str, ax: Axes | None = None,
               title: str = "", xlabel: str | None = None, ylabel: str | None = None,
               percent: bool = False) -> Figure:
    """One line of ``y`` against ``x`` per value of ``hue`` (an odds chart from a table)."""
    fig, ax = _axes(ax, (7, 4))
    scale = 100 if percent else 1
    for i, (key, rows) in enumerate(frame.groupby(hue, sort=True)):
        rows = rows.sort_values(x)
        ax.plot(rows[x], rows[y] * scale, marker="o", ms=3, lw=1.2, color=f"C{i}",
                label=f"{hue.replace('_', ' ')} {key}")
    ax.set_xlabel(xlabel or x.replace("_", " "))
    ax.set_ylabel((ylabel or y.replace("_", " ")) + (", %" if percent else ""))
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    return fig


def save(fig: Figure, path: Path, dpi: int = 110) -> None:
    """Save as PNG atomically and free the figure."""
    from sim.files import write_atomic

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi)
    plt.close(fig)
    write_atomic(path, buffer.getvalue())
