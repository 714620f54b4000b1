"""Charts a player reads: bankroll paths, risk of ruin against bankroll, session results.

Each function takes the :class:`~sim.risk.table.RiskResult` of every (variant, strategy)
and draws one panel per result; each returns the Figure.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from sim.core.plotting import panel_grid
from sim.risk.table import FAN_QUANTILES, RiskResult, ci95


def _title(r: RiskResult) -> str:
    return f"{r.variant}: {r.strategy}"


def fan_chart(results: Sequence[RiskResult]) -> Figure:
    """The bankroll over the session: the 5-95% and 25-75% bands and the median of the
    Monte Carlo sessions, the exact median and 5%/95% lines where known, and a few sample
    paths; ended sessions keep their last bankroll."""
    fig, axes = panel_grid(None, len(results), panel=(5.0, 3.4))
    for ax, r in zip(axes, results):
        x = np.array(r.mc.checkpoints)
        b = r.spec.bankroll
        q = r.mc.checkpoint_quantiles(FAN_QUANTILES) + b
        ax.fill_between(x, q[:, 0], q[:, 4], color="C0", alpha=0.18, lw=0, label="MC 5-95%")
        ax.fill_between(x, q[:, 1], q[:, 3], color="C0", alpha=0.35, lw=0, label="MC 25-75%")
        ax.plot(x, q[:, 2], color="C0", lw=1.6, label="MC median")
        for k, path in enumerate(r.mc.paths):
            ax.plot(x, path + b, color="grey", lw=0.6, alpha=0.7,
                    label="sample sessions" if k == 0 else None)
        if r.session is not None:
            e = r.session.checkpoint_quantiles((0.05, 0.5, 0.95)) + b
            ex = np.array(r.session.checkpoints)
            ax.plot(ex, e[:, 1], "k--", lw=1.0, label="exact median")
            ax.plot(ex, e[:, 0], "k:", lw=1.0, label="exact 5% / 95%")
            ax.plot(ex, e[:, 2], "k:", lw=1.0)
        ax.axhline(0, color="C3", lw=1.0, label="ruin")
        ax.axhline(b, color="grey", lw=0.6, ls="--")
        ax.set_xlabel("round")
        ax.set_ylabel("bankroll (base stakes)")
        ax.set_title(_title(r), fontsize=9)
    axes[0].legend(fontsize=7, loc="best")
    fig.suptitle("Bankroll through the session", fontsize=11)
    return fig


def ruin_chart(results: Sequence[RiskResult]) -> Figure:
    """Risk of ruin within the session against the bankroll: the exact curve, the diffusion
    curve and the Monte Carlo points with 95% intervals."""
    fig, axes = panel_grid(None, len(results), panel=(5.0, 3.4))
    for ax, r in zip(axes, results):
        x = r.bankrolls
        if r.curve_exact is not None:
            ax.plot(x, r.curve_exact * 100, "-", color="black", lw=1.4, label="exact")
        ax.plot(x, r.curve_diffusion * 100, "--", color="C1", lw=1.4, label="diffusion")
        half = ci95(r.curve_mc, r.mc.sessions)
        ax.errorbar(x, r.curve_mc * 100, yerr=half * 100, fmt="o", ms=4, color="C0",
                    capsize=3, label=f"MC ({r.mc.sessions:,} sessions), 95% CI")
        ax.axvline(r.spec.bankroll, color="grey", lw=0.6, ls=":")
        ax.set_xlabel("bankroll (base stakes)")
        ax.set_ylabel("risk of ruin in the session (%)")
        ax.set_ylim(-2, 102)
        ax.set_title(_title(r), fontsize=9)
    axes[0].legend(fontsize=7)
    fig.suptitle(f"Risk of ruin against bankroll, {results[0].spec.rounds} rounds",
                 fontsize=11)
    return fig


def _edges(values: np.ndarray, probs: np.ndarray, bins: int = 90) -> np.ndarray:
    """Bin edges over the body of a lattice law (not a far tail of 1e-6), each bin a whole
    number of lattice steps."""
    cum = np.cumsum(probs) / probs.sum()
    lo = values[min(int(np.searchsorted(cum, 1e-6)), values.size - 1)]
    hi = values[min(int(np.searchsorted(cum, 1 - 1e-6)), values.size - 1)]
    step = float(values[1] - values[0]) if values.size > 1 else 1.0
    if hi - lo < 20 * step:  # a sure or nearly sure result: show it among its neighbours
        lo, hi = lo - 10 * step, hi + 10 * step
    width = step * max(1, int(np.ceil((hi - lo) / step / bins)))
    return np.arange(lo - step / 2, hi + width, width)


def _binned(values: np.ndarray, probs: np.ndarray, edges: np.ndarray
            ) -> tuple[np.ndarray, np.ndarray, float]:
    """(centres, probability per unit of result, width) of a law in the given bins."""
    width = float(edges[1] - edges[0])
    inside = (values >= edges[0]) & (values < edges[-1])
    idx = np.digitize(values[inside], edges) - 1
    out = np.zeros(edges.size - 1)
    np.add.at(out, idx, probs[inside])
    return edges[:-1] + width / 2, out / width, width


def result_chart(results: Sequence[RiskResult]) -> Figure:
    """The distribution of the session result (probability per base stake): the Monte
    Carlo histogram, the exact law where known; ruin and stops show as spikes at the left
    and right edges."""
    fig, axes = panel_grid(None, len(results), panel=(5.0, 3.4))
    for ax, r in zip(axes, results):
        mc = r.mc
        shares = mc.end_hist / mc.sessions
        edges = (_edges(r.session.values, r.session.probs) if r.session is not None
                 else _edges(mc.bins.values, shares))
        centres, dens, width = _binned(mc.bins.values, shares, edges)
        ax.bar(centres, dens, width=width, color="C0", alpha=0.5, label="MC")
        if r.session is not None:
            c2, d2, _ = _binned(r.session.values, r.session.probs, edges)
            ax.step(c2, d2, where="mid", color="black", lw=1.0, label="exact")
        ax.axvline(0, color="grey", lw=0.6)
        ax.axvline(-r.spec.bankroll, color="C3", lw=0.8, ls="--", label="ruin")
        ax.set_xlabel("session result (base stakes)")
        ax.set_ylabel("probability per base stake")
        ax.set_title(f"{_title(r)}\nP(ahead) {mc.p_ahead:.1%}, P(ruin) {mc.p_ruin:.1%}",
                     fontsize=9)
    axes[0].legend(fontsize=7)
    fig.suptitle("Session result", fontsize=11)
    return fig
