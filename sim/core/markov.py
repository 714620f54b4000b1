"""Rounds linked by a finite Markov chain: the data a game hands the risk code, and the long
run of a chain with rewards.

A stake progression carries its unit from round to round, so successive rounds are not alike:
the state at the start of a round (the unit, a win streak) decides the law of the round, and
the round decides the next state. Where the cards of each round are fresh, the states at round
starts form a Markov chain, and the round's result is a reward earned on each transition.

:class:`RoundChain` is that chain as plain data (what :meth:`sim.games.base.Game.round_chain`
returns; :mod:`sim.risk` puts it on a lattice). :func:`stationary` and :func:`long_run` give
the long-run mean of a reward and its long-run variance (autocovariances included), in exact
fractions or in floats: the arithmetic is written once for any field of numbers.

**Long-run variance.** For an irreducible chain with transition matrix P and stationary law
pi, let a reward r be earned on each transition with ``r1[i] = E[r | i]``, ``r2[i] = E[r^2 |
i]`` and ``G[i][j] = E[r; next = j | i]``. With m = pi r1 and g = r1 - m, the covariance of
r_0 and r_k (k >= 1) in the stationary chain is ``sum_i pi_i sum_j (G_ij - m P_ij) (P^(k-1)
g)_j``, and the sum over k of ``P^(k-1) g`` is h, the solution of ``(I - P + 1 pi) h = g``
(the fundamental matrix; pi h = 0). Hence ``lim Var(r_1 + ... + r_n) / n = pi r2 - m^2 + 2
pi (G - m P) h``, the variance a long run's mean has (the central limit theorem for Markov
chains), for periodic chains too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class RoundChain:
    """Rounds whose law depends on a finite state carried from round to round.

    Transition ``t``: from state ``source[t]`` a round ends with net result ``values[t]`` and
    the next round starts in state ``target[t]``, with probability ``probs[t]`` given the
    source (the probabilities of each source sum to one).

    Attributes:
        source, target: state indices (0 .. n_states - 1), one per transition.
        values: the round's net result, in the units of the simulation.
        probs: the transition's probability given its source.
        start: the state a session starts in.
        labels: a name for each state (e.g. ``"unit 4"``), for tables and errors.
    """

    source: np.ndarray
    target: np.ndarray
    values: np.ndarray
    probs: np.ndarray
    start: int = 0
    labels: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        arrays = (self.source, self.target, self.values, self.probs)
        if len({np.shape(a) for a in arrays}) != 1 or np.ndim(self.probs) != 1:
            raise ValueError("source, target, values, probs: one entry per transition")
        if np.size(self.probs) == 0:
            raise ValueError("a chain needs at least one transition")
        totals = np.bincount(np.asarray(self.source), weights=np.asarray(self.probs),
                             minlength=self.n_states)
        if (np.asarray(self.probs) < 0).any() or np.abs(totals - 1.0).max() > 1e-9:
            raise ValueError("probs: each state's transitions must sum to one")
        if not 0 <= self.start < self.n_states:
            raise ValueError(f"start: no state {self.start}")

    @property
    def n_states(self) -> int:
        return int(max(np.max(self.source), np.max(self.target))) + 1

    def matrix(self) -> np.ndarray:
        """The transition matrix between states."""
        p = np.zeros((self.n_states, self.n_states))
        np.add.at(p, (self.source, self.target), self.probs)
        return p


def solve(a: Sequence[Sequence[Any]], b: Sequence[Any]) -> list[Any]:
    """x with ``a x = b`` by Gauss-Jordan elimination with pivoting on the largest entry,
    in the numbers given (exact for fractions).

    Raises:
        ValueError: a singular matrix.
    """
    n = len(b)
    rows = [list(a[i]) + [b[i]] for i in range(n)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(rows[r][col]))
        if rows[pivot][col] == 0:
            raise ValueError("singular system")
        rows[col], rows[pivot] = rows[pivot], rows[col]
        head = rows[col]
        inv = 1 / head[col]
        for r in range(n):
            factor = rows[r][col]
            if r == col or factor == 0:
                continue
            rows[r] = [x - factor * inv * y for x, y in zip(rows[r], head)]
    return [rows[i][n] / rows[i][i] for i in range(n)]


def stationary(p: Sequence[Sequence[Any]]) -> list[Any]:
    """The stationary law of an irreducible chain: pi P = pi, sum pi = 1 (one equation of
    the balance replaced by the normalisation)."""
    n = len(p)
    one = p[0][0] * 0 + 1  # the numbers' own one (a Fraction stays a Fraction)
    a = [[p[j][i] - (one if i == j else 0 * one) for j in range(n)] for i in range(n)]
    a[-1] = [one] * n
    return solve(a, [0 * one] * (n - 1) + [one])


def long_run(p: Sequence[Sequence[Any]], r1: Sequence[Any], r2: Sequence[Any],
             g: Sequence[Sequence[Any]], pi: Sequence[Any] | None = None
             ) -> tuple[Any, Any]:
    """(mean, variance) per round in the long run of a reward earned on each transition
    (see the module's docstring): ``r1[i] = E[r | i]``, ``r2[i] = E[r^2 | i]``, ``g[i][j] =
    E[r; next = j | i]``; ``pi`` the stationary law where already known."""
    n = len(p)
    pi = stationary(p) if pi is None else pi
    mean = sum(pi[i] * r1[i] for i in range(n))
    centred = [r1[i] - mean for i in range(n)]
    # (I - P + 1 pi) h = r1 - m
    a = [[(1 if i == j else 0) - p[i][j] + pi[j] for j in range(n)] for i in range(n)]
    h = solve(a, centred)
    cross = sum(pi[i] * sum((g[i][j] - mean * p[i][j]) * h[j] for j in range(n))
                for i in range(n))
    second = sum(pi[i] * r2[i] for i in range(n))
    return mean, second - mean * mean + 2 * cross
