"""What gin rummy shows beside its numbers: dealt gin beside its exact chance and the hands
that may knock at once, the exact chances of gin and of each deadwood (``houseedge exact``),
the charts of a dealt hand's deadwood exact and simulated, and what ``houseedge bench``
measures."""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from typing import Any

import numpy as np
import pandas as pd

from sim.core.estimate import frequency
from sim.core.stats import Stats
from sim.games.base import BenchCase, BenchTiming, Presentation
from sim.games.gin_rummy.exact import (
    deadwood_counts,
    deadwood_distribution_counts,
    deadwood_moments,
    gin_probability,
)
from sim.games.gin_rummy.rules import GinRules


def deadwood_rows(rules: GinRules) -> list[dict]:
    """The exact chance of each deadwood up to the knock limit, of at most the limit (the
    hands that may knock at once) and of more, as table rows."""
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


class GinReport(Presentation[GinRules]):
    """Gin rummy's columns, run lines, exact tables, charts, bench case and timing."""

    printed_tables = ("gin", "deadwood")

    def columns(self, stats: Stats) -> dict[str, float]:
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
        return {"gin": gin, "deadwood": pd.DataFrame(deadwood_rows(rules))}

    def exact_charts(self, rules: GinRules, names: Collection[str] | None = None
                     ) -> dict[str, Any]:
        """``deadwood``: the exact chance of each deadwood up to the knock limit."""
        if names is not None and "deadwood" not in names:
            return {}
        from sim.core.plotting import new_axes

        rows = deadwood_rows(rules)[:rules.knock_limit + 1]
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

    def run_charts(self, stats: Mapping[tuple[str, str], Stats],
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
        # Whatever the strategy, a hand's table is the rules themselves (nothing is decided).
        rules = GinRules()
        return [BenchCase("ten-card hands dealt, least deadwood (kernel)", "hands", rules,
                          rules)]

    def bench_timings(self) -> list[BenchTiming]:
        def gin() -> str:
            deadwood_distribution_counts.cache_clear()
            p = gin_probability()
            mean, _ = deadwood_moments()
            return (f"P(gin) = {p.numerator}/{p.denominator} = 1 in {float(1 / p):,.0f}; "
                    f"mean deadwood {float(mean):.4f}")

        return [BenchTiming("every ten-card hand counted by its deadwood", gin)]


REPORT = GinReport()
__all__ = ["REPORT", "GinReport", "deadwood_rows"]
