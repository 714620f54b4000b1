"""What newmarket shows beside its numbers: the deals, cards and stops of a round, every
seat's result and share of the kitty, a chart of the seats' results, and the case
``houseedge bench`` measures."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from sim.core.stats import Stats
from sim.games.base import BenchCase, Presentation
from sim.games.newmarket.rules import NewmarketRules, NewmarketTable


class NewmarketReport(Presentation[NewmarketRules]):
    """Newmarket's columns, chart and bench case."""

    def columns(self, stats: Stats) -> dict[str, float]:
        c = stats.counters
        players = sum(1 for k in c if k.startswith("seat_"))
        out = {"deals_per_round": stats.counter_rate("deals"),
               "cards_per_deal": c.get("cards_played", 0.0) / c["deals"] if c.get("deals")
               else np.nan,
               "stops_per_deal": c.get("stops", 0.0) / c["deals"] if c.get("deals") else np.nan}
        for p in range(players):
            out[f"seat_{p}_net"] = stats.counter_rate(f"seat_{p}")
        for p in range(players):
            out[f"seat_{p}_kitty_share"] = (c.get(f"kitty_{p}", 0.0) / c["deals"]
                                            if c.get("deals") else np.nan)
        out["seats_sum"] = sum(c.get(f"seat_{p}", 0.0) for p in range(players))
        return out

    def run_charts(self, stats: Mapping[tuple[str, str], Stats],
                   rules: Mapping[str, NewmarketRules]) -> dict[str, Any]:
        """``seats.png``: each seat's mean result per round, by variant and strategy."""
        from sim.core.plotting import panel_grid

        fig, axes = panel_grid(None, len(rules), panel=(5.5, 3.4))
        for ax, variant in zip(axes, rules):
            rows = [(s, st) for (v, s), st in stats.items() if v == variant and st.rounds]
            width = 0.8 / max(1, len(rows))
            for i, (strategy, st) in enumerate(rows):
                players = sum(1 for k in st.counters if k.startswith("seat_"))
                means = [st.counter_rate(f"seat_{p}") for p in range(players)]
                x = np.arange(players) + (i - (len(rows) - 1) / 2) * width
                ax.bar(x, means, width=width, color=f"C{i}", label=strategy)
            ax.axhline(0, color="grey", lw=0.8)
            ax.set_xticks(range(rules[variant].players))
            ax.set_xlabel("seat (seat 0 deals first)")
            ax.set_ylabel("mean result per round, units")
            ax.set_title(variant, fontsize="medium")
            ax.grid(axis="y", alpha=0.3)
            ax.legend(fontsize="x-small")
        fig.suptitle("Newmarket: each seat's expected result (they sum to zero)")
        return {"seats.png": fig}

    def bench_cases(self) -> list[BenchCase]:
        rules = NewmarketRules()
        longest = NewmarketTable((0,) * rules.players)
        return [BenchCase("rounds, four players, longest suit (kernel)", "rounds", rules,
                          longest)]


REPORT = NewmarketReport()
__all__ = ["REPORT", "NewmarketReport"]
