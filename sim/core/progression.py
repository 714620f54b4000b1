"""Stake progressions as data, one rule shared by the reference paths and the kernels.

A progression scales every bet of a strategy by a *unit* that moves with the results of the
bets decided so far (a push leaves it alone). It is described by four numbers so that a compiled
kernel can run it, and :func:`advance` (compiled, also callable from Python) is the one place
where the rules of the progressions live.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba

from sim.core import kernel_cache  # noqa: F401  (compiled code cached by digest)

FLAT, MARTINGALE, PAROLI, DALEMBERT = 0, 1, 2, 3
KIND_NAMES = {FLAT: "flat", MARTINGALE: "martingale", PAROLI: "paroli", DALEMBERT: "dalembert"}


@dataclass(frozen=True)
class ProgressionSpec:
    """A progression as data.

    Attributes:
        kind: FLAT, MARTINGALE, PAROLI or DALEMBERT.
        base: the first (and reset) unit, in stake units.
        cap: the largest unit as a multiple of ``base`` (a martingale that would exceed it
            starts again from ``base``; a d'Alembert stops rising); 0 means no cap.
        wins_to_reset: a paroli's wins in a row before it takes its profit and resets.
    """

    kind: int = FLAT
    base: float = 1.0
    cap: float = 0.0
    wins_to_reset: int = 3

    def __post_init__(self) -> None:
        if self.kind not in KIND_NAMES:
            raise ValueError(f"kind: unknown progression {self.kind}")
        if not self.base > 0:
            raise ValueError(f"base: must be positive, got {self.base}")
        if self.cap < 0 or (self.cap and self.cap < 1):
            raise ValueError(f"cap: must be 0 (none) or at least 1, got {self.cap}")
        if self.wins_to_reset < 1:
            raise ValueError(f"wins_to_reset: must be at least 1, got {self.wins_to_reset}")

    @property
    def name(self) -> str:
        return KIND_NAMES[self.kind]


@numba.njit(cache=True)
def advance(
    kind: int, base: float, cap: float, wins_to_reset: int, unit: float, streak: int, result: float
) -> tuple[float, int]:
    """The unit and win streak after a decided bet whose net result was ``result``."""
    if result == 0.0 or kind == FLAT:
        return unit, streak
    won = result > 0.0
    limit = cap * base if cap > 0.0 else 1e300
    if kind == MARTINGALE:
        if won:
            return base, 0
        unit = unit * 2.0
        return (base if unit > limit else unit), 0
    if kind == PAROLI:
        if not won:
            return base, 0
        streak += 1
        if streak >= wins_to_reset:
            return base, 0
        return min(unit * 2.0, limit), streak
    # d'Alembert: one base up after a loss, one down after a win, never below the base.
    if won:
        return max(base, unit - base), 0
    return min(unit + base, limit), 0


class ProgressionState:
    """The running unit of a progression on the reference paths."""

    def __init__(self, spec: ProgressionSpec) -> None:
        self.spec = spec
        self.unit = spec.base
        self.streak = 0

    def record(self, result: float) -> None:
        """Move the unit after a decided bet with net ``result``."""
        s = self.spec
        # floats throughout (a base, cap or unit may be written as an int): one compilation
        self.unit, self.streak = advance(s.kind, float(s.base), float(s.cap), s.wins_to_reset,
                                         float(self.unit), self.streak, float(result))
