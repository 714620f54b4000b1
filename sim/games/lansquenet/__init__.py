"""Lansquenet: the game object the engine uses.

Rules, policies and views: :mod:`.rules`; the reference play: :mod:`.coup`; per-seat policies
played as a strategy: :mod:`.players`; the compiled kernel: :mod:`.kernel`; exact odds:
:mod:`.exact` (and the pack-composition chains of :mod:`.chain`); cheat detection and the
run-length chart: :mod:`.cheat`; what the report shows of it: :mod:`.report`.

**A round is a bank**, from the coup its banker opens to the coup he loses or the moment he
passes it on; a session is banks in turn, the bank going round the table from seat 0. The
report is read from the punters' side, as for every game: ``net`` is what the table (the
punters together) won from the bank in that bank, so a positive edge means the bank — the
house of lansquenet — wins. ``edge_per_initial_bet`` is the bank's gain per unit of its opening
stake; ``edge_per_total_wagered`` is its gain per unit of stake met (every coup's covered
stake, void coups included), which is the banker's edge per coup. Per-seat results are the
``seat_<i>_net`` columns: the mean net of seat i per bank, banking and punting together
(positive: the seat wins); they sum to zero.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sim.core.progression import FLAT, ProgressionSpec
from sim.core.rng import Cards, kernel_state
from sim.core.stats import RoundBatches, Stats
from sim.games.base import ExactValue, Game
from sim.games.lansquenet.cheat import read_observed
from sim.games.lansquenet.coup import RandomPacks, RoundTable
from sim.games.lansquenet.exact import table_value, unavailable_note
from sim.games.lansquenet.kernel import session_nets, simulate_table
from sim.games.lansquenet.rules import LansquenetRules, LansquenetTable
from sim.games.lansquenet.tabulate import tabulate as tabulate_strategy


class LansquenetGame(Game[LansquenetRules, LansquenetTable]):
    """Lansquenet: a banker against two to eight punters, the bank going round the table."""

    description = ("Lansquenet: the bank riding and doubling, jumelles, pass-after policies, "
                   "the sharper's portee and its detection")
    round_name = "bank"
    file_rules = ("observed",)
    progression_batches = True  # a progression's unit is carried from bank to bank

    def simulate_table(self, rules: LansquenetRules, table: LansquenetTable,
                       progression: ProgressionSpec, rounds: int,
                       seed: np.random.SeedSequence) -> Stats:
        return simulate_table(rules, table, progression, rounds, kernel_state(seed),
                              self.batch_rounds(rules, progression))

    def play_reference(self, rules: LansquenetRules, strategy: Any,
                       progression: ProgressionSpec, rounds: int, cards: Cards,
                       rng: np.random.Generator) -> Stats:
        """Play a session of ``rounds`` banks on the reference path (any Python strategy):
        the packs the kernel deals from the same seed, the strategy on its own stream, and
        under a progression the same batches."""
        packs = RandomPacks(rules, cards.kernel_state())
        session = RoundTable(rules, strategy, progression, packs, rng)
        stats = Stats()
        banks = RoundBatches(stats, self.batch_rounds(rules, progression), rounds)
        for _ in range(rounds):
            bank = session.play_bank()
            banks.add_round(-bank.result, bank.opening, bank.wagered, bank.counters())
        return stats

    def pack_key(self, rules: LansquenetRules) -> str:
        """The pack alone: variants of the same pack (reshuffled each coup or each bank, any
        seats, stakes or jumelle rule) deal each bank's first pack alike."""
        return f"packs={rules.packs} ranks={rules.rank_count} suits={rules.suits}"

    def tabulate(self, rules: LansquenetRules, strategy: Any) -> LansquenetTable | None:
        """A plain-Python banker and punter policy, as a table (:mod:`.tabulate`)."""
        return tabulate_strategy(rules, strategy).table

    def check(self, rules: LansquenetRules, strategy: Any, progression: ProgressionSpec) -> None:
        """Build the strategy's table, play a bank per seat, and read the observed table the
        rules name, so that a bad file is reported before anything runs."""
        self.table_of(rules, strategy)
        self.simulate_reference(rules, strategy, progression, rules.seats,
                                np.random.SeedSequence(0))
        if rules.observed:
            read_observed(rules.observed, rules)

    def exact_table(self, rules: LansquenetRules, table: LansquenetTable,
                    progression: ProgressionSpec) -> ExactValue | None:
        """Exact per-bank values of a table strategy at a flat stake (see
        :func:`~sim.games.lansquenet.exact.table_value`)."""
        if progression.kind != FLAT:
            return None
        return table_value(rules, table, progression.base)

    def exact_table_unavailable(self, rules: LansquenetRules, table: LansquenetTable,
                                progression: ProgressionSpec) -> str:
        if progression.kind == FLAT:
            return unavailable_note(rules, table)
        return super().exact_table_unavailable(rules, table, progression)

    def session_nets_table(self, rules: LansquenetRules, table: LansquenetTable,
                           progression: ProgressionSpec, sessions: int, rounds: int,
                           seed: np.random.SeedSequence) -> np.ndarray | None:
        """A session is ``rounds`` banks opened by seat 0, seen from the punters' side (a
        punter facing that banker, e.g. the sharper)."""
        return session_nets(rules, table, progression, sessions, rounds, kernel_state(seed))

    def round_law_table(self, rules: LansquenetRules, table: LansquenetTable,
                        progression: ProgressionSpec) -> tuple[np.ndarray, np.ndarray] | None:
        """The exact law of the punters' net in a bank seat 0 opens (the round of a session,
        :meth:`session_nets`), at a flat stake (:func:`~.bank_law.bank_law`)."""
        if progression.kind != FLAT:
            return None
        from sim.games.lansquenet.bank_law import bank_law

        return bank_law(rules, table, 0, float(progression.base))


GAME = LansquenetGame()
