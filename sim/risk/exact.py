"""Exact session results and risk of ruin: dynamic programmes over the bankroll.

(Rounds that a Markov chain drives, such as a progression's: :mod:`sim.risk.chain`, with the
same programmes; :func:`forward`, :func:`long_run_band` and :func:`search_bankroll` serve
both.)

Rounds are independent with one law (:class:`~sim.risk.law.RoundLaw`), so the session result
after n rounds, S_n, is a random walk on the lattice of the law's step h. The session ends at
the first round where

* the bankroll is gone, ``B + S_n <= 0`` (ruin, checked first: it overrides the stops),
* ``S_n <= -stop_loss`` or ``S_n >= stop_win`` (the player leaves),
* or n reaches the session's length.

**Forward programme.** Carry the probability of each lattice point among the sessions still
playing; one round spreads it by the law's shifts (a sum of shifted copies), and the mass that
lands outside the band of live points is moved, with the value it landed on, to the sessions
that have ended. After N rounds the live mass joins them too. This is the whole distribution
of the session result, exactly (overshoot included): its quantiles, P(ahead), P(ruin), and the
bankroll's distribution at any round.

**Backward programme (every bankroll at once).** Without stops the walk does not depend on
the bankroll, only on where it is cut: ``r_n(b) = sum_k p_k r_{n-1}(b + i_k)`` with r = 1 at
b <= 0 and r_0 = 0 gives the chance of ruin within n rounds for every bankroll b steps at
once. A bankroll B is ruined exactly when a lattice point ``<= -B`` is reached, so the risk is
constant for B in ((b-1)h, bh] and the least bankroll for a target is a lattice point.

**Long run** (no limit on rounds): P(ruin) solves the linear system ``r(j) = sum_k p_k r(j +
i_k)`` on the live points with r = 1 on the ruined points and 0 on the stop-win points; without
a stop-win and with a positive mean the band is cut at a point U where the walk, having drifted
there, is ruined with a chance below 1e-18 (the diffusion bound, conservative for bounded
steps), and with a non-positive mean and no stop the walk falls below any level surely, so the
long-run ruin is 1.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import sparse
from scipy.signal import fftconvolve
from scipy.sparse.linalg import spsolve

from sim.risk.law import Moments, RoundLaw, steps_at_or_above, steps_at_or_below

RUIN, STOP_WIN, STOP_LOSS, HORIZON = 0, 1, 2, 3
REASONS = ("ruin", "stop_win", "stop_loss", "end")
TAIL = 1e-18  # where the long-run programme cuts a band that has no top
MAX_STATES = 3_000_000


@dataclass(frozen=True)
class Bounds:
    """A session's cut points as lattice indices of the session result S / step."""

    ruin: int  # S index <= ruin: the bankroll is gone
    stop_loss: int | None  # S index <= stop_loss: the player leaves behind
    stop_win: int | None  # S index >= stop_win: the player leaves ahead

    @classmethod
    def of(cls, step: float, bankroll: float, stop_win: float | None,
           stop_loss: float | None) -> Bounds:
        return cls(steps_at_or_below(-bankroll, step),
                   None if stop_loss is None else steps_at_or_below(-stop_loss, step),
                   None if stop_win is None else steps_at_or_above(stop_win, step))

    @property
    def live_low(self) -> int:
        low = self.ruin if self.stop_loss is None else max(self.ruin, self.stop_loss)
        return low + 1


@dataclass(frozen=True)
class SessionLaw(Moments):
    """The exact distribution of a session's result.

    Attributes:
        step: the lattice step; ``low`` the index of the first entry of ``probs``.
        probs: P(session result = (low + i) * step).
        reasons: P(the session ended by ruin, stop-win, stop-loss, at its end).
        checkpoints: the rounds at which ``at_checkpoint`` holds the distribution of the
            result so far (ended sessions keep their result), each on the same lattice.
        ruin_by_round: P(ruined within n rounds), n = 0..N.
    """

    step: float
    low: int
    probs: np.ndarray
    reasons: np.ndarray
    checkpoints: tuple[int, ...]
    at_checkpoint: np.ndarray
    ruin_by_round: np.ndarray

    @property
    def values(self) -> np.ndarray:
        return (self.low + np.arange(self.probs.size)) * self.step

    @property
    def p_ruin(self) -> float:
        return float(self.reasons[RUIN])

    @property
    def p_ahead(self) -> float:
        return float(self.probs[self.values > 1e-12].sum())

    def cdf(self, x: float) -> float:
        """P(session result <= x)."""
        return float(self.probs[self.values <= x + 1e-9 * self.step].sum())

    def quantile(self, q: float) -> float:
        """The least result x with P(result <= x) >= q."""
        return _quantile(self.values, self.probs, q)

    def checkpoint_quantiles(self, qs: tuple[float, ...]) -> np.ndarray:
        """Quantiles of the result so far at each checkpoint (rows) for each q (columns)."""
        return np.array([[_quantile(self.values, row, q) for q in qs]
                         for row in self.at_checkpoint])


def _quantile(values: np.ndarray, probs: np.ndarray, q: float) -> float:
    cum = np.cumsum(probs)
    i = int(np.searchsorted(cum, q * cum[-1] - 1e-12))
    return float(values[min(i, values.size - 1)])


FFT_SHIFTS = 48  # laws with more values are spread by FFT convolution


def _dense(law: RoundLaw) -> np.ndarray:
    """The law as a dense array over shifts -max_loss..max_win."""
    d = np.zeros(law.max_loss_steps + law.max_win_steps + 1)
    d[law.shifts + law.max_loss_steps] = law.probs
    return d


def _spread(live: np.ndarray, law: RoundLaw) -> np.ndarray:
    """One round from a live band: the new mass on a band widened by the law's reach. A law
    with many values (a scratchcard's prizes) is convolved by FFT, whose rounding is absolute
    (about 1e-16 of the band's mass), so tiny negative entries are cut to zero."""
    if law.shifts.size > FFT_SHIFTS:
        return np.clip(fftconvolve(live, _dense(law)), 0.0, None)
    lo, hi = law.max_loss_steps, law.max_win_steps
    out = np.zeros(live.size + lo + hi)
    for shift, p in zip(law.shifts.tolist(), law.probs.tolist()):
        start = lo + shift
        out[start:start + live.size] += p * live
    return out


def session_law(law: RoundLaw, bankroll: float, rounds: int, stop_win: float | None = None,
                stop_loss: float | None = None, checkpoints: tuple[int, ...] = ()
                ) -> SessionLaw:
    """The exact distribution of a session's result by the forward programme.

    Args:
        law: the law of one round.
        bankroll: the bankroll (ruin: it is no longer positive).
        rounds: the session's length.
        stop_win, stop_loss: leave once ahead / behind by this much (None: never).
        checkpoints: rounds at which to keep the distribution of the result so far.
    """
    return forward(lambda live: _spread(live, law), np.ones(1), law, bankroll, rounds,
                   stop_win, stop_loss, checkpoints)


def forward(spread: Callable[[np.ndarray], np.ndarray], start: np.ndarray, law: Any,
            bankroll: float, rounds: int, stop_win: float | None, stop_loss: float | None,
            checkpoints: tuple[int, ...]) -> SessionLaw:
    """The forward programme for any rounds on a lattice: ``start`` is the live mass before
    the first round, its last axis the lattice point (from 0), any axes before it a state
    carried between rounds (a chain's); ``spread`` plays one round of it, widening the last
    axis by ``law``'s reach. Only the lattice point decides when a session ends, so the
    ended mass is summed over the states."""
    bounds = Bounds.of(law.step, bankroll, stop_win, stop_loss)
    lo_step, hi_step = law.max_loss_steps, law.max_win_steps
    live_low = bounds.live_low
    live_high = (bounds.stop_win - 1 if bounds.stop_win is not None
                 else rounds * hi_step)
    low = max(bounds.ruin - lo_step, -rounds * lo_step)
    high = (bounds.stop_win + hi_step - 1 if bounds.stop_win is not None
            else rounds * hi_step)
    if high - low + 1 > MAX_STATES:
        raise ValueError(f"the session spans {high - low + 1:,} lattice points "
                         f"(step {law.step:g}); at most {MAX_STATES:,}")
    ended = np.zeros(high - low + 1)
    reasons = np.zeros(4)
    # The live band grows by the law's reach each round, clipped to [live_low, live_high].
    band_lo = 0
    live = start

    def marginal(mass: np.ndarray) -> np.ndarray:
        return mass.reshape(-1, mass.shape[-1]).sum(axis=0)

    wanted = set(checkpoints)
    at_cp = []
    ruin_by_round = np.zeros(rounds + 1)
    if 0 in wanted:
        at_cp.append(_snapshot(ended, marginal(live), band_lo, low))
    for n in range(1, rounds + 1):
        new = spread(live)
        new_lo = band_lo - lo_step
        total = marginal(new)
        idx = new_lo + np.arange(total.size)
        dead = (idx < live_low) | (idx > live_high)
        if dead.any():
            ruin = idx <= bounds.ruin
            reasons[RUIN] += total[ruin].sum()
            if bounds.stop_loss is not None:
                reasons[STOP_LOSS] += total[(~ruin) & (idx <= bounds.stop_loss)].sum()
            if bounds.stop_win is not None:
                reasons[STOP_WIN] += total[idx >= bounds.stop_win].sum()
            np.add.at(ended, idx[dead] - low, total[dead])
            keep = np.flatnonzero(~dead)  # one run: the live band is an interval
            if keep.size:
                live = new[..., keep[0]:keep[-1] + 1]
                band_lo = int(idx[keep[0]])
            else:
                live = np.zeros(new.shape[:-1] + (1,))
                band_lo = 0
        else:
            live = new
            band_lo = new_lo
        ruin_by_round[n] = reasons[RUIN]
        if n in wanted:
            at_cp.append(_snapshot(ended, marginal(live), band_lo, low))
        if not live.any():
            ruin_by_round[n:] = reasons[RUIN]
            for m in sorted(wanted):
                if m > n:
                    at_cp.append(_snapshot(ended, marginal(live), band_lo, low))
            break
    reasons[HORIZON] = live.sum()
    probs = _snapshot(ended, marginal(live), band_lo, low)
    return SessionLaw(law.step, low, probs, reasons, tuple(sorted(wanted)),
                      np.array(at_cp) if at_cp else np.zeros((0, probs.size)), ruin_by_round)


def _snapshot(ended: np.ndarray, live: np.ndarray, band_lo: int, low: int) -> np.ndarray:
    out = ended.copy()
    start = band_lo - low
    out[start:start + live.size] += live
    return out


def ruin_all_bankrolls(law: RoundLaw, rounds: int, max_bankroll: float) -> np.ndarray:
    """P(ruin within ``rounds``) for every lattice bankroll b*step, b = 0..ceil(max/step),
    by the backward programme (no stops). Entry 0 is 1 (nothing to lose)."""
    top = steps_at_or_above(max_bankroll, law.step)
    reach = rounds * law.max_loss_steps
    size = reach + 1  # r_n(b) = 0 exactly for b > n * (the largest loss)
    if size > MAX_STATES:
        raise ValueError(f"{size:,} bankrolls on the lattice; at most {MAX_STATES:,}")
    r = np.zeros(size + law.max_win_steps + 1)  # r[b]; beyond the reach, nothing is ruined
    r[0] = 1.0  # a bankroll of nothing is gone
    lo = law.max_loss_steps
    dense = _dense(law) if law.shifts.size > FFT_SHIFTS else None
    for _ in range(rounds):
        padded = np.concatenate([np.ones(lo), r])  # b <= 0 is ruined
        if dense is not None:  # new[b] = sum_m dense[m] padded[b + m]: a correlation
            ext = np.concatenate([padded, np.zeros(law.max_win_steps)])
            new = np.clip(fftconvolve(ext, dense[::-1], mode="valid"), 0.0, 1.0)[:r.size]
        else:
            new = np.zeros_like(r)
            for shift, p in zip(law.shifts.tolist(), law.probs.tolist()):
                # new[b] += p * r[b + shift]; padded index of b + shift is lo + b + shift
                start = lo + shift
                seg = padded[start:start + r.size]
                new[:seg.size] += p * seg
        new[0] = 1.0
        r = new
    out = np.zeros(top + 1)
    out[:min(size, top + 1)] = r[:min(size, top + 1)]  # beyond the reach: never ruined
    out[0] = 1.0
    return out


def session_ruin(law: RoundLaw, bankroll: float, rounds: int, stop_win: float | None = None,
                 stop_loss: float | None = None) -> float:
    """P(ruin within the session)."""
    return session_law(law, bankroll, rounds, stop_win, stop_loss).p_ruin


def _band_ruin(law: RoundLaw, live_low: int, live_high: int, ruin: int) -> np.ndarray:
    """P(ever ruined) from each live point of [live_low, live_high]: below the band the point
    is ruined if <= ``ruin`` (else the player has left behind); above it he has left ahead."""
    n = live_high - live_low + 1
    if n > MAX_STATES:
        raise ValueError(f"{n:,} live points; at most {MAX_STATES:,}")
    rows, cols, data = [np.arange(n)], [np.arange(n)], [np.ones(n)]
    rhs = np.zeros(n)
    j = live_low + np.arange(n)
    for shift, p in zip(law.shifts.tolist(), law.probs.tolist()):
        to = j + shift
        inside = (to >= live_low) & (to <= live_high)
        rows.append(np.flatnonzero(inside))
        cols.append(to[inside] - live_low)
        data.append(np.full(int(inside.sum()), -p))
        rhs += p * (to <= ruin)
    matrix = sparse.csc_matrix((np.concatenate(data), (np.concatenate(rows),
                                                       np.concatenate(cols))), shape=(n, n))
    return np.clip(spsolve(matrix, rhs), 0.0, 1.0)


def _top(law: RoundLaw, start: int) -> int | None:
    """Where to cut a band without a top: the diffusion's exp(-2 mu x / sigma^2) < TAIL."""
    mu, var = law.mean, law.sd ** 2
    if mu <= 0:
        return None
    reach = math.log(1 / TAIL) * var / (2 * mu) / law.step
    return start + math.ceil(reach) + 10 * law.max_loss_steps + 10


def long_run_ruin(law: RoundLaw, bankroll: float, stop_win: float | None = None,
                  stop_loss: float | None = None) -> float:
    """P(ruin) with no limit on the number of rounds."""
    return long_run_band(law, bankroll, stop_win, stop_loss,
                         lambda low, high, ruin: _band_ruin(law, low, high, ruin))


def long_run_band(law: Any, bankroll: float, stop_win: float | None,
                  stop_loss: float | None,
                  band_ruin: Callable[[int, int, int], np.ndarray]) -> float:
    """P(ruin) with no limit on the number of rounds, for any rounds on a lattice:
    ``band_ruin(low, high, ruin)`` gives P(ever ruined) from each point of the live band
    [low, high] (a session starting there)."""
    b = Bounds.of(law.step, bankroll, stop_win, stop_loss)
    if b.stop_win is None:
        if b.stop_loss is None and law.mean <= 0:
            return 1.0
        top = _top(law, 0)
        if top is None:  # a non-positive drift: the walk reaches the stop-loss surely
            top = _drift_free_top(law)
        high = top
    else:
        high = b.stop_win - 1
    if high < b.live_low:
        return 1.0 if b.live_low > 0 else 0.0
    r = band_ruin(b.live_low, high, b.ruin)
    return float(r[0 - b.live_low]) if b.live_low <= 0 <= high else 0.0


def _drift_free_top(law: RoundLaw) -> int:
    # A walk with a non-positive drift goes up by x steps before its stop-loss with a chance
    # below TAIL once x is many standard deviations of the band: cut at a generous height.
    mu, sd = abs(law.mean), max(law.sd, law.step)
    if mu > 0:
        return math.ceil(math.log(1 / TAIL) * sd ** 2 / (2 * mu) / law.step)
    return 200_000


def long_run_all_bankrolls(law: RoundLaw, max_bankroll: float) -> np.ndarray | None:
    """P(ever ruined) for every lattice bankroll b*step, b = 0..ceil(max/step), without stops;
    None for a non-positive mean (every bankroll is ruined)."""
    return long_run_band_all(law, max_bankroll,
                             lambda low, high, ruin: _band_ruin(law, low, high, ruin))


def long_run_band_all(law: Any, max_bankroll: float,
                      band_ruin: Callable[[int, int, int], np.ndarray]) -> np.ndarray | None:
    """:func:`long_run_all_bankrolls` for any rounds on a lattice (``band_ruin`` as in
    :func:`long_run_band`): a bankroll b is a session started b steps above ruin at 0."""
    top_b = steps_at_or_above(max_bankroll, law.step)
    high = _top(law, top_b)
    if high is None:
        return None
    r = band_ruin(1, high, 0)
    out = np.ones(top_b + 1)
    out[1:] = r[:top_b]
    return out


def least_bankroll(risk_by_b: np.ndarray, step: float, target: float) -> float:
    """The least lattice bankroll whose risk is at most ``target`` (NaN beyond the table)."""
    ok = np.flatnonzero(risk_by_b <= target)
    return float(ok[0] * step) if ok.size else math.nan


def bankroll_for_risk(law: RoundLaw, target: float, rounds: int | None,
                      stop_win: float | None = None, stop_loss: float | None = None,
                      limit: float = 1e6) -> float:
    """The least lattice bankroll whose risk of ruin (within ``rounds``, or ever when None)
    is at most ``target``; NaN where none up to ``limit`` is (a game the player loses in the
    long run ruins every bankroll)."""
    return search_bankroll(law, target, rounds, stop_win, stop_loss, limit,
                           sys.modules[__name__])


def search_bankroll(law: Any, target: float, rounds: int | None, stop_win: float | None,
                    stop_loss: float | None, limit: float, programmes: Any) -> float:
    """:func:`bankroll_for_risk` with the programmes of ``programmes`` (a module with
    ``ruin_all_bankrolls``, ``long_run_all_bankrolls``, ``session_ruin`` and
    ``long_run_ruin`` for ``law``'s kind of rounds): every bankroll at once where there are
    no stops, else a bisection on the lattice (the risk falls as the bankroll grows)."""
    if stop_win is None and stop_loss is None:
        if rounds is None:
            table = programmes.long_run_all_bankrolls(law, min(limit, _long_run_reach(law)))
            return math.nan if table is None else least_bankroll(table, law.step, target)
        reach = (rounds * law.max_loss_steps + 1) * law.step  # one step more is never ruined
        return least_bankroll(programmes.ruin_all_bankrolls(law, rounds, min(reach, limit)),
                              law.step, target)

    def risk(b: int) -> float:
        amount = b * law.step
        if rounds is None:
            return programmes.long_run_ruin(law, amount, stop_win, stop_loss)
        return programmes.session_ruin(law, amount, rounds, stop_win, stop_loss)

    hi = 1
    top = steps_at_or_above(limit, law.step)
    while risk(hi) > target:
        if hi >= top:
            return math.nan
        hi = min(2 * hi, top)
    lo = 0  # risk(0) = 1 > target
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if risk(mid) > target:
            lo = mid
        else:
            hi = mid
    return hi * law.step


def _long_run_reach(law: RoundLaw) -> float:
    mu = law.mean
    if mu <= 0:
        return law.step
    return math.log(1 / TAIL) * law.sd ** 2 / (2 * mu)
