"""Piquet: the game object the engine uses.

Hands and declarations: :mod:`.hand`; rules, views and exchange policies: :mod:`.rules`; the
deal (reference and kernel): :mod:`.deal`; exact odds: :mod:`.exact`; the policies played as a
strategy: :mod:`.players`; what the report shows of it: :mod:`.report`.

**A round is one deal**: the deal, carte blanche, elder's and younger's exchanges (both played
by the strategy), and the declarations compared and scored with repique. The play of the
tricks is not modelled. ``net`` is elder hand's declaration points less younger hand's; nobody
stakes anything, so the report's headline is its mean per deal. The game columns give
each hand's mean points, the repique and carte blanche frequencies, the unopposed score each
hand reaches after its exchange (``elder_after``, ``younger_after``: what the exchange policy
achieves), and the dealt hand's figures (``dealt_score``, ``carte_blanche``, ``quatorze``)
beside their exact values with z-scores.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sim.core.estimate import Measure
from sim.core.progression import FLAT, ProgressionSpec
from sim.core.rng import Cards
from sim.core.stats import Stats
from sim.games.base import Game
from sim.games.piquet import exact_deal
from sim.games.piquet.deal import PiquetTable, play_reference, simulate_table
from sim.games.piquet.rules import PiquetRules


class PiquetGame(Game[PiquetRules, PiquetTable]):
    """Piquet: declarations, carte blanche and repique after the exchange."""

    description = ("Piquet: point, sequence and set, carte blanche and repique; exact odds of "
                   "a dealt hand and of taking in; exchange policies")
    round_name = "deal"
    measure = Measure.points("mean points per deal: elder's less younger's")
    kernel = staticmethod(simulate_table)

    def play_reference(self, rules: PiquetRules, strategy: Any, progression: ProgressionSpec,
                       rounds: int, cards: Cards, rng: np.random.Generator) -> Stats:
        """Deals on the reference path (any Python strategy)."""
        shuffles = cards.generator()
        stats = Stats()
        for _ in range(rounds):
            net, counters = play_reference(shuffles.permutation(32), rules, strategy, rng)
            stats.add_round(net, 0.0, 0.0, counters)
        return stats

    def exact_table_unavailable(self, rules: PiquetRules, table: PiquetTable,
                                progression: ProgressionSpec) -> str:
        if progression.kind != FLAT:
            return super().exact_table_unavailable(rules, table, progression)
        return exact_deal.unavailable_reason(rules, table)


GAME = PiquetGame()
