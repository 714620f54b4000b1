"""The histogram of a kernel's round results: one grid, one update, one read-out.

A compiled kernel cannot grow a dictionary of outcomes cheaply, so it counts each round's net
result into a fixed array of bins: ``per_unit`` bins to the unit (halves for a game paying
3 to 2, eighths for lansquenet's shares), from ``low`` to ``high`` units, results beyond
either end counted in the end bin. :func:`count` is the update every kernel inlines;
:meth:`NetGrid.values` gives the value of each bin for :meth:`sim.core.stats.Stats.from_arrays`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from sim.core import kernel_cache  # noqa: F401  (compiled code cached by digest)


@dataclass(frozen=True)
class NetGrid:
    """Bins of width ``1 / per_unit`` centred on the multiples of it from ``low`` to ``high``
    units (both ends included)."""

    per_unit: int
    low: int
    high: int

    @property
    def first(self) -> int:
        """The first bin's value in bins (the offset :func:`count` subtracts)."""
        return self.low * self.per_unit

    @property
    def last(self) -> int:
        """The last bin's value in bins."""
        return self.high * self.per_unit

    @property
    def size(self) -> int:
        """The number of bins."""
        return self.last - self.first + 1

    def constants(self) -> tuple[int, int, int, int]:
        """(per_unit, first, last, size): the module constants a kernel compiles in."""
        return self.per_unit, self.first, self.last, self.size

    def values(self) -> np.ndarray:
        """The value of each bin, in units."""
        return np.arange(self.first, self.last + 1) / self.per_unit


@numba.njit(cache=True)
def count(hist: np.ndarray, net: float, per_unit: int, first: int, last: int) -> None:
    """Count ``net`` into ``hist`` on the grid (``per_unit``, ``first``, ``last`` of a
    :class:`NetGrid`, passed as the kernel's constants), clipped to the end bins."""
    h = int(round(net * per_unit))
    h = min(max(h, first), last)
    hist[h - first] += 1
