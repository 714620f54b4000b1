"""What scratchcards show beside their numbers: tickets per session and how often a ticket
wins, the odds of a pool now and at its full print run with the check of its claims
(``houseedge exact``), the prize charts, and the cases ``houseedge bench`` measures."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import numpy as np
import pandas as pd

from sim.core.stats import Stats
from sim.games.base import REFERENCE, BenchCase, Presentation
from sim.games.scratchcard.current import (
    ESTIMATORS,
    Z_WARNING,
    claims_z,
    estimate_sold,
    remaining,
)
from sim.games.scratchcard.exact import ticket_odds, total_distribution
from sim.games.scratchcard.players import FixedTickets
from sim.games.scratchcard.rules import PRESETS, Pool, ScratchPlan, ScratchRules
from sim.games.scratchcard.table import Claims, PrizeTable

TICKET_COUNTS = (1, 2, 5, 10)


def pool_from_counts(price: float, prizes: tuple[float, ...], left: np.ndarray, losers: int
                     ) -> Pool:
    """A printed pool from tickets left per tier and losing tickets left."""
    counts = np.append(np.asarray(left, dtype=np.int64), losers)
    return Pool(price, np.array([*prizes, 0.0]), counts / counts.sum(), counts)


def _odds_row(label: str, pool: Pool, sold: int | None) -> dict[str, Any]:
    odds = ticket_odds(pool)
    return {"pool": label, "tickets_sold": sold, "tickets_left": pool.tickets,
            "price": pool.price, "rtp": odds.rtp, "house_edge": odds.house_edge,
            "ev": odds.mean_prize, "sd": odds.sd, "p_any": odds.p_any, "odds_any": odds.odds_any,
            "p_prize_ge_price": odds.p_prize_ge_price, "top_prize": odds.top_prize,
            "p_top": odds.p_top}


def _tiers(table: PrizeTable, pool: Pool, claims: Claims | None) -> pd.DataFrame:
    frame = pd.DataFrame({"prize": pool.values})
    if table.printed:
        frame["printed"] = [*table.counts, table.losing_tickets()]
    if claims is not None:
        frame["claimed"] = [*claims.claimed, np.nan]
    if pool.counts is not None:
        frame["left"] = pool.counts
    frame["probability"] = pool.probs
    frame["odds_1_in"] = np.where(pool.probs > 0, 1 / np.maximum(pool.probs, 1e-300),
                                  np.inf)
    frame["rtp_share"] = pool.values * pool.probs / pool.price
    return frame


def _tickets(pool: Pool) -> pd.DataFrame:
    rows = []
    for k in TICKET_COUNTS:
        values, probs = total_distribution(pool, k)
        cost = k * pool.price
        mean = float(values @ probs)
        rows.append({"tickets": k, "cost": cost, "mean_total": mean,
                     "sd_total": float(np.sqrt(((values - mean) ** 2) @ probs)),
                     "p_nothing": float(probs[values == 0].sum()),
                     "p_total_ge_cost": float(probs[values >= cost - 1e-9].sum()),
                     "p_total_gt_cost": float(probs[values > cost + 1e-9].sum()),
                     "draws": "without replacement" if pool.printed else "independent"})
    return pd.DataFrame(rows)


def _claims(table: PrizeTable, claims: Claims, rules: ScratchRules) -> pd.DataFrame:
    frame = pd.DataFrame({"prize": table.prizes, "printed": table.counts,
                          "claimed": claims.claimed})
    frame["claimed_share"] = frame["claimed"] / frame["printed"]
    sold_by = {e: estimate_sold(table, claims, e) for e in ESTIMATORS}
    if rules.tickets_sold:
        sold_by = {"given": rules.tickets_sold, **sold_by}
    flags = np.zeros(len(frame), dtype=bool)
    for label, sold in sold_by.items():
        z = claims_z(table, claims, sold)
        frame[f"z_{label}"] = z
        flags |= np.abs(z) > Z_WARNING
    frame["warning"] = np.where(flags, f"|z| > {Z_WARNING:g}: not what random sales give",
                                "")
    return frame


class ScratchcardReport(Presentation[ScratchRules]):
    """Scratchcards' columns, exact tables, charts and bench cases."""

    printed_tables = ("bets", "tickets", "claims")

    def columns(self, stats: Stats) -> dict[str, float]:
        tickets = stats.counters.get("tickets", 0.0)
        return {"tickets_per_session": stats.counter_rate("tickets"),
                "prize_freq": stats.counters.get("prize_tickets", 0.0) / tickets
                if tickets else np.nan}

    def exact_charts(self, rules: ScratchRules, names: Collection[str] | None = None
                     ) -> dict[str, Any]:
        """The prizes of one and of ten tickets, the odds of any win against tickets bought,
        and where the rules name claims, the next ticket's EV against tickets sold."""
        from sim.games.scratchcard.charts import any_win_chart, ev_sold_chart, prize_chart

        def wanted(name: str) -> bool:
            return names is None or name in names

        pool = rules.pool()
        charts = {}
        if wanted("prizes"):
            charts["prizes"] = prize_chart(pool, 1)
        if wanted("prizes-10-tickets"):
            charts["prizes-10-tickets"] = prize_chart(pool, 10)
        if wanted("any-win"):
            charts["any-win"] = any_win_chart(pool)
        if rules.claims and wanted("ev-against-sold"):
            charts["ev-against-sold"] = ev_sold_chart(rules.prize_table, rules.claims_data)
        return charts

    def exact_tables(self, rules: ScratchRules) -> dict[str, pd.DataFrame]:
        """``bets``: a ticket's odds (now, by each estimate of the tickets sold, and at the
        full print run, where claims are given); ``tiers``: each prize's odds; ``tickets``:
        the total of one to ten tickets; ``claims``: the claims against random sales."""
        table = rules.prize_table
        pool = rules.pool()
        claims = rules.claims_data
        rows = []
        if claims is not None:
            full = ScratchRules(rules.table, rules.mode, session_limit=rules.session_limit)
            rows.append(_odds_row("full print run", full.pool(), 0))
            sold_by = {e: estimate_sold(table, claims, e) for e in ESTIMATORS}
            if rules.tickets_sold:
                sold_by = {"given": rules.tickets_sold, **sold_by}
            for label, sold in sold_by.items():
                left, losers = remaining(table, claims, sold)
                rows.append(_odds_row(f"now ({label})", pool_from_counts(
                    table.price, table.prizes, left, losers), sold))
        else:
            rows.append(_odds_row("printed pool" if pool.printed else "online (independent)",
                                  pool, None))
        tables = {"bets": pd.DataFrame(rows), "tiers": _tiers(table, pool, claims),
                  "tickets": _tickets(pool)}
        if claims is not None:
            tables["claims"] = _claims(table, claims, rules)
        return tables

    def bench_cases(self) -> list[BenchCase]:
        online = PRESETS["online-example"]
        printed = PRESETS["oh-snap"]
        ten = ScratchPlan(first=10, max_tickets=10)
        stops = ScratchPlan(first=1, max_tickets=100, stop_win=20, stop_loss=20)
        return [
            BenchCase("online card, 10 tickets a session (numpy)", "tickets", online, ten,
                      per_round=10),
            BenchCase("online card, stop-win/stop-loss sessions (numpy)", "sessions", online,
                      stops),
            BenchCase("printed pool, 10 tickets without replacement (numpy)", "tickets",
                      printed, ten, per_round=10),
            BenchCase("online card, 10 tickets a session (reference path)", "tickets",
                      online, FixedTickets(10), REFERENCE, per_round=10),
        ]


REPORT = ScratchcardReport()
__all__ = ["REPORT", "TICKET_COUNTS", "ScratchcardReport", "pool_from_counts"]
