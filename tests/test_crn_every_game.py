"""Common random numbers in every registered game: a strategy that draws from the generator
it is handed moves no card (no ticket, no spin) of its row.

The reference path of each game (the kernel, for a game that has none) plays one of its
built-in deterministic strategies twice from the same chunk's streams: as it is, and wrapped
so that it draws from every numpy generator it is handed before it decides. The two must give
the same rounds, bit for bit: a game that dealt its cards from the strategy's generator would
deal other cards to the drawing one.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from sim import games
from sim.core.progression import ProgressionSpec
from sim.core.rng import chunk_streams
from sim.games.base import Game
from strategies import base as registry

ROUNDS = 40


class Drawing:
    """``inner``, but every method it is asked for first draws from each generator among its
    arguments (as a strategy tossing its own coins would), then answers as ``inner`` does."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.draws = 0

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._inner, name)
        if not callable(value) or isinstance(value, type):
            return value

        def drawing(*args: Any, **kwargs: Any) -> Any:
            for arg in (*args, *kwargs.values()):
                if isinstance(arg, np.random.Generator):
                    arg.random(3)
                    self.draws += 1
            return value(*args, **kwargs)

        return drawing


def _deterministic(game: str) -> Any:
    """The first built-in strategy of ``game`` that needs no parameter and draws nothing."""
    for info in registry.registered(game):
        if info.stochastic:
            continue
        try:
            return registry.build(info.factory, {}, info.name)
        except TypeError:  # it needs parameters
            continue
    raise AssertionError(f"{game}: no built-in strategy without parameters")


def _rounds(stats: Any) -> tuple:
    return (stats.rounds, stats.wins, stats.pushes, stats.losses, stats.sums, stats.net_hist,
            sorted(stats.counters.items()))


@pytest.mark.parametrize("name", games.names())
def test_a_strategy_that_draws_moves_no_card(name):
    game = games.get(name)
    rules = next(iter(game.presets.values()))  # its first preset
    strategy = _deterministic(name)
    seed = chunk_streams(20261204, game.pack_key(rules), "a strategy", 2)
    drawing = Drawing(strategy)
    if type(game).play_reference is Game.play_reference:
        # No reference path (gin rummy: the deal itself, no decision): the kernel plays
        # every row, and no strategy is handed a generator at all.
        plain = game.simulate(rules, strategy, ProgressionSpec(), ROUNDS, seed)
        drew = game.simulate(rules, drawing, ProgressionSpec(), ROUNDS, seed)
        assert drawing.draws == 0
    else:
        plain = game.simulate_reference(rules, strategy, ProgressionSpec(), ROUNDS, seed)
        drew = game.simulate_reference(rules, drawing, ProgressionSpec(), ROUNDS, seed)
        assert drawing.draws > 0, "the strategy was handed no generator: nothing was tested"
    assert _rounds(drew) == _rounds(plain)


@pytest.mark.parametrize("name", games.names())
def test_the_template_hands_every_game_its_cards_and_the_strategys_generator_apart(name):
    """No game overrides the template's reference entry: each fills in ``play_reference``,
    which is given the chunk's cards and the strategy's generator as two things."""
    assert type(games.get(name)).simulate_reference is Game.simulate_reference
