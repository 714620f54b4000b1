"""Stake progressions usable by any game: flat, martingale, paroli, d'Alembert.

A progression multiplies every stake of a strategy by a unit that moves with the results of
the decided bets. Each class here describes itself as a
:class:`sim.core.progression.ProgressionSpec` so the compiled kernels can run it; the rules
themselves live once, in :func:`sim.core.progression.advance`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sim.core.errors import UnknownName
from sim.core.progression import DALEMBERT, FLAT, MARTINGALE, PAROLI, ProgressionSpec
from strategies.base import check_parameters


@dataclass(frozen=True)
class Flat:
    """The same stake every bet."""

    base: float = 1.0

    def spec(self) -> ProgressionSpec:
        return ProgressionSpec(FLAT, self.base)


@dataclass(frozen=True)
class Martingale:
    """Double after each loss, back to the base after a win or past the cap."""

    base: float = 1.0
    cap: float = 0.0

    def spec(self) -> ProgressionSpec:
        return ProgressionSpec(MARTINGALE, self.base, self.cap)


@dataclass(frozen=True)
class Paroli:
    """Double after each win, bank the profit after ``wins`` wins in a row or any loss."""

    base: float = 1.0
    wins: int = 3
    cap: float = 0.0

    def spec(self) -> ProgressionSpec:
        return ProgressionSpec(PAROLI, self.base, self.cap, self.wins)


@dataclass(frozen=True)
class DAlembert:
    """One base up after a loss, one down after a win, never below the base."""

    base: float = 1.0
    cap: float = 0.0

    def spec(self) -> ProgressionSpec:
        return ProgressionSpec(DALEMBERT, self.base, self.cap)


PROGRESSIONS: dict[str, type] = {
    "flat": Flat,
    "martingale": Martingale,
    "paroli": Paroli,
    "dalembert": DAlembert,
}


def progression_spec(value: str | Mapping[str, Any] | None) -> ProgressionSpec:
    """A progression from its name, or a table ``{name = "...", <params>}``; None is flat.

    Raises:
        LookupError: unknown progression name.
        UnknownParameter: a parameter the progression does not take.
        TypeError / ValueError: bad parameters.
    """
    if value is None:
        return Flat().spec()
    if isinstance(value, str):
        name, params = value, {}
    elif isinstance(value, Mapping):
        params = dict(value)
        name = params.pop("name", None)
        if not isinstance(name, str):
            raise TypeError("a progression table needs name = \"flat\" | \"martingale\" | ...")
    else:
        raise TypeError(f"expected a progression name or table, got {value!r}")
    if name not in PROGRESSIONS:
        raise UnknownName("progression", name, PROGRESSIONS)
    check_parameters(PROGRESSIONS[name], params, name)
    return PROGRESSIONS[name](**params).spec()
