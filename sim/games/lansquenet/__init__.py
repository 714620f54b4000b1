"""Lansquenet: the game object the engine uses.

Rules, policies and views: :mod:`.rules`; the reference play: :mod:`.coup`; per-seat policies
played as a strategy: :mod:`.players`; the compiled kernel: :mod:`.kernel`; exact odds:
:mod:`.exact` (and the pack-composition chains of :mod:`.chain`); cheat detection and the
run-length chart: :mod:`.cheat`.

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

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from sim.core.progression import FLAT, ProgressionSpec
from sim.core.rng import Cards, generator, kernel_state
from sim.core.stats import Stats
from sim.games.base import BenchCase, ExactValue, Game
from sim.games.lansquenet.chain import CoupOdds, coup_odds
from sim.games.lansquenet.cheat import (
    CheatReport,
    bank_value_chart,
    check_file,
    fair_runs,
    p_longest_run,
    read_observed,
    run_length_chart,
    story_rows,
)
from sim.games.lansquenet.coup import RUN_CAP, BankResult, GivenPacks, RandomPacks, RoundTable
from sim.games.lansquenet.exact import (
    BankValue,
    bank_value,
    policy_rows,
    run_lengths,
    table_value,
)
from sim.games.lansquenet.kernel import play_coups, session_nets, simulate_table
from sim.games.lansquenet.players import TableSeats
from sim.games.lansquenet.rules import (
    PRESETS,
    SOURCE_SERIES,
    BankerPolicy,
    BankerView,
    LansquenetRules,
    LansquenetTable,
    OpenView,
    Portee,
    PunterPolicy,
    PunterView,
    adapt_series,
    check_series,
    split_coups,
    stacked_wins,
)
from sim.games.lansquenet.tabulate import tabulate as tabulate_strategy

__all__ = [
    "GAME", "PRESETS", "RUN_CAP", "SOURCE_SERIES", "BankResult", "BankValue", "BankerPolicy",
    "BankerView", "CheatReport", "CoupOdds", "GivenPacks", "LansquenetGame", "LansquenetRules",
    "LansquenetTable", "OpenView", "Portee", "PunterPolicy", "PunterView", "RandomPacks",
    "RoundTable", "TableSeats", "adapt_series", "bank_value", "check_file", "check_series",
    "coup_odds", "fair_runs", "p_longest_run", "policy_rows", "read_observed", "run_length_chart",
    "run_lengths", "split_coups", "stacked_wins", "story_rows", "table_value",
]


class LansquenetGame(Game[LansquenetRules, LansquenetTable]):
    """Lansquenet: a banker against two to eight punters, the bank going round the table."""

    name = "lansquenet"
    description = ("Lansquenet: the bank riding and doubling, jumelles, pass-after policies, "
                   "the sharper's portee and its detection")
    round_name = "bank"
    rules_doc = "docs/rules/lansquenet.md"
    rules_type = LansquenetRules
    presets = PRESETS
    file_rules = ("observed",)
    printed_tables = ("bets", "policies", "story", "cheat")
    table_hook = "kernel_table"

    def simulate_table(self, rules: LansquenetRules, table: LansquenetTable,
                       progression: ProgressionSpec, rounds: int,
                       seed: np.random.SeedSequence) -> Stats:
        return simulate_table(rules, table, progression, rounds, kernel_state(seed))

    def play_reference(self, rules: LansquenetRules, strategy: Any,
                       progression: ProgressionSpec, rounds: int, cards: Cards,
                       rng: np.random.Generator) -> Stats:
        """Play a session of ``rounds`` banks on the reference path (any Python strategy):
        the packs the kernel deals from the same seed, the strategy on its own stream."""
        packs = RandomPacks(rules, cards.kernel_state())
        session = RoundTable(rules, strategy, progression, packs, rng)
        stats = Stats()
        for _ in range(rounds):
            bank = session.play_bank()
            stats.add_round(-bank.result, bank.opening, bank.wagered, bank.counters())
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
            return ("no exact value: the Markov chain over pack compositions runs past its "
                    "budget for these rules")
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

    def extra_columns(self, stats: Stats) -> dict[str, float]:
        c = stats.counters
        coups = c.get("coups", 0.0)
        decided = c.get("wins", 0.0) + c.get("losses", 0.0)
        out = {
            "coups_per_bank": stats.counter_rate("coups"),
            "jumelle_freq": c.get("jumelles", 0.0) / coups if coups else np.nan,
            "banker_win_share": c.get("wins", 0.0) / decided if decided else np.nan,
            "mean_run_length": stats.counter_rate("run"),
            "void_per_bank": stats.counter_rate("voids"),
            "pass_freq": stats.counter_rate("ended_pass"),
            "forced_pass_freq": stats.counter_rate("ended_forced"),
        }
        seats = sorted(int(k[5:]) for k in c if k.startswith("seat_"))
        for s in range(max(seats) + 1 if seats else 0):
            out[f"seat_{s}_net"] = stats.counter_rate(f"seat_{s}")
        return out

    def bench_cases(self) -> list[BenchCase]:
        flat = ProgressionSpec()
        never_pass = TableSeats(BankerPolicy(), PunterPolicy())
        cases = []
        for label, rules in (("one pack", LansquenetRules()),
                             ("six packs", LansquenetRules(packs=6))):
            table = never_pass.as_table(rules)
            state = kernel_state(np.random.SeedSequence(1))

            def kernel(n: int, rules=rules, table=table, state=state) -> object:
                return play_coups(rules, table, flat, n, state)

            cases.append(BenchCase(f"coups, {label}, bank left to ride (kernel)", "coups",
                                   kernel))
        rules = LansquenetRules()
        table = never_pass.as_table(rules)
        state = kernel_state(np.random.SeedSequence(1))

        def banks(n: int) -> object:  # the plain kernel the sessions build on, in banks
            return simulate_table(rules, table, flat, n, state)

        def sessions(n: int) -> object:  # sessions of 100 of seat 0's banks (risk of ruin)
            return session_nets(rules, table, flat, max(1, n // (100 * rules.seats)), 100,
                                state)

        cases.append(BenchCase("banks, one pack, bank left to ride (kernel)", "banks", banks))
        cases.append(BenchCase(f"banks, sessions of 100 rounds ({100 * rules.seats} banks) "
                               "(kernel)", "banks", sessions))

        def reference(n: int) -> object:
            rng = generator(np.random.SeedSequence(1))
            table = RoundTable(rules, never_pass, flat, RandomPacks(rules, rng), rng)
            dealt = 0
            while dealt < n:
                bank = table.play_bank()
                dealt += bank.coups + bank.voids
            return dealt

        cases.append(BenchCase("coups, one pack (reference path)", "coups", reference,
                               reference=True))
        return cases

    def exact_tables(self, rules: LansquenetRules) -> dict[str, pd.DataFrame]:
        """Per-coup odds from a fresh pack for one to eight packs ("bets"), the run lengths of
        a fair bank ("runs"), pass-after-k policies ("policies"), the source's 18-run story
        ("story"), and the check of the observed table named by ``rules.observed`` ("cheat")."""
        bets = []
        for packs in sorted({1, 2, 4, 6, 8, rules.packs}):
            variant = LansquenetRules(packs=packs, rank_count=rules.rank_count, suits=rules.suits,
                                      first_card=rules.first_card)
            odds = coup_odds(tuple(int(c) for c in variant.rank_totals()), rules.banker_first)
            bets.append({"packs": packs, "jumelle": odds.jumelle, "banker_first": odds.banker,
                         "table_first": odds.table, "void": odds.void,
                         "banker_edge_half": odds.ev(0.5), "banker_edge_whole": odds.ev(1.0)})
        runs, model = fair_runs(rules)
        at_least = 1.0 - np.concatenate([[0.0], np.cumsum(runs[:-1])])
        tables = {
            "bets": pd.DataFrame(bets),
            "runs": pd.DataFrame({"run": np.arange(RUN_CAP + 1), "probability": runs,
                                  "at_least": at_least, "model": model}),
            "policies": pd.DataFrame(policy_rows(rules)),
            "story": pd.DataFrame(story_rows(runs)),
        }
        if rules.observed:
            tables["cheat"] = pd.DataFrame(check_file(rules.observed, rules).rows())
        return tables

    def exact_charts(self, rules: LansquenetRules) -> dict[str, Any]:
        """``run_lengths``: the exact run lengths of a fair bank left to ride, and of a
        sharper's who stacks the source's portee (arranged for the rules' order) and rides on,
        where the pack's chain reaches."""
        lines = {}
        series = adapt_series(SOURCE_SERIES, rules.banker_first)
        try:
            check_series(series, rules)
        except ValueError:
            series = ()
        if series:
            table = LansquenetTable((BankerPolicy(portee=series),) + (BankerPolicy(),) * (
                rules.seats - 1), (PunterPolicy(),) * rules.seats)
            value = bank_value(rules, table, 0)
            if value is not None:
                lines["sharper, source portee, riding on"] = value.runs
        return {"run_lengths": run_length_chart(lines, run_lengths(rules),
                                                title="Run lengths of a bank, exact"),
                "bank-value": bank_value_chart(pd.DataFrame(policy_rows(rules)))}

    def extra_charts(self, stats: Mapping[tuple[str, str], Stats],
                     rules: Mapping[str, LansquenetRules]) -> dict[str, Any]:
        """``run_lengths.png``: per variant, the simulated run lengths of fair banks and of
        banks opened on a stacked pack, with the exact run lengths of a fair bank."""
        from sim.core.plotting import panel_grid

        fig, axes = panel_grid(None, len(rules), panel=(7.5, 3.4), cols=2)
        for ax, (variant, variant_rules) in zip(axes, rules.items()):
            lines = {}
            for (v, strategy), st in stats.items():
                if v != variant or not st.rounds:
                    continue
                c = st.counters
                names = [f"run_{k}" for k in range(RUN_CAP)] + [f"run_ge_{RUN_CAP}"]
                every = np.array([c.get(n, 0.0) for n in names])
                stacked = np.array([c.get(f"stacked_{n}", 0.0) for n in names])
                fair = every - stacked
                if fair.sum():
                    lines[f"{strategy}: fair banks"] = fair / fair.sum()
                if stacked.sum():
                    lines[f"{strategy}: stacked banks"] = stacked / stacked.sum()
            exact = run_lengths(variant_rules)
            run_length_chart(lines, exact, ax=ax, title=f"{variant}: run lengths of a bank")
        return {"run_lengths.png": fig}


GAME = LansquenetGame()
