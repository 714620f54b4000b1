"""Wagering bonuses: what a bonus is worth to a player under each policy, exactly and by
simulation, and what it costs the operator.

Terms and the games played: :mod:`.terms`; the integer grid and policy tables: :mod:`.grid`,
:mod:`.policy`; the built-in policies: :mod:`.players`; the exact programme: :mod:`.dp`;
simulated players: :mod:`.walk`; the operator's view: :mod:`.operator`; charts:
:mod:`.charts`.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from sim import games
from sim.core.errors import InputError
from sim.core.progression import ProgressionSpec
from sim.core.rng import Cards, generator, kernel_state
from sim.core.stats import Stats
from sim.games.base import BenchCase, ExactValue, Game
from sim.games.bonus.dp import BonusValue, evaluate
from sim.games.bonus.grid import END_NAMES, Grid, PolicyTable, grid_for
from sim.games.bonus.players import Bold, Flat, Optimal
from sim.games.bonus.tabulate import tabulate as tabulate_strategy
from sim.games.bonus.terms import (
    PRESETS,
    BonusBet,
    BonusRules,
    BonusView,
    PlayedGame,
    played_game,
    scratch_table,
)
from sim.games.bonus.value import policy_value, table_of
from sim.games.bonus.walk import player_stats, simulate_reference, walk_table

__all__ = [
    "GAME", "BonusBet", "BonusGame", "BonusRules", "BonusValue", "BonusView", "Grid",
    "PlayedGame", "PolicyTable", "grid_for", "played_game", "policy_value", "table_of",
]

TABLE_STAKES = (1.0, 5.0, 25.0, 100.0)


def _posterior_sd(k: float, n: int) -> float:
    # SD of a proportion under a uniform prior: never 0, close to the binomial SE when k is
    # large; the honest error bar when completions are rare (k = 0 included).
    return math.sqrt((k + 1) * (n - k + 1) / ((n + 2) ** 2 * (n + 3)))


def _exact_value(value: BonusValue) -> ExactValue:
    return ExactValue(value.expected_profit, value.deposit, value.mean_wagered, value.sd_payout)


_PATHS: dict[tuple, str] = {}  # engine path by (terms, policy key), found at check time

class BonusGame(Game[BonusRules, PolicyTable]):
    """Wagering bonuses played on scratch cards, faro bets or even-money bets."""

    name = "bonus"
    description = ("Wagering bonuses: terms, player policies, exact value by dynamic "
                   "programming, the operator's cost")
    round_name = "player"
    rules_doc = "docs/rules/scratchcards.md"
    rules_type = BonusRules
    presets = PRESETS
    printed_tables = ("bets", "claims")
    file_rules = ("games",)  # a scratch card's prize table: scratch:<file>
    flat_stakes_only = ("progression: stakes are set by the bonus policy (its params); "
                        "stake progressions do not apply (leave progression out)")

    def offered_table(self, rules: BonusRules, strategy: Any) -> PolicyTable | None:
        return table_of(strategy, grid_for(rules))

    def simulate_table(self, rules: BonusRules, table: PolicyTable,
                       progression: ProgressionSpec, rounds: int,
                       seed: np.random.SeedSequence) -> Stats:
        grid = grid_for(rules)
        return player_stats(grid, *walk_table(grid, table, rounds, kernel_state(seed)))

    def play_reference(self, rules: BonusRules, strategy: Any, progression: ProgressionSpec,
                       rounds: int, cards: Cards, rng: np.random.Generator) -> Stats:
        return simulate_reference(grid_for(rules), strategy, rounds, rng, cards.kernel_state())

    def pack_key(self, rules: BonusRules) -> str:
        """What decides the spins: the games played (a uniform per bet picks the outcome of
        the game bet on), so terms that differ only in wagering, caps or match share them."""
        return f"games={self.portable('games', rules.games)}"

    def locate(self, rule: str, value: Any, base_dir: Path) -> Any:
        """Each ``scratch:<file>`` of the games with its prize table found beside the
        experiment (a shipped table's name and the other games stay as they are)."""
        if isinstance(value, (list, tuple)):
            return [self.locate(rule, spec, base_dir) for spec in value]
        table = scratch_table(value)
        if table is None:
            return value
        return "scratch:" + games.get("scratchcard").locate("table", table, base_dir)

    def data_files(self, rule: str, value: Any) -> list[Path]:
        specs = (value,) if isinstance(value, str) else tuple(value)
        scratch = games.get("scratchcard")
        return [path for spec in specs if (table := scratch_table(spec)) is not None
                for path in scratch.data_files("table", table)]

    def portable(self, rule: str, value: Any) -> Any:
        """The games with each prize table by its file's name, not its folder."""
        specs = (value,) if isinstance(value, str) else tuple(value)
        scratch = games.get("scratchcard")
        return tuple(spec if (table := scratch_table(spec)) is None
                     else "scratch:" + scratch.portable("table", table) for spec in specs)

    def tabulate(self, rules: BonusRules, strategy: Any) -> PolicyTable | None:
        """A plain-Python policy that does not read the balance, as a table
        (:mod:`.tabulate`)."""
        return tabulate_strategy(grid_for(rules), strategy).table

    def check(self, rules: BonusRules, strategy: Any, progression: ProgressionSpec) -> None:
        try:
            super().check(rules, strategy, progression)
            # Its exact value and its path now, while its table is at hand: a policy table
            # is 40-80 MB, more than the table cache keeps, and the report would build it
            # again for each.
            policy_value(rules, strategy)
            self.engine_path(rules, strategy)
        except ValueError as exc:  # a stake the terms do not allow, found building the table
            raise InputError(f"strategy {getattr(strategy, 'name', '')!r}: {exc}") from None

    def engine_path(self, rules: BonusRules, strategy: Any) -> str:
        key_of = getattr(strategy, "key", None)  # a policy's key names its table
        if key_of is None:
            return super().engine_path(rules, strategy)
        key = (rules, key_of())
        if key not in _PATHS:
            if len(_PATHS) > 256:
                _PATHS.clear()
            _PATHS[key] = super().engine_path(rules, strategy)
        return _PATHS[key]

    def exact(self, rules: BonusRules, strategy: Any,
              progression: ProgressionSpec) -> ExactValue | None:
        value = policy_value(rules, strategy)  # an offered table's, cached per policy
        if value is None:
            return super().exact(rules, strategy, progression)
        return _exact_value(value)

    def exact_table(self, rules: BonusRules, table: PolicyTable,
                    progression: ProgressionSpec) -> ExactValue | None:
        return _exact_value(evaluate(grid_for(rules), table))

    def exact_unavailable(self, rules: BonusRules, strategy: Any,
                          progression: ProgressionSpec) -> str:
        return ("no exact value: the policy is not a table over (balance, wagering left) that "
                "the dynamic programme can read")

    def extra_columns(self, stats: Stats) -> dict[str, float]:
        n = stats.rounds
        done = stats.counters.get("complete", 0.0)
        out = {"p_complete": done / n if n else np.nan,
               "p_complete_se": _posterior_sd(done, n) if n else np.nan}
        for name in END_NAMES[1:]:
            out[f"p_{name}"] = stats.counter_rate(name)
        out["mean_cashout"] = stats.counter_rate("payout")
        out["bets_per_player"] = stats.counter_rate("bets")
        return out

    def bench_cases(self) -> list[BenchCase]:
        rules = PRESETS["seed"]
        grid = grid_for(rules)
        state = kernel_state(np.random.SeedSequence(1))

        def kernel(stake: float):
            table = Flat(stake).bonus_table(grid)
            return lambda n: walk_table(grid, table, n, state)

        def reference(n: int) -> object:
            return simulate_reference(grid, Flat(25.0), n, generator(np.random.SeedSequence(1)))

        def programme(n: int) -> object:
            # Requirement W = sqrt(n) at stake 1: about W x (W + 100) states, close to n.
            w = max(10, int(math.sqrt(n)))
            sized = BonusRules(wagering=w / 100.0)
            return evaluate(grid_for(sized), Flat(1.0).bonus_table(grid_for(sized)))

        return [
            BenchCase("seed bonus, flat 1, ~1,700 bets a player (kernel)", "players",
                      kernel(1.0)),
            BenchCase("seed bonus, flat 25, ~36 bets a player (kernel)", "players",
                      kernel(25.0)),
            BenchCase("seed bonus, flat 25, ~36 bets a player (reference path)", "players",
                      reference, reference=True),
            BenchCase("exact programme, flat stake 1 (forward pass)", "states", programme),
        ]

    @staticmethod
    def _policies(rules: BonusRules) -> list[tuple[str, Any]]:
        """Flat stakes the terms allow, bold play and the optimum (the exact tables' rows)."""
        step = int(grid_for(rules).games["step"][0]) * rules.unit
        stakes = [s for s in TABLE_STAKES if s % step == 0 and
                  (not rules.max_bet or s <= rules.max_bet)]
        return ([(f"flat {s:g}", Flat(s)) for s in stakes]
                + [("bold", Bold()), ("optimal", Optimal())])

    def exact_tables(self, rules: BonusRules) -> dict[str, pd.DataFrame]:
        from sim.games.bonus.operator import claims_table, policy_rows

        policies = self._policies(rules)
        rows, values = policy_rows(rules, policies)
        dist, claims = [], []
        for label in (policies[0][0], "optimal"):
            value = values[label]
            for x, p in zip(value.payouts, value.probabilities):
                dist.append({"policy": label, "payout": x, "probability": p})
            if value.tail_probability:
                dist.append({"policy": label, "payout": value.tail_mean,
                             "probability": value.tail_probability, "note":
                             "above the grid: mean of the payouts there"})
            claims.append(claims_table(value).assign(policy=label))
        claims_frame = pd.concat(claims, ignore_index=True)
        claims_frame = claims_frame[["policy", *claims_frame.columns[:-1]]]
        return {"bets": pd.DataFrame(rows), "cashout": pd.DataFrame(dist),
                "claims": claims_frame}

    def exact_charts(self, rules: BonusRules) -> dict[str, Any]:
        from sim.games.bonus.charts import cashout_chart, stake_chart

        policies = self._policies(rules)
        chosen = [policies[0], policies[-1]]
        return {"stakes": stake_chart(rules, optimal=Optimal()),
                "cashout": cashout_chart([(label, policy_value(rules, p))
                                          for label, p in chosen])}


GAME = BonusGame()
