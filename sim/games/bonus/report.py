"""What the bonus shows beside its numbers: a player's chance to complete the requirement and
how the walk ended, the cash-out, the exact value of every stake (``houseedge exact``) with the
operator's cost of repeated claims, its charts, and the cases ``houseedge bench`` measures."""

from __future__ import annotations

import math
from collections.abc import Collection
from typing import Any

import numpy as np
import pandas as pd

from sim.core.stats import Stats
from sim.games.base import REFERENCE, BenchCase, Presentation
from sim.games.bonus.dp import evaluate
from sim.games.bonus.lattice import END_NAMES, lattice_for
from sim.games.bonus.players import Bold, FlatStake, OptimalStakes
from sim.games.bonus.terms import PRESETS, BonusRules
from sim.games.bonus.value import policy_value

TABLE_STAKES = (1.0, 5.0, 25.0, 100.0)


def _posterior_sd(k: float, n: int) -> float:
    # SD of a proportion under a uniform prior: never 0, close to the binomial SE when k is
    # large; the honest error bar when completions are rare (k = 0 included).
    return math.sqrt((k + 1) * (n - k + 1) / ((n + 2) ** 2 * (n + 3)))


def table_policies(rules: BonusRules) -> list[tuple[str, Any]]:
    """The flat stakes the terms allow, bold play and the optimum (the exact tables' rows)."""
    step = int(lattice_for(rules).games["step"][0]) * rules.unit
    stakes = [s for s in TABLE_STAKES if s % step == 0 and
              (not rules.max_bet or s <= rules.max_bet)]
    return ([(f"flat {s:g}", FlatStake(s)) for s in stakes]
            + [("bold", Bold()), ("optimal", OptimalStakes())])


def _programme(n: int) -> object:
    """The exact programme's forward pass over about ``n`` states: requirement W = sqrt(n) at
    stake 1, about W x (W + 100) states."""
    w = max(10, int(math.sqrt(n)))
    sized = BonusRules(wagering=w / 100.0)
    return evaluate(lattice_for(sized), FlatStake(1.0).as_table(sized))


class BonusReport(Presentation[BonusRules]):
    """The bonus's columns, exact tables, charts and bench cases."""

    printed_tables = ("bets", "claims")

    def columns(self, stats: Stats) -> dict[str, float]:
        n = stats.rounds
        done = stats.counters.get("complete", 0.0)
        out = {"p_complete": done / n if n else np.nan,
               "p_complete_se": _posterior_sd(done, n) if n else np.nan}
        for name in END_NAMES[1:]:
            out[f"p_{name}"] = stats.counter_rate(name)
        out["mean_cashout"] = stats.counter_rate("payout")
        out["bets_per_player"] = stats.counter_rate("bets")
        return out

    def exact_tables(self, rules: BonusRules) -> dict[str, pd.DataFrame]:
        """``bets``: each policy's exact value; ``cashout``: the cash-out's law under the
        first and the optimal policy; ``claims``: their cost to the operator claimed again and
        again."""
        from sim.games.bonus.operator import claims_table, policy_rows

        policies = table_policies(rules)
        rows, values = policy_rows(rules, policies)
        dist, claims = [], []
        for label in (policies[0][0], "optimal"):
            value = values[label]
            for x, p in zip(value.payouts, value.probabilities):
                dist.append({"policy": label, "payout": x, "probability": p})
            if value.tail_probability:
                dist.append({"policy": label, "payout": value.tail_mean,
                             "probability": value.tail_probability, "note":
                             "above the lattice: mean of the payouts there"})
            claims.append(claims_table(value).assign(policy=label))
        claims_frame = pd.concat(claims, ignore_index=True)
        claims_frame = claims_frame[["policy", *claims_frame.columns[:-1]]]
        return {"bets": pd.DataFrame(rows), "cashout": pd.DataFrame(dist),
                "claims": claims_frame}

    def exact_charts(self, rules: BonusRules, names: Collection[str] | None = None
                     ) -> dict[str, Any]:
        """``stakes``: profit and P(complete) against a flat stake, the optimum beside;
        ``cashout``: the cash-out's law under the first and the optimal policy."""
        from sim.games.bonus.charts import cashout_chart, stake_chart

        charts: dict[str, Any] = {}
        if names is None or "stakes" in names:
            charts["stakes"] = stake_chart(rules, optimal=OptimalStakes())
        if names is None or "cashout" in names:
            policies = table_policies(rules)
            chosen = [policies[0], policies[-1]]
            charts["cashout"] = cashout_chart([(label, policy_value(rules, p))
                                               for label, p in chosen])
        return charts

    def bench_cases(self) -> list[BenchCase]:
        rules = PRESETS["seed"]
        return [
            BenchCase("seed bonus, flat 1, ~1,700 bets a player (kernel)", "players", rules,
                      FlatStake(1.0).as_table(rules)),
            BenchCase("seed bonus, flat 25, ~36 bets a player (kernel)", "players", rules,
                      FlatStake(25.0).as_table(rules)),
            BenchCase("seed bonus, flat 25, ~36 bets a player (reference path)", "players",
                      rules, FlatStake(25.0), REFERENCE),
            BenchCase("exact programme, flat stake 1 (forward pass)", "states", run=_programme),
        ]


REPORT = BonusReport()
__all__ = ["REPORT", "TABLE_STAKES", "BonusReport", "table_policies"]
