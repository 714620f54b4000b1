"""Piquet: the game object the engine uses.

Hands and declarations: :mod:`.hand`; rules, views and exchange policies: :mod:`.rules`; the
deal (reference and kernel): :mod:`.deal`; exact odds: :mod:`.exact`.

**A round is one deal**: the deal, carte blanche, elder's and younger's exchanges (both played
by the strategy), and the declarations compared and scored with repique. The play of the
tricks is not modelled. ``net`` is elder hand's declaration points less younger hand's; nobody
stakes anything, so the report's headline is its mean per deal. The game columns give
each hand's mean points, the repique and carte blanche frequencies, the unopposed score each
hand reaches after its exchange (``elder_after``, ``younger_after``: what the exchange policy
achieves), and the dealt hand's figures (``dealt_score``, ``carte_blanche``, ``quatorze``)
beside their exact values with z-scores.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from sim.core.estimate import Estimate, Measure, frequency
from sim.core.progression import ProgressionSpec
from sim.core.rng import Cards, kernel_state
from sim.core.stats import Stats
from sim.games.base import BenchCase, BenchTiming, Game
from sim.games.piquet import exact as exact_odds
from sim.games.piquet.deal import PiquetTable, play_reference, policy_discard, simulate_table
from sim.games.piquet.hand import card_name, describe, parse_card
from sim.games.piquet.rules import (
    POLICIES,
    PRESETS,
    ExchangePolicy,
    PiquetRules,
    PiquetView,
)

__all__ = ["GAME", "POLICIES", "ExchangePolicy", "PiquetGame", "PiquetRules", "PiquetTable",
           "PiquetView", "card_name", "describe", "exact_odds", "parse_card", "policy_discard"]


def sample_hands(count: int = 4, seed: int = 7) -> list[list[int]]:
    """Dealt elder hands from a fixed seed (the rows of the exact exchange table)."""
    rng = np.random.default_rng(seed)
    return [sorted(int(c) for c in rng.permutation(32)[:12]) for _ in range(count)]


class PiquetGame(Game[PiquetRules, PiquetTable]):
    """Piquet: declarations, carte blanche and repique after the exchange."""

    name = "piquet"
    description = ("Piquet: point, sequence and set, carte blanche and repique; exact odds of "
                   "a dealt hand and of taking in; exchange policies")
    round_name = "deal"
    measure = Measure.points("mean points per deal: elder's less younger's")
    rules_doc = "docs/rules/piquet.md"
    rules_type = PiquetRules
    presets = PRESETS
    table_hook = "kernel_table"
    printed_tables = ("dealt", "talon", "exchange")

    def simulate_table(self, rules: PiquetRules, table: PiquetTable,
                       progression: ProgressionSpec, rounds: int,
                       seed: np.random.SeedSequence) -> Stats:
        return simulate_table(rules, table, rounds, kernel_state(seed))

    def play_reference(self, rules: PiquetRules, strategy: Any, progression: ProgressionSpec,
                       rounds: int, cards: Cards, rng: np.random.Generator) -> Stats:
        """Deals on the reference path (any Python strategy)."""
        shuffles = cards.generator()
        self.table_of(rules, strategy)  # a table strategy learns the rules' set rank
        stats = Stats()
        for _ in range(rounds):
            net, counters = play_reference(shuffles.permutation(32), rules, strategy, rng)
            stats.add_round(net, 0.0, 0.0, counters)
        return stats

    def extra_columns(self, stats: Stats) -> dict[str, float]:
        c, n = stats.counters, stats.rounds
        if not n:
            return {}
        out = {name: stats.counter_rate(name) for name in (
            "elder_points", "younger_points", "elder_after", "younger_after", "elder_took",
            "younger_took")}
        out["elder_repique_freq"] = stats.counter_rate("elder_repique")
        out["younger_repique_freq"] = stats.counter_rate("younger_repique")
        out["point_equal_freq"] = stats.counter_rate("point_equal")
        mean = c.get("dealt_score", 0.0) / n
        var = max(c.get("dealt_score2", 0.0) / n - mean * mean, 0.0) * n / max(n - 1, 1)
        dealt = Estimate(mean, math.sqrt(var / n) if var else math.nan,
                         float(exact_odds.mean_dealt_score()))
        out.update({"dealt_score": dealt.value, "exact_dealt_score": dealt.exact,
                    "z_dealt_score": dealt.z})
        blanche = c.get("blanche_elder", 0.0) + c.get("blanche_younger", 0.0)
        for name, hits, p in (
                ("carte_blanche", blanche, 2 * float(exact_odds.p_carte_blanche())),
                ("quatorze", c.get("dealt_quatorze", 0.0), float(exact_odds.p_quatorze()))):
            share = frequency(hits, n, p)
            out.update({f"{name}_freq": share.value, f"exact_{name}": share.exact,
                        f"z_{name}": share.z})
        return out

    def exact_tables(self, rules: PiquetRules) -> dict[str, pd.DataFrame]:
        """``dealt`` (a dealt hand's declarations: point length, best sequence, set score,
        carte blanche, quatorze, mean unopposed score), ``talon`` (the chance of taking in
        given cards) and ``exchange`` (sample hands: the exact expected unopposed score each
        built-in policy reaches as elder)."""
        sets_from = rules.set_rank
        rows = []
        for stat, counts in (("longest suit", exact_odds.point_length_counts()),
                             ("longest sequence", exact_odds.sequence_length_counts()),
                             ("sets score", exact_odds.set_score_counts(
                                 sets_from=sets_from))):
            for value, p in exact_odds.distribution(counts).items():
                rows.append({"declaration": stat, "value": value, "exact": str(p),
                             "probability": float(p)})
        for stat, p in (("carte blanche", exact_odds.p_carte_blanche()),
                        ("a quatorze", exact_odds.p_quatorze(sets_from=sets_from))):
            rows.append({"declaration": stat, "value": 1, "exact": str(p),
                         "probability": float(p)})
        mean = exact_odds.mean_dealt_score(sets_from=sets_from)
        rows.append({"declaration": "mean unopposed score", "value": float(mean),
                     "exact": str(mean), "probability": math.nan})
        exchange = []
        for i, hand in enumerate(sample_hands()):
            dealt = exact_odds.exchange_value(hand, [], sets_from)
            for name, policy in POLICIES.items():
                view = PiquetView(tuple(hand), "elder", rules.minimum_exchange, rules.elder_max)
                drop = policy_discard(policy, view, sets_from)
                value = exact_odds.exchange_value(hand, drop, sets_from)
                exchange.append({"hand": i, "cards": " ".join(card_name(c) for c in hand),
                                 "dealt_score": int(dealt), "policy": name,
                                 "discard": " ".join(card_name(c) for c in drop),
                                 "expected_after": float(value), "exact": str(value)})
        return {"dealt": pd.DataFrame(rows),
                "talon": pd.DataFrame(exact_odds.take_in_table()),
                "exchange": pd.DataFrame(exchange)}

    def exact_charts(self, rules: PiquetRules) -> dict[str, Any]:
        from sim.core.plotting import panel_grid

        fig, axes = panel_grid(None, 3, panel=(4.2, 3.0))
        for ax, (title, counts) in zip(axes, (
                ("longest suit (the point)", exact_odds.point_length_counts()),
                ("longest sequence (0: none)", exact_odds.sequence_length_counts()),
                ("score of the sets", exact_odds.set_score_counts(sets_from=rules.set_rank)))):
            dist = exact_odds.distribution(counts)
            ax.bar([str(k) for k in dist], [float(p) * 100 for p in dist.values()], color="C0")
            ax.set_title(title, fontsize="medium")
            ax.set_ylabel("%")
            ax.grid(axis="y", alpha=0.3)
        fig.suptitle("A dealt piquet hand of 12: exact odds of its declarations")
        return {"dealt": fig}

    def extra_charts(self, stats, rules) -> dict[str, Any]:
        """``exchange.png``: per variant and strategy, the unopposed score each hand reaches
        after its exchange and the points each scores against the other, with the dealt
        hand's exact mean score for scale."""
        from sim.core.plotting import panel_grid

        fig, axes = panel_grid(None, len(rules), panel=(6.0, 3.6))
        labels = ("elder_after", "younger_after", "elder_points", "younger_points")
        for ax, variant in zip(axes, rules):
            rows = [(s, st) for (v, s), st in stats.items() if v == variant and st.rounds]
            width = 0.8 / max(1, len(rows))
            for i, (strategy, st) in enumerate(rows):
                x = np.arange(len(labels)) + (i - (len(rows) - 1) / 2) * width
                ax.bar(x, [st.counter_rate(k) for k in labels], width=width, color=f"C{i}",
                       label=strategy)
            dealt = float(exact_odds.mean_dealt_score(sets_from=rules[variant].set_rank))
            ax.axhline(dealt, color="black", lw=1, ls="--",
                       label=f"a dealt hand, exact ({dealt:.2f})")
            ax.set_xticks(np.arange(len(labels)),
                          ["elder after\nexchange", "younger after\nexchange",
                           "elder scores", "younger scores"], fontsize="small")
            ax.set_ylabel("mean points per deal")
            ax.set_ylim(0, ax.get_ylim()[1] * 1.45)  # room for the legend above the bars
            ax.set_title(variant, fontsize="medium")
            ax.grid(axis="y", alpha=0.3)
            ax.legend(fontsize="x-small", ncols=2, loc="upper right")
        fig.suptitle("Piquet: what each exchange policy reaches in declarations")
        return {"exchange.png": fig}

    def bench_cases(self) -> list[BenchCase]:
        rules = PiquetRules()
        table = PiquetTable(POLICIES["combinations"], POLICIES["combinations"])
        state = kernel_state(np.random.SeedSequence(1))

        def kernel(n: int) -> object:
            return simulate_table(rules, table, n, state)

        return [BenchCase("deals: exchange and declarations (kernel)", "deals", kernel)]

    def bench_timings(self) -> list[BenchTiming]:
        hand = sample_hands(1)[0]

        def exchange() -> str:
            value = exact_odds.exchange_value(hand, hand[:5])
            return f"elder discarding five: {float(value):.4f} over 15,504 draws"

        return [BenchTiming("piquet exchange value, exact", exchange)]


GAME = PiquetGame()
