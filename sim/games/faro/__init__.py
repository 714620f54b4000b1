"""Faro and stuss: the game object the engine uses.

Rules and types: :mod:`.rules`; the reference deal: :mod:`.deal`; the compiled kernel:
:mod:`.kernel`; a table played as a strategy: :mod:`.players`; exact odds: :mod:`.exact`;
what the report shows of it: :mod:`.report`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sim.core.estimate import Measure
from sim.core.markov import RoundChain
from sim.core.progression import FLAT, ProgressionSpec, ProgressionState
from sim.core.rng import Cards, kernel_state
from sim.core.stats import RoundBatches, Stats
from sim.core.xoshiro import shuffle_in_place
from sim.games.base import ExactValue, Game
from sim.games.faro.deal import FaroDeal, play_deal
from sim.games.faro.deal_law import deal_law
from sim.games.faro.exact import (
    BetOdds,
    call_turn_odds,
    deal_value,
    high_card_odds,
    resolved_odds,
    turn_odds,
)
from sim.games.faro.kernel import FaroTable, session_nets, simulate_table
from sim.games.faro.players import TableBettor
from sim.games.faro.rules import (
    CallTurnBet,
    FaroBet,
    FaroRules,
    FaroView,
    HighCardBet,
    RankBet,
)
from sim.games.faro.tabulate import tabulate as tabulate_strategy
from sim.games.faro.unit_chain import chain_value, round_chain
from sim.games.faro.unit_chain import unavailable as chain_unavailable

__all__ = [
    "GAME", "BetOdds", "CallTurnBet", "FaroDeal", "FaroBet", "FaroGame", "FaroRules",
    "FaroTable", "FaroView", "HighCardBet", "RankBet", "TableBettor", "call_turn_odds",
    "deal_value",
    "high_card_odds", "play_deal", "resolved_odds", "turn_odds",
]


class FaroGame(Game[FaroRules, FaroTable]):
    """Faro (American), stuss and old pharo: bets against the bank on a whole deal."""

    description = "Faro, stuss and old pharo: rank, coppered, corner, high-card and turn bets"
    round_name = "deal"
    # A deal holds many bets: the edge per bet is what is meant; and what a rule costs a deal
    # is asked too (the soda's).
    measure = Measure.stakes("wagered", compare_other_basis=True)
    progression_batches = True  # a progression's unit is carried from deal to deal

    def simulate_table(self, rules: FaroRules, table: FaroTable, progression: ProgressionSpec,
                       rounds: int, seed: np.random.SeedSequence) -> Stats:
        return simulate_table(rules, table, progression, rounds, kernel_state(seed),
                              self.batch_rounds(rules, progression))

    def play_reference(self, rules: FaroRules, strategy: Any, progression: ProgressionSpec,
                       rounds: int, cards: Cards, rng: np.random.Generator) -> Stats:
        """Play on the reference path (any Python strategy).

        The deals are shuffled as the kernel shuffles them (the same xoshiro stream from the
        cards' seed, each deal's order shuffled from the last), so a table strategy meets the
        kernel's deals one for one; the strategy draws from its own stream.
        """
        state = cards.kernel_state()
        order = rules.pack_ranks()
        progress = ProgressionState(progression)
        stats = Stats()
        deals = RoundBatches(stats, self.batch_rounds(rules, progression), rounds, summed=True)
        for _ in range(rounds):
            shuffle_in_place(order, state)
            deal = play_deal(order.copy(), rules, strategy, progress, rng)
            deals.add_round(deal.net, deal.initial, deal.wagered,
                            {"splits": deal.splits, "decisions": deal.decisions})
        return stats

    def pack_key(self, rules: FaroRules) -> str:
        """Faro, stuss and old pharo with or without the soda burn deal the same shuffles
        wherever the pack is the same: only its packs, ranks and suits decide it."""
        return f"packs={rules.packs} ranks={rules.rank_count} suits={rules.suits}"

    def tabulate(self, rules: FaroRules, strategy: Any) -> FaroTable | None:
        """A plain-Python strategy that declares the view fields it reads, as a table
        (:mod:`.tabulate`)."""
        return tabulate_strategy(rules, strategy).table

    def exact_table(self, rules: FaroRules, table: FaroTable,
                    progression: ProgressionSpec) -> ExactValue | None:
        if progression.kind != FLAT:  # the unit's chain from deal to deal (.unit_chain)
            return chain_value(rules, table, progression)
        return deal_value(rules, table, progression)

    def exact_table_unavailable(self, rules: FaroRules, table: FaroTable,
                                progression: ProgressionSpec) -> str:
        if progression.kind != FLAT:
            return chain_unavailable(rules, table, progression)
        return super().exact_table_unavailable(rules, table, progression)

    def opening_odds(self, bet: str, rules: FaroRules | None = None) -> BetOdds:
        """The exact odds of one bet placed before the first turn, for another game that
        wagers on faro (a casino bonus played on it); ``rules`` default to faro's own.

        ``"rank"``: a bet to win on one rank with every card of it still in the box (the
        soda shown), left until it is resolved or the deal ends. ``"high-card"``: a high-card
        bet on the first turn, the whole pack's ranks counted.

        Raises:
            ValueError: ``bet`` is neither of these.
        """
        rules = FaroRules() if rules is None else rules
        if bet == "rank":
            return resolved_odds((rules.max_per_rank,), rules.n_cards - int(rules.soda), rules)
        if bet == "high-card":
            return high_card_odds(tuple(int(c) for c in rules.rank_totals()), rules)
        raise ValueError(f"faro offers no opening bet {bet!r} (expected rank or high-card)")

    def not_offered_table(self, rules: FaroRules, table: FaroTable) -> str | None:
        if table.masks or table.high_card or not table.call_turn or rules.has_hock:
            return None
        return "not offered: no hock is left in this variant, so the turn cannot be called"

    def session_nets_table(self, rules: FaroRules, table: FaroTable,
                           progression: ProgressionSpec, sessions: int, rounds: int,
                           seed: np.random.SeedSequence) -> np.ndarray | None:
        return session_nets(rules, table, progression, sessions, rounds, kernel_state(seed))

    def round_law_table(self, rules: FaroRules, table: FaroTable, progression: ProgressionSpec
                        ) -> tuple[np.ndarray, np.ndarray] | None:
        """The exact law of a deal's net for flat bets on up to four single ranks
        (:func:`~sim.games.faro.deal_law.deal_law`)."""
        return deal_law(rules, table, progression)

    def round_chain_table(self, rules: FaroRules, table: FaroTable,
                          progression: ProgressionSpec) -> RoundChain | None:
        """The deals of a session under a progression, as a chain over its unit
        (:func:`~sim.games.faro.unit_chain.round_chain`)."""
        return round_chain(rules, table, progression)


GAME = FaroGame()
