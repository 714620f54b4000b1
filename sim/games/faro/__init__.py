"""Faro and stuss: the game object the engine uses.

Rules and types: :mod:`.rules`; the reference deal: :mod:`.deal`; the compiled kernel:
:mod:`.kernel`; a table played as a strategy: :mod:`.players`; exact odds: :mod:`.exact`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from sim.core.estimate import Measure
from sim.core.markov import RoundChain
from sim.core.progression import FLAT, ProgressionSpec, ProgressionState
from sim.core.rng import Cards, kernel_state
from sim.core.stats import Stats
from sim.core.xoshiro import shuffle_in_place
from sim.games.base import BenchCase, ExactValue, Game
from sim.games.faro.deal import DealResult, play_deal
from sim.games.faro.deal_law import deal_law
from sim.games.faro.exact import (
    BetOdds,
    call_turn_odds,
    deal_value,
    high_card_odds,
    rank_bet_table,
    resolved_odds,
    turn_odds,
)
from sim.games.faro.kernel import FaroTable, session_nets, simulate_table
from sim.games.faro.players import TableBettor
from sim.games.faro.rules import (
    PRESETS,
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
    "GAME", "BetOdds", "CallTurnBet", "DealResult", "FaroBet", "FaroGame", "FaroRules",
    "FaroTable", "FaroView", "HighCardBet", "RankBet", "TableBettor", "call_turn_odds",
    "deal_value",
    "high_card_odds", "play_deal", "resolved_odds", "turn_odds",
]


class _PlainKing:
    """A flat bet on the king written as a user writes one (``houseedge bench`` times the
    table the engine builds from it beside the same table given directly)."""

    name = "flat king by hand"
    reads = ("remaining[12]",)

    def decide(self, view: FaroView, rng: object) -> list[FaroBet]:
        return [RankBet(frozenset({12}))] if view.remaining[12] else []


BODY_SHARE = 0.75  # the rank-bet chart's scale holds the first three quarters of a deal


def rules_phrase(rules: FaroRules) -> str:
    """The rules that shape a rank bet's odds, in words: the split, the soda, the last card,
    the packs (the title that tells one variant's chart from another's)."""
    split = {0.0: "nothing lost on a split", 0.5: "half lost on a split",
             1.0: "all lost on a split"}.get(float(rules.split_take),
                                              f"{rules.split_take:g} lost on a split")
    parts = [split, "soda burned" if rules.soda else "no soda"]
    if rules.last_winner_void:
        parts.append("last winner void")
    if rules.packs > 1:
        parts.append(f"{rules.packs} packs")
    return ", ".join(parts)


def rank_bet_chart(rules: FaroRules) -> Any:
    """The house edge per decided bet of one rank left until resolved, by turn and cards of
    the rank left. The scale holds the first three quarters of the deal, where the edge is a
    few per cent; the last turns, where it climbs to tens of per cent on a handful of cards,
    run off the top, and a note says how far."""
    from sim.core.plotting import line_chart

    table = pd.DataFrame(rank_bet_table(rules))
    fig = line_chart(table, "turn", "edge_per_decided", "rank_left", percent=True,
                     title=f"A rank bet left until resolved ({rules_phrase(rules)}): the house "
                           "edge per decided bet",
                     ylabel="house edge per decided bet", legend_title="cards of the rank left")
    ax = fig.axes[0]
    edge = table["edge_per_decided"] * 100
    last = max(1, int(BODY_SHARE * rules.n_turns))
    top = float(edge[table["turn"] <= last].max())
    beyond = table[(edge > 1.08 * top) & (table["turn"] > last)]
    if top > 0 and not beyond.empty:
        ax.set_ylim(min(0.0, float(edge.min())) - 0.04 * top, 1.12 * top)
        peak = beyond.loc[beyond["edge_per_decided"].idxmax()]
        ax.annotate(f"off the scale from turn {int(beyond['turn'].min())}: up to "
                    f"{100 * peak['edge_per_decided']:.0f}% ({int(peak['rank_left'])} left, "
                    f"turn {int(peak['turn'])})", xy=(0.01, 0.97), xycoords="axes fraction",
                    ha="left", va="top", fontsize="small", color="dimgrey")
    return fig


class FaroGame(Game[FaroRules, FaroTable]):
    """Faro (American), stuss and old pharo: bets against the bank on a whole deal."""

    name = "faro"
    description = "Faro, stuss and old pharo: rank, coppered, corner, high-card and turn bets"
    round_name = "deal"
    rules_type = FaroRules
    presets = PRESETS
    # A deal holds many bets: the edge per bet is what is meant; and what a rule costs a deal
    # is asked too (the soda's).
    measure = Measure.stakes("wagered", compare_other_basis=True)
    rules_doc = "docs/rules/faro.md"
    table_hook = "kernel_table"
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
        batch_len = self.batch_rounds(rules, progression)
        batch = [0.0, 0.0, 0.0]  # the open batch's net, initial stakes and amount wagered
        for i in range(rounds):
            shuffle_in_place(order, state)
            deal = play_deal(order.copy(), rules, strategy, progress, rng)
            stats.add_round(deal.net, deal.initial, deal.wagered,
                            {"splits": deal.splits, "decisions": deal.decisions})
            if batch_len:
                batch = [batch[0] + deal.net, batch[1] + deal.initial, batch[2] + deal.wagered]
                if (i + 1) % batch_len == 0 or i + 1 == rounds:
                    stats.add_batch(*batch)
                    batch = [0.0, 0.0, 0.0]
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

    def extra_columns(self, stats: Stats) -> dict[str, float]:
        decisions = stats.counters.get("decisions", 0.0)
        return {
            "decisions_per_deal": stats.counter_rate("decisions"),
            "split_freq": stats.counters.get("splits", 0.0) / decisions if decisions else np.nan,
        }

    def exact_charts(self, rules: FaroRules) -> dict[str, Any]:
        return {"rank-bet-edge": rank_bet_chart(rules)}

    def bench_cases(self) -> list[BenchCase]:
        rules = FaroRules()
        every_rank = FaroTable(tuple(1 << r for r in range(13)), (False,) * 13,
                               ((0.0, 1.0),) * 13)
        flat = ProgressionSpec()
        state = kernel_state(np.random.SeedSequence(1))

        def kernel(n: int) -> object:
            return simulate_table(rules, every_rank, flat, n, state)

        def reference(n: int) -> object:
            return self.simulate_reference(rules, TableBettor(every_rank), flat, n,
                                           np.random.SeedSequence(1))

        def sessions(n: int) -> object:  # sessions of 100 deals (bankroll and risk of ruin)
            return session_nets(rules, every_rank, flat, max(1, n // 100), 100, state)

        king = FaroTable((1 << 12,), (False,), ((0.0, 1.0),))

        def king_kernel(n: int) -> object:
            return simulate_table(rules, king, flat, n, state)

        def king_tabulated(n: int) -> object:  # the same table, built from plain Python
            return self.simulate(rules, _PlainKing(), flat, n, np.random.SeedSequence(1))

        return [BenchCase("13 rank bets, whole deal (kernel)", "deals", kernel),
                BenchCase("13 rank bets, sessions of 100 deals (kernel)", "deals", sessions),
                BenchCase("flat king, whole deal (kernel)", "deals", king_kernel),
                BenchCase("flat king written in plain Python, tabulated (kernel)", "deals",
                          king_tabulated),
                BenchCase("13 rank bets, whole deal (reference path)", "deals", reference,
                          reference=True)]

    def exact_tables(self, rules: FaroRules) -> dict[str, pd.DataFrame]:
        totals = tuple(int(c) for c in rules.rank_totals())
        n = rules.n_cards - int(rules.soda)
        first_turn = []
        for k in range(1, rules.max_per_rank + 1):
            for label, odds in (("next turn", turn_odds((k,), n, rules)),
                                ("until resolved", resolved_odds((k,), n, rules))):
                first_turn.append({"bet": f"one rank, {k} of it left", "horizon": label,
                                   "win": odds.win, "lose": odds.lose, "split": odds.split,
                                   "none": odds.none, "ev": odds.ev,
                                   "edge_per_decided": odds.edge_per_decided,
                                   "edge_exact": odds.exact_edge_per_decided})
        hc = high_card_odds(totals, rules)
        first_turn.append({"bet": "high card, full pack", "horizon": "next turn", "win": hc.win,
                           "lose": hc.lose, "split": hc.split, "none": hc.none, "ev": hc.ev,
                           "edge_per_decided": hc.edge_per_decided,
                           "edge_exact": hc.exact_edge_per_decided})
        for three in ((0, 1, 2), (0, 0, 1)):
            odds = call_turn_odds(three, rules)
            first_turn.append({"bet": "call the turn, " + ("three ranks" if len(set(three)) == 3
                                                             else "cat-hop"),
                               "horizon": "last turn", "win": odds.win, "lose": odds.lose,
                               "split": 0.0, "none": 0.0, "ev": odds.ev,
                               "edge_per_decided": odds.edge_per_decided,
                               "edge_exact": odds.exact_edge_per_decided})
        return {"bets": pd.DataFrame(first_turn),
                "rank_bet_by_state": pd.DataFrame(rank_bet_table(rules))}


GAME = FaroGame()
