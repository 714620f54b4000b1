"""Gin rummy: the dealt hand as a game of the engine.

Rules: :mod:`.rules` (and ``docs/rules/gin_rummy.md``); melds and deadwood: :mod:`.melds`;
exact counts: :mod:`.exact`; the kernel: :mod:`.kernel`.

**A round is a dealt hand** of ``hand_size`` cards (no play: drawing, discarding and
knocking are not modelled). Its ``net`` is the hand's least deadwood in points, so
``push_freq`` is the chance of being dealt gin. There is no stake, so the edge columns are
NaN; the game columns are ``p_gin`` with ``exact_p_gin`` and ``z_gin`` (its standard error
from the exact chance), ``p_knock`` (deadwood at most ``knock_limit``), and
``mean_deadwood``. The strategy, ``as-dealt``, makes no decision; the row's exact value is the
mean deadwood over every hand, with its standard deviation. ``houseedge exact`` gives the
exact chance of gin and of every deadwood up to the knock limit.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from sim.core.estimate import Measure, frequency
from sim.core.progression import ProgressionSpec
from sim.core.rng import kernel_state
from sim.core.stats import Stats
from sim.games.base import BenchCase, BenchTiming, ExactValue, Game
from sim.games.gin_rummy.exact import (
    deadwood_counts,
    deadwood_distribution_counts,
    deadwood_moments,
    gin_probability,
)
from sim.games.gin_rummy.kernel import simulate_hands
from sim.games.gin_rummy.melds import deadwood
from sim.games.gin_rummy.rules import PRESETS, GinRules

__all__ = ["GAME", "PRESETS", "GinGame", "GinRules", "deadwood", "deadwood_counts",
           "gin_probability", "simulate_hands"]


class GinGame(Game[GinRules, GinRules]):
    """Gin rummy: melds, deadwood and gin in the dealt hand.

    No decision is scored (the round is the dealt hand), so whatever the strategy, its table
    is the rules themselves and the kernel deals it.
    """

    description = "Gin rummy: the dealt hand's deadwood and the chance of gin, exact and simulated"
    round_name = "hand"
    measure = Measure.points("mean deadwood per hand")
    presets = PRESETS
    printed_tables = ("gin", "deadwood")

    def offered_table(self, rules: GinRules, strategy: Any) -> GinRules:
        return rules

    def simulate_table(self, rules: GinRules, table: GinRules, progression: ProgressionSpec,
                       rounds: int, seed: np.random.SeedSequence) -> Stats:
        stats = simulate_hands(rules, rounds, kernel_state(seed))
        stats.counters["knock"] = float(sum(c for v, c in stats.net_hist.items()
                                            if v <= rules.knock_limit))
        # Carried with the chunk's sums so that the report can set it beside the estimate.
        stats.counters["exact_gin"] = float(gin_probability(
            rules.hand_size, rules.rank_count, rules.suits)) * rounds
        return stats

    def check(self, rules: GinRules, strategy: Any, progression: ProgressionSpec) -> None:
        self.simulate(rules, strategy, progression, 2, np.random.SeedSequence(0))

    def exact_table(self, rules: GinRules, table: GinRules,
                    progression: ProgressionSpec) -> ExactValue:
        """The mean deadwood of a dealt hand and its standard deviation, over every hand
        (:func:`~sim.games.gin_rummy.exact.deadwood_moments`); no stake, so no edge."""
        mean, variance = deadwood_moments(rules.hand_size, rules.rank_count, rules.suits)
        return ExactValue(mean_net=float(mean), mean_initial_stake=None,
                          mean_total_wagered=None, sd_net=math.sqrt(variance))

    def extra_columns(self, stats: Stats) -> dict[str, float]:
        n = stats.rounds
        if not n:
            return {}
        gin = frequency(stats.net_hist.get(0.0, 0), n,
                        stats.counters.get("exact_gin", math.nan) / n)
        return {"p_gin": gin.value, "exact_p_gin": gin.exact, "z_gin": gin.z,
                "p_knock": stats.counter_rate("knock")}

    def run_lines(self, frame: pd.DataFrame) -> list[str]:
        lines = ["", "dealt gin and the hands that may knock at once",
                 f"{'variant':<16}{'P(gin)':>12}{'exact':>12}{'z':>7}{'P(knock)':>10}"]
        for _, r in frame.iterrows():
            lines.append(f"{r.variant:<16}{r.p_gin:>12.3e}{r.exact_p_gin:>12.3e}"
                         f"{r.z_gin:>+7.2f}{r.p_knock:>10.4f}")
        return lines

    def exact_tables(self, rules: GinRules) -> dict[str, pd.DataFrame]:
        """``gin``: the exact chance of being dealt gin; ``deadwood``: the exact chance of
        each deadwood up to the knock limit, and of more (the hands that may knock at once);
        the ``gin`` table carries the mean deadwood and its standard deviation too."""
        total = math.comb(rules.rank_count * rules.suits, rules.hand_size)
        p = gin_probability(rules.hand_size, rules.rank_count, rules.suits)
        mean, variance = deadwood_moments(rules.hand_size, rules.rank_count, rules.suits)
        gin = pd.DataFrame([{"cards": rules.hand_size, "hands": f"{total:,}",
                             "gin_hands": f"{int(p * total):,}",
                             "probability": f"{p.numerator}/{p.denominator}",
                             "one_in": round(float(1 / p), 2),
                             "mean_deadwood": f"{mean.numerator}/{mean.denominator}",
                             "mean_deadwood_decimal": round(float(mean), 6),
                             "sd_deadwood": round(math.sqrt(variance), 6)}])
        return {"gin": gin, "deadwood": pd.DataFrame(self._deadwood_rows(rules))}

    def _deadwood_rows(self, rules: GinRules) -> list[dict]:
        limit = rules.knock_limit
        counts = deadwood_counts(rules.hand_size, rules.rank_count, rules.suits, cap=limit + 1)
        total = math.comb(rules.rank_count * rules.suits, rules.hand_size)
        rows = [{"deadwood": str(d), "hands": counts[d], "probability": counts[d] / total,
                 "one_in": total / counts[d] if counts[d] else math.inf}
                for d in range(limit + 1)]
        knock = sum(counts[:limit + 1])
        rows.append({"deadwood": f"at most {limit} (may knock)", "hands": knock,
                     "probability": knock / total, "one_in": total / knock})
        rows.append({"deadwood": f"{limit + 1} or more", "hands": counts[limit + 1],
                     "probability": counts[limit + 1] / total,
                     "one_in": total / counts[limit + 1]})
        return rows

    def exact_charts(self, rules: GinRules) -> dict[str, Any]:
        """``deadwood``: the exact chance of each deadwood up to the knock limit."""
        from sim.core.plotting import new_axes

        rows = self._deadwood_rows(rules)[:rules.knock_limit + 1]
        fig, ax = new_axes(None, (8, 4))
        ax.bar([int(r["deadwood"]) for r in rows], [r["probability"] for r in rows],
               color="C0")
        ax.set_xticks(range(rules.knock_limit + 1))
        ax.set_xlabel("deadwood of the dealt hand (points)")
        ax.set_ylabel("probability")
        ax.set_title(f"Gin rummy, {rules.hand_size} cards dealt: deadwood up to the knock "
                     "limit, exact (0 is gin)")
        ax.grid(alpha=0.3, axis="y")
        return {"deadwood": fig}

    def extra_charts(self, stats: Mapping[tuple[str, str], Stats],
                     rules: Mapping[str, GinRules]) -> dict[str, Any]:
        """``deadwood.png``: the simulated deadwood of a dealt hand, per variant, with the
        exact chances of the lowest values."""
        from sim.core.plotting import new_axes

        fig, ax = new_axes(None, (9, 4.2))
        for i, ((variant, _), st) in enumerate(stats.items()):
            if not st.rounds:
                continue
            values = np.array(sorted(st.net_hist))
            probs = np.array([st.net_hist[v] for v in values]) / st.rounds
            ax.plot(values, probs, drawstyle="steps-mid", color=f"C{i}",
                    label=f"{variant} (simulated)")
            r = rules[variant]
            exact = deadwood_counts(r.hand_size, r.rank_count, r.suits, cap=3)
            total = math.comb(r.rank_count * r.suits, r.hand_size)
            ax.plot(range(3), np.array(exact[:3]) / total, "kx", ms=7,
                    label="exact" if i == 0 else None)
            ax.axvline(r.knock_limit + 0.5, color="grey", ls=":", lw=1)
        ax.set_yscale("log")
        ax.set_xlabel("deadwood of the dealt hand (points; dotted: the knock limit)")
        ax.set_ylabel("probability")
        ax.set_title("Gin rummy: deadwood of a dealt hand")
        ax.grid(alpha=0.3)
        ax.legend(fontsize="small")
        return {"deadwood.png": fig}

    def bench_cases(self) -> list[BenchCase]:
        rules = GinRules()
        state = kernel_state(np.random.SeedSequence(1))

        def kernel(n: int) -> object:
            return simulate_hands(rules, n, state)

        return [BenchCase("ten-card hands dealt, least deadwood (kernel)", "hands", kernel)]

    def bench_timings(self) -> list[BenchTiming]:
        def gin() -> str:
            deadwood_distribution_counts.cache_clear()
            p = gin_probability()
            mean, _ = deadwood_moments()
            return (f"P(gin) = {p.numerator}/{p.denominator} = 1 in {float(1 / p):,.0f}; "
                    f"mean deadwood {float(mean):.4f}")

        return [BenchTiming("every ten-card hand counted by its deadwood", gin)]


GAME = GinGame()
