"""The registry of games: name -> game object, and what it shows (both imported lazily)."""

from __future__ import annotations

import importlib

from sim.core.errors import UnknownName
from sim.games.base import Game
from sim.games.presentation import Presentation

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
    game = get(name)
    try:
        return importlib.import_module(f"{_MODULES[name]}.report").REPORT
    except ModuleNotFoundError as exc:
        if exc.name != f"{_MODULES[name]}.report":
            raise
        return _GameShows(game)


class _GameShows(Presentation):
    """A game whose presentation still lives on its game object."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.printed_tables = game.printed_tables

    def columns(self, stats):  # type: ignore[no-untyped-def]
        return self.game.extra_columns(stats)

    def notes(self, stats):  # type: ignore[no-untyped-def]
        return self.game.warnings(stats)

    def run_lines(self, frame):  # type: ignore[no-untyped-def]
        return self.game.run_lines(frame)

    def exact_tables(self, rules):  # type: ignore[no-untyped-def]
        return self.game.exact_tables(rules)

    def exact_charts(self, rules, names=None):  # type: ignore[no-untyped-def]
        return (self.game.exact_charts(rules) if names is None
                else self.game.exact_charts(rules, names=names))

    def exact_chart_keys(self, rules):  # type: ignore[no-untyped-def]
        return self.game.exact_chart_keys(rules)

    def exact_chart_names(self, rules, strategies):  # type: ignore[no-untyped-def]
        return self.game.exact_chart_names(rules, strategies)

    def run_charts(self, stats, rules):  # type: ignore[no-untyped-def]
        return self.game.extra_charts(stats, rules)

    def bench_cases(self):  # type: ignore[no-untyped-def]
        return self.game.bench_cases()

    def bench_timings(self):  # type: ignore[no-untyped-def]
        return self.game.bench_timings()
