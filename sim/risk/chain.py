"""Exact session results and risk of ruin where a Markov chain drives the rounds.

Under a stake progression the rounds of a session are not alike: the progression's state at
the start of a round (its unit, a win streak) decides the round's law, and the round decides
the next state (:class:`~sim.risk.law.ChainLaw`). The pair (state, session result so far) is
then a Markov chain, and the programmes of :mod:`sim.risk.exact` carry over with the state as
one more coordinate; only the result decides when a session ends (ruin, a stop), so the state
is summed out wherever mass leaves the live band.

**Forward.** The live mass is an array over (state, lattice point), starting with all of it
on (the chain's start, 0). One round moves the mass at (i, x) to (j, x + k) with the chance of
the transition i -> j with net k steps; :func:`sim.risk.exact.forward` moves what left the band
to the ended sessions. This is the whole distribution of the session result, as for rounds
alike.

**Backward, every bankroll at once** (no stops). ``r_n(i, b) = sum_t p_t r_(n-1)(target_t, b
+ k_t)`` over the transitions t from i, with r = 1 at b <= 0 and r_0 = 0: the chance of ruin
within n rounds from state i with b steps left. A session's is ``r_N(start, b)``.

**Long run.** P(ever ruined) solves ``r(i, x) = sum_t p_t r(target_t, x + k_t)`` on the live
points of every state, 1 on the ruined points and 0 on the stop-win points; the band without a
top is cut as for rounds alike, by the diffusion with the chain's long-run mean and SD (the
session result of a finite chain is asymptotically Brownian with them), with the same margin.

With one state these are the programmes of :mod:`sim.risk.exact`, and the tests hold them to
it.
"""

from __future__ import annotations

import sys

import numpy as np
from scipy import sparse
from scipy.sparse.linalg import spsolve

from sim.risk import exact
from sim.risk.exact import MAX_STATES, SessionLaw
from sim.risk.law import ChainLaw, steps_at_or_above


def _spread(live: np.ndarray, law: ChainLaw) -> np.ndarray:
    """One round from the live mass over (state, band point): the new mass on the band
    widened by the law's reach."""
    lo, hi = law.max_loss_steps, law.max_win_steps
    width = live.shape[1]
    out = np.zeros((law.n_states, width + lo + hi))
    for i, j, shift, p in zip(law.source.tolist(), law.target.tolist(), law.shifts.tolist(),
                              law.probs.tolist()):
        start = lo + shift
        out[j, start:start + width] += p * live[i]
    return out


def session_law(law: ChainLaw, bankroll: float, rounds: int, stop_win: float | None = None,
                stop_loss: float | None = None, checkpoints: tuple[int, ...] = ()
                ) -> SessionLaw:
    """The exact distribution of a session's result (as :func:`sim.risk.exact.session_law`),
    the session starting in the chain's start state."""
    start = np.zeros((law.n_states, 1))
    start[law.start, 0] = 1.0
    return exact.forward(lambda live: _spread(live, law), start, law, bankroll, rounds,
                         stop_win, stop_loss, checkpoints)


def session_ruin(law: ChainLaw, bankroll: float, rounds: int, stop_win: float | None = None,
                 stop_loss: float | None = None) -> float:
    """P(ruin within the session)."""
    return session_law(law, bankroll, rounds, stop_win, stop_loss).p_ruin


def ruin_all_bankrolls(law: ChainLaw, rounds: int, max_bankroll: float) -> np.ndarray:
    """P(ruin within ``rounds``) for every lattice bankroll b*step, b = 0..ceil(max/step),
    from the chain's start, by the backward programme (no stops). Entry 0 is 1."""
    top = steps_at_or_above(max_bankroll, law.step)
    reach = rounds * law.max_loss_steps
    size = reach + 1  # r_n(i, b) = 0 exactly for b > n * (the largest loss)
    if size * law.n_states > MAX_STATES:
        raise ValueError(f"{size * law.n_states:,} (state, bankroll) pairs on the lattice; "
                         f"at most {MAX_STATES:,}")
    lo = law.max_loss_steps
    r = np.zeros((law.n_states, size + law.max_win_steps + 1))
    r[:, 0] = 1.0  # a bankroll of nothing is gone
    for _ in range(rounds):
        padded = np.concatenate([np.ones((law.n_states, lo)), r], axis=1)  # b <= 0: ruined
        new = np.zeros_like(r)
        for i, j, shift, p in zip(law.source.tolist(), law.target.tolist(),
                                  law.shifts.tolist(), law.probs.tolist()):
            # new[i, b] += p * r[j, b + shift]; padded index of b + shift is lo + b + shift
            seg = padded[j, lo + shift:lo + shift + r.shape[1]]
            new[i, :seg.size] += p * seg
        new[:, 0] = 1.0
        r = new
    out = np.zeros(top + 1)
    out[:min(size, top + 1)] = r[law.start, :min(size, top + 1)]  # beyond: never ruined
    out[0] = 1.0
    return out


def _band_ruin(law: ChainLaw, live_low: int, live_high: int, ruin: int) -> np.ndarray:
    """P(ever ruined) from each live point of [live_low, live_high] with the chain in its
    start state (as :func:`sim.risk.exact._band_ruin`, the system over every state)."""
    n = live_high - live_low + 1
    size = n * law.n_states
    if size > MAX_STATES:
        raise ValueError(f"{size:,} (state, point) pairs; at most {MAX_STATES:,}")
    rows, cols, data = [np.arange(size)], [np.arange(size)], [np.ones(size)]
    rhs = np.zeros(size)
    j = live_low + np.arange(n)
    for i, target, shift, p in zip(law.source.tolist(), law.target.tolist(),
                                   law.shifts.tolist(), law.probs.tolist()):
        to = j + shift
        inside = (to >= live_low) & (to <= live_high)
        rows.append(i * n + np.flatnonzero(inside))
        cols.append(target * n + to[inside] - live_low)
        data.append(np.full(int(inside.sum()), -p))
        rhs[i * n:(i + 1) * n] += p * (to <= ruin)
    matrix = sparse.csc_matrix((np.concatenate(data), (np.concatenate(rows),
                                                       np.concatenate(cols))), shape=(size, size))
    r = np.clip(spsolve(matrix, rhs), 0.0, 1.0)
    return r[law.start * n:(law.start + 1) * n]


def long_run_ruin(law: ChainLaw, bankroll: float, stop_win: float | None = None,
                  stop_loss: float | None = None) -> float:
    """P(ruin) with no limit on the number of rounds, from the chain's start."""
    return exact.long_run_band(law, bankroll, stop_win, stop_loss,
                               lambda low, high, ruin: _band_ruin(law, low, high, ruin))


def long_run_all_bankrolls(law: ChainLaw, max_bankroll: float) -> np.ndarray | None:
    """P(ever ruined) for every lattice bankroll, without stops; None for a non-positive
    long-run mean (every bankroll is ruined)."""
    return exact.long_run_band_all(law, max_bankroll,
                                   lambda low, high, ruin: _band_ruin(law, low, high, ruin))


def bankroll_for_risk(law: ChainLaw, target: float, rounds: int | None,
                      stop_win: float | None = None, stop_loss: float | None = None,
                      limit: float = 1e6) -> float:
    """The least lattice bankroll whose risk of ruin (within ``rounds``, or ever when None)
    is at most ``target`` (as :func:`sim.risk.exact.bankroll_for_risk`)."""
    return exact.search_bankroll(law, target, rounds, stop_win, stop_loss, limit,
                                 sys.modules[__name__])
