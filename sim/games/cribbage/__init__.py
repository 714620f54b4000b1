"""Cribbage: the game object the engine uses.

Rules and the discard view: :mod:`.rules`; the show scorer: :mod:`.score`; exact
distributions by enumeration: :mod:`.exact`; the source texts' statistics: :mod:`.statistics`;
discard policies and the exact values they choose by: :mod:`.policy`; the reference deal:
:mod:`.deal`; the compiled kernel: :mod:`.kernel`; exact whole-deal values under discard and
play policies: :mod:`.values` (the keep laws :mod:`.laws`, both players' :mod:`.joint`, the
play of random keeps :mod:`.play_exact`). The rules as modelled: ``docs/rules/cribbage.md``.

**A round is a deal** (the show, and the play where ``rules.pegging``): every seat lays away to
the crib by the same strategy, the starter is cut, hands and crib are shown. Its ``net`` is
the points the followed seat (``rules.seat``) scores in the show of that deal: the pone's
hand, or the dealer's hand, crib and heels (with partners, the side's hands). Cribbage has no
stake and no house: the report's headline is the seat's mean points per deal, beside its exact
value where the whole deal's expectation is known; ``push_freq`` is the chance the seat scores
nothing. The game columns carry the figures: ``mean_hand`` (the seat's own
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

import math
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd

from sim.core.estimate import Measure
from sim.core.progression import ProgressionSpec
from sim.core.rng import Cards, kernel_state
from sim.core.stats import Stats
from sim.games.base import BenchCase, BenchTiming, ExactValue, Game
from sim.games.cribbage.deal import DealResult, play_deal, seat_cards
from sim.games.cribbage.exact import (
    best_keep_counts,
    fraction,
    game_counts,
    hand_counts,
    mean_and_sd,
    show_counts,
)
from sim.games.cribbage.joint import deal_values
from sim.games.cribbage.kernel import HAND_BINS, score_deals, simulate_policy
from sim.games.cribbage.policy import (
    DiscardPolicy,
    choose,
    crib_table,
    expected_hand,
)
from sim.games.cribbage.rules import PRESETS, CribbageRules, CribbageView
from sim.games.cribbage.score import card_names, parse_cards, show_breakdown, show_score
from sim.games.cribbage.statistics import one_in, source_statistics
from sim.games.cribbage.values import exact_value, unavailable

__all__ = [
    "GAME", "PRESETS", "CribbageGame", "CribbageRules", "CribbageView", "DealResult",
    "DiscardPolicy", "best_keep_counts", "card_names", "choose", "crib_table",
    "expected_hand", "game_counts", "hand_counts", "parse_cards", "play_deal",
    "score_deals", "seat_cards", "show_breakdown", "show_counts", "show_score",
    "simulate_policy", "source_statistics",
]

GAME_FEASIBLE = {(5, 3), (5, 4), (6, 4)}  # (dealt, kept) whose best keep is enumerated


class PolicyPlayer:
    """A discard policy as a plain strategy (no table): it runs on the reference path."""

    def __init__(self, policy: DiscardPolicy) -> None:
        self.policy = policy
        self.play = policy.play

    def decide(self, view: CribbageView, rng: object) -> tuple[int, ...]:
        return choose(view, self.policy)


def _counters(deal: DealResult, rules: CribbageRules) -> dict[str, float]:
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
    presets = PRESETS
    printed_tables = ("summary", "statistics")
    table_hook = "kernel_table"

    def simulate_table(self, rules: CribbageRules, table: DiscardPolicy,
                       progression: ProgressionSpec, rounds: int,
                       seed: np.random.SeedSequence) -> Stats:
        return simulate_policy(rules, table, rounds, kernel_state(seed))

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

    def extra_columns(self, stats: Stats) -> dict[str, float]:
        c = stats.counters
        n = stats.rounds
        if not n:
            return {}
        hands = np.zeros(HAND_BINS)
        for key, value in c.items():
            if key.startswith("hand_") and key[5:].isdigit():
                hands[int(key[5:])] = value
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

    # ------------------------------------------------------------------ exact tables
    def _distributions(self, rules: CribbageRules) -> dict[str, np.ndarray]:
        out = {f"hand of {rules.hand_size}": hand_counts(rules.hand_size),
               "crib": hand_counts(4, True)}
        if (rules.cards_dealt, rules.hand_size) in GAME_FEASIBLE:
            out[f"best keep of {rules.cards_dealt} (hindsight)"] = game_counts(rules.cards_dealt,
                                                                   rules.hand_size)
        return out

    def exact_tables(self, rules: CribbageRules) -> dict[str, pd.DataFrame]:
        """``distribution``: every show score's exact count and probability for a random hand
        of the rules' size, a random crib and (where enumerated) the best keep of a deal in
        hindsight; ``summary``: their means, standard deviations and rare scores as
        fractions; ``discards``: the expected crib of two discarded ranks (one, with three or
        four players), the rest random; ``statistics``: the source texts' figures beside the
        exact ones (for the two-player six-card game, which they describe)."""
        dists = self._distributions(rules)
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
        tables["discards"] = self._discard_table(rules)
        if rules.players == 2 and rules.cards_dealt == 6:
            tables["statistics"] = pd.DataFrame([s.row() for s in source_statistics()])
        return tables

    def _discard_table(self, rules: CribbageRules) -> pd.DataFrame:
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

    def exact_charts(self, rules: CribbageRules) -> dict[str, Any]:
        """``scores``: the exact show-score distributions of :meth:`exact_tables`."""
        from sim.games.cribbage.charts import score_chart

        bars = {label: counts / counts.sum() for label, counts in
                self._distributions(rules).items()}
        return {"scores": score_chart(bars, title=f"Cribbage, {rules.cards_dealt} cards dealt, "
                                      f"{rules.players} players: show scores, exact")}

    def exact_chart_keys(self, rules: CribbageRules) -> dict[str, Any]:
        """The show scores are drawn from the hand's size, the cards dealt and the players
        (what :meth:`_distributions` and the title read): the scoring variants share them."""
        return {"scores": (rules.hand_size, rules.cards_dealt, rules.players)}

    def extra_charts(self, stats: Mapping[tuple[str, str], Stats],
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
                hands = np.zeros(HAND_BINS)
                for key, value in st.counters.items():
                    if key.startswith("hand_") and key[5:].isdigit():
                        hands[int(key[5:])] = value
                lines[f"{strategy} (simulated)"] = hands / st.rounds
            exact = hand_counts(variant_rules.hand_size)
            score_chart({"random hand (exact)": exact / exact.sum()}, lines, ax=ax,
                        title=f"{variant}: the {variant_rules.seat}'s hand")
        return {"hand_scores.png": fig}

    # ------------------------------------------------------------------ bench
    def bench_cases(self) -> list[BenchCase]:
        cases = []
        rules = CribbageRules()
        for label, policy in (("random keep", DiscardPolicy("first")),
                              ("best expected hand", DiscardPolicy("hand")),
                              ("hand and crib", DiscardPolicy("hand-crib"))):
            state = kernel_state(np.random.SeedSequence(1))

            def kernel(n: int, policy=policy, state=state) -> object:
                return simulate_policy(rules, policy, n, state)

            cases.append(BenchCase(f"six-card deals, {label} (kernel)", "deals", kernel))
        pegged = CribbageRules(pegging=True)
        peg_state = kernel_state(np.random.SeedSequence(1))

        def pegging(n: int) -> object:
            return simulate_policy(pegged, DiscardPolicy("hand"), n, peg_state)

        cases.append(BenchCase("six-card deals, best hand, the play pegged (kernel)", "deals",
                               pegging))

        def reference(n: int) -> object:
            return self.simulate_reference(rules, PolicyPlayer(DiscardPolicy("hand")),
                                           ProgressionSpec(), n, np.random.SeedSequence(1))

        cases.append(BenchCase("six-card deals, best expected hand (reference path)", "deals",
                               reference, reference=True))
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


GAME = CribbageGame()
