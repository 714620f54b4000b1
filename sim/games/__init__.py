"""The registry of games: name -> game object, and what it shows (both imported lazily)."""

from __future__ import annotations

import importlib

from sim.core.errors import UnknownName
from sim.games.base import Game, Presentation

# name -> module that defines GAME
_MODULES = {
    "bonus": "sim.games.bonus",
    "bridge": "sim.games.bridge",
    "cribbage": "sim.games.cribbage",
    "faro": "sim.games.faro",
    "gin_rummy": "sim.games.gin_rummy",
    "lansquenet": "sim.games.lansquenet",
    "newmarket": "sim.games.newmarket",
    "piquet": "sim.games.piquet",
    "pontoon": "sim.games.pontoon",
    "scratchcard": "sim.games.scratchcard",
}


def names() -> list[str]:
    """The names of every game."""
    return sorted(_MODULES)


def get(name: str) -> Game:
    """The game called ``name``.

    Raises:
        UnknownName: no such game (with the closest known name).
    """
    if name not in _MODULES:
        raise UnknownName("game", name, names())
    return importlib.import_module(_MODULES[name]).GAME


def presentation(name: str) -> Presentation:
    """What the game called ``name`` shows beside its numbers (its package's ``report.py``).

    Raises:
        UnknownName: no such game (with the closest known name).
    """
    get(name)  # an unknown name is refused in one line
    return importlib.import_module(f"{_MODULES[name]}.report").REPORT
