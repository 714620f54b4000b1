"""Exact values in the infinite deck: any table strategy against any banker table.

Drawing with replacement, the cards removed never matter, so the composition-dependent
recursion of :mod:`sim.games.pontoon.exact_deal` caches what is left of a deal by the
banker's signal and the pending split hands alone: a few hundred states, a few milliseconds
(well under a second even for a strategy that splits every pair into four hands). The banker's
final distribution is computed once per signal he can read.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from sim.games.base import ExactValue
from sim.games.pontoon.banker_odds import banker_distribution, banker_structure
from sim.games.pontoon.exact_deal import DealExact, deal_exact
from sim.games.pontoon.hand import N_SCORES, NO_LIVE_HAND
from sim.games.pontoon.rules import VALUES, PontoonRules
from sim.games.pontoon.tables import BankerTable, PlayerTable


def infinite_rules(rules: PontoonRules) -> PontoonRules:
    """The same rules drawn from an infinite deck (one seat or more alike)."""
    return rules if rules.infinite_deck else dataclasses.replace(rules, infinite_deck=True)


def infinite_exact(rules: PontoonRules, player: PlayerTable, banker: BankerTable) -> DealExact:
    """Exact expectations of a deal in the infinite deck (per seat, events, banker scores)."""
    exact = deal_exact(infinite_rules(rules), player, banker, budget=10**9)
    assert exact is not None
    return exact


def infinite_value(rules: PontoonRules, player: PlayerTable, banker: BankerTable
                   ) -> ExactValue:
    """Exact expectations per deal in the infinite deck (all punter seats together)."""
    return infinite_exact(rules, player, banker).value()


def value_law(rules: PontoonRules) -> np.ndarray:
    """Probability of each card value 1..10 on a draw (index = value)."""
    law = np.zeros(11)
    for r, p in enumerate(rules.rank_probabilities()):
        law[VALUES[r]] += p
    return law


def banker_by_key(rules: PontoonRules, banker: BankerTable) -> np.ndarray:
    """The banker's final score distribution for each signal he may read, times the chance
    that he has no pontoon: an array (keys of his table, N_SCORES): N_KEYS, or N_KEYS per
    stake level where he reads them. Keys he stands on alike share one computation."""
    law = value_law(rules)
    five_rule = rules.banker_five_card_trick
    out = np.zeros((banker.n_keys, N_SCORES))
    done: dict[bytes, np.ndarray] = {}
    for key in range(banker.n_keys):
        if not banker.keyed and key not in (0, NO_LIVE_HAND):
            out[key] = out[0]
            continue
        policy = b"none" if key == NO_LIVE_HAND else banker.draw[key].tobytes()
        if policy not in done:
            rows, ways = banker_structure(key, banker.draw.ravel(), banker.keyed, five_rule)
            done[policy] = banker_distribution(rows, ways, law, 0, True)
        out[key] = done[policy]
    return out


def outcome_table(rules: PontoonRules) -> pd.DataFrame:
    """Exact edges of threshold punters (stick on 14..18, soft 18) against bankers standing on
    15..18, in the infinite deck, per initial stake (positive: the banker wins)."""
    rules = infinite_rules(rules)
    rows = []
    for stand in range(15, 19):
        banker = BankerTable.stand_on(stand)
        row: dict[str, object] = {"banker stands on": stand}
        for stick in range(max(14, rules.stick_min), 19):
            value = infinite_value(rules, PlayerTable.threshold(rules, stick, 18), banker)
            row[f"punter sticks on {stick}"] = value.edge_per_initial_bet
        rows.append(row)
    return pd.DataFrame(rows)
