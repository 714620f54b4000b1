"""What lansquenet shows beside its numbers: a bank's coups, jumelles, runs and how it ended,
each seat's net, the exact odds of a coup and of the pass-after policies with the source's
story and the check of an observed table (``houseedge exact``), the run-length and bank-value
charts, and the cases ``houseedge bench`` measures."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

import numpy as np
import pandas as pd

from sim.core.progression import ProgressionSpec
from sim.core.rng import generator, kernel_state
from sim.core.stats import Stats
from sim.games.base import REFERENCE, SESSIONS, BenchCase, Presentation
from sim.games.lansquenet.chain import coup_odds
from sim.games.lansquenet.cheat import (
    bank_value_chart,
    check_file,
    fair_runs,
    run_length_chart,
    story_rows,
)
from sim.games.lansquenet.coup import RUN_CAP, RandomPacks, RoundTable
from sim.games.lansquenet.exact import bank_value, policy_rows, run_lengths
from sim.games.lansquenet.kernel import play_coups
from sim.games.lansquenet.players import TableSeats
from sim.games.lansquenet.rules import (
    SOURCE_SERIES,
    BankerPolicy,
    LansquenetRules,
    LansquenetTable,
    PunterPolicy,
    adapt_series,
    check_series,
)

FLAT = ProgressionSpec()
NEVER_PASS = TableSeats(BankerPolicy(), PunterPolicy())  # every bank left to ride


def _kernel_coups(rules: LansquenetRules) -> Any:
    """``run(n)``: the kernel until ``n`` coups are dealt, banks left to ride (a bank's coups
    vary, so no path of the game counts them)."""
    table = NEVER_PASS.as_table(rules)
    state = kernel_state(np.random.SeedSequence(1))
    return lambda n: play_coups(rules, table, FLAT, n, state)


def _reference_coups(n: int) -> object:
    """The reference path's banks until ``n`` coups are dealt (void ones counted), banks left
    to ride."""
    rules = LansquenetRules()
    rng = generator(np.random.SeedSequence(1))
    table = RoundTable(rules, NEVER_PASS, FLAT, RandomPacks(rules, rng), rng)
    dealt = 0
    while dealt < n:
        bank = table.play_bank()
        dealt += bank.coups + bank.voids
    return dealt


class LansquenetReport(Presentation[LansquenetRules]):
    """Lansquenet's columns, exact tables, charts and bench cases."""

    printed_tables = ("bets", "policies", "story", "cheat")

    def columns(self, stats: Stats) -> dict[str, float]:
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

    def exact_charts(self, rules: LansquenetRules, names: Collection[str] | None = None
                     ) -> dict[str, Any]:
        """``run_lengths``: the exact run lengths of a fair bank left to ride, and of a
        sharper's who stacks the source's portee (arranged for the rules' order) and rides on,
        where the pack's chain reaches; ``bank-value``: the pass-after policies' values."""
        charts: dict[str, Any] = {}
        if names is None or "run_lengths" in names:
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
            charts["run_lengths"] = run_length_chart(lines, run_lengths(rules),
                                                     title="Run lengths of a bank, exact")
        if names is None or "bank-value" in names:
            charts["bank-value"] = bank_value_chart(pd.DataFrame(policy_rows(rules)))
        return charts

    def run_charts(self, stats: Mapping[tuple[str, str], Stats],
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

    def bench_cases(self) -> list[BenchCase]:
        one_pack = LansquenetRules()
        table = NEVER_PASS.as_table(one_pack)
        return [
            BenchCase("coups, one pack, bank left to ride (kernel)", "coups",
                      run=_kernel_coups(one_pack)),
            BenchCase("coups, six packs, bank left to ride (kernel)", "coups",
                      run=_kernel_coups(LansquenetRules(packs=6))),
            BenchCase("banks, one pack, bank left to ride (kernel)", "banks", one_pack, table),
            # A session's round is one of seat 0's banks: the bank goes round every seat.
            BenchCase(f"banks, sessions of 100 rounds ({100 * one_pack.seats} banks) (kernel)",
                      "banks", one_pack, table, SESSIONS, per_round=one_pack.seats),
            BenchCase("coups, one pack (reference path)", "coups", path=REFERENCE,
                      run=_reference_coups),
        ]


REPORT = LansquenetReport()
__all__ = ["NEVER_PASS", "REPORT", "LansquenetReport"]
