"""Bridge: the game object the engine uses.

Exact deal odds: :mod:`.odds`; scoring: :mod:`.scoring`; the lines of suit play:
:mod:`.play`; dealt hands (kernels and reference): :mod:`.deal`; rules and views:
:mod:`.rules`; the table played as a strategy: :mod:`.players`; what the report shows of it:
:mod:`.report` (its charts: :mod:`.charts`).

**A round is one deal**, of the kind the strategy names (see :mod:`.rules`): the deal survey,
whose ``net`` is South's high-card points, or a contract, whose ``net`` is the deal's score for
the declarer's side less the defenders'. Nobody stakes anything, so the report's headline is the
deal's mean beside its exact value. The survey's columns give the texts'
figures as simulated (``sim_*``) with their z-scores against the exact fractions (``z_*``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from sim.core.estimate import Measure
from sim.core.progression import ProgressionSpec
from sim.core.rng import Cards, kernel_state
from sim.core.stats import Stats
from sim.games.base import ExactValue, Game
from sim.games.bridge import odds
from sim.games.bridge.deal import (
    contract_stats,
    line_wins,
    survey_reference,
    survey_stats,
    west_holding,
)
from sim.games.bridge.play import contract_value, line_odds
from sim.games.bridge.rules import LINES, BridgeRules, BridgeTable, SuitView
from sim.games.bridge.scoring import score


def scores_by_tricks(rules: BridgeRules) -> np.ndarray:
    """The deal's net score for each number of tricks 0..13."""
    return np.array([score(rules.contract, t, rules.scoring).net for t in range(14)],
                    dtype=np.float64)


def view_of(rules: BridgeRules) -> SuitView:
    return SuitView(rules.contract, rules.missing, rules.sure_tricks, rules.scoring)


def _check_line(line: Any, strategy: Any) -> int:
    if line not in LINES:
        name = getattr(strategy, "name", type(strategy).__name__)
        raise ValueError(f"strategy {name!r} chose {line!r}; expected 'finesse' or 'drop'")
    return LINES.index(line)


class BridgeGame(Game[BridgeRules, BridgeTable]):
    """Bridge: deal odds (splits, given cards, patterns, points) and contracts scored."""

    description = ("Contract and auction bridge: suit splits, given cards, hand patterns and "
                   "high-card points exactly and dealt; finesse or drop; a tested scorer")
    round_name = "deal"
    measure = Measure.points("mean per deal: South's points, or the contract's score")

    def simulate_table(self, rules: BridgeRules, table: BridgeTable,
                       progression: ProgressionSpec, rounds: int,
                       seed: np.random.SeedSequence) -> Stats:
        if table.line == "survey":
            return survey_stats(rounds, kernel_state(seed))
        return contract_stats(rounds, kernel_state(seed), rules.missing, table.line,
                              rules.sure_tricks, scores_by_tricks(rules))

    def play_reference(self, rules: BridgeRules, strategy: Any, progression: ProgressionSpec,
                       rounds: int, cards: Cards, rng: np.random.Generator) -> Stats:
        """Play on the reference path: ``decide(view, rng)`` is asked on every deal."""
        deals = cards.generator()
        table = self.table_of(rules, strategy)
        if table is not None and table.line == "survey":
            return survey_reference(rounds, deals)
        scores = scores_by_tricks(rules)
        view = view_of(rules)
        decide = getattr(strategy, "decide", strategy)  # a plain function is a strategy too
        stats = Stats()
        for _ in range(rounds):
            west, queen_west = west_holding(deals, rules.missing)
            line = _check_line(decide(view, rng), strategy)
            won = line_wins(line, rules.missing, west, queen_west)
            tricks = rules.sure_tricks + int(won)
            stats.add_round(float(scores[tricks]), 0.0, 0.0,
                            {f"tricks_{tricks}": 1.0, "line_wins": float(won)})
        return stats

    def exact_table(self, rules: BridgeRules, table: BridgeTable,
                    progression: ProgressionSpec) -> ExactValue | None:
        """The survey: South's mean points (10) and their SD; a table line: the deal's exact
        mean score and its SD."""
        if table.line == "survey":
            mean, var = odds.mean_and_variance(odds.hcp_distribution())
        else:
            mean, var = contract_value(rules.contract, line_odds(table.line, rules.missing),
                                       rules.sure_tricks, rules.scoring)
        return ExactValue(mean_net=float(mean), mean_initial_stake=None,
                          mean_total_wagered=None, sd_net=math.sqrt(float(var)))


GAME = BridgeGame()
