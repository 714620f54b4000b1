"""What cribbage shows beside its numbers: what makes up the followed seat's points, the exact
show-score distributions, discard tables and the source texts' statistics (``houseedge
exact``), the charts of show scores exact and simulated, and what ``houseedge bench``
measures."""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd

from sim.core.stats import Stats
from sim.games.base import REFERENCE, BenchCase, BenchTiming, Presentation
from sim.games.cribbage.exact import (
    best_keep_counts,
    fraction,
    game_counts,
    hand_counts,
    mean_and_sd,
    show_counts,
)
from sim.games.cribbage.joint import deal_values
from sim.games.cribbage.kernel import HAND_BINS
from sim.games.cribbage.players import DiscardPlayers
from sim.games.cribbage.policy import DiscardPolicy, crib_table
from sim.games.cribbage.rules import CribbageRules
from sim.games.cribbage.statistics import one_in, source_statistics

GAME_FEASIBLE = {(5, 3), (5, 4), (6, 4)}  # (dealt, kept) whose best keep is enumerated


def hand_scores(stats: Stats) -> np.ndarray:
    """The followed seat's own-hand shows counted by score (the ``hand_<score>`` counters)."""
    hands = np.zeros(HAND_BINS)
    for key, value in stats.counters.items():
        if key.startswith("hand_") and key[5:].isdigit():
            hands[int(key[5:])] = value
    return hands


def distributions(rules: CribbageRules) -> dict[str, np.ndarray]:
    """The exact show-score counts the tables and the chart give: a random hand of the rules'
    size, a random crib and, where enumerated, the best keep of a deal in hindsight."""
    out = {f"hand of {rules.hand_size}": hand_counts(rules.hand_size),
           "crib": hand_counts(4, True)}
    if (rules.cards_dealt, rules.hand_size) in GAME_FEASIBLE:
        out[f"best keep of {rules.cards_dealt} (hindsight)"] = game_counts(rules.cards_dealt,
                                                               rules.hand_size)
    return out


def discard_table(rules: CribbageRules) -> pd.DataFrame:
    """The expected crib of the discards (two ranks, suited or not; one with three or four
    players), the rest of the crib random."""
    symbols = "A23456789TJQK"
    rows = []
    if rules.discard == 1:
        one = crib_table(1)
        return pd.DataFrame([{"discard": symbols[r], "expected_crib": one[4 * r]}
                             for r in range(13)])
    two = crib_table(2)
    for r1 in range(13):
        for r2 in range(r1, 13):
            rows.append({"discards": symbols[r1] + symbols[r2],
                         "unsuited": two[4 * r1, 4 * r2 + 1],
                         "suited": two[4 * r1, 4 * r2] if r1 != r2 else math.nan})
    return pd.DataFrame(rows)


class CribbageReport(Presentation[CribbageRules]):
    """Cribbage's columns, run lines, exact tables, charts, bench cases and timings."""

    printed_tables = ("summary", "statistics")

    def columns(self, stats: Stats) -> dict[str, float]:
        c = stats.counters
        n = stats.rounds
        if not n:
            return {}
        hands = hand_scores(stats)
        dealer, pone = stats.counter_rate("dealer_points"), stats.counter_rate("pone_points")
        lead_var = max(c.get("difference2", 0.0) / n - (dealer - pone) ** 2, 0.0)
        return {
            "mean_hand": float(np.arange(HAND_BINS) @ hands) / n,
            "hand_ev": stats.counter_rate("hand_ev"),
            "mean_crib": stats.counter_rate("crib"),
            "heels_per_deal": stats.counter_rate("heels"),
            "dealer_points": dealer,
            "pone_points": pone,
            "dealer_lead": dealer - pone,
            "dealer_lead_se": math.sqrt(lead_var / n),
            "p_hand_0": hands[0] / n,
            "p_hand_24": hands[24] / n,
            "p_hand_28": hands[28] / n,
            "p_hand_29": hands[29] / n,
            "peg_pone": stats.counter_rate("peg_pone") if "peg_pone" in c else math.nan,
            "peg_dealer": stats.counter_rate("peg_dealer") if "peg_dealer" in c else math.nan,
            "p_dealer_pegs_nothing": (stats.counter_rate("dealer_pegs_nothing")
                                      if "peg_dealer" in c else math.nan),
        }

    def run_lines(self, frame: pd.DataFrame) -> list[str]:
        """Lines printed after a run's table: what makes up the followed seat's points."""
        lines = [f"{'variant':<16}{'strategy':<18}{'hand':>8}{'hand ev':>9}{'crib':>7}"
                 f"{'dealer lead':>13}"]
        for _, r in frame.iterrows():
            lines.append(f"{r.variant:<16}{r.strategy:<18}{r.mean_hand:>8.3f}"
                         f"{r.hand_ev:>9.3f}{r.mean_crib:>7.3f}{r.dealer_lead:>13.3f}")
        return ["", "the followed seat's hand (and its exact expectation), the crib, and the "
                "dealer's lead, per deal", *lines]

    def exact_tables(self, rules: CribbageRules) -> dict[str, pd.DataFrame]:
        """``distribution``: every show score's exact count and probability for a random hand
        of the rules' size, a random crib and (where enumerated) the best keep of a deal in
        hindsight; ``summary``: their means, standard deviations and rare scores as
        fractions; ``discards``: the expected crib of two discarded ranks (one, with three or
        four players), the rest random; ``statistics``: the source texts' figures beside the
        exact ones (for the two-player six-card game, which they describe)."""
        dists = distributions(rules)
        top = max(int(np.flatnonzero(c).max()) for c in dists.values())
        table = {"score": np.arange(top + 1)}
        summary = []
        for label, counts in dists.items():
            total = int(counts.sum())
            table[f"{label}: count"] = counts[:top + 1]
            table[f"{label}: probability"] = counts[:top + 1] / total
            mean, sd = mean_and_sd(counts)
            summary.append({"distribution": label, "pairs": f"{total:,}",
                            "mean": f"{float(mean):.6f}",
                            "mean_fraction": f"{mean.numerator}/{mean.denominator}",
                            "sd": round(sd, 6),
                            "P(0)": one_in(fraction(counts[0], total)),
                            "P(24)": one_in(fraction(counts[24], total)),
                            "P(28)": one_in(fraction(counts[28], total)),
                            "P(29)": one_in(fraction(counts[29], total))})
        tables = {"distribution": pd.DataFrame(table), "summary": pd.DataFrame(summary)}
        tables["discards"] = discard_table(rules)
        if rules.players == 2 and rules.cards_dealt == 6:
            tables["statistics"] = pd.DataFrame([s.row() for s in source_statistics()])
        return tables

    def exact_charts(self, rules: CribbageRules, names: Collection[str] | None = None
                     ) -> dict[str, Any]:
        """``scores``: the exact show-score distributions of :meth:`exact_tables`."""
        if names is not None and "scores" not in names:
            return {}
        from sim.games.cribbage.charts import score_chart

        bars = {label: counts / counts.sum() for label, counts in
                distributions(rules).items()}
        return {"scores": score_chart(bars, title=f"Cribbage, {rules.cards_dealt} cards dealt, "
                                      f"{rules.players} players: show scores, exact")}

    def exact_chart_keys(self, rules: CribbageRules) -> dict[str, Any]:
        """The show scores are drawn from the hand's size, the cards dealt and the players
        (what :func:`distributions` and the title read): the scoring variants share them."""
        return {"scores": (rules.hand_size, rules.cards_dealt, rules.players)}

    def run_charts(self, stats: Mapping[tuple[str, str], Stats],
                   rules: Mapping[str, CribbageRules]) -> dict[str, Any]:
        """``hand_scores.png``: per variant, each strategy's simulated own-hand scores over
        the exact distribution of a random hand (what the first-cards keep draws). The mean
        points per deal with their intervals and exact values are the run's ``edge.png``
        (the mean net of a game without stakes)."""
        from sim.core.plotting import panel_grid
        from sim.games.cribbage.charts import score_chart

        fig, axes = panel_grid(None, len(rules), panel=(9.0, 4.2))
        for ax, (variant, variant_rules) in zip(axes, rules.items()):
            lines = {}
            for (v, strategy), st in stats.items():
                if v != variant or not st.rounds:
                    continue
                lines[f"{strategy} (simulated)"] = hand_scores(st) / st.rounds
            exact = hand_counts(variant_rules.hand_size)
            score_chart({"random hand (exact)": exact / exact.sum()}, lines, ax=ax,
                        title=f"{variant}: the {variant_rules.seat}'s hand")
        return {"hand_scores.png": fig}

    def bench_cases(self) -> list[BenchCase]:
        rules = CribbageRules()
        cases = [BenchCase(f"six-card deals, {label} (kernel)", "deals", rules,
                           DiscardPolicy(kind))
                 for label, kind in (("random keep", "first"), ("best expected hand", "hand"),
                                     ("hand and crib", "hand-crib"))]
        cases.append(BenchCase("six-card deals, best hand, the play pegged (kernel)", "deals",
                               CribbageRules(pegging=True), DiscardPolicy("hand")))
        cases.append(BenchCase("six-card deals, best expected hand (reference path)", "deals",
                               rules, DiscardPlayers("hand"), REFERENCE))
        return cases

    def bench_timings(self) -> list[BenchTiming]:
        def hands() -> str:
            counts = show_counts(4)
            mean = counts @ np.arange(counts.size) / counts.sum()
            return f"{int(counts.sum()):,} (hand, starter) pairs, mean {mean:.4f}"

        def seven() -> str:
            counts = show_counts(5)
            return f"{int(counts.sum()):,} seven-card (hand, starter) pairs"

        def game() -> str:
            counts = best_keep_counts(6, 4)
            p = Fraction(int(counts[29]), int(counts.sum()))
            return f"{int(counts.sum()):,} (deal, starter) pairs; P(29) = {one_in(p)}"

        def deals() -> str:
            values = deal_values.__wrapped__(("hand", 0.0), ("hand", 0.0))
            return (f"crib {values.crib:.4f}; the dealer pegs "
                    f"{values.play('greedy')[1]:.4f} (greedy)")

        return [BenchTiming("every six-card hand with every starter", hands),
                BenchTiming("every seven-card hand with every starter", seven),
                BenchTiming("best keep of every six-card deal, every starter", game),
                BenchTiming("every deal under the best hand: crib and keeps' joint law",
                            deals)]


REPORT = CribbageReport()
__all__ = ["GAME_FEASIBLE", "REPORT", "CribbageReport", "discard_table", "distributions",
           "hand_scores"]
