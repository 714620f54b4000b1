"""What piquet shows beside its numbers: each hand's points and exchanges, the dealt hand's
figures against their exact values, the exact odds tables (``houseedge exact``), the charts
of a dealt hand's declarations and of what each exchange policy reaches, and what
``houseedge bench`` measures."""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from typing import Any

import numpy as np
import pandas as pd

from sim.core.estimate import Estimate, frequency
from sim.core.stats import Stats
from sim.games.base import BenchCase, BenchTiming, Presentation
from sim.games.piquet import exact as exact_odds
from sim.games.piquet.deal import PiquetTable, policy_discard
from sim.games.piquet.hand import card_name
from sim.games.piquet.rules import POLICIES, PiquetRules, PiquetView


def sample_hands(count: int = 4, seed: int = 7) -> list[list[int]]:
    """Dealt elder hands from a fixed seed (the rows of the exact exchange table)."""
    rng = np.random.default_rng(seed)
    return [sorted(int(c) for c in rng.permutation(32)[:12]) for _ in range(count)]


class PiquetReport(Presentation[PiquetRules]):
    """Piquet's columns, exact tables, charts, bench case and timing."""

    printed_tables = ("dealt", "talon", "exchange")

    def columns(self, stats: Stats) -> dict[str, float]:
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
                view = PiquetView(tuple(hand), "elder", rules.minimum_exchange, rules.elder_max,
                                  rules)
                drop = policy_discard(policy, view)
                value = exact_odds.exchange_value(hand, drop, sets_from)
                exchange.append({"hand": i, "cards": " ".join(card_name(c) for c in hand),
                                 "dealt_score": int(dealt), "policy": name,
                                 "discard": " ".join(card_name(c) for c in drop),
                                 "expected_after": float(value), "exact": str(value)})
        return {"dealt": pd.DataFrame(rows),
                "talon": pd.DataFrame(exact_odds.take_in_table()),
                "exchange": pd.DataFrame(exchange)}

    def exact_charts(self, rules: PiquetRules, names: Collection[str] | None = None
                     ) -> dict[str, Any]:
        """``dealt``: the exact odds of a dealt hand's point, sequence and sets."""
        if names is not None and "dealt" not in names:
            return {}
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

    def run_charts(self, stats: Mapping[tuple[str, str], Stats],
                   rules: Mapping[str, PiquetRules]) -> dict[str, Any]:
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
        combinations = PiquetTable(POLICIES["combinations"], POLICIES["combinations"])
        return [BenchCase("deals: exchange and declarations (kernel)", "deals", PiquetRules(),
                          combinations)]

    def bench_timings(self) -> list[BenchTiming]:
        hand = sample_hands(1)[0]

        def exchange() -> str:
            value = exact_odds.exchange_value(hand, hand[:5])
            return f"elder discarding five: {float(value):.4f} over 15,504 draws"

        return [BenchTiming("piquet exchange value, exact", exchange)]


REPORT = PiquetReport()
__all__ = ["REPORT", "PiquetReport", "sample_hands"]
