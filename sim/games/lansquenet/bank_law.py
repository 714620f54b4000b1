"""The exact distribution of a bank's result, from the punters' side.

The walk of :func:`~sim.games.lansquenet.exact.bank_value` gathers banks by their run and
carries the expected bank; for a distribution every walk carries its bank itself instead (the
bank after a run is the opening stake times one growth factor per coup survived, ``1 + take x
share`` for a jumelle and ``1 + share`` for a win, so banks with the same run and the same
bank are the same money and may be merged). A bank ends when the banker passes (he keeps the
bank), when no punter meets the stake (forced), or on a lost coup (he keeps only the part of
the bank nobody covered); each end adds its probability at the table's net, the opening stake
less what the banker keeps. A void coup returns the walk to a fresh pack. The sharper's stacked
coups are certain and played first, as in the expectation.

A bank that rides on for ever has its mass halve coup by coup, so the walk stops once what is
left is below 1e-15. Banks that reach a pack state the chain does not model are carried as
unknown mass with their bank: they are settled if the banker passes there, and otherwise the
bank has no exact law.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from sim.games.lansquenet.exact import MAX_COUPS, _Bank, rules_chain
from sim.games.lansquenet.rules import MONEY_EPS, LansquenetRules, LansquenetTable

LEFT_EPS = 1e-15


def bank_law(rules: LansquenetRules, table: LansquenetTable, banker: int = 0,
             opening: float = 1.0) -> tuple[np.ndarray, np.ndarray] | None:
    """(values, probabilities) of the table's net in a bank opened afresh by seat
    ``banker`` at ``opening`` units; None where the chain does not reach or the bank has not
    settled within MAX_COUPS coups."""
    chain = rules_chain(rules, table)
    if chain.void[chain.start] > 0 or table.bankers[banker].carry:
        return None
    acc = _Bank(rules, table, banker, chain)
    policy = acc.policy
    law: dict[float, float] = defaultdict(float)

    def end(mass: float, kept: float) -> None:
        if mass > 0:
            law[round((1.0 - kept) * opening, 12)] += mass

    bank, run = 1.0, 0
    state = chain.start
    if policy.portee:
        for _, outcome in acc.stacked_coups():
            share = float(acc.fractions(bank, run).sum())
            if share <= MONEY_EPS:
                end(1.0, bank)
                return _pairs(law)
            if not outcome:
                return None
            if outcome == "L":
                end(1.0, bank * (1.0 - share))
                return _pairs(law)
            bank *= 1.0 + (rules.jumelle_take if outcome == "J" else 1.0) * share
            run += 1
            if policy.passes(bank, 1.0, run):
                end(1.0, bank)
                return _pairs(law)
        found = acc.state_after_stacked()
        if found is None:
            return None
        state = found
    mass = np.zeros(chain.size)
    mass[state] = 1.0
    layer = {(run, round(bank, 12)): (bank, mass, 0.0)}
    to_j, to_w = chain.forward
    for _ in range(MAX_COUPS):
        nxt: dict = {}
        left = 0.0
        for (run, _), (bank, mass, unknown) in layer.items():
            total = float(mass.sum()) + unknown
            if run and policy.passes(bank, 1.0, run):
                end(total, bank)
                continue
            share = float(acc.fractions(bank, run).sum())
            if share <= MONEY_EPS:
                end(total, bank)
                continue
            if unknown > 1e-14:
                return None  # banks going on from pack states the chain does not model
            mass = mass.copy()
            mass[chain.start] += float(mass @ chain.void)  # a void coup: a fresh pack
            end(float(mass @ chain.lose), bank * (1.0 - share))
            for gain, p, matrix in ((rules.jumelle_take, chain.jumelle, to_j),
                                    (1.0, chain.win, to_w)):
                moved = matrix @ mass
                lost = max(0.0, float(mass @ p) - float(moved.sum()))  # into unmodelled states
                grown = bank * (1.0 + gain * share)
                key = (run + 1, round(grown, 12))
                if key in nxt:
                    nxt[key] = (grown, nxt[key][1] + moved, nxt[key][2] + lost)
                else:
                    nxt[key] = (grown, moved, lost)
                left += float(moved.sum()) + lost
        layer = nxt
        if left < LEFT_EPS:
            return _pairs(law) if abs(sum(law.values()) - 1.0) < 1e-12 else None
    return None


def _pairs(law: dict[float, float]) -> tuple[np.ndarray, np.ndarray]:
    values = np.array(sorted(law))
    probs = np.array([law[v] for v in values.tolist()])
    return values, probs / probs.sum()
