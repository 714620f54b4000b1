"""The law of the net result of one round, on a lattice.

Every exact method here works on a lattice: each round's net result is a whole number of
*steps* (the greatest common divisor of the values, found in exact fractions), so a bankroll
is a whole number of steps too and the dynamic programmes are sums over integer shifts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import reduce

import numpy as np

MAX_DENOMINATOR = 10**6


@dataclass(frozen=True)
class RoundLaw:
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
        shifts = np.array([int(f / step) for f in fractions], dtype=np.int64)
        uniq, inverse = np.unique(shifts, return_inverse=True)
        merged = np.zeros(uniq.size)
        np.add.at(merged, inverse, np.clip(probs, 0.0, None))
        keep = merged > 0
        merged = merged[keep] / merged[keep].sum()
        uniq = uniq[keep]
        return cls(uniq * float(step), merged, float(step), uniq)

    @property
    def mean(self) -> float:
        return float(self.values @ self.probs)

    @property
    def sd(self) -> float:
        return math.sqrt(max(0.0, float((self.values - self.mean) ** 2 @ self.probs)))

    @property
    def max_loss_steps(self) -> int:
        """The largest loss of a round, in steps (0 if no round loses)."""
        return max(0, -int(self.shifts.min()))

    @property
    def max_win_steps(self) -> int:
        return max(0, int(self.shifts.max()))


def steps_at_or_below(amount: float, step: float) -> int:
    """The largest lattice index j with ``j * step <= amount`` (a tolerance for rounding)."""
    return math.floor(amount / step + 1e-9)


def steps_at_or_above(amount: float, step: float) -> int:
    """The smallest lattice index j with ``j * step >= amount``."""
    return math.ceil(amount / step - 1e-9)
