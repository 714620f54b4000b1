"""Cribbage: the game object the engine uses.

Rules and the discard view: :mod:`.rules`; the show scorer: :mod:`.score`; exact
distributions by enumeration: :mod:`.exact`; the source texts' statistics: :mod:`.statistics`;
discard policies and the exact values they choose by: :mod:`.policy`; the reference deal:
:mod:`.deal`; the compiled kernel: :mod:`.kernel`; exact whole-deal values under discard and
play policies: :mod:`.values` (the keep laws :mod:`.laws`, both players' :mod:`.joint`, the
play of random keeps :mod:`.play_exact`); a discard policy played as a strategy:
:mod:`.players`; what the report shows of it: :mod:`.report`. The rules as modelled:
``docs/rules/cribbage.md``.

**A round is a deal** (the show, and the play where ``rules.pegging``): every seat lays away to
the crib by the same strategy, the starter is cut, hands and crib are shown. Its ``net`` is
the points the followed seat (``rules.seat``) scores in the show of that deal: the pone's
hand, or the dealer's hand, crib and heels (with partners, the side's hands). Cribbage has no
stake and no house: the report's headline is the seat's mean points per deal, beside its exact
value where the whole deal's expectation is known; ``push_freq`` is the chance the seat scores
nothing. The game columns (:mod:`.report`) carry the figures: ``mean_hand`` (the seat's own
hand) beside ``hand_ev`` (the mean of the exact expected hand of each keep over every
starter: the same expectation with less noise), ``mean_crib``, ``dealer_points``,
``pone_points``, ``dealer_lead`` (their difference), ``p_hand_0``, ``p_hand_24``,
``p_hand_28``, ``p_hand_29``; with ``pegging`` (two players), the play is pegged by the
strategy's ``play`` policy and counts in the points, with the columns ``peg_pone``,
``peg_dealer`` and ``p_dealer_pegs_nothing``. The exact values (:mod:`.values`): the random
keep for any deal; every policy for five cards dealt to the pone; and every six-card deal of
two players under any discard and play policy but the first legal card's play, by walks over
every pair of hands.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sim.core.estimate import Measure
from sim.core.progression import ProgressionSpec
from sim.core.rng import Cards
from sim.core.stats import Stats
from sim.games.base import ExactValue, Game
from sim.games.cribbage.deal import CribbageDeal, play_deal, seat_cards
from sim.games.cribbage.exact import (
    best_keep_counts,
    game_counts,
    hand_counts,
    show_counts,
)
from sim.games.cribbage.kernel import score_deals, simulate_policy
from sim.games.cribbage.policy import (
    DiscardPolicy,
    choose,
    crib_table,
    expected_hand,
)
from sim.games.cribbage.rules import PRESETS, CribbageRules, CribbageView
from sim.games.cribbage.score import card_names, parse_cards, show_breakdown, show_score
from sim.games.cribbage.statistics import source_statistics
from sim.games.cribbage.values import exact_value, unavailable

__all__ = [
    "GAME", "PRESETS", "CribbageGame", "CribbageRules", "CribbageView", "CribbageDeal",
    "DiscardPolicy", "best_keep_counts", "card_names", "choose", "crib_table",
    "expected_hand", "game_counts", "hand_counts", "parse_cards", "play_deal",
    "score_deals", "seat_cards", "show_breakdown", "show_counts", "show_score",
    "simulate_policy", "source_statistics",
]


def _counters(deal: CribbageDeal, rules: CribbageRules) -> dict[str, float]:
    own = 0 if rules.seat == "dealer" else 1
    dealer, pone = deal.side_points(rules, True), deal.side_points(rules, False)
    out = {f"hand_{deal.hands[own]}": 1.0, "hand_ev": deal.expected[own],
           "crib": float(deal.crib), "heels": float(deal.heels), "dealer_points": dealer,
           "pone_points": pone, "difference2": float((dealer - pone) ** 2)}
    if rules.pegging:
        out.update({"peg_pone": float(deal.pegs[0]), "peg_dealer": float(deal.pegs[1]),
                    "dealer_pegs_nothing": float(deal.pegs[1] == 0)})
    return out


class CribbageGame(Game[CribbageRules, DiscardPolicy]):
    """Cribbage: the show of a deal under discard policies, two to four players."""

    description = ("Cribbage: show scores of hand and crib, exactly by enumeration and "
                   "simulated under discard policies; five-, six-, seven-card, 2-4 players")
    round_name = "deal"
    measure = Measure.points("mean points per deal: the seat's hand, crib, heels and pegging")
    kernel = staticmethod(simulate_policy)

    def play_reference(self, rules: CribbageRules, strategy: Any, progression: ProgressionSpec,
                       rounds: int, cards: Cards, rng: np.random.Generator) -> Stats:
        """Play ``rounds`` deals on the reference path (any Python strategy)."""
        deals = cards.generator()
        stats = Stats()
        for _ in range(rounds):
            dealt = deals.choice(52, size=rules.cards_used, replace=False)
            deal = play_deal(dealt, rules, strategy, rng)
            stats.add_round(float(deal.seat_points(rules)), 0.0, 0.0, _counters(deal, rules))
        return stats

    def exact_table(self, rules: CribbageRules, table: DiscardPolicy,
                    progression: ProgressionSpec) -> ExactValue | None:
        """The exact mean points per deal where known (:func:`.values.exact_value`); no
        stake, so no edge."""
        return exact_value(rules, table)

    def exact_table_unavailable(self, rules: CribbageRules, table: DiscardPolicy,
                                progression: ProgressionSpec) -> str:
        return unavailable(rules, table) or super().exact_table_unavailable(rules, table,
                                                                            progression)


GAME = CribbageGame()
