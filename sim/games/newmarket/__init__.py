"""Newmarket: the game object the engine uses.

Rules, views and policies: :mod:`.rules`; the reference round and the kernel: :mod:`.play`;
the policies played as a strategy: :mod:`.players`; what the report shows of it: :mod:`.report`.

**A round** runs from a clear layout to the end of the first deal that leaves the boodle cards
without money (money left on a card carries to the next deal, as the text says), seat 0
dealing first and the deal passing to the left. ``net`` is seat 0's result over the round
(what it collected less what it staked) and its initial stake, as the amount wagered, is what
seat 0 put in the kitty and on the boodle cards; so ``edge_per_initial_bet`` is what the other
seats together win from seat 0 per unit it stakes (positive: the table beats seat 0). The
``seat_<i>_net`` columns are every seat's mean result per round; the game is zero-sum, so they
sum to zero. No exact value is computed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sim.core.progression import FLAT, ProgressionSpec
from sim.core.rng import Cards
from sim.core.stats import Stats
from sim.games.base import Game
from sim.games.newmarket.exact import unavailable_reason
from sim.games.newmarket.play import ReferenceRound, simulate_table
from sim.games.newmarket.rules import NewmarketRules, NewmarketTable


def _orders(rng: np.random.Generator):
    while True:
        yield rng.permutation(52)


class NewmarketGame(Game[NewmarketRules, NewmarketTable]):
    """Newmarket: stakes on the boodle cards and the kitty, seats' results."""

    description = ("Newmarket (boodle, stops): the kitty and the boodle cards, play policies "
                   "for the suit of a new run, each seat's result")
    round_name = "round"
    kernel = staticmethod(simulate_table)

    def play_reference(self, rules: NewmarketRules, strategy: Any,
                       progression: ProgressionSpec, rounds: int, cards: Cards,
                       rng: np.random.Generator) -> Stats:
        """Rounds on the reference path (any Python strategy)."""
        player = ReferenceRound(rules, strategy, rng)
        orders = _orders(cards.generator())
        stats = Stats()
        for _ in range(rounds):
            nets, paid, counters = player.play(orders)
            stats.add_round(float(nets[0]), float(paid), float(paid), counters)
        return stats

    def exact_unavailable(self, rules: NewmarketRules, strategy: Any,
                          progression: ProgressionSpec) -> str:
        if progression.kind != FLAT:
            return super().exact_unavailable(rules, strategy, progression)
        return unavailable_reason(rules)  # whatever the strategy: the deal is the obstacle


GAME = NewmarketGame()
