"""Scratchcard charts: the prize distribution, and the next ticket's EV against tickets sold.

Each function takes an optional ``ax`` and returns the Figure. ``houseedge study
scratch-charts --out DIR`` draws them for the shipped games.
"""

from __future__ import annotations

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from sim.core.plotting import legend_outside, new_axes
from sim.games.scratchcard.current import ESTIMATORS, estimate_sold, ev_against_sold
from sim.games.scratchcard.exact import ticket_odds, total_distribution
from sim.games.scratchcard.rules import Pool
from sim.games.scratchcard.table import Claims, PrizeTable


def prize_chart(pool: Pool, tickets: int = 1, ax: Axes | None = None, title: str = ""
                ) -> Figure:
    """The prize distribution: one ticket as a bar per tier; several tickets as the chance
    that their total prize reaches each amount (log scales), the cost marked."""
    fig, ax = new_axes(ax, (7.5, 4))
    values, probs = total_distribution(pool, tickets)
    cost = tickets * pool.price
    odds = ticket_odds(pool)
    if tickets == 1:
        colours = np.where(values >= cost, "C2", np.where(values > 0, "C1", "C3"))
        ax.bar(np.arange(len(values)), probs, color=colours)
        ax.set_xticks(np.arange(len(values)), [f"{v:g}" for v in values], rotation=45)
        ax.set_xlabel(f"prize of one ticket (price {cost:g}; green: at least the price)")
        ax.set_ylabel("probability (log)")
    else:
        at_least = probs[::-1].cumsum()[::-1]
        ax.step(np.maximum(values, pool.price / 2), at_least, where="post", color="C0")
        ax.axvline(cost, color="C3", ls="--", lw=1,
                   label=f"cost {cost:g}: P(total >= cost) = {at_least[values >= cost][0]:.3f}")
        ax.set_xscale("log")
        ax.set_xlabel(f"total prize of {tickets} tickets (money, log scale)")
        ax.set_ylabel("P(total >= x) (log)")
        ax.set_ylim(bottom=max(float(at_least[at_least > 0].min()), 1e-12) / 2)
        legend_outside(ax)
    ax.set_yscale("log")
    ax.set_title(title or f"RTP {odds.rtp:.1%}, overall odds 1 in {odds.odds_any:.2f}")
    ax.grid(alpha=0.3)
    return fig


def any_win_odds(pool: Pool, tickets: np.ndarray) -> np.ndarray:
    """P(at least one prize among k tickets) for each k: 1 - (1 - p)^k for an online card;
    for a printed pool drawn without replacement, 1 - C(losers, k) / C(left, k), taken as a
    running product so that no binomial overflows."""
    losing = pool.values == 0
    if pool.counts is None:
        p_lose = float(pool.probs[losing].sum())
        return 1.0 - p_lose ** tickets.astype(float)
    losers, left = float(pool.counts[losing].sum()), float(pool.counts.sum())
    i = np.arange(int(tickets.max()))
    none = np.cumprod(np.clip((losers - i) / (left - i), 0.0, 1.0))
    return 1.0 - none[tickets - 1]


def any_win_chart(pool: Pool, max_tickets: int = 30, ax: Axes | None = None,
                  title: str = "") -> Figure:
    """The chance of winning anything, and of getting back at least the cost, in k tickets
    (exact)."""
    fig, ax = new_axes(ax, (8, 4.2))
    k = np.arange(1, max_tickets + 1)
    ax.plot(k, any_win_odds(pool, k) * 100, "o-", ms=3, color="C0",
            label="any prize among the k tickets")
    marks = [n for n in (1, 2, 5, 10, 20) if n <= max_tickets]
    back = []
    for n in marks:
        cost = n * pool.price
        values, probs = total_distribution(pool, n, cap=cost)  # only "cost or more" counts
        back.append(float(probs[values >= cost - 1e-9].sum()))
    ax.plot(marks, np.array(back) * 100, "s--", ms=5, color="C3",
            label="prizes worth at least the k tickets' cost")
    ax.set_xlabel("tickets bought (k)")
    ax.set_ylabel("probability, %")
    ax.set_ylim(0, 100)
    odds = ticket_odds(pool)
    ax.set_title(title or f"Winning anything in k tickets (overall odds 1 in "
                 f"{odds.odds_any:.2f}, exact)")
    ax.grid(alpha=0.3)
    legend_outside(ax)
    return fig


def ev_sold_chart(table: PrizeTable, claims: Claims, ax: Axes | None = None) -> Figure:
    """The next ticket's return to player against the number of tickets assumed sold, with
    the estimators of tickets sold marked (the claims fixed)."""
    fig, ax = new_axes(ax, (7.5, 4))
    sold, ev, _ = ev_against_sold(table, claims, points=400)
    marks = {name: estimate_sold(table, claims, name) for name in ESTIMATORS}
    lo, hi = 0.7 * min(marks.values()), 1.15 * max(marks.values())
    keep = (sold >= lo) & (sold <= hi)
    ax.plot(sold[keep] / 1e6, ev[keep] / table.price * 100, color="C0",
            label="RTP of the next ticket")
    full_rtp = float(np.dot(table.prizes, table.counts)) / table.print_run / table.price
    ax.axhline(full_rtp * 100, color="grey", ls=":", label=f"full print run {full_rtp:.1%}")
    for i, (name, s) in enumerate(marks.items()):
        rtp = float(np.interp(s, sold, ev)) / table.price
        ax.axvline(s / 1e6, color=f"C{i + 1}", ls="--", lw=1,
                   label=f"{name}: {s / 1e6:.3f} M sold, RTP {rtp:.1%}")
    ax.set_xlabel("tickets sold (millions)")
    ax.set_ylabel("return to player, %")
    ax.set_title(f"{table.name}: the next ticket, claims to {claims.date or 'the snapshot'}")
    legend_outside(ax)
    ax.grid(alpha=0.3)
    return fig
