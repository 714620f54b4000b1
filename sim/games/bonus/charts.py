"""Bonus charts: P(complete) and expected profit against stake size, cost and P(complete)
against a term, and the distribution of the cash-out.

Each function takes an optional ``ax`` and returns the Figure. ``houseedge study
bonus-charts --out DIR`` draws them for the seed's bonus (100% up to 100, 20x).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from sim.core.plotting import legend_outside, new_axes
from sim.games.bonus.dp import BonusValue
from sim.games.bonus.lattice import lattice_for
from sim.games.bonus.players import FlatStake
from sim.games.bonus.terms import BonusRules
from sim.games.bonus.value import policy_value


def _allowed(rules: BonusRules, stakes: Sequence[float]) -> list[float]:
    step = int(lattice_for(rules).games["step"][0]) * rules.unit
    return [s for s in stakes if s % step == 0 and (not rules.max_bet or s <= rules.max_bet)]


def stake_chart(rules: BonusRules, stakes: Sequence[float] = (1, 2, 5, 10, 20, 25, 50, 100,
                                                                200),
                ax: Axes | None = None, optimal: Any | None = None) -> Figure:
    """Expected profit and P(complete) of a flat stake against its size, the naive value and
    (if given) an optimal policy's profit beside them."""
    fig, ax = new_axes(ax, (7.5, 4.2))
    stakes = _allowed(rules, stakes)
    values = [policy_value(rules, FlatStake(float(s))) for s in stakes]
    ax.plot(stakes, [v.expected_profit for v in values], "o-", color="C0",
            label="expected profit (exact)")
    ax.axhline(rules.naive_profit(0), color="C3", ls="--", lw=1,
               label=f"naive bonus - W x edge = {rules.naive_profit(0):.1f}")
    ax.axhline(-rules.deposit, color="grey", ls=":", lw=1, label="the whole deposit lost")
    if optimal is not None:
        best = policy_value(rules, optimal).expected_profit
        ax.axhline(best, color="C2", ls="-.", lw=1, label=f"optimal policy: {best:.1f}")
    ax.set_xscale("log")
    ax.set_xlabel("flat stake (money, log scale)")
    ax.set_ylabel("expected profit against the deposit (money)")
    twin = ax.twinx()
    twin.plot(stakes, [v.p_complete for v in values], "s--", color="C1", ms=4,
              label="P(requirement completed)")
    twin.set_ylabel("P(requirement completed)", color="C1")
    twin.set_ylim(0, 1)
    lines = ax.get_legend_handles_labels()
    more = twin.get_legend_handles_labels()
    # Beside the plot, past the twin axis' labels: a legend inside would cover points.
    ax.legend(lines[0] + more[0], lines[1] + more[1], fontsize="small", loc="upper left",
              bbox_to_anchor=(1.14, 1.0), frameon=False)
    ax.set_title(f"{rules.bonus:g} bonus on {rules.deposit:g}, wagering {rules.requirement:g} "
                 f"on {rules.games[0]}")
    ax.grid(alpha=0.3)
    return fig


def cost_chart(rules: BonusRules, term: str, values: Sequence[Any],
               policies: Sequence[tuple[str, Any]], ax: Axes | None = None) -> Figure:
    """The operator's expected cost and P(complete) as one term moves, per policy."""
    fig, ax = new_axes(ax, (7.5, 4.2))
    twin = ax.twinx()
    xs = np.arange(len(values))
    for i, (label, policy) in enumerate(policies):
        results = [policy_value(dataclasses.replace(rules, **{term: x}), policy)
                   for x in values]
        ax.plot(xs, [v.expected_profit for v in results], "o-", color=f"C{i}",
                label=f"cost, {label}")
        twin.plot(xs, [v.p_complete for v in results], "s:", color=f"C{i}", ms=4,
                  label=f"P(complete), {label}")
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xticks(xs, [f"{x:g}" if isinstance(x, (int, float)) else str(x) for x in values])
    ax.set_xlabel(term)
    ax.set_ylabel("expected cost of one bonus (money)")
    twin.set_ylabel("P(requirement completed)")
    twin.set_ylim(0, 1)
    lines = ax.get_legend_handles_labels()
    more = twin.get_legend_handles_labels()
    # Beside the plot, past the twin axis' labels: a legend inside would cover points.
    ax.legend(lines[0] + more[0], lines[1] + more[1], fontsize="small", loc="upper left",
              bbox_to_anchor=(1.14, 1.0), frameon=False)
    ax.set_title(f"Operator's cost against {term}")
    ax.grid(alpha=0.3)
    return fig


def cashout_chart(values: Sequence[tuple[str, BonusValue]], ax: Axes | None = None
                  ) -> Figure:
    """The distribution of the cash-out (log scale), one line per policy."""
    fig, ax = new_axes(ax, (7.5, 4.2))
    for i, (label, value) in enumerate(values):
        keep = value.probabilities > 1e-12
        ax.plot(value.payouts[keep], value.probabilities[keep], ".", ms=3, color=f"C{i}",
                rasterized=int(keep.sum()) > 400,
                label=f"{label}: P(0) = {value.probabilities[value.payouts == 0].sum():.3f}, "
                      f"mean {value.mean_payout:.1f}")
    ax.set_yscale("log")
    ax.set_xlabel("cash-out: the withdrawable balance (money)")
    ax.set_ylabel("probability (log)")
    legend_outside(ax)
    ax.set_title("Distribution of the cash-out")
    ax.grid(alpha=0.3)
    return fig
