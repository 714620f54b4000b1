"""Playing scratchcard sessions: a vectorised path for plans, a reference path for any strategy.

Both draw tickets the same way: an online card by inverse CDF of a uniform, a printed pool
ticket by ticket without replacement (a uniform integer below the tickets left picks one). The
vectorised path plays many sessions at once in blocks of tickets; the plan's stops are applied
to each block with cumulative sums (:func:`settle`). The reference path asks the strategy
before each purchase. Money is counted in whole units of the table's grid, so both paths stop
at exactly the same tickets.

Common random numbers: ticket j of session i is drawn from a number that depends on the chunk's
key, i and j alone (:class:`TicketStream`, counter-based), never on how many tickets were drawn
before it. So every strategy, on either path, meets the same tickets in session i: a plan that
stops early simply sees fewer of them. On a printed pool each session draws from its own full
print run, so its tickets are the same too, as long as the sessions have bought alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from sim.core.errors import IllegalActionError, StrategyFailedError
from sim.core.stats import Stats, stats_from_arrays
from sim.core.xoshiro import ticket_picks, ticket_uniforms
from sim.games.scratchcard.exact import PlanGrid, money_grid, plan_grid
from sim.games.scratchcard.rules import Pool, ScratchPlan, ScratchRules, ScratchView

BLOCK = 64           # tickets drawn per session at a time after the first purchase
CELLS = 1 << 21      # sessions x tickets held at once


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


@dataclass(frozen=True)
class TicketStream:
    """The numbers of a chunk's tickets, by (session, ticket): counter-based, so a session's
    tickets are the same whoever buys them and however many were bought before."""

    key: int

    @classmethod
    def of(cls, source: TicketStream | np.random.Generator | np.ndarray | int) -> TicketStream:
        """From a stream, a generator (a key drawn from it), the kernel's 4-word state (its
        first word) or a key."""
        if isinstance(source, TicketStream):
            return source
        if isinstance(source, np.random.Generator):
            return cls(int(source.integers(0, 2 ** 64, dtype=np.uint64)))
        return cls(int(np.asarray(source, dtype=np.uint64).ravel()[0]))

    def uniforms(self, rows: np.ndarray, col0: int, cols: int) -> np.ndarray:
        """Uniforms of tickets ``col0 ..`` of sessions ``rows`` (one row each)."""
        return ticket_uniforms(np.uint64(self.key), np.asarray(rows, dtype=np.int64), col0, cols)

    def picks(self, rows: np.ndarray, col: int, bounds: np.ndarray) -> np.ndarray:
        """For ticket ``col`` of sessions ``rows``, uniform integers below ``bounds``."""
        return ticket_picks(np.uint64(self.key), np.asarray(rows, dtype=np.int64), col,
                            np.asarray(bounds, dtype=np.int64))


def _rows(rows: int | np.ndarray) -> np.ndarray:
    return np.arange(rows) if np.ndim(rows) == 0 else np.asarray(rows)


def _draw_online(pool: Pool, source: Any, rows: int | np.ndarray, cols: int, col0: int = 0
                 ) -> np.ndarray:
    """Tiers of tickets ``col0 .. col0 + cols - 1`` of sessions ``rows`` (a count: 0..rows-1)."""
    cdf = np.cumsum(pool.probs)
    tiers = np.searchsorted(cdf, TicketStream.of(source).uniforms(_rows(rows), col0, cols),
                            side="right")
    return np.minimum(tiers, len(cdf) - 1)


def _draw_printed(pool: Pool, used: np.ndarray, source: Any, cols: int,
                  rows: np.ndarray | None = None, col0: int = 0) -> np.ndarray:
    """``cols`` tickets per row without replacement from the pool less each row's ``used``."""
    stream = TicketStream.of(source)
    sessions = _rows(used.shape[0] if rows is None else rows)
    tiers = np.empty((used.shape[0], cols), dtype=np.int64)
    ar = np.arange(used.shape[0])
    for j in range(cols):
        cum = np.cumsum(pool.counts - used, axis=1)
        pick = stream.picks(sessions, col0 + j, cum[:, -1])
        tier = (cum <= pick[:, None]).sum(axis=1)
        used[ar, tier] += 1
        tiers[:, j] = tier
    return tiers


def play_plan(pool: Pool, plan: ScratchPlan, sessions: int, source: Any
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Play ``sessions`` sessions of a plan: (net in grid units, tickets, prize tickets).

    ``source``: the tickets' :class:`TicketStream` (or what :meth:`TicketStream.of` takes).
    """
    stream = TicketStream.of(source)
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
                tiers = _draw_printed(pool, used, stream, cols, rows, bought)
            else:
                tiers = _draw_online(pool, stream, rows, cols, bought)
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


def simulate_plan(rules: ScratchRules, plan: ScratchPlan, sessions: int, source: Any) -> Stats:
    """Statistics of ``sessions`` sessions of a plan (the vectorised path; ``source`` as for
    :func:`play_plan`)."""
    pool = rules.pool()
    net_u, tickets, winners = play_plan(pool, plan, sessions, source)
    step = float(plan_grid(pool, plan).step)
    initial = np.full(sessions, plan.first * pool.price)
    counters = {"tickets": float(tickets.sum()), "prize_tickets": float(winners.sum())}
    return stats_from_arrays(net_u * step, initial, tickets * pool.price, counters)


# ----------------------------------------------------------------------- reference path
class TicketSource:
    """Tickets drawn one at a time for session ``session`` (without replacement when printed),
    the same tickets the vectorised path gives that session from the same stream."""

    def __init__(self, pool: Pool, source: Any, session: int = 0) -> None:
        self.pool = pool
        self.stream = TicketStream.of(source)
        self.row = np.array([session], dtype=np.int64)
        self.drawn = 0
        self.cdf = np.cumsum(pool.probs)
        self.left = pool.counts.copy() if pool.counts is not None else None
        self._block = np.empty(0)  # an online card's next uniforms, drawn BLOCK at a time

    def tickets_left(self) -> int | None:
        return int(self.left.sum()) if self.left is not None else None

    def draw(self) -> int:
        """The tier of the next ticket."""
        j = self.drawn
        self.drawn += 1
        if self.left is None:
            if j % BLOCK == 0:  # counter-based: a block is the same numbers one at a time
                self._block = self.stream.uniforms(self.row, j, BLOCK)[0]
            u = float(self._block[j % BLOCK])
            tier = int(np.searchsorted(self.cdf, u, side="right"))
            return min(tier, len(self.cdf) - 1)
        cum = np.cumsum(self.left)
        pick = int(self.stream.picks(self.row, j, cum[-1:])[0])
        tier = int((cum <= pick).sum())
        self.left[tier] -= 1
        return tier


def play_session(rules: ScratchRules, strategy: Any, rng: np.random.Generator,
                 source: Any | None = None) -> tuple[float, float, float, int, int]:
    """One session on the reference path: (net, initial, wagered, tickets, prize tickets).

    ``source`` (anything with ``draw()`` and ``tickets_left()``) replaces the pool's tickets,
    so tests can replay a given sequence; without it the tickets come from ``rng``.
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
                       rng: np.random.Generator, ticket_source: Any = None) -> Stats:
    """Statistics of ``sessions`` sessions on the reference path (any strategy): the
    strategy draws from ``rng``, the tickets from ``ticket_source`` (a :class:`TicketStream`
    or what it is made of; by default a key drawn from ``rng``)."""
    pool = rules.pool()
    stream = TicketStream.of(rng if ticket_source is None else ticket_source)
    stats = Stats()
    for i in range(sessions):
        net, initial, wagered, tickets, prizes = play_session(
            rules, strategy, rng, TicketSource(pool, stream, i))
        stats.add_round(net, initial, wagered, {"tickets": tickets, "prize_tickets": prizes})
    return stats

