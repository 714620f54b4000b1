"""The registry of games: name -> game object (imported lazily)."""

from __future__ import annotations

import importlib

from sim.games.base import Game

# name -> module that defines GAME
_MODULES = {
    "bonus": "sim.games.bonus",
    "cribbage": "sim.games.cribbage",
    "faro": "sim.games.faro",
    "gin_rummy": "sim.games.gin_rummy",
    "lansquenet": "sim.games.lansquenet",
    "pontoon": "sim.games.pontoon",
    "scratchcard": "sim.games.scratchcard",
}


def names() -> list[str]:
    """The names of every game."""
    return sorted(_MODULES)


def get(name: str) -> Game:
    """The game called ``name``.

    Raises:
        KeyError: no such game (the message lists the known ones).
    """
    if name not in _MODULES:
        raise KeyError(f"unknown game {name!r} (known: {', '.join(names())})")
    return importlib.import_module(_MODULES[name]).GAME
