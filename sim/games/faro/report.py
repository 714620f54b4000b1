"""What faro shows beside its numbers: a deal's decisions and splits, the exact odds of every
bet (``houseedge exact``), the rank bet's edge by cards left, and the cases ``houseedge bench``
measures."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import numpy as np
import pandas as pd

from sim.core.stats import Stats
from sim.games.base import ENGINE, REFERENCE, SESSIONS, BenchCase, Presentation
from sim.games.faro.exact import (
    call_turn_odds,
    high_card_odds,
    rank_bet_table,
    resolved_odds,
    turn_odds,
)
from sim.games.faro.kernel import FaroTable
from sim.games.faro.players import TableBettor
from sim.games.faro.rules import FaroBet, FaroRules, FaroView, RankBet

BODY_SHARE = 0.75  # the rank-bet chart's scale holds the first three quarters of a deal


class PlainKing:
    """A flat bet on the king written as a user writes one (``houseedge bench`` times the
    table the engine builds from it beside the same table given directly)."""

    name = "flat king by hand"
    reads = ("remaining[12]",)

    def decide(self, view: FaroView, rng: object) -> list[FaroBet]:
        return [RankBet(frozenset({12}))] if view.remaining[12] else []


def rules_phrase(rules: FaroRules) -> str:
    """The rules that shape a rank bet's odds, in words: the split, the soda, the last card,
    the packs (the title that tells one variant's chart from another's)."""
    split = {0.0: "nothing lost on a split", 0.5: "half lost on a split",
             1.0: "all lost on a split"}.get(float(rules.split_take),
                                              f"{rules.split_take:g} lost on a split")
    parts = [split, "soda burned" if rules.soda else "no soda"]
    if rules.last_winner_void:
        parts.append("last winner void")
    if rules.packs > 1:
        parts.append(f"{rules.packs} packs")
    return ", ".join(parts)


def rank_bet_chart(rules: FaroRules) -> Any:
    """The house edge per decided bet of one rank left until resolved, by turn and cards of
    the rank left. The scale holds the first three quarters of the deal, where the edge is a
    few per cent; the last turns, where it climbs to tens of per cent on a handful of cards,
    run off the top, and a note says how far."""
    from sim.core.plotting import line_chart

    table = pd.DataFrame(rank_bet_table(rules))
    fig = line_chart(table, "turn", "edge_per_decided", "rank_left", percent=True,
                     title=f"A rank bet left until resolved ({rules_phrase(rules)}): the house "
                           "edge per decided bet",
                     ylabel="house edge per decided bet", legend_title="cards of the rank left")
    ax = fig.axes[0]
    edge = table["edge_per_decided"] * 100
    last = max(1, int(BODY_SHARE * rules.n_turns))
    top = float(edge[table["turn"] <= last].max())
    beyond = table[(edge > 1.08 * top) & (table["turn"] > last)]
    if top > 0 and not beyond.empty:
        ax.set_ylim(min(0.0, float(edge.min())) - 0.04 * top, 1.12 * top)
        peak = beyond.loc[beyond["edge_per_decided"].idxmax()]
        ax.annotate(f"off the scale from turn {int(beyond['turn'].min())}: up to "
                    f"{100 * peak['edge_per_decided']:.0f}% ({int(peak['rank_left'])} left, "
                    f"turn {int(peak['turn'])})", xy=(0.01, 0.97), xycoords="axes fraction",
                    ha="left", va="top", fontsize="small", color="dimgrey")
    return fig


def _odds_row(bet: str, horizon: str, odds: Any, resolved: bool = False) -> dict[str, Any]:
    """A bet's odds as a table row (``resolved``: it always wins or loses, as calling the turn
    does)."""
    return {"bet": bet, "horizon": horizon, "win": odds.win, "lose": odds.lose,
            "split": 0.0 if resolved else odds.split, "none": 0.0 if resolved else odds.none,
            "ev": odds.ev, "edge_per_decided": odds.edge_per_decided,
            "edge_exact": odds.exact_edge_per_decided}


class FaroReport(Presentation[FaroRules]):
    """Faro's columns, exact tables, chart and bench cases."""

    def columns(self, stats: Stats) -> dict[str, float]:
        decisions = stats.counters.get("decisions", 0.0)
        return {
            "decisions_per_deal": stats.counter_rate("decisions"),
            "split_freq": stats.counters.get("splits", 0.0) / decisions if decisions else np.nan,
        }

    def exact_charts(self, rules: FaroRules, names: Collection[str] | None = None
                     ) -> dict[str, Any]:
        return {"rank-bet-edge": rank_bet_chart(rules)}

    def exact_tables(self, rules: FaroRules) -> dict[str, pd.DataFrame]:
        """``bets``: every bet's odds at the first turn (next turn and until resolved);
        ``rank_bet_by_state``: the rank bet in every state of a deal."""
        totals = tuple(int(c) for c in rules.rank_totals())
        n = rules.n_cards - int(rules.soda)
        rows = []
        for k in range(1, rules.max_per_rank + 1):
            rows.append(_odds_row(f"one rank, {k} of it left", "next turn",
                                  turn_odds((k,), n, rules)))
            rows.append(_odds_row(f"one rank, {k} of it left", "until resolved",
                                  resolved_odds((k,), n, rules)))
        rows.append(_odds_row("high card, full pack", "next turn",
                              high_card_odds(totals, rules)))
        for three in ((0, 1, 2), (0, 0, 1)):
            rows.append(_odds_row("call the turn, " + ("three ranks" if len(set(three)) == 3
                                                       else "cat-hop"),
                                  "last turn", call_turn_odds(three, rules), resolved=True))
        return {"bets": pd.DataFrame(rows),
                "rank_bet_by_state": pd.DataFrame(rank_bet_table(rules))}

    def bench_cases(self) -> list[BenchCase]:
        rules = FaroRules()
        every_rank = FaroTable(tuple(1 << r for r in range(13)), (False,) * 13,
                               ((0.0, 1.0),) * 13)
        king = FaroTable((1 << 12,), (False,), ((0.0, 1.0),))
        return [
            BenchCase("13 rank bets, whole deal (kernel)", "deals", rules, every_rank),
            BenchCase("13 rank bets, sessions of 100 deals (kernel)", "deals", rules,
                      every_rank, SESSIONS),
            BenchCase("flat king, whole deal (kernel)", "deals", rules, king),
            BenchCase("flat king written in plain Python, tabulated (kernel)", "deals",
                      rules, PlainKing(), ENGINE),
            BenchCase("13 rank bets, whole deal (reference path)", "deals", rules,
                      TableBettor(every_rank), REFERENCE),
        ]


REPORT = FaroReport()
__all__ = ["BODY_SHARE", "REPORT", "FaroReport", "PlainKing", "rank_bet_chart", "rules_phrase"]
