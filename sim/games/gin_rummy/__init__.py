"""Gin rummy: the dealt hand as a game of the engine.

Rules: :mod:`.rules` (and ``docs/rules/gin_rummy.md``); melds and deadwood: :mod:`.melds`;
exact counts: :mod:`.exact`; the kernel: :mod:`.kernel`; what the report shows of it:
:mod:`.report`.

**A round is a dealt hand** of ``hand_size`` cards (no play: drawing, discarding and
knocking are not modelled). Its ``net`` is the hand's least deadwood in points, so
``push_freq`` is the chance of being dealt gin. There is no stake, so the edge columns are
NaN; the game columns are ``p_gin`` with ``exact_p_gin`` and ``z_gin`` (its standard error
from the exact chance), ``p_knock`` (deadwood at most ``knock_limit``), and
``mean_deadwood``. The strategy, ``as-dealt``, makes no decision; the row's exact value is the
mean deadwood over every hand, with its standard deviation. ``houseedge exact`` gives the
exact chance of gin and of every deadwood up to the knock limit.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from sim.core.estimate import Measure
from sim.core.progression import ProgressionSpec
from sim.core.rng import kernel_state
from sim.core.stats import Stats
from sim.games.base import ExactValue, Game
from sim.games.gin_rummy.exact import (
    deadwood_counts,
    deadwood_moments,
    gin_probability,
)
from sim.games.gin_rummy.kernel import simulate_hands
from sim.games.gin_rummy.melds import deadwood
from sim.games.gin_rummy.rules import PRESETS, GinRules

__all__ = ["GAME", "PRESETS", "GinGame", "GinRules", "deadwood", "deadwood_counts",
           "gin_probability", "simulate_hands"]


class GinGame(Game[GinRules, GinRules]):
    """Gin rummy: melds, deadwood and gin in the dealt hand.

    No decision is scored (the round is the dealt hand), so whatever the strategy, its table
    is the rules themselves and the kernel deals it.
    """

    description = "Gin rummy: the dealt hand's deadwood and the chance of gin, exact and simulated"
    round_name = "hand"
    measure = Measure.points("mean deadwood per hand")

    def offered_table(self, rules: GinRules, strategy: Any) -> GinRules:
        return rules

    def simulate_table(self, rules: GinRules, table: GinRules, progression: ProgressionSpec,
                       rounds: int, seed: np.random.SeedSequence) -> Stats:
        stats = simulate_hands(rules, rounds, kernel_state(seed))
        stats.counters["knock"] = float(sum(c for v, c in stats.net_hist.items()
                                            if v <= rules.knock_limit))
        # Carried with the chunk's sums so that the report can set it beside the estimate.
        stats.counters["exact_gin"] = float(gin_probability(
            rules.hand_size, rules.rank_count, rules.suits)) * rounds
        return stats

    def check(self, rules: GinRules, strategy: Any, progression: ProgressionSpec) -> None:
        self.simulate(rules, strategy, progression, 2, np.random.SeedSequence(0))

    def exact_table(self, rules: GinRules, table: GinRules,
                    progression: ProgressionSpec) -> ExactValue:
        """The mean deadwood of a dealt hand and its standard deviation, over every hand
        (:func:`~sim.games.gin_rummy.exact.deadwood_moments`); no stake, so no edge."""
        mean, variance = deadwood_moments(rules.hand_size, rules.rank_count, rules.suits)
        return ExactValue(mean_net=float(mean), mean_initial_stake=None,
                          mean_total_wagered=None, sd_net=math.sqrt(variance))


GAME = GinGame()
