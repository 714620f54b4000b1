"""Sessions on a printed game, whose tickets are drawn without replacement: exact values.

A session that stops on its results (a budget with prizes reinvested, a stop-win, a stop-loss)
buys tickets one at a time from its own full print run (the simulator deals each session from
a fresh pool); each ticket changes the odds of the next, so the walk on the net of
:mod:`.exact` (independent tickets) is not its law. Two routes, the first where it fits:

**Every drawn multiset.** A sequence of tiers holding d_t tickets of tier t (n in all) has
probability prod_t (c_t)_(d_t) / (N)_n without replacement: it depends on the order only
through the counts, so the session's state is the vector d (its net and its tickets follow).
A state's probability is the sum over the tier t of its last ticket of P(d - e_t) x (session
goes on at d - e_t) x (c_t - d_t + 1)/(N - n + 1); visiting the states in the order of a
mixed-radix index makes every predecessor come first (:func:`_box_walk`). A tier whose prize
is the price changes nothing but the count of tickets when the session buys one ticket at a
time and its cap on tickets cannot bind: the session then stops on a ticket of another tier,
and the tickets of that tier before the k-th other ticket, in a random order of A other and B
such tickets, number B k/(A + 1) on average, with E[X(X - 1)] = B(B - 1) k (k + 1) / ((A + 1)
(A + 2)) (each lies in one of the A + 1 gaps between the others, a pair in two, uniformly);
so the tier leaves the state, and T = k + X.

**The independent walk, corrected, with a bound.** A print run of millions has far too many
multisets within a long session (a prize of hundreds buys hundreds of tickets). Both laws
give a path of n tickets the probabilities prod_t c_t^(d_t) / N^n and prod_t (c_t)_(d_t) /
(N)_n, whose ratio is rho = e^(A - B), A = -sum_(k < n) log(1 - k/N), B = -sum_t sum_(j < d_t)
log(1 - j/c_t). A session's path is taken to its stop, or to the ticket after which it is
sure to buy every ticket left (a stopping time either way), and H is the session's h there
(money left, tickets, their squares and product: all >= 0), or h's expectation without
replacement from that point on; then E[h] without replacement is E[H rho] with. With T the
path's tickets, s = C(T, 2)/N, sigma_t = C(d_t, 2)/c_t and Delta = s - sum_t sigma_t,
x <= -log(1 - x) <= x + x^2/(2(1 - x)) give s <= A <= s + r and B >= sigma, so rho <=
e^(Delta + r) <= 1 + Delta + r + K (Delta^2 + r^2) (K = e^(s + r) at the cap on tickets).
Where no tier has drawn over half its tickets, -log(1 - x) <= x + x^2 (x <= 1/2) gives
B <= sigma + tau, tau = sum_t sum_(j < d_t) j^2/c_t^2, so rho >= 1 + s - sigma - tau;
elsewhere rho >= 0, which only a tier of fewer than twice the cap can reach, and ind_t =
(d_t)_k / (m_t)_k >= 1 counts it (m_t = floor(c_t/2) + 1). So E[h] lies within E[H (1 +
Delta)] - E[H (tau + (1 + s) sum_t ind_t)] and E[H (1 + Delta)] + E[H (r + K r^2)] +
K E[H Delta^2], where Delta = sum_t delta_t, delta_t = (p_t^2 (T)_2 - (d_t)_2) / (2 c_t), and
E[H Delta^2] <= (sum_t sqrt(E[H delta_t^2]))^2 (Cauchy-Schwarz on each path, with those
weights). Every term is E[H] times a polynomial of degree four at most in one tier's
count: the walk carries, per net, the probability and the first four factorial moments of
every tier's count, which move linearly ((d + 1)_k = (d)_k + k (d)_(k - 1)). A session sure
to buy every ticket left is finished in closed form (its money tells the prize total left, so
the mean is exact; the spread lies between the pool's sum of squared prizes less prizes won x
the top prize and that sum, and h = money^2 takes the upper one, the gap added to its lower
error), which keeps the long sessions of a top prize out of s.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numba
import numpy as np

from sim.core import kernel_cache  # noqa: F401  (compiled code cached by digest)
from sim.games.scratchcard.rules import Pool, ScratchPlan

BOX_LIMIT = 4_000_000  # drawn multisets the exact walk may hold (8 bytes each)
EDGE_BOUND = 1e-5  # the largest bound on the edge a corrected walk may report as its value
WALK_LIMIT = 5_000_000  # tickets x nets the corrected walk may visit (the shipped: 1e6)
NONE = -(1 << 60)  # "no such stop" on the integer grid


@dataclass(frozen=True)
class PrintedMoments:
    """A session's exact (or bounded) moments, money in grid units.

    Attributes:
        net, net2, tickets, tickets2, net_tickets: E[net], E[net^2], E[T], E[T^2], E[net T].
        bound_net, bound_tickets: half-widths of intervals holding E[net] and E[T] (0 where
            exact); E[net] lies in [net - bound_net, net + bound_net], likewise E[T].
        method: "multisets" or "corrected walk".
    """

    net: float
    net2: float
    tickets: float
    tickets2: float
    net_tickets: float
    bound_net: float = 0.0
    bound_tickets: float = 0.0
    method: str = "multisets"


# --------------------------------------------------------------------------- every multiset
@numba.njit(cache=True)
def _box_walk(counts, gains, caps, total, first, n_max, check_max, lo, hi):
    """The exact walk over drawn multisets (see the module's docstring).

    Returns per count n of tickets (of the tiers walked) at the stop: P, E[net; n], E[net^2;
    n], and a flag: 0 fine, 1 the box cut a session short, 2 a session went on with no ticket
    of the walked tiers left.
    """
    tiers = counts.shape[0]
    strides = np.ones(tiers, dtype=np.int64)
    for t in range(1, tiers):
        strides[t] = strides[t - 1] * (caps[t - 1] + 1)
    size = strides[tiers - 1] * (caps[tiers - 1] + 1)
    go = np.zeros(size)
    top = 0
    for t in range(tiers):
        top += caps[t]
    p_n = np.zeros(top + 1)
    v_n = np.zeros(top + 1)
    v2_n = np.zeros(top + 1)
    d = np.zeros(tiers, dtype=np.int64)
    flag = 0
    for flat in range(size):
        if flat > 0:  # the next multiset: an odometer over the tiers
            t = 0
            while d[t] == caps[t]:
                d[t] = 0
                t += 1
            d[t] += 1
        n = 0
        net = 0
        for t in range(tiers):
            n += d[t]
            net += d[t] * gains[t]
        if flat == 0:
            mass = 1.0
        else:
            mass = 0.0
            for t in range(tiers):
                if d[t] > 0:
                    mass += go[flat - strides[t]] * (counts[t] - d[t] + 1) / (total - n + 1)
        if mass == 0.0:
            continue
        stop = n >= first and ((check_max and n >= n_max) or (hi != NONE and net > hi)
                               or (lo != NONE and net < lo))
        if stop:
            p_n[n] += mass
            v_n[n] += mass * net
            v2_n[n] += mass * net * net
            continue
        go[flat] = mass
        if n == total:
            flag = 2
        for t in range(tiers):
            if d[t] == caps[t] and caps[t] < counts[t]:
                flag = 1
    return p_n, v_n, v2_n, flag


def _grid_stops(grid: Any) -> tuple[np.ndarray, int, int, int]:
    """Gains and price in grid units and the stops (NONE where absent) of a
    :class:`~sim.games.scratchcard.exact.PlanGrid`."""
    lo = NONE if grid.lo is None else int(grid.lo)
    hi = NONE if grid.hi is None else int(grid.hi)
    return np.asarray(grid.units - grid.price, dtype=np.int64), int(grid.price), lo, hi


def multiset_moments(pool: Pool, plan: ScratchPlan, grid: Any) -> PrintedMoments | None:
    """Exact moments by the walk over drawn multisets, on the plan's ``grid``
    (:func:`~sim.games.scratchcard.exact.plan_grid`); None where the box of multisets is over
    :data:`BOX_LIMIT` (see the module's docstring)."""
    gains, price, lo, hi = _grid_stops(grid)
    counts = np.asarray(pool.counts, dtype=np.int64)
    neutral = (gains == 0) & (counts > 0)
    # A tier at the price leaves the state when tickets are bought one at a time and no stop
    # fires at a net of nought (then a session never stops on such a ticket), as long as the
    # cap on tickets cannot bind and the other tiers are never all drawn: tried first.
    if plan.first == 1 and neutral.any() and (lo == NONE or lo <= 0) and \
            (hi == NONE or hi >= 0):
        moments = _multisets(counts, gains, neutral, plan, lo, hi)
        if moments is not None:
            return moments
    return _multisets(counts, gains, np.zeros_like(neutral), plan, lo, hi)


def _multisets(counts: np.ndarray, gains: np.ndarray, dropped: np.ndarray, plan: ScratchPlan,
               lo: int, hi: int) -> PrintedMoments | None:
    keep = (counts > 0) & ~dropped
    c, g = counts[keep], gains[keep]
    caps = np.minimum(c, plan.max_tickets)
    if lo != NONE:  # losing tickets: at most as many as the gains can pay for
        best = int(np.sum(np.maximum(g, 0) * caps))
        for t in np.flatnonzero(g < 0):
            caps[t] = min(caps[t], (best - min(lo, 0)) // -g[t] + plan.first + 1)
    if np.prod(caps.astype(float) + 1) > BOX_LIMIT:
        return None
    total = int(c.sum())
    drop = bool(dropped.any())
    p_n, v_n, v2_n, flag = _box_walk(c, g, caps, total, plan.first, plan.max_tickets,
                                     not drop, lo, hi)
    k = np.arange(len(p_n), dtype=float)
    if drop:
        b = float(counts[dropped].sum())
        if flag or np.flatnonzero(p_n).max() + b > plan.max_tickets:
            return None  # the cap on tickets could bind: the dropped tier counts
        a = float(total)
        x1 = k * b / (a + 1)
        x2 = b * (b - 1) * k * (k + 1) / ((a + 1) * (a + 2)) + x1
    else:
        if flag:
            raise AssertionError(f"the walk over multisets lost sessions (flag {flag})")
        x1 = x2 = np.zeros_like(k)
    return PrintedMoments(net=float(v_n.sum()), net2=float(v2_n.sum()),
                          tickets=float(p_n @ (k + x1)),
                          tickets2=float(p_n @ (k * k + 2 * k * x1 + x2)),
                          net_tickets=float(v_n @ (k + x1)))


# --------------------------------------------------------------------------- corrected walk
# Per h (money, money^2, tickets, tickets^2, money x tickets): E[h], E[h s], E[h sigma],
# E[h tau], E[h (1 + s) sum_rare ind], E[h (r + K r^2)]; and per tier E[h delta_t^2].
H_TYPES = 5
QUANTITIES = 6
MOMENTS = 4  # factorial moments of each tier's count carried by the walk


@numba.njit(cache=True)
def _add(acc, acc_t, y, n, consts, counts, probs, rare, rare_k, rare_m):
    """Add the expectations ``y`` of h (y[0]) and of h (d_t)_j (y[1 + 4t + j - 1]) over
    sessions ending after ``n`` tickets, to the accumulators of one h."""
    size, big_k = consts[0], consts[1]
    tiers = counts.shape[0]
    s = n * (n - 1) / (2.0 * size)
    r = (n - 1) * n * (2 * n - 1) / (12.0 * size * size * (1.0 - (n - 1) / size))
    pairs = float(n) * (n - 1)
    acc[0] += y[0]
    acc[1] += y[0] * s
    acc[5] += y[0] * (r + big_k * r * r)
    for t in range(tiers):
        c = counts[t]
        d2, d3, d4 = y[2 + 4 * t], y[3 + 4 * t], y[4 + 4 * t]
        acc[2] += d2 / (2.0 * c)
        acc[3] += (2.0 * d3 + 3.0 * d2) / (6.0 * c * c)
        if rare[t]:
            k, m = rare_k[t], rare_m[t]
            falling = 1.0
            for i in range(k):
                falling *= m - i
            acc[4] += (1.0 + s) * y[k + 4 * t] / falling
        p2 = probs[t] * probs[t]
        acc_t[t] += (p2 * p2 * pairs * pairs * y[0] - 2.0 * p2 * pairs * d2
                     + d4 + 4.0 * d3 + 2.0 * d2) / (4.0 * c * c)


@numba.njit(cache=True)
def _moment_walk(gains, probs, counts, consts, first, n_max, lo, hi, shift, v_min, v_max,
                 g_min):
    """The independent walk on the net with each tier's factorial moments (see the module's
    docstring). Money is net + ``shift``; nets in [v_min, v_max] are walked.

    ``consts``: pool size, K, price, the pool's prize total and sum of squared prizes, and
    the largest prize (grid units). Returns the accumulators and the extra lower error of h =
    money^2 from sessions finished in closed form (the spread of the prizes left is
    bracketed there).
    """
    tiers = gains.shape[0]
    rows = 1 + MOMENTS * tiers
    width = v_max - v_min + 1
    size, price, prize_total, prize_squares, top = (consts[0], consts[2], consts[3],
                                                    consts[4], consts[5])
    rare = counts < 2 * n_max
    rare_m = (counts // 2 + 1).astype(np.int64)
    rare_k = np.minimum(MOMENTS, rare_m)
    cur = np.zeros((width, rows))
    cur[-v_min, 0] = 1.0
    acc = np.zeros((H_TYPES, QUANTITIES))
    acc_t = np.zeros((H_TYPES, tiers))
    x = np.zeros(rows)
    weights = np.zeros(H_TYPES)
    ended = np.zeros((H_TYPES, rows))  # this ticket's sessions that end, per h (linear in h)
    spread = 0.0
    low, high = -v_min, -v_min  # the columns that may hold mass
    for n in range(n_max):
        nxt = np.zeros((width, rows))
        ended[:] = 0.0
        new_low, new_high = width, -1
        m = n + 1
        for t in range(tiers):
            q, g = probs[t], gains[t]
            base = 1 + MOMENTS * t
            for j in range(low, high + 1):
                if cur[j, 0] == 0.0:
                    continue
                w = v_min + j + g
                stop = m >= first and (m >= n_max or (hi != NONE and w > hi)
                                       or (lo != NONE and w < lo))
                sure = (not stop and hi == NONE and lo != NONE
                        and w + (n_max - m) * g_min >= lo)
                if not stop and not sure:
                    i = w - v_min
                    for r in range(rows):
                        nxt[i, r] += q * cur[j, r]
                    # A ticket of tier t: (d + 1)_k = (d)_k + k (d)_(k - 1).
                    nxt[i, base] += q * cur[j, 0]
                    for k in range(2, MOMENTS + 1):
                        nxt[i, base + k - 1] += q * k * cur[j, base + k - 2]
                    new_low = min(new_low, i)
                    new_high = max(new_high, i)
                    continue
                for r in range(rows):
                    x[r] = q * cur[j, r]
                for k in range(MOMENTS, 0, -1):
                    x[base + k - 1] += k * (x[0] if k == 1 else x[base + k - 2])
                money = float(w + shift)
                if stop:
                    weights[0], weights[1] = money, money * money
                    weights[2], weights[3], weights[4] = m, m * m, money * m
                else:
                    # Sure to buy every ticket left: the k tickets are a sample without
                    # replacement from what is left, whose prize total the money tells.
                    k = n_max - m
                    left = size - m
                    prizes = w + m * price
                    mean = (prize_total - prizes) / left
                    total = money + k * (mean - price)
                    fpc = k * (left - k) / (left - 1.0) if left > 1 else 0.0
                    hi_var = max(prize_squares / left - mean * mean, 0.0)
                    lo_var = max((prize_squares - prizes * top) / left - mean * mean, 0.0)
                    weights[0] = total
                    weights[1] = total * total + fpc * hi_var
                    weights[2], weights[3], weights[4] = n_max, n_max * n_max, n_max * total
                    s = m * (m - 1) / (2.0 * size)
                    spread += fpc * (hi_var - lo_var) * x[0] * (1.0 + s)
                for h in range(H_TYPES):
                    for r in range(rows):
                        ended[h, r] += weights[h] * x[r]
        for h in range(H_TYPES):
            _add(acc[h], acc_t[h], ended[h], m, consts, counts, probs, rare, rare_k, rare_m)
        cur = nxt
        low, high = new_low, new_high
        if high < 0:
            break
    return acc, acc_t, spread


def corrected_moments(pool: Pool, plan: ScratchPlan, grid: Any) -> PrintedMoments | None:
    """Moments without replacement from the independent walk on the plan's ``grid``, first
    order corrected, with rigorous bounds (see the module's docstring); None where the plan
    has neither a floor nor a ceiling on the net, or its tickets times its nets are over
    :data:`WALK_LIMIT`."""
    gains, price, lo, hi = _grid_stops(grid)
    counts = np.asarray(pool.counts, dtype=np.int64)
    live = counts > 0
    gains, counts = gains[live], counts[live]
    size = int(counts.sum())
    n_max, first = plan.max_tickets, plan.first
    s_max = n_max * (n_max - 1) / (2 * size)
    if lo == NONE and hi == NONE:
        return None
    r_max = (n_max - 1) * n_max * (2 * n_max - 1) / (12 * size ** 2 * (1 - (n_max - 1) / size))
    units = (gains + price).astype(np.float64)
    consts = np.array([float(size), np.exp(s_max + r_max), float(price), float(counts @ units),
                       float(counts @ units ** 2), float(units.max())])
    probs = counts / size
    g_min = min(0, int(gains.min()))
    g_max = max(0, int(gains.max()))
    # Money left, >= 0 at every stop: the net, after the last check (at least the floor),
    # can lose one price more; with no floor, the most the tickets can cost.
    shift = max(price - lo, first * price) if lo != NONE else n_max * price
    v_min = (lo if lo != NONE else n_max * g_min) + (first - 1) * g_min
    v_max = (hi if hi != NONE else lo - n_max * g_min) + (first - 1) * g_max
    v_min, v_max = min(v_min, 0), max(v_max, 0)
    if n_max * (v_max - v_min + 1) > WALK_LIMIT:
        return None
    acc, acc_t, spread = _moment_walk(gains, probs, counts.astype(np.float64), consts, first,
                                      n_max, lo, hi, int(shift), int(v_min), int(v_max), g_min)
    central = acc[:, 0] + acc[:, 1] - acc[:, 2]
    below = acc[:, 3] + acc[:, 4]
    below[1] += spread
    above = acc[:, 5] + consts[1] * np.sqrt(np.maximum(acc_t, 0.0)).sum(axis=1) ** 2
    e_m, e_m2, e_t, e_t2, e_mt = central
    return PrintedMoments(net=float(e_m - shift),
                          net2=float(e_m2 - 2 * shift * e_m + shift * shift),
                          tickets=float(e_t), tickets2=float(e_t2),
                          net_tickets=float(e_mt - shift * e_t),
                          bound_net=float(max(below[0], above[0])),
                          bound_tickets=float(max(below[2], above[2])),
                          method="corrected walk")
