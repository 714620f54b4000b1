"""A plain-Python bonus policy built into a :class:`PolicyTable`.

A policy table holds an action for every state (phase, wagering left, balance): millions of
states under ordinary terms (4.2 M for the seed bonus), far too many to ask a Python strategy
about one by one. A policy whose answer does not depend on the balance needs one answer per
(phase, wagering left), a few thousand: the engine asks it about those, with a view that stops
it at a read of the balance (or of the bets made, the amount wagered, the bets left under a
time limit), and spreads each answer over every balance. A policy that reads the balance stays
on the reference path (write it as a vectorised rule, :class:`strategies.bonus.RulePolicy`, to
put it on the kernel). The table is then checked as the built-ins' are: a stake the terms do
not allow at some balance (above it, above the max bet) keeps the policy on the reference path,
which reports it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sim.core.tabulate import NotTabulable, Tabulation, ask, cached, tabulation
from sim.games.bonus.lattice import Lattice, PolicyTable
from sim.games.bonus.policy import tabulate as tabulate_rule
from sim.games.bonus.terms import BONUS_PHASE, REAL_PHASE, BonusBet, BonusView

FIELDS = ("wagering_left", "phase", "rules")


class _Answers:
    """The strategy's answers as a vectorised rule (what :func:`tabulate_rule` reads)."""

    def __init__(self, stake: np.ndarray, game: np.ndarray) -> None:
        self.stake, self.game = stake, game

    def actions(self, lattice: Lattice, phase: np.ndarray, w: np.ndarray, b: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
        shape = np.broadcast_shapes(np.shape(phase), np.shape(w), np.shape(b))
        return (np.broadcast_to(self.stake[phase, w], shape),
                np.broadcast_to(self.game[phase, w], shape))

    def horizon(self, lattice: Lattice) -> int:
        return 0  # the answer never depends on the balance


def build(lattice: Lattice, strategy: Any) -> PolicyTable:
    """The strategy as a :class:`PolicyTable` (see the module notes).

    Raises:
        NotTabulable: why it cannot be one.
    """
    stake = np.zeros((lattice.phases, lattice.requirement + 1), dtype=np.int64)
    game = np.zeros_like(stake)
    phases = (BONUS_PHASE, REAL_PHASE)[:lattice.phases]
    for phase in phases:
        for w in range(1, lattice.requirement + 1):
            view = BonusView(0.0, lattice.wagering_money(w), 0.0, 0,
                             "real" if phase == REAL_PHASE else "bonus",
                             lattice.max_bets or None, lattice.rules)
            answer = ask(strategy, "decide", view, FIELDS,
                         describe=lambda v: f"wagering left {v.wagering_left:g}")
            if answer is None:
                continue
            if not isinstance(answer, BonusBet):
                raise NotTabulable(f"it answers {answer!r}, not a BonusBet or None (the "
                                   "reference path reports it)")
            units = answer.stake / lattice.unit
            if not (isinstance(answer.game, int) and abs(units - round(units)) < 1e-9
                    and units > 0):
                raise NotTabulable(f"it answers {answer!r}, which the terms do not allow (the "
                                   "reference path reports it)")
            stake[phase, w], game[phase, w] = round(units), answer.game
    try:
        return tabulate_rule(lattice, _Answers(stake, game), "the strategy")
    except (ValueError, IndexError) as exc:
        raise NotTabulable(f"its stakes are not allowed everywhere ({exc}; the reference path "
                           "reports it)") from None


def tabulate(lattice: Lattice, strategy: Any) -> Tabulation[PolicyTable]:
    """The strategy as a policy table, or the reason it stays on the reference path (built
    once per terms and strategy)."""
    return cached(lattice.rules, strategy, lambda: tabulation(lambda: build(lattice, strategy)))
