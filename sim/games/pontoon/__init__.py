"""Pontoon, the British banking game: the game object the engine uses.

Rules: :mod:`.rules`; hand arithmetic: :mod:`.hand`; what each person sees: :mod:`.views`;
strategies as data: :mod:`.tables`, :mod:`.players`; the cards and the reference deal:
:mod:`.pack`, :mod:`.reference`; the compiled kernel: :mod:`.kernel`; exact values:
:mod:`.exact_deal` (the recursion: :mod:`.walk`, :mod:`.composition`,
:mod:`.banker_odds`) and :mod:`.exact_infinite`; best responses: :mod:`.solver`; strategy
charts: :mod:`.charts`. What it shows beside its numbers: :mod:`.report`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sim.core.errors import IllegalActionError, InputError
from sim.core.progression import FLAT, ProgressionSpec
from sim.core.rng import Cards, kernel_state
from sim.core.stats import RoundBatches, Stats
from sim.games.base import ExactValue, Game, progression_unavailable
from sim.games.pontoon.pack import GivenCards, RandomCards
from sim.games.pontoon.players import TableBanker, TablePlayer, seating_of, tables_of
from sim.games.pontoon.reference import PontoonDeal, Session
from sim.games.pontoon.rules import PontoonRules
from sim.games.pontoon.tables import BankerTable, PlayerTable
from sim.games.pontoon.views import BankerView, Buy, Move, PlayerView, ShownHand, StakeView

__all__ = [
    "GAME", "BankerTable", "BankerView", "Buy", "PontoonDeal", "GivenCards", "Move",
    "PlayerTable", "PlayerView", "PontoonGame", "PontoonRules", "RandomCards", "Session",
    "ShownHand", "StakeView", "TableBanker", "TablePlayer", "deal_counters",
]

EVENTS = ("hands", "busts", "fives", "pontoons", "splits", "buys", "burns")


def deal_counters(deal: PontoonDeal, rules: PontoonRules) -> dict[str, float]:
    """The game counters of one deal (the kernel fills the same names)."""
    counters: dict[str, float] = {name: float(sum(getattr(s, name) for s in deal.seats))
                                  for name in EVENTS}
    counters["banker_pontoons"] = float(deal.banker_pontoon)
    counters["banker_busts"] = float(deal.banker_bust)
    counters["banker_fives"] = float(deal.banker_five)
    counters["shuffles"] = float(deal.shuffle_next)
    counters["bank_passes"] = float(deal.next_banker != deal.banker)
    counters["cycle_locks"] = float(deal.cycle_lock_found)
    counters["cycle_locked_deals"] = float(deal.cycle_locked)
    if rules.players > 1:
        for k, seat in enumerate(deal.seats, start=1):
            counters[f"seat{k}_net"] = seat.net
            counters[f"seat{k}_net2"] = seat.net * seat.net
            counters[f"seat{k}_initial"] = seat.initial
            counters[f"seat{k}_initial2"] = seat.initial * seat.initial
            counters[f"seat{k}_net_initial"] = seat.net * seat.initial
            counters[f"seat{k}_wagered"] = seat.wagered
    if rules.bank_passes:
        for p, net in deal.person_nets.items():
            counters[f"person{p}_net"] = net
    return counters


Tables = tuple[PlayerTable, BankerTable]


class PontoonGame(Game[PontoonRules, Tables]):
    """Pontoon, the British banking game: 1-7 punters against a banker.

    Its table is a pair: the punters' :class:`PlayerTable` and the banker's
    :class:`BankerTable` (an experiment's strategy seats both, :mod:`.players`).
    """

    description = ("Pontoon (British twenty-one): buys, twists, splits, five card tricks, "
                   "the bank passing")
    round_name = "deal"
    flat_stakes_only = ("progression: pontoon stakes are chosen by the strategy between the "
                        "table's minimum and maximum; only the flat progression (base 1) "
                        "applies")
    check_rounds = 3

    def check_progression(self, progression: ProgressionSpec) -> None:
        if progression.kind != FLAT or progression.base != 1.0:
            raise InputError(f"{self.flat_stakes_only}, got {progression.name} (base "
                             f"{progression.base:g})")

    # ------------------------------------------------------------- simulation
    def offered_table(self, rules: PontoonRules, strategy: Any) -> Tables | None:
        return tables_of(strategy, rules)

    def table_of(self, rules: PontoonRules, strategy: Any) -> Tables | None:
        tables = super().table_of(rules, strategy)
        if tables is not None:
            problems = tables[0].problems(rules)
            if problems:
                raise IllegalActionError(strategy, problems[0], "in its decision table",
                                         "the rules do not allow it")
        return tables

    def kernel_plays(self, rules: PontoonRules) -> bool:
        return rules.players == 1  # the kernel deals heads-up

    def simulate_table(self, rules: PontoonRules, table: Tables, progression: ProgressionSpec,
                       rounds: int, seed: np.random.SeedSequence) -> Stats:
        from sim.games.pontoon.kernel import simulate_tables

        return simulate_tables(rules, *table, rounds, kernel_state(seed),
                               self.batch_rounds(rules))

    def warm_up(self) -> None:
        # The kernel alone: the exact recursions share their helpers with those a run
        # compiles first (the walk of a deal), so compiled beside them they gain nothing.
        from sim.games.pontoon.kernel import simulate_tables

        rules = PontoonRules()
        simulate_tables(rules, PlayerTable.threshold(rules), BankerTable.stand_on(), 10,
                        kernel_state(np.random.SeedSequence(0)), self.batch_rounds(rules))

    def play_reference(self, rules: PontoonRules, strategy: Any, progression: ProgressionSpec,
                       rounds: int, cards: Cards, rng: np.random.Generator) -> Stats:
        """Play on the reference path (any Python strategies), the cards as the kernel deals
        them."""
        self.check_progression(progression)
        player, banker = seating_of(strategy)
        session = Session(rules, player, banker, RandomCards(rules, cards.kernel_state()))
        stats = Stats()
        deals = RoundBatches(stats, self.batch_rounds(rules), rounds, summed=True)
        for _ in range(rounds):
            deal = session.play(rng)
            deals.add_round(deal.net, deal.initial, deal.wagered, deal_counters(deal, rules))
        return stats

    def rounds_independent(self, rules: PontoonRules) -> bool:
        # Without a reshuffle every deal, the next deal is dealt from what this one left.
        return rules.infinite_deck or rules.reshuffle == "every-deal"

    def pack_key(self, rules: PontoonRules) -> str:
        """Variants that deal the same pack to the same seats share their shuffles, whatever
        they pay or allow (ties, pontoon odds, buying): the pack and the seats decide it."""
        return (f"packs={rules.packs} ranks={rules.ranks} suits={rules.suits} "
                f"infinite_deck={rules.infinite_deck} players={rules.players}")

    def session_nets_table(self, rules: PontoonRules, table: Tables,
                           progression: ProgressionSpec, sessions: int, rounds: int,
                           seed: np.random.SeedSequence) -> np.ndarray | None:
        from sim.games.pontoon.kernel import session_nets

        return session_nets(rules, *table, sessions, rounds, kernel_state(seed))

    def round_law_table(self, rules: PontoonRules, table: Tables, progression: ProgressionSpec
                        ) -> tuple[np.ndarray, np.ndarray] | None:
        """The exact law of a heads-up deal's net, for table strategies against a banker who
        draws on his own cards: in the infinite deck (:mod:`.deal_law`) and from a finite
        pack shuffled every deal, within the work budget (:mod:`.finite_law`)."""
        if progression.kind != FLAT or progression.base != 1.0 or rules.players != 1:
            return None
        if rules.infinite_deck:
            from sim.games.pontoon.deal_law import deal_law

            return deal_law(rules, *table)
        from sim.games.pontoon.finite_law import deal_law as finite_deal_law

        law = finite_deal_law(rules, *table)
        return None if law is None else (law.values, law.probs)

    # ------------------------------------------------------------------ exact
    def exact(self, rules: PontoonRules, strategy: Any,
              progression: ProgressionSpec) -> ExactValue | None:
        if progression.kind != FLAT or progression.base != 1.0:
            return None
        return super().exact(rules, strategy, progression)

    def exact_table(self, rules: PontoonRules, table: Tables,
                    progression: ProgressionSpec) -> ExactValue | None:
        if rules.infinite_deck:
            from sim.games.pontoon.exact_infinite import infinite_value

            return infinite_value(rules, *table)
        if rules.reshuffle == "every-deal":  # every deal is a first deal, whoever banks
            from sim.games.pontoon import independent
            from sim.games.pontoon.exact_deal import first_deal_value

            # Several punters: only where their hands are valued one by one (in a fraction of
            # a second); walking whole deals of several seats mostly runs past its budget.
            if rules.players == 1 or independent.applies(rules, *table, rules.n_cards):
                return first_deal_value(rules, *table)
        return None  # the pack carries over: each deal depends on the ones before

    def exact_unavailable(self, rules: PontoonRules, strategy: Any,
                          progression: ProgressionSpec) -> str:
        if progression.kind != FLAT or progression.base != 1.0:
            return progression_unavailable(progression)
        if self.table_of(rules, strategy) is None:
            from sim.games.pontoon.reasons import not_a_table

            return not_a_table(rules, strategy)
        return super().exact_unavailable(rules, strategy, progression)

    def exact_table_unavailable(self, rules: PontoonRules, table: Tables,
                                progression: ProgressionSpec) -> str:
        from sim.games.pontoon import reasons
        from sim.games.pontoon.exact_deal import DEFAULT_BUDGET

        if not rules.infinite_deck and rules.reshuffle != "every-deal":
            return reasons.carried_pack(rules, *table)
        return reasons.reads_hands(DEFAULT_BUDGET)


GAME = PontoonGame()
