"""What pontoon shows beside its numbers: a deal's busts, five card tricks, pontoons, splits,
buys and reshuffles, each seat's and each person's net, the locked cycles of the pack, the
exact odds of a twist and the optimal punter's chart against a banker standing on 17
(``houseedge exact``), and the cases ``houseedge bench`` measures."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Collection, Sequence
from typing import Any

import pandas as pd

from sim.core.stats import Stats
from sim.games.base import REFERENCE, SESSIONS, BenchCase, BenchTiming, Presentation
from sim.games.pontoon.players import TableBanker, TablePlayer, seating_of
from sim.games.pontoon.rules import PontoonRules
from sim.games.pontoon.tables import BankerTable, PlayerTable


def _punter_table(strategy: Any, rules: PontoonRules) -> PlayerTable | None:
    """The table a strategy's punters play under these rules, or None where they play only
    in Python (nothing is tabulated to find out)."""
    player, _banker = seating_of(strategy)
    describe = getattr(player, "as_table", None)
    return None if describe is None else describe(rules)


class PontoonReport(Presentation[PontoonRules]):
    """Pontoon's columns and notes, exact tables and charts, and bench cases and timings."""

    def columns(self, stats: Stats) -> dict[str, float]:
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

    def notes(self, stats: Stats) -> list[str]:
        locked = stats.counters.get("cycle_locked_deals", 0.0)
        if not locked:
            return []
        return [f"{locked:.0f} of {stats.rounds} deals ({locked / stats.rounds:.1%}) repeat a "
                f"locked cycle of the pack ({stats.counters.get('cycle_locks', 0):.0f} "
                "chunk(s) locked: gathering is fixed and no pontoon comes)"]

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

    def bench_cases(self) -> list[BenchCase]:
        rules = PontoonRules()
        player = PlayerTable.threshold(rules, stick=16, soft_stick=18, split="A8")
        banker = BankerTable.stand_on(17)
        tables = (player, banker)
        fixed = dataclasses.replace(rules, gathering="fixed")  # what the varied gathering costs
        return [BenchCase("heads-up, table strategy, one pack, no reshuffle (kernel)",
                          "deals", rules, tables),
                BenchCase("heads-up, table strategy, one pack, fixed gathering (kernel)",
                          "deals", fixed, tables),
                BenchCase("heads-up, table strategy, sessions of 100 deals (kernel)", "deals",
                          rules, tables, SESSIONS, session_rounds=100),
                BenchCase("heads-up, table strategy (reference path)", "deals", rules,
                          TablePlayer(player, TableBanker(banker)), REFERENCE)]

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


REPORT = PontoonReport()
__all__ = ["REPORT", "PontoonReport"]
