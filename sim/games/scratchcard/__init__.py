"""Scratchcards: printed games and online cards, exact odds, current odds mid-run, sessions.

Prize tables: :mod:`.table`; rules, pool and view: :mod:`.rules`; exact odds: :mod:`.exact`;
current odds from claims: :mod:`.current`; sessions (vectorised and reference): :mod:`.play`;
charts: :mod:`.charts`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from sim.core.errors import InputError
from sim.core.estimate import Measure
from sim.core.progression import FLAT, ProgressionSpec
from sim.core.rng import Cards, generator, kernel_state
from sim.core.stats import Stats
from sim.games.base import BenchCase, ExactValue, Game
from sim.games.scratchcard.current import (
    ESTIMATORS,
    Z_WARNING,
    CurrentOdds,
    claims_z,
    current_odds,
    estimate_sold,
    ev_against_sold,
    remaining,
)
from sim.games.scratchcard.exact import (
    SessionValue,
    TicketOdds,
    plan_grid,
    session_value,
    ticket_odds,
    total_distribution,
)
from sim.games.scratchcard.play import (
    play_plan,
    play_session,
    simulate_plan,
    simulate_reference,
)
from sim.games.scratchcard.players import FixedTickets
from sim.games.scratchcard.rules import PRESETS, Pool, ScratchPlan, ScratchRules, ScratchView
from sim.games.scratchcard.table import (
    CLAIMS_FILE,
    DATA_DIR,
    SHIPPED,
    Claims,
    PrizeTable,
    load_claims,
    load_table,
    split_spec,
)
from sim.games.scratchcard.tabulate import tabulate as tabulate_strategy

__all__ = [
    "ESTIMATORS", "GAME", "Claims", "CurrentOdds", "Pool", "PrizeTable", "ScratchPlan",
    "ScratchRules", "ScratchView", "ScratchcardGame", "SessionValue", "TicketOdds", "claims_z",
    "current_odds", "estimate_sold", "ev_against_sold", "load_claims", "load_table",
    "play_session", "session_value", "ticket_odds", "total_distribution",
]

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


class ScratchcardGame(Game[ScratchRules, ScratchPlan]):
    """Scratchcards: prize tables, printed pools and online cards, sessions of tickets."""

    name = "scratchcard"
    description = ("Scratchcards: printed games (without replacement) and online cards; "
                   "RTP, odds, current odds mid-run")
    round_name = "session"
    # A session buys many tickets (a budget reinvests its prizes): the edge per amount
    # wagered is the ticket's; per initial stake it would be per the first ticket bought.
    measure = Measure.stakes("wagered")
    rules_doc = "docs/rules/scratchcards.md"
    rules_type = ScratchRules
    presets = PRESETS
    file_rules = ("table", "claims")
    table_hook = "scratch_plan"
    fast_path = "numpy"
    flat_stakes_only = ("progression: a scratchcard's stake is its ticket price; stake "
                        "progressions do not apply (leave progression out)")

    def locate(self, rule: str, value: Any, base_dir: Path) -> Any:
        """Shipped names (a table's name, ``claims = "shipped"``) stay as they are; a file,
        with its optional ``#Game`` suffix, is found beside the experiment."""
        if not isinstance(value, str) or value in SHIPPED or value == "shipped":
            return value
        file, hash_, game = value.partition("#")
        return super().locate(rule, file, base_dir) + hash_ + game

    def data_files(self, rule: str, value: str) -> list[Path]:
        if value == "shipped":
            return [DATA_DIR / CLAIMS_FILE]
        return [split_spec(value)[0]] if value else []
    printed_tables = ("bets", "tickets", "claims")

    def prize_table(self, spec: str) -> PrizeTable:
        """The prize table named by ``spec`` (a shipped name, ``path.csv``, ``path.csv#Game``
        or ``path.toml``), for another game that sells its tickets (a casino bonus played on
        a card); read once per process while the file is unchanged.

        Raises:
            InputError: missing or unreadable file, or a table that fails validation.
        """
        return load_table(spec)

    def simulate_table(self, rules: ScratchRules, table: ScratchPlan,
                       progression: ProgressionSpec, rounds: int,
                       seed: np.random.SeedSequence) -> Stats:
        return simulate_plan(rules, table, rounds, kernel_state(seed))

    def play_reference(self, rules: ScratchRules, strategy: Any, progression: ProgressionSpec,
                       rounds: int, cards: Cards, rng: np.random.Generator) -> Stats:
        return simulate_reference(rules, strategy, rounds, rng, cards.kernel_state())

    def tabulate(self, rules: ScratchRules, strategy: Any) -> ScratchPlan | None:
        """A plain-Python session policy, as a plan (:mod:`.tabulate`)."""
        return tabulate_strategy(rules, strategy).table

    def check(self, rules: ScratchRules, strategy: Any, progression: ProgressionSpec) -> None:
        self.check_progression(progression)
        plan = self.table_of(rules, strategy)
        if plan is not None:
            try:
                plan.check(rules)
            except ValueError as exc:
                raise InputError(f"strategy {getattr(strategy, 'name', '')!r}: {exc}") from None
        self.simulate_reference(rules, strategy, progression, self.check_rounds,
                                np.random.SeedSequence(0))

    def pack_key(self, rules: ScratchRules) -> str:
        """What decides the tickets: the game's pool (its table, mode and claims), not the
        session limit; a file by its name, not its folder (the same numbers from any
        checkout)."""
        return (f"table={Path(rules.table).name} mode={rules.mode} "
                f"claims={Path(rules.claims).name} sold={rules.tickets_sold} "
                f"estimator={rules.estimator}")

    def exact_table(self, rules: ScratchRules, table: ScratchPlan,
                    progression: ProgressionSpec) -> ExactValue | None:
        value = session_value(rules.pool(), table)
        if value is None:
            return None
        return ExactValue(value.mean_net, value.initial, value.mean_wagered, value.sd_net,
                          value.sd_residual_total)

    def exact_unavailable(self, rules: ScratchRules, strategy: Any,
                          progression: ProgressionSpec) -> str:
        if self.table_of(rules, strategy) is None:
            return ("no exact value: the strategy is not a plan the exact code can read (it "
                    "plays on the reference path)")
        return super().exact_unavailable(rules, strategy, progression)

    def exact_table_unavailable(self, rules: ScratchRules, table: ScratchPlan,
                                progression: ProgressionSpec) -> str:
        if rules.pool().printed:
            return ("no exact value: on a printed game each ticket changes the odds of the "
                    "next, and this session's length depends on its results")
        return super().exact_table_unavailable(rules, table, progression)

    def session_nets_table(self, rules: ScratchRules, table: ScratchPlan,
                           progression: ProgressionSpec, sessions: int, rounds: int,
                           seed: np.random.SeedSequence) -> np.ndarray | None:
        """A round is one of the strategy's sessions of tickets (its plan, on the vectorised
        path); rounds are independent (a printed game's each from its full print run)."""
        pool = rules.pool()
        net_u, _, _ = play_plan(pool, table, sessions * rounds, kernel_state(seed))
        return (net_u * float(plan_grid(pool, table).step)).reshape(sessions, rounds)

    def round_law_table(self, rules: ScratchRules, table: ScratchPlan,
                        progression: ProgressionSpec) -> tuple[np.ndarray, np.ndarray] | None:
        """The exact law of a round's net for an online card and a plan of a fixed number of
        tickets (the k-ticket prize distribution, less their price)."""
        pool = rules.pool()
        if not table.fixed or pool.printed or progression.kind != FLAT:
            return None
        values, probs = total_distribution(pool, table.first)
        return np.asarray(values, dtype=float) - table.first * pool.price, np.asarray(probs)

    def extra_columns(self, stats: Stats) -> dict[str, float]:
        tickets = stats.counters.get("tickets", 0.0)
        return {"tickets_per_session": stats.counter_rate("tickets"),
                "prize_freq": stats.counters.get("prize_tickets", 0.0) / tickets
                if tickets else np.nan}

    def exact_charts(self, rules: ScratchRules) -> dict[str, Any]:
        from sim.games.scratchcard.charts import any_win_chart, ev_sold_chart, prize_chart

        pool = rules.pool()
        charts = {"prizes": prize_chart(pool, 1), "prizes-10-tickets": prize_chart(pool, 10),
                  "any-win": any_win_chart(pool)}
        if rules.claims:
            charts["ev-against-sold"] = ev_sold_chart(rules.prize_table, rules.claims_data)
        return charts

    def bench_cases(self) -> list[BenchCase]:
        online = PRESETS["online-example"]
        printed = PRESETS["oh-snap"]
        ten = ScratchPlan(first=10, max_tickets=10)
        stops = ScratchPlan(first=1, max_tickets=100, stop_win=20, stop_loss=20)

        def sessions(rules: ScratchRules, plan: ScratchPlan, per: int):
            rng = generator(np.random.SeedSequence(1))
            return lambda n: simulate_plan(rules, plan, max(1, n // per), rng)

        def reference(n: int) -> object:
            return simulate_reference(online, FixedTickets(10), max(1, n // 10),
                                      generator(np.random.SeedSequence(1)))

        return [
            BenchCase("online card, 10 tickets a session (numpy)", "tickets",
                      sessions(online, ten, 10)),
            BenchCase("online card, stop-win/stop-loss sessions (numpy)", "sessions",
                      sessions(online, stops, 1)),
            BenchCase("printed pool, 10 tickets without replacement (numpy)", "tickets",
                      sessions(printed, ten, 10)),
            BenchCase("online card, 10 tickets a session (reference path)", "tickets",
                      reference, reference=True),
        ]

    def exact_tables(self, rules: ScratchRules) -> dict[str, pd.DataFrame]:
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
        tables = {"bets": pd.DataFrame(rows), "tiers": self._tiers(table, pool, claims),
                  "tickets": self._tickets(pool)}
        if claims is not None:
            tables["claims"] = self._claims(table, claims, rules)
        return tables

    @staticmethod
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

    @staticmethod
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

    @staticmethod
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


GAME = ScratchcardGame()
