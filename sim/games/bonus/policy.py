"""Policies written once as vectorised rules, and the tables the kernels read.

A built-in policy is a function of the state arrays (phase, wagering left ``w``, balance ``b``,
all in lattice units) returning (stake, game); the same function answers one view on the
reference path, so the kernel, the exact programme and the reference path play one rule.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from sim.games.bonus.lattice import Lattice, PolicyTable, choose_bmax
from sim.games.bonus.terms import BONUS_PHASE, REAL_PHASE, BonusBet, BonusView

ROWS = 128          # rows of w tabulated at a time (bounds the temporaries)
RICH_BALANCE = 1 << 40  # "any balance above bmax" when asking a rule for its rich action


class VectorRule(Protocol):
    """What a tabulable policy offers."""

    def actions(self, lattice: Lattice, phase: np.ndarray, w: np.ndarray, b: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
        """(stake in units, 0 to walk away; game index) for broadcastable state arrays."""

    def horizon(self, lattice: Lattice) -> int:
        """A balance (units) above which the action no longer depends on the balance."""


def _validate(lattice: Lattice, stake: np.ndarray, game: np.ndarray, b: np.ndarray | None,
              who: str) -> None:
    steps = lattice.games["step"]
    if (game < 0).any() or (game >= len(steps)).any():
        raise ValueError(f"{who}: a game index outside 0..{len(steps) - 1}")
    bad = stake < 0
    if (steps != 1).any():  # with every step 1 each whole stake is a multiple (no division)
        bad |= stake % steps[game] != 0
    if lattice.max_bet:
        bad |= stake > lattice.max_bet
    if b is not None:
        bad |= stake > b
    if bad.any():
        i = np.argwhere(bad)[0]
        raise ValueError(f"{who}: stake {int(stake[tuple(i)])} units is not allowed at state "
                         f"{tuple(int(x) for x in i)} (stakes are whole multiples of the "
                         f"game's smallest stake {steps.tolist()}, within the balance and the "
                         "max bet)")


def tabulate(lattice: Lattice, rule: VectorRule, who: str = "policy") -> PolicyTable:
    """The table of a vectorised rule over the whole lattice (and its rich actions).

    Raises:
        ValueError: the rule asks for a stake the terms do not allow somewhere.
    """
    w_all = np.arange(lattice.requirement + 1, dtype=np.int64)
    phases = np.arange(lattice.phases, dtype=np.int64)[:, None]
    rich_stake, rich_game = (np.broadcast_to(a, (lattice.phases, len(w_all))).astype(np.int64)
                             for a in rule.actions(lattice, phases, w_all[None, :],
                                                   np.int64(RICH_BALANCE)))
    _validate(lattice, rich_stake, rich_game, None, who)
    bmax = choose_bmax(lattice, rich_stake, rich_game, rule.horizon(lattice))
    shape = (1, lattice.phases, len(w_all), bmax + 1)
    stake = np.zeros(shape, dtype=np.int32)
    game = np.zeros(shape, dtype=np.int8)
    b = np.arange(bmax + 1, dtype=np.int64)[None, None, :]
    for start in range(0, len(w_all), ROWS):
        w = w_all[start:start + ROWS][None, :, None]
        s, g = (np.broadcast_to(a, (lattice.phases, w.shape[1], bmax + 1))
                for a in rule.actions(lattice, phases[:, :, None], w, b))
        # Below the smallest stake no action is asked (the state is a bust).
        s = np.where(b >= lattice.min_stake, s, 0)
        _validate(lattice, s, g, np.broadcast_to(b, s.shape), who)
        stake[0, :, start:start + ROWS] = s
        game[0, :, start:start + ROWS] = g
    return PolicyTable(stake, game, rich_stake[None].astype(np.int32),
                       rich_game[None].astype(np.int8))


def view_state(lattice: Lattice, view: BonusView) -> tuple[int, int, int]:
    """(phase, w, b) in lattice units of a view."""
    phase = REAL_PHASE if view.phase == "real" else BONUS_PHASE
    w = int(round(view.wagering_left / lattice.unit * lattice.wagering_scale))
    return phase, w, int(round(view.balance / lattice.unit))


def decide_by_rule(lattice: Lattice, rule: VectorRule, view: BonusView) -> BonusBet | None:
    """A rule's answer to one view (the reference path's decision)."""
    phase, w, b = view_state(lattice, view)
    s, g = rule.actions(lattice, np.int64(phase), np.int64(w), np.int64(b))
    s = int(s)
    return BonusBet(s * lattice.unit, int(g)) if s > 0 else None
