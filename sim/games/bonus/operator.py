"""The operator's view: what a bonus costs, repeated under fake accounts, and term by term.

The cost of one bonus is the player's expected profit against the deposit (what the operator
pays out beyond what it took in from that deposit). A player who claims it ``k`` times under
fake accounts plays ``k`` independent bonuses: the cost is ``k`` times as large, its SD
``sqrt(k)`` times, and the chance that the multi-accounter ends ahead comes from the k-fold
convolution of the payout distribution.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from sim.games.bonus.dp import BonusValue
from sim.games.bonus.terms import BonusRules, played_game


def _difference(a: float, b: float) -> float:
    """``a - b``, where a difference within rounding of the two (a few parts in 1e12 of
    their size) is zero: two routes to the same exact value differ only by float noise."""
    gap = a - b
    return 0.0 if abs(gap) <= 1e-9 * max(abs(a), abs(b), 1.0) else gap


def value_row(rules: BonusRules, label: str, value: BonusValue) -> dict[str, Any]:
    """One row of a policy's exact outcome, with the naive value beside it."""
    naive = rules.naive_profit(0)
    # Optional stopping: every bet loses its edge on average, so the final balance (before
    # the terms take anything back) has E = deposit + bonus - edge x E[wagered] on one game.
    # Not for a parachute: its bonus is credited only if the real money runs out.
    identity = math.nan
    if len(rules.games) == 1 and rules.kind != "parachute":
        identity = rules.bonus - played_game(rules.games[0]).edge * value.mean_wagered
    return {
        "policy": label,
        "expected_payout": value.mean_payout,
        "expected_profit": value.expected_profit,
        "naive_profit": naive,
        "naive_error": naive - value.expected_profit,
        "naive_impossible": naive < -rules.deposit,
        "final_balance_profit": identity,
        "taken_back_by_terms": _difference(identity, value.expected_profit),
        "p_complete": value.p_complete,
        "p_bust": value.p_bust,
        "p_walk": value.p_walk,
        "p_timeout": value.p_timeout,
        "mean_wagered": value.mean_wagered,
        "mean_bets": value.mean_bets,
        "sd_payout": value.sd_payout,
    }


def policy_rows(rules: BonusRules, policies: Iterable[tuple[str, Any]]
                ) -> tuple[list[dict[str, Any]], dict[str, BonusValue]]:
    """Exact rows for several policies, and their values by label."""
    from sim.games.bonus.value import policy_value

    rows, values = [], {}
    for label, policy in policies:
        value = policy_value(rules, policy)
        values[label] = value
        rows.append(value_row(rules, label, value))
    return rows, values


def _distribution(value: BonusValue, deposit: float) -> tuple[np.ndarray, np.ndarray, float]:
    """Profit distribution on a whole-unit lattice (the tail above the lattice at its mean)."""
    payouts = list(value.payouts)
    probs = list(value.probabilities)
    if value.tail_probability:
        payouts.append(value.tail_mean)
        probs.append(value.tail_probability)
    step = math.gcd(*(int(round(x)) for x in [*payouts, deposit] if round(x))) or 1
    lattice = np.round(np.array(payouts) / step).astype(np.int64)
    dense = np.zeros(lattice.max() + 1)
    np.add.at(dense, lattice, probs)
    return dense, np.arange(len(dense)) * step, float(step)


def claims_cost(value: BonusValue, k: int) -> dict[str, float]:
    """Cost of one player claiming the bonus ``k`` times (independent accounts).

    ``p_player_ahead`` is computed on the payout lattice (by FFT, to about 1e-12); payouts above
    the lattice of the programme (rare large wins) enter at their mean.
    """
    dense, values, step = _distribution(value, value.deposit)
    # The k-fold convolution at once, by FFT: the sum of k accounts' payouts.
    size = k * (len(dense) - 1) + 1
    total = np.clip(np.fft.irfft(np.fft.rfft(dense, size) ** k, size), 0.0, None)
    sums = np.arange(len(total)) * step
    return {
        "claims": k,
        "expected_cost": k * value.expected_profit,
        "sd_cost": math.sqrt(k) * value.sd_payout,
        "p_player_ahead": float(total[sums > k * value.deposit + 1e-9].sum()),
        "p_player_behind": float(total[sums < k * value.deposit - 1e-9].sum()),
    }


def claims_table(value: BonusValue, counts: Sequence[int] = (1, 2, 5, 10, 20)) -> pd.DataFrame:
    """Cost and the multi-accounter's chance to be ahead after k claims."""
    return pd.DataFrame([claims_cost(value, k) for k in counts])


def term_effects(rules: BonusRules, policies: Iterable[tuple[str, Any]],
                 changes: Mapping[str, Sequence[Any]]) -> pd.DataFrame:
    """Cost and P(complete) as each term moves alone from ``rules``, for each policy.

    Args:
        rules: the reference terms.
        policies: (label, policy) pairs.
        changes: term name -> values to try (e.g. ``{"wagering": [10, 20, 30]}``).
    """
    from sim.games.bonus.value import policy_value

    policies = list(policies)
    rows = []
    for term, values in changes.items():
        for x in values:
            changed = dataclasses.replace(rules, **{term: x})
            for label, policy in policies:
                value = policy_value(changed, policy)
                rows.append({"term": term, "value": x, "policy": label,
                             "cost": value.expected_profit, "p_complete": value.p_complete,
                             "p_bust": value.p_bust, "mean_wagered": value.mean_wagered,
                             "naive_cost": changed.naive_profit(0)})
    return pd.DataFrame(rows)
