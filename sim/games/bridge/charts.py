"""Bridge odds charts: the high-card points distribution and the split tables, exact beside
simulated where a run gives the simulated figures."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from matplotlib.figure import Figure

from sim.core.plotting import new_axes, panel_grid
from sim.games.bridge.odds import hcp_distribution, splits


def hcp_chart(simulated: Mapping[str, Mapping[int, float]] | None = None, ax=None,
              title: str = "High-card points of a dealt hand") -> Figure:
    """Bars: the exact distribution of a hand's points; dots: simulated shares, if given."""
    fig, ax = new_axes(ax, (8, 4))
    exact = hcp_distribution()
    ks = np.array(list(exact))
    ax.bar(ks, [float(p) * 100 for p in exact.values()], color="C0", alpha=0.5,
           label="exact")
    for i, (label, shares) in enumerate((simulated or {}).items()):
        xs = sorted(shares)
        ax.plot(xs, [shares[x] * 100 for x in xs], "o", ms=3, color=f"C{i + 1}", label=label)
    ax.set_xlabel("high-card points (A 4, K 3, Q 2, J 1)")
    ax.set_ylabel("probability, %")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    return fig


def split_chart(simulated: Mapping[int, Mapping[tuple[int, int], float]] | None = None,
                fig: Figure | None = None, outstanding: range = range(2, 10)) -> Figure:
    """One panel per number of cards outstanding: the exact probability of each split (bars),
    and the simulated share (dots) where given."""
    fig, axes = panel_grid(fig, len(outstanding), panel=(3.4, 2.6))
    for ax, n in zip(axes, outstanding):
        table = splits(n)
        labels = [f"{a}-{b}" for a, b in table]
        x = np.arange(len(labels))
        ax.bar(x, [float(p) * 100 for p in table.values()], color="C0", alpha=0.5,
               label="exact")
        if simulated and n in simulated:
            ax.plot(x, [simulated[n].get(s, 0.0) * 100 for s in table], "o", ms=4,
                    color="C1", label="simulated")
        for xi, p in zip(x, table.values()):
            ax.annotate(f"{float(p) * 100:.1f}", (xi, float(p) * 100), ha="center",
                        va="bottom", fontsize="x-small")
        ax.set_xticks(x, labels, fontsize="small")
        ax.set_title(f"{n} cards outstanding", fontsize="medium")
        ax.set_ylabel("%")
        ax.grid(axis="y", alpha=0.3)
    axes[0].legend(fontsize="x-small")
    fig.suptitle("How the opponents' cards of a suit divide")
    return fig
