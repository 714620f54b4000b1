"""Exact scratchcard odds: one ticket, the total of k tickets, and whole sessions.

Money is counted on an integer grid (the greatest common divisor of the price and the prizes),
so distributions are exact up to floating-point rounding of the probabilities:

* the total of k independent tickets is a k-fold convolution of the one-ticket distribution;
* the total of k tickets of a printed pool is a multivariate hypergeometric sum, built tier by
  tier from univariate hypergeometric factors (each factor a probability, so nothing overflows
  for print runs of millions);
* a session that stops on its results (stop-win, stop-loss, a budget with prizes reinvested) on
  an online card is a walk on the net result, followed ticket by ticket (the mass that can no
  longer meet any stop is set aside: it buys every ticket left). Its expected net follows from
  Wald's identity, E[net] = E[tickets] x (E[prize] - price). On a printed pool each ticket
  changes the odds of the next: :mod:`.printed` walks every drawn multiset where they are few,
  and otherwise corrects this walk for drawing without replacement, with a rigorous bound;
  fixed purchases are exact by linearity.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy.stats import hypergeom

from sim.games.scratchcard.printed import (
    EDGE_BOUND,
    PrintedMoments,
    corrected_moments,
    multiset_moments,
)
from sim.games.scratchcard.rules import Pool, ScratchPlan
from sim.games.scratchcard.table import money_step


@dataclass(frozen=True)
class TicketOdds:
    """One ticket drawn from a pool."""

    price: float
    mean_prize: float
    sd: float
    p_any: float
    p_prize_ge_price: float
    top_prize: float
    p_top: float

    @property
    def rtp(self) -> float:
        """Return to player: expected prize / price."""
        return self.mean_prize / self.price

    @property
    def house_edge(self) -> float:
        return 1.0 - self.rtp

    @property
    def odds_any(self) -> float:
        """Overall odds "1 in X" (every winning ticket, break-even prizes included)."""
        return 1.0 / self.p_any if self.p_any else math.inf


def ticket_odds(pool: Pool) -> TicketOdds:
    """RTP, SD, P(any prize), P(prize >= price) and the top prize of one ticket."""
    v, p = pool.values, pool.probs
    mean = float(v @ p)
    var = float(((v - mean) ** 2) @ p)
    top = int(np.argmax(v))
    return TicketOdds(pool.price, mean, math.sqrt(var), float(p[v > 0].sum()),
                      float(p[v >= pool.price].sum()), float(v[top]), float(p[top]))


def money_grid(pool: Pool) -> tuple[Fraction, np.ndarray, int]:
    """The money step of a pool, its tiers' prizes and its price in whole steps."""
    step = money_step([pool.price, *pool.values])

    def whole(x: float) -> int:
        return int(round(Fraction(x).limit_denominator(10**6) / step))

    return step, np.array([whole(x) for x in pool.values], dtype=np.int64), whole(pool.price)


def _sparse(dense: np.ndarray, step: Fraction) -> tuple[np.ndarray, np.ndarray]:
    keep = np.nonzero(dense)[0]
    return keep * float(step), dense[keep]


def total_distribution(pool: Pool, k: int, *, replace: bool | None = None,
                       cap: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The distribution of the total prize of ``k`` tickets: (values, probabilities).

    Independent draws (convolution) for an online pool, draws without replacement
    (multivariate hypergeometric) for a printed one; ``replace`` forces either. With ``cap``,
    every total at or above it is counted at ``cap`` ("cap or more"): enough for the chance
    of reaching an amount, and far less work than the whole range for a game whose top prize
    is thousands of times its price.
    """
    if k < 0:
        raise ValueError(f"k: expected a whole number >= 0, got {k}")
    if replace is None:
        replace = not pool.printed
    step, units, _ = money_grid(pool)
    top = int(units.max()) * k
    if cap is not None:
        top = min(top, max(int(math.ceil(Fraction(cap).limit_denominator(10**6) / step)), 0))
    if replace:
        return _sparse(_convolve_iid(units, pool.probs, k, top), step)
    if pool.counts is None:
        raise ValueError("drawing without replacement needs a printed pool (counts)")
    if k > pool.tickets:
        raise ValueError(f"k: {k} tickets asked of a pool of {pool.tickets}")
    return _sparse(_hypergeometric_total(units, pool.counts, k, top), step)


def _shift_add(out: np.ndarray, row: np.ndarray, shift: int, q: float,
               reach: int | None = None) -> None:
    """``out[v + shift] += q * row[v]``, totals at or past the last bin counted there (the
    cap; without one the last bin is the largest total possible). ``reach``: the last entry
    of ``row`` that is not zero, if known (the zeros past it add nothing, and are skipped)."""
    top = len(out) - 1
    if shift >= top:
        out[top] += q * row.sum()
        return
    fit = min(len(row), top - shift)  # the entries that land below the last bin
    n = fit if reach is None else min(fit, reach + 1)
    out[shift:shift + n] += q * row[:n]
    if fit < len(row) and (reach is None or reach >= fit):
        out[top] += q * row[fit:].sum()


def _convolve_iid(units: np.ndarray, probs: np.ndarray, k: int, top: int | None = None
                  ) -> np.ndarray:
    if top is None:  # no cap: room for the largest total
        top = int(units.max()) * k
    dist = np.zeros(top + 1)
    dist[0] = 1.0
    live = [(int(u), float(q)) for u, q in zip(units, probs) if q > 0]
    reach = 0  # the largest total with mass so far: the rest of ``dist`` is zero
    for _ in range(k):
        nxt = np.zeros(top + 1)
        for u, q in live:  # a shifted add per tier: exact sums, no FFT noise in the tails
            _shift_add(nxt, dist[:reach + 1], u, q)
        reach = min(reach + max(u for u, _ in live), top)
        dist = nxt
    return dist


def _hypergeometric_total(units: np.ndarray, counts: np.ndarray, k: int, top: int
                          ) -> np.ndarray:
    # state[r, v]: probability that the tiers seen so far took k - r tickets worth v units
    # (v = top: that much or more).
    state = np.zeros((k + 1, top + 1))
    state[k, 0] = 1.0
    rest = int(counts.sum())
    order = np.argsort(-units, kind="stable")  # losers (0) last: they take what is left
    for i in order:
        size, worth = int(counts[i]), int(units[i])
        nxt = np.zeros_like(state)
        for r in range(k + 1):
            row = state[r]
            live = np.flatnonzero(row)
            if not len(live):
                continue
            cs = np.arange(0, min(size, r) + 1)
            pmf = hypergeom.pmf(cs, rest, size, r) if rest else np.ones(1)
            for c, q in zip(cs.tolist(), pmf.tolist()):
                if q != 0.0:
                    _shift_add(nxt[r - c], row, c * worth, q, int(live[-1]))
        state = nxt
        rest -= size
    return state[0]


# --------------------------------------------------------------------------- sessions
@dataclass(frozen=True)
class SessionValue:
    """Exact expectations of one session under a plan (money in the table's currency)."""

    mean_tickets: float
    mean_net: float
    initial: float
    mean_wagered: float
    p_stop_win: float = 0.0
    p_stop_loss: float = 0.0
    p_out_of_money: float = 0.0
    p_max_tickets: float = 1.0
    sd_net: float = 0.0
    sd_residual_total: float = 0.0  # SD of net + house edge x wagered (see ExactValue)
    # A printed pool's session: how its moments were found (:mod:`.printed`), and a rigorous
    # bound on |exact - value| of the edge per amount wagered (0: exact to rounding).
    method: str = ""
    edge_bound: float = 0.0


def session_value(pool: Pool, plan: ScratchPlan) -> SessionValue | None:
    """Exact expected tickets and net of a session, or None where there is no exact value
    (a printed pool whose session has too many drawn multisets for the exact walk and a
    corrected walk whose bound is over :data:`~.printed.EDGE_BOUND`)."""
    odds = ticket_odds(pool)
    per_ticket = odds.mean_prize - pool.price
    if plan.fixed or not (plan.stop_win or plan.stop_loss or plan.budget):
        n = plan.max_tickets
    elif pool.printed:
        return printed_session_value(pool, plan)
    else:
        return _session_walk(pool, plan, per_ticket)
    var = n * odds.sd ** 2
    if pool.printed:  # without replacement: the finite-population correction
        var *= (pool.tickets - n) / max(pool.tickets - 1, 1)
    return SessionValue(n, n * per_ticket, plan.first * pool.price, n * pool.price,
                        sd_net=math.sqrt(var), sd_residual_total=math.sqrt(var))


def printed_session_value(pool: Pool, plan: ScratchPlan) -> SessionValue | None:
    """A session on a printed pool, drawn without replacement (:mod:`.printed`): exact where
    its drawn multisets are few enough, else the corrected walk where its bound on the edge
    is at most :data:`~.printed.EDGE_BOUND`. The stop reasons are not counted (NaN)."""
    grid = plan_grid(pool, plan)
    moments = multiset_moments(pool, plan, grid) or corrected_moments(pool, plan, grid)
    if moments is None:
        return None
    bound = printed_edge_bound(moments, int(grid.price))
    if bound > EDGE_BOUND:
        return None
    step, price = float(grid.step), pool.price
    mean, tickets = moments.net * step, moments.tickets
    second = moments.net2 * step ** 2
    ratio = mean / tickets  # the edge x price: net + edge x wagered = net - ratio x tickets
    residual = second - 2 * ratio * moments.net_tickets * step + ratio ** 2 * moments.tickets2
    nan = math.nan
    return SessionValue(tickets, mean, plan.first * price, tickets * price, nan, nan, nan, nan,
                        sd_net=math.sqrt(max(second - mean * mean, 0.0)),
                        sd_residual_total=math.sqrt(max(residual, 0.0)),
                        method=moments.method, edge_bound=bound)


def printed_edge_bound(moments: PrintedMoments, price: int) -> float:
    """The most the edge per amount wagered, -E[net] / (price E[T]) (``price`` in the
    moments' grid units), can differ from its value as the bounds on E[net] and E[T] allow;
    0 where the moments are exact."""
    if not (moments.bound_net or moments.bound_tickets):
        return 0.0
    central = -moments.net / (price * moments.tickets)
    return max(abs(-(moments.net + a) / (price * (moments.tickets + b)) - central)
               for a in (-moments.bound_net, moments.bound_net)
               for b in (-moments.bound_tickets, moments.bound_tickets))


@dataclass(frozen=True)
class PlanGrid:
    """A plan's stops on the integer money grid: a session goes on after a ticket while its
    net lies in [lo, hi] (None: no bound) and fewer than ``max_tickets`` are bought."""

    step: Fraction
    units: np.ndarray
    price: int
    lo_loss: int | None
    lo_money: int | None
    hi: int | None

    @property
    def lo(self) -> int | None:
        lows = [x for x in (self.lo_loss, self.lo_money) if x is not None]
        return max(lows) if lows else None


def plan_grid(pool: Pool, plan: ScratchPlan) -> PlanGrid:
    """Prizes, price and the stops of ``plan`` in whole grid units (exact comparisons)."""
    step, units, price = money_grid(pool)

    def grid(x: float) -> Fraction:
        return Fraction(x).limit_denominator(10**6) / step

    return PlanGrid(
        step, units, price,
        -math.ceil(grid(plan.stop_loss)) + 1 if plan.stop_loss else None,
        price - math.floor(grid(plan.budget)) if plan.budget else None,
        math.ceil(grid(plan.stop_win)) - 1 if plan.stop_win else None)


def _session_walk(pool: Pool, plan: ScratchPlan, per_ticket: float) -> SessionValue:
    pg = plan_grid(pool, plan)
    units, price_u, lo_loss, hi = pg.units, pg.price, pg.lo_loss, pg.hi
    gains = units - price_u
    mu = float(gains @ pool.probs)
    var = float(((gains - mu) ** 2) @ pool.probs)
    left = plan.max_tickets - plan.first
    floor = pg.lo if pg.lo is not None else -plan.max_tickets * price_u - 1
    # Without a stop-win, mass this high cannot fall to the floor in the tickets left: it buys
    # them all, and is carried in bulk ("sure": mass and the first two moments of its net)
    # instead of state by state.
    ceiling = hi if hi is not None else floor + left * price_u + 1
    size = ceiling - floor + 1
    reasons = np.zeros(4)  # stop-win, stop-loss, out of money, every ticket allowed bought
    moments = np.zeros(2)  # sum of mass x net and mass x net^2 of ended sessions
    sure = np.zeros(3)

    last = left == 0  # a session ending on its last allowed ticket counts as "max"

    def end(values: np.ndarray, mass: np.ndarray, reason: int) -> None:
        reasons[3 if last else reason] += mass.sum()
        moments[0] += mass @ values
        moments[1] += mass @ (values.astype(float) ** 2)

    def above(values: np.ndarray, mass: np.ndarray) -> None:
        if hi is not None:
            end(values, mass, 0)
        else:
            sure[:] += (mass.sum(), mass @ values, mass @ (values.astype(float) ** 2))

    def below(values: np.ndarray, mass: np.ndarray) -> None:
        by_loss = values < lo_loss if lo_loss is not None else np.zeros(len(values), bool)
        end(values[by_loss], mass[by_loss], 1)
        end(values[~by_loss], mass[~by_loss], 2)

    first = _convolve_iid(units, pool.probs, plan.first)
    net0 = np.arange(len(first)) - plan.first * price_u
    dist = np.zeros(size)
    inside = (net0 >= floor) & (net0 <= ceiling)
    dist[net0[inside] - floor] = first[inside]
    above(net0[net0 > ceiling], first[net0 > ceiling])
    below(net0[net0 < floor], first[net0 < floor])
    tickets = float(plan.first)
    values = np.arange(size) + floor
    for i in range(left):
        last = i == left - 1
        tickets += dist.sum() + sure[0]
        mass0, sum1, sum2 = sure
        sure[:] = (mass0, sum1 + mass0 * mu, sum2 + 2 * mu * sum1 + mass0 * (mu * mu + var))
        nxt = np.zeros(size)
        for g, q in zip(gains.tolist(), pool.probs.tolist()):
            if q == 0.0:
                continue
            mass = dist * q
            if g >= 0:  # shifted up: the top g states leave above
                cut = max(size - g, 0)
                nxt[g:] += mass[:cut]
                above(values[cut:] + g, mass[cut:])
            else:  # shifted down: the bottom -g states leave below
                cut = min(-g, size)
                nxt[:size - cut] += mass[cut:]
                below(values[:cut] + g, mass[:cut])
        dist = nxt
        if not dist.any() and not sure[0]:
            break
    last = True
    end(values, dist, 3)
    mean = (moments[0] + sure[1]) * float(pg.step)
    second = (moments[1] + sure[2]) * float(pg.step) ** 2
    return SessionValue(tickets, tickets * per_ticket, plan.first * pool.price,
                        tickets * pool.price, float(reasons[0]), float(reasons[1]),
                        float(reasons[2]), float(reasons[3] + sure[0]),
                        sd_net=math.sqrt(max(second - mean * mean, 0.0)),
                        # Wald's second identity: net + edge x wagered is the sum of the
                        # tickets' centred prizes, whose variance is var(prize) x E[tickets].
                        sd_residual_total=ticket_odds(pool).sd * math.sqrt(tickets))
