"""Playing scratchcard sessions: a vectorised path for plans, a reference path for any strategy.

Both draw tickets the same way: an online card by inverse CDF of a uniform, a printed pool
ticket by ticket without replacement (a uniform integer below the tickets left picks one). The
vectorised path plays many sessions at once in blocks of tickets; the plan's stops are applied
to each block with cumulative sums (:func:`settle`). The reference path asks the strategy
before each purchase. Money is counted in whole units of the table's grid, so both paths stop
at exactly the same tickets.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sim.errors import IllegalActionError, StrategyFailedError
from sim.games.scratchcard.exact import PlanGrid, money_grid, plan_grid
from sim.games.scratchcard.rules import Pool, ScratchPlan, ScratchRules, ScratchView
from sim.stats import SUM_FIELDS, Stats

BLOCK = 64           # tickets drawn per session at a time after the first purchase
CELLS = 1 << 21      # sessions x tickets held at once


def stats_from_arrays(net: np.ndarray, initial: np.ndarray, wagered: np.ndarray,
                      counters: dict[str, float]) -> Stats:
    """Statistics of sessions given as arrays (one entry per session)."""
    values, counts = np.unique(net, return_counts=True)
    sums = np.array([net.sum(), net @ net, initial.sum(), initial @ initial, net @ initial,
                     wagered.sum(), wagered @ wagered, net @ wagered])
    assert len(sums) == len(SUM_FIELDS)
    outcomes = np.array([(net > 0).sum(), (net == 0).sum(), (net < 0).sum()])
    return Stats.from_arrays(len(net), outcomes, sums, values, counts, counters)


def settle(gains: np.ndarray, net0: np.ndarray, bought: int, plan: ScratchPlan, pg: PlanGrid
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Apply the plan's stops to a block of tickets.

    Args:
        gains: net gain of each ticket (prize - price, grid units), one row per session.
        net0: each session's net before the block.
        bought: tickets every session had bought before the block.

    Returns:
        (stopped, last, running): whether each session stops within the block, the column of
        its last ticket (the block's last column if it goes on), and the running nets.
    """
    running = net0[:, None] + np.cumsum(gains, axis=1)
    after = bought + 1 + np.arange(gains.shape[1])
    stop = np.broadcast_to(after >= plan.max_tickets, running.shape).copy()
    if pg.hi is not None:
        stop |= running > pg.hi
    if pg.lo is not None:
        stop |= running < pg.lo
    stop &= after >= plan.first
    stopped = stop.any(axis=1)
    last = np.where(stopped, stop.argmax(axis=1), gains.shape[1] - 1)
    return stopped, last, running


def _draw_online(pool: Pool, rng: np.random.Generator, rows: int, cols: int) -> np.ndarray:
    cdf = np.cumsum(pool.probs)
    tiers = np.searchsorted(cdf, rng.random((rows, cols)), side="right")
    return np.minimum(tiers, len(cdf) - 1)


def _draw_printed(pool: Pool, used: np.ndarray, rng: np.random.Generator, cols: int
                  ) -> np.ndarray:
    """``cols`` tickets per row without replacement from the pool less each row's ``used``."""
    rows = used.shape[0]
    tiers = np.empty((rows, cols), dtype=np.int64)
    ar = np.arange(rows)
    for j in range(cols):
        cum = np.cumsum(pool.counts - used, axis=1)
        pick = rng.integers(0, cum[:, -1])
        tier = (cum <= pick[:, None]).sum(axis=1)
        used[ar, tier] += 1
        tiers[:, j] = tier
    return tiers


def play_plan(pool: Pool, plan: ScratchPlan, sessions: int, rng: np.random.Generator
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Play ``sessions`` sessions of a plan: (net in grid units, tickets, prize tickets)."""
    pg = plan_grid(pool, plan)
    gains_of = pg.units - pg.price
    loser = len(pool.values) - 1
    net = np.zeros(sessions, dtype=np.int64)
    tickets = np.zeros(sessions, dtype=np.int64)
    winners = np.zeros(sessions, dtype=np.int64)
    batch = max(1, CELLS // max(plan.first, BLOCK))
    for start in range(0, sessions, batch):
        rows = np.arange(start, min(start + batch, sessions))
        used = np.zeros((len(rows), len(pool.values)), dtype=np.int64) if pool.printed else None
        bought = 0
        while len(rows):
            cols = plan.first if bought == 0 else min(BLOCK, plan.max_tickets - bought)
            if pool.printed:
                tiers = _draw_printed(pool, used, rng, cols)
            else:
                tiers = _draw_online(pool, rng, len(rows), cols)
            stopped, last, running = settle(gains_of[tiers], net[rows], bought, plan, pg)
            take = np.arange(cols)[None, :] <= last[:, None]
            ar = np.arange(len(rows))
            net[rows] = running[ar, last]
            tickets[rows] = bought + last + 1
            winners[rows] += ((tiers != loser) & take).sum(axis=1)
            rows = rows[~stopped]
            if used is not None:
                used = used[~stopped]
            bought += cols
    return net, tickets, winners


def simulate_plan(rules: ScratchRules, plan: ScratchPlan, sessions: int,
                  rng: np.random.Generator) -> Stats:
    """Statistics of ``sessions`` sessions of a plan (the vectorised path)."""
    pool = rules.pool()
    net_u, tickets, winners = play_plan(pool, plan, sessions, rng)
    step = float(plan_grid(pool, plan).step)
    initial = np.full(sessions, plan.first * pool.price)
    counters = {"tickets": float(tickets.sum()), "prize_tickets": float(winners.sum())}
    return stats_from_arrays(net_u * step, initial, tickets * pool.price, counters)


# ----------------------------------------------------------------------- reference path
class TicketSource:
    """Tickets drawn one at a time for one session (without replacement when printed)."""

    def __init__(self, pool: Pool, rng: np.random.Generator) -> None:
        self.pool = pool
        self.rng = rng
        self.cdf = np.cumsum(pool.probs)
        self.left = pool.counts.copy() if pool.counts is not None else None

    def tickets_left(self) -> int | None:
        return int(self.left.sum()) if self.left is not None else None

    def draw(self) -> int:
        """The tier of the next ticket."""
        if self.left is None:
            tier = int(np.searchsorted(self.cdf, self.rng.random(), side="right"))
            return min(tier, len(self.cdf) - 1)
        cum = np.cumsum(self.left)
        tier = int((cum <= self.rng.integers(0, cum[-1])).sum())
        self.left[tier] -= 1
        return tier


def play_session(rules: ScratchRules, strategy: Any, rng: np.random.Generator,
                 source: Any | None = None) -> tuple[float, float, float, int, int]:
    """One session on the reference path: (net, initial, wagered, tickets, prize tickets).

    ``source`` (anything with ``draw()`` and ``tickets_left()``) replaces the pool's tickets,
    so tests can replay a given sequence.
    """
    pool = rules.pool()
    step_, units, price = money_grid(pool)
    source = source or TicketSource(pool, rng)
    step = float(step_)
    loser = len(pool.values) - 1
    spent = won = 0  # grid units
    tickets = prize_tickets = 0
    initial = 0.0
    last: float | None = None
    while True:
        view = ScratchView(pool.price, tickets, spent * step, won * step, last,
                           source.tickets_left(), rules.session_limit)
        try:
            count = strategy.decide(view, rng)
        except Exception as exc:
            raise StrategyFailedError(strategy, f"after {tickets} tickets", exc) from exc
        situation = f"after {tickets} tickets (net {view.net:g})"
        if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 0:
            raise IllegalActionError(strategy, count, situation,
                                     "expected a whole number of tickets >= 0 (0: stop)")
        if count == 0:
            break
        if tickets + count > rules.session_limit:
            raise IllegalActionError(strategy, count, situation,
                                     f"the session limit is {rules.session_limit:,} tickets")
        left = source.tickets_left()
        if left is not None and count > left:
            raise IllegalActionError(strategy, count, situation, f"only {left:,} tickets left")
        if tickets == 0:
            initial = count * pool.price
        for _ in range(int(count)):
            tier = source.draw()
            spent += price
            won += int(units[tier])
            prize_tickets += tier != loser
            last = float(pool.values[tier])
        tickets += int(count)
    return (won - spent) * step, initial, tickets * pool.price, tickets, prize_tickets


def simulate_reference(rules: ScratchRules, strategy: Any, sessions: int,
                       rng: np.random.Generator) -> Stats:
    """Statistics of ``sessions`` sessions on the reference path (any strategy)."""
    stats = Stats()
    for _ in range(sessions):
        net, initial, wagered, tickets, prizes = play_session(rules, strategy, rng)
        stats.add_round(net, initial, wagered, {"tickets": tickets, "prize_tickets": prizes})
    return stats

