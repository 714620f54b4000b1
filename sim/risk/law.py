"""The law of the net result of one round, on a lattice; and of rounds a chain drives.

Every exact method here works on a lattice: each round's net result is a whole number of
*steps* (the greatest common divisor of the values, found in exact fractions), so a bankroll
is a whole number of steps too and the dynamic programmes are sums over integer shifts.
Rounds alike and independent have a :class:`RoundLaw`; rounds whose law moves with a state
carried between them (a progression's unit) a :class:`ChainLaw`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import reduce

import numpy as np

from sim.core.markov import RoundChain, long_run

MAX_DENOMINATOR = 10**6


class Moments:
    """The mean and SD of a distribution given as ``values`` with ``probs`` (a round's law, a
    session's result)."""

    values: np.ndarray
    probs: np.ndarray

    @property
    def mean(self) -> float:
        return float(self.values @ self.probs)

    @property
    def sd(self) -> float:
        return math.sqrt(max(0.0, float((self.values - self.mean) ** 2 @ self.probs)))


class StepRange:
    """How far one round moves on the lattice, for a law whose rounds move ``shifts`` steps
    (from any state, where a chain drives them): the reach of the dynamic programmes."""

    shifts: np.ndarray

    @property
    def max_loss_steps(self) -> int:
        """The largest loss of a round, in steps (0 if no round loses)."""
        return max(0, -int(self.shifts.min()))

    @property
    def max_win_steps(self) -> int:
        return max(0, int(self.shifts.max()))


@dataclass(frozen=True)
class RoundLaw(Moments, StepRange):
    """The distribution of the net result of a round (units of the base stake).

    Attributes:
        values: the distinct net results, ascending.
        probs: their probabilities (summing to one).
        step: the lattice step: every value is a whole multiple of it.
        shifts: ``values / step`` as integers.
    """

    values: np.ndarray
    probs: np.ndarray
    step: float
    shifts: np.ndarray

    @classmethod
    def from_pairs(cls, values: np.ndarray | list[float], probs: np.ndarray | list[float]
                   ) -> RoundLaw:
        """A law from values and probabilities (duplicates merged, zeros dropped).

        Raises:
            ValueError: probabilities negative or not summing to one, or a value that is not
                a simple fraction of the stake.
        """
        values = np.asarray(values, dtype=float)
        probs = np.asarray(probs, dtype=float)
        if values.shape != probs.shape or values.ndim != 1 or not values.size:
            raise ValueError("values and probs: one probability per value")
        if (probs < -1e-15).any() or abs(probs.sum() - 1.0) > 1e-9:
            raise ValueError(f"probs: must be non-negative and sum to 1, got {probs.sum()!r}")
        step, shifts = lattice(values)
        uniq, inverse = np.unique(shifts, return_inverse=True)
        merged = np.zeros(uniq.size)
        np.add.at(merged, inverse, np.clip(probs, 0.0, None))
        keep = merged > 0
        merged = merged[keep] / merged[keep].sum()
        uniq = uniq[keep]
        return cls(uniq * step, merged, step, uniq)


def lattice(values: np.ndarray) -> tuple[float, np.ndarray]:
    """The lattice of a set of net results: its step (the greatest common divisor of the
    values, found in exact fractions) and each value as a whole number of steps.

    Raises:
        ValueError: a value that is not a simple fraction of the stake.
    """
    values = np.asarray(values, dtype=float)
    fractions = [Fraction(v).limit_denominator(MAX_DENOMINATOR) for v in values.tolist()]
    if any(abs(float(f) - v) > 1e-9 * max(1.0, abs(v)) for f, v in zip(fractions, values)):
        raise ValueError("values: each net result must be a simple fraction of the stake")
    nonzero = [f for f in fractions if f]
    if nonzero:
        denominator = reduce(math.lcm, (f.denominator for f in nonzero))
        numerator = reduce(math.gcd, (int(f * denominator) for f in nonzero))
        step = Fraction(abs(numerator), denominator)
    else:
        step = Fraction(1)
    return float(step), np.array([int(f / step) for f in fractions], dtype=np.int64)


@dataclass(frozen=True)
class ChainLaw(StepRange):
    """Rounds driven by a finite Markov chain (a progression's unit), on a lattice: from
    state ``source[t]`` a round ends ``shifts[t]`` steps up (its net result) and the next
    starts in ``target[t]``, with probability ``probs[t]`` given the source
    (:class:`sim.core.markov.RoundChain` put on the lattice of its net results).

    Attributes:
        step: the lattice step.
        start: the state a session starts in.
        n_states: how many states.
        mean: the long-run mean net result per round (the stationary chain's).
        sd: the long-run SD per round: sqrt(lim Var(sum of n rounds) / n), the
            autocovariances included (:func:`sim.core.markov.long_run`), the SD a diffusion
            of the session's result has.
        labels: a name for each state.
    """

    source: np.ndarray
    target: np.ndarray
    shifts: np.ndarray
    probs: np.ndarray
    step: float
    start: int
    n_states: int
    mean: float
    sd: float
    labels: tuple[str, ...] = ()

    @classmethod
    def from_chain(cls, chain: RoundChain) -> ChainLaw:
        """The chain on its lattice, with its long-run mean and SD.

        Raises:
            ValueError: a value that is not a simple fraction of the stake, or a chain that
                is not irreducible (no single stationary law).
        """
        step, shifts = lattice(chain.values)
        source = np.asarray(chain.source, dtype=np.int64)
        target = np.asarray(chain.target, dtype=np.int64)
        probs = np.asarray(chain.probs, dtype=float)
        n = chain.n_states
        p = chain.matrix()
        values = shifts * step
        r1 = np.bincount(source, weights=probs * values, minlength=n)
        r2 = np.bincount(source, weights=probs * values * values, minlength=n)
        g = np.zeros((n, n))
        np.add.at(g, (source, target), probs * values)
        mean, var = long_run(p.tolist(), r1.tolist(), r2.tolist(), g.tolist())
        return cls(source, target, shifts, probs, step, int(chain.start), n, float(mean),
                   math.sqrt(max(float(var), 0.0)), tuple(chain.labels))

    @property
    def values(self) -> np.ndarray:
        """Each transition's net result."""
        return self.shifts * self.step


def steps_at_or_below(amount: float, step: float) -> int:
    """The largest lattice index j with ``j * step <= amount`` (a tolerance for rounding)."""
    return math.floor(amount / step + 1e-9)


def steps_at_or_above(amount: float, step: float) -> int:
    """The smallest lattice index j with ``j * step >= amount``."""
    return math.ceil(amount / step - 1e-9)
