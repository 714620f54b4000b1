"""Pontoon, the British banking game: the game object the engine uses.

Rules: :mod:`.rules`; hand arithmetic: :mod:`.hand`; what each person sees: :mod:`.views`;
strategies as data: :mod:`.tables`, :mod:`.players`; the cards and the reference deal:
:mod:`.pack`, :mod:`.reference`; the compiled kernel: :mod:`.kernel`; exact values:
:mod:`.exact_deal` (the recursion: :mod:`.walk`, :mod:`.composition`,
:mod:`.banker_odds`) and :mod:`.exact_infinite`; best responses: :mod:`.solver`; strategy
charts: :mod:`.charts`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Collection, Sequence
from typing import Any

import numpy as np
import pandas as pd

from sim.core.errors import IllegalActionError, InputError
from sim.core.progression import FLAT, ProgressionSpec
from sim.core.rng import Cards, kernel_state
from sim.core.stats import Stats
from sim.games.base import BenchCase, BenchTiming, ExactValue, Game, progression_unavailable
from sim.games.pontoon.pack import GivenCards, RandomCards
from sim.games.pontoon.players import TableBanker, TablePlayer, seating_of, tables_of
from sim.games.pontoon.reference import DealResult, Session
from sim.games.pontoon.rules import PRESETS, PontoonRules
from sim.games.pontoon.tables import BankerTable, PlayerTable
from sim.games.pontoon.views import BankerView, Buy, Move, PlayerView, ShownHand, StakeView

__all__ = [
    "GAME", "BankerTable", "BankerView", "Buy", "DealResult", "GivenCards", "Move",
    "PlayerTable", "PlayerView", "PontoonGame", "PontoonRules", "RandomCards", "Session",
    "ShownHand", "StakeView", "TableBanker", "TablePlayer", "deal_counters",
]

EVENTS = ("hands", "busts", "fives", "pontoons", "splits", "buys", "burns")


def _punter_table(strategy: Any, rules: PontoonRules) -> PlayerTable | None:
    """The table a strategy's punters play under these rules, or None where they play only
    in Python (nothing is tabulated to find out)."""
    player, _banker = seating_of(strategy)
    describe = getattr(player, "kernel_table", None)
    return None if describe is None else describe(rules)


def deal_counters(deal: DealResult, rules: PontoonRules) -> dict[str, float]:
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
    presets = PRESETS
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
        batch_len = self.batch_rounds(rules)
        batch = [0.0, 0.0, 0.0]  # the open batch's net, initial stakes and amount wagered
        for i in range(rounds):
            deal = session.play(rng)
            stats.add_round(deal.net, deal.initial, deal.wagered, deal_counters(deal, rules))
            if batch_len:
                batch = [batch[0] + deal.net, batch[1] + deal.initial, batch[2] + deal.wagered]
                if (i + 1) % batch_len == 0 or i + 1 == rounds:
                    stats.add_batch(*batch)
                    batch = [0.0, 0.0, 0.0]
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

    # ---------------------------------------------------------------- report
    def extra_columns(self, stats: Stats) -> dict[str, float]:
        c = stats.counters
        hands = c.get("hands", 0.0)
        n = stats.rounds

        def per(name: str, base: float) -> float:
            return c.get(name, 0.0) / base if base else math.nan

        out = {
            "bust_freq": per("busts", hands),
            "five_card_trick_freq": per("fives", hands),
            "pontoon_freq": per("pontoons", hands),
            "banker_pontoon_freq": per("banker_pontoons", n),
            "banker_bust_freq": per("banker_busts", n),
            "banker_five_card_trick_freq": per("banker_fives", n),
            "hands_per_deal": per("hands", n),
            "splits_per_deal": per("splits", n),
            "buys_per_deal": per("buys", n),
            "burns_per_deal": per("burns", n),
            "shuffle_freq": per("shuffles", n),
            "bank_pass_freq": per("bank_passes", n),
            "cycle_locks": c.get("cycle_locks", 0.0),
            "cycle_locked_freq": per("cycle_locked_deals", n),
            "banker_net_per_deal": -stats.mean_net,
        }
        k = 1
        while f"seat{k}_net" in c:
            seat = Stats(rounds=n, sums={
                "sum_net": c[f"seat{k}_net"], "sum_net2": c[f"seat{k}_net2"],
                "sum_initial": c[f"seat{k}_initial"], "sum_initial2": c[f"seat{k}_initial2"],
                "sum_net_initial": c[f"seat{k}_net_initial"], "sum_wagered": 0.0,
                "sum_wagered2": 0.0, "sum_net_wagered": 0.0})
            out[f"seat{k}_edge"] = seat.edge_per_initial_bet
            out[f"seat{k}_stderr"] = seat.stderr
            out[f"seat{k}_edge_per_total_wagered"] = -per(f"seat{k}_net", c[f"seat{k}_wagered"])
            k += 1
        p = 0
        while f"person{p}_net" in c:
            out[f"person{p}_net_per_deal"] = per(f"person{p}_net", n)
            p += 1
        return out

    def warnings(self, stats: Stats) -> list[str]:
        locked = stats.counters.get("cycle_locked_deals", 0.0)
        if not locked:
            return []
        return [f"{locked:.0f} of {stats.rounds} deals ({locked / stats.rounds:.1%}) repeat a "
                f"locked cycle of the pack ({stats.counters.get('cycle_locks', 0):.0f} "
                "chunk(s) locked: gathering is fixed and no pontoon comes)"]

    def bench_cases(self) -> list[BenchCase]:
        from sim.games.pontoon.kernel import simulate_tables

        rules = PontoonRules()
        player = PlayerTable.threshold(rules, stick=16, soft_stick=18, split="A8")
        banker = BankerTable.stand_on(17)
        state = kernel_state(np.random.SeedSequence(1))

        def kernel(n: int) -> object:
            return simulate_tables(rules, player, banker, n, state, self.batch_rounds(rules))

        fixed = dataclasses.replace(rules, gathering="fixed")

        def kernel_fixed(n: int) -> object:  # what the varied gathering costs
            return simulate_tables(fixed, player, banker, n, state, self.batch_rounds(fixed))

        def reference(n: int) -> object:
            return self.simulate_reference(rules, TablePlayer(player, TableBanker(banker)),
                                           ProgressionSpec(), n, np.random.SeedSequence(1))

        def sessions(n: int) -> object:  # sessions of 100 deals (bankroll and risk of ruin)
            from sim.games.pontoon.kernel import session_nets

            return session_nets(rules, player, banker, max(1, n // 100), 100, state)

        return [BenchCase("heads-up, table strategy, one pack, no reshuffle (kernel)",
                          "deals", kernel),
                BenchCase("heads-up, table strategy, one pack, fixed gathering (kernel)",
                          "deals", kernel_fixed),
                BenchCase("heads-up, table strategy, sessions of 100 deals (kernel)", "deals",
                          sessions),
                BenchCase("heads-up, table strategy (reference path)", "deals", reference,
                          reference=True)]

    def bench_timings(self) -> list[BenchTiming]:
        from sim.games.pontoon import exact_deal, solver
        from sim.games.pontoon.solver import best_player

        rules = PontoonRules()
        infinite = PontoonRules(infinite_deck=True)
        stand17, adaptive = BankerTable.stand_on(17), BankerTable.adaptive(rules)
        a8 = PlayerTable.threshold(rules, stick=16, soft_stick=18, split="A8")
        every = PlayerTable.threshold(rules, stick=16, soft_stick=18, split="A23456789TJQK")

        def timed(rules: PontoonRules, player: Any, banker: BankerTable) -> Any:
            def run() -> str | None:
                exact_deal.clear_caches()
                table = player() if callable(player) else player
                value = exact_deal.first_deal_value(rules, table, banker)
                return None if value is None else f"edge {value.edge_per_initial_bet:+.4%}"
            return run

        def optimal() -> PlayerTable:
            return best_player(infinite, stand17).player

        def solve() -> str:
            exact_deal.clear_caches()
            solver.clear_cache()
            return f"edge {best_player(infinite, stand17).value.edge_per_initial_bet:+.4%}"

        def law(rules: PontoonRules, player: Any, banker: BankerTable) -> Any:
            from sim.games.pontoon import finite_law

            def run() -> str | None:
                finite_law.clear_cache()
                table = player() if callable(player) else player
                found = finite_law.deal_law(rules, table, banker)
                return None if found is None else (f"{found.values.size} nets, "
                                                   f"{found.states:,} states")
            return run

        every_deal = dataclasses.replace(rules, reshuffle="every-deal")
        two_hands = dataclasses.replace(rules, max_hands=2)
        return [
            BenchTiming("exact, infinite deck: stick 16 (A8 split) v adaptive",
                        timed(infinite, a8, BankerTable.adaptive(infinite))),
            BenchTiming("exact, infinite deck: optimal punter v stand 17 (solved)", solve),
            BenchTiming("exact, first deal, one pack: optimal v stand 17", timed(
                rules, optimal(), stand17)),
            BenchTiming("exact, first deal, one pack: split every pair v 17", timed(
                rules, every, stand17)),
            BenchTiming("exact, first deal, 8 packs: split every pair v 17", timed(
                dataclasses.replace(rules, packs=8), every, stand17)),
            BenchTiming("exact, first deal, one pack: stick 16 v adaptive", timed(
                rules, PlayerTable.threshold(rules, stick=16, soft_stick=18), adaptive)),
            BenchTiming("exact, first deal, one pack, two hands: A8 split v adaptive", timed(
                two_hands, a8, adaptive)),
            BenchTiming("law of a deal, one pack shuffled every deal: optimal v 17", law(
                every_deal, optimal, stand17)),
            BenchTiming("law of a deal, 8 packs, two hands: split every pair v 17", law(
                dataclasses.replace(every_deal, packs=8, max_hands=2), every, stand17)),
        ]

    def exact_charts(self, rules: PontoonRules, names: Collection[str] | None = None
                     ) -> dict[str, Any]:
        """``twist-odds``: bust and five-card-trick odds by total; ``optimal-v-stand17``: the
        optimal punter's strategy chart against a banker standing on 17 and the banker's best
        answer (exact, infinite deck); those in ``names`` (default: both)."""
        from sim.games.pontoon.charts import strategy_figure, twist_odds_chart
        from sim.games.pontoon.solver import best_banker, best_player

        figures: dict[str, Any] = {}
        if names is None or "twist-odds" in names:
            figures["twist-odds"] = twist_odds_chart(rules)
        if names is None or "optimal-v-stand17" in names:
            punter = best_player(rules, BankerTable.stand_on(17))
            answer = best_banker(rules, punter.player)
            title = (f"optimal punter v a banker standing on 17: house edge "
                     f"{100 * punter.value.edge_per_initial_bet:.2f}% per initial stake "
                     f"(exact, infinite deck); the banker's best answer makes it "
                     f"{100 * answer.value.edge_per_initial_bet:.2f}%")
            figures["optimal-v-stand17"] = strategy_figure(punter.player, answer.banker, rules,
                                                           title=title)
        return figures

    def exact_chart_names(self, rules: PontoonRules, strategies: Sequence[Any]) -> list[str]:
        """The twist odds always; the optimal punter's chart where it is true of a row.

        That chart is the table :func:`~sim.games.pontoon.solver.best_player` solves in the
        infinite deck against a banker standing on 17, and its title values it there. It
        belongs to a variant drawn from the infinite deck or with the cards carried from deal
        to deal (which the infinite deck stands for), where some row's punters play that very
        table (the optimal punter, or a banker's best answer to him). A pack shuffled every
        deal deals each deal from a full pack: there that table is not the best response and
        the chart's figures are not its values; and a run of threshold punters (a grid) has
        no row the chart describes."""
        names = ["twist-odds"]
        if rules.reshuffle == "every-deal" and not rules.infinite_deck:
            return names
        tables = [table for table in (_punter_table(s, rules) for s in strategies)
                  if table is not None]
        if tables:
            from sim.games.pontoon.solver import best_player

            optimal = best_player(rules, BankerTable.stand_on(17)).player.digest
            if any(table.digest == optimal for table in tables):
                names.append("optimal-v-stand17")
        return names

    def exact_chart_keys(self, rules: PontoonRules) -> dict[str, Any]:
        """The twist odds are drawn from the law of a card's value and the pack (its title:
        the number of packs, or the infinite deck); the optimal punter's chart from
        everything the solver reads (the infinite-deck rules themselves, shared by variants
        that differ in the pack only)."""
        from sim.games.pontoon.exact_infinite import infinite_rules, value_law

        pack = "infinite" if rules.infinite_deck else rules.packs
        return {"twist-odds": (pack, value_law(rules).tobytes()),
                "optimal-v-stand17": infinite_rules(rules)}

    def exact_tables(self, rules: PontoonRules) -> dict[str, pd.DataFrame]:
        """Threshold punters against fixed bankers, and the optimal punter's chart against a
        banker standing on 17 (exact, infinite deck)."""
        from sim.games.pontoon.exact_infinite import outcome_table
        from sim.games.pontoon.solver import best_player

        optimal = best_player(rules, BankerTable.stand_on(17)).player
        weights = optimal.reach(rules)
        chart = optimal.chart(weights=weights)
        chart.insert(0, "phase", "nothing bought")
        bought = optimal.chart(buys=2, weights=weights)
        bought.insert(0, "phase", "after a 2x buy")
        return {"bets": outcome_table(rules), "optimal_v_stand17": pd.concat([chart, bought])}


GAME = PontoonGame()
