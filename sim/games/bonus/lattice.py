"""The terms on an integer lattice, the payoffs at the end of play, and policies as tables.

Money is counted in whole units (``rules.unit``) and the requirement in wagering units
(``unit / wagering_scale``), so the exact programme and the simulated players walk the same
integer states: phase (a parachute's real money, or bonus money), balance ``b`` and wagering
left ``w``.

A policy is a table of (stake, game) over the states with ``b <= bmax``, plus one action per
(phase, w) for every balance above ``bmax`` (the *rich* region). ``bmax`` is chosen so that
from any rich state the player can neither bust nor cross a kink of the payoffs before the play
ends, whatever happens: there every payoff is affine in the final balance and the rest of play
has an exact closed form (see :mod:`.dp`). This is what keeps the programme exact although a
scratch card can multiply a stake by 1,000.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

import numba
import numpy as np

from sim.core import kernel_cache  # noqa: F401  (compiled code cached by digest)
from sim.games.bonus.terms import BONUS_PHASE, KINDS, PARACHUTE, REAL_PHASE, BonusRules

# Ends of play (counters and the forward programme use these indices).
COMPLETE, BUST, WALK, TIMEOUT = 0, 1, 2, 3
END_NAMES = ("complete", "bust", "walk", "timeout")


@numba.njit(cache=True)
def complete_payoff(kind: int, phase: int, b: int, bonus: int, cap: int) -> int:
    """What a completed requirement pays, in units."""
    if kind == 1:  # sticky: the bonus is removed at cash-out
        x = b - bonus if b > bonus else 0
        return min(x, cap) if cap > 0 else x
    if kind == 2 and phase == 1:  # parachute, still on real money: the bonus becomes cash
        return b + (min(bonus, cap) if cap > 0 else bonus)
    return min(b, cap) if cap > 0 else b


@numba.njit(cache=True)
def leave_payoff(kind: int, forfeit_all: bool, phase: int, b: int, bonus: int) -> int:
    """What leaving before completion (walking away, timing out, busting) pays, in units."""
    if kind == 2:  # parachute: real money is the player's; the bonus balance is forfeited
        return b if phase == 1 else 0
    if forfeit_all:
        return 0
    return b - bonus if b > bonus else 0


def _affine_complete(kind: int, phase: int, bonus: int, cap: int) -> tuple[int, int]:
    # (alpha, beta) of complete_payoff for balances above every kink.
    if kind == 2 and phase == 1:
        return 1, (min(bonus, cap) if cap else bonus)
    if cap:
        return 0, cap
    return 1, (-bonus if kind == 1 else 0)


def _affine_leave(kind: int, forfeit_all: bool, phase: int, bonus: int) -> tuple[int, int]:
    if kind == 2:
        return (1, 0) if phase == 1 else (0, 0)
    return (0, 0) if forfeit_all else (1, -bonus)


@dataclass(frozen=True, eq=False)
class Lattice:
    """The terms in whole units, and the games as arrays (what the kernels read).

    Attributes:
        rules: the terms.
        unit: money per unit.
        deposit, bonus: in units.
        requirement: the requirement in wagering units (``unit / wagering_scale``).
        wagering_scale: wagering units per money unit.
        max_bet, cap: the max bet and max cashout in units (0: none).
        kind: CASHABLE, STICKY or PARACHUTE.
        forfeit_all: leaving early forfeits the whole locked balance.
        max_bets: the time limit in bets (0: none).
    """

    rules: BonusRules
    unit: float
    deposit: int
    bonus: int
    requirement: int
    wagering_scale: int
    max_bet: int
    cap: int
    kind: int
    forfeit_all: bool
    max_bets: int

    @classmethod
    def of(cls, rules: BonusRules) -> Lattice:
        u, wq = float(rules.unit), rules.wagering_scale

        def whole(x: float) -> int:
            return int(round(x / u))

        return cls(rules, u, whole(rules.deposit), whole(rules.bonus),
                   int(round(rules.requirement / u * wq)), wq, whole(rules.max_bet),
                   whole(rules.max_cashout), KINDS.index(rules.kind), rules.forfeit == "all",
                   rules.max_bets)

    @property
    def phases(self) -> int:
        return 2 if self.kind == PARACHUTE else 1

    @property
    def start(self) -> tuple[int, int]:
        """(phase, balance) at the first bet."""
        if self.kind == PARACHUTE:
            return REAL_PHASE, self.deposit
        return BONUS_PHASE, self.deposit + self.bonus

    # ---------------------------------------------------------------- the games
    @cached_property
    def games(self) -> dict[str, np.ndarray]:
        played = self.rules.played()
        width = max(len(g.returns) for g in played)
        returns = np.zeros((len(played), width))
        probs = np.zeros((len(played), width))
        for i, g in enumerate(played):
            returns[i, :len(g.returns)] = [float(x) for x in g.returns]
            probs[i, :len(g.returns)] = g.probabilities
        cdf = np.cumsum(probs, axis=1)
        cdf[:, -1] = np.maximum(cdf[:, -1], 1.0)  # rounding must not leave a gap at the top
        wq = self.wagering_scale
        return {
            "returns": returns, "probs": probs, "cdf": cdf,
            "nout": np.array([len(g.returns) for g in played], dtype=np.int64),
            "cw": np.array([int(round(c * wq)) for c in self.rules.contributions],
                           dtype=np.int64),
            "step": np.array([g.stake_step for g in played], dtype=np.int64),
            "mean": np.array([g.mean for g in played]),
            "var": np.array([g.variance for g in played]),
        }

    @property
    def min_stake(self) -> int:
        return int(self.games["step"].min())

    @property
    def kink(self) -> int:
        """Balances at or above which every payoff is affine and no bust is possible."""
        return self.bonus + self.cap + self.min_stake

    def params(self, bmax: int) -> np.ndarray:
        """The integer terms the kernels read."""
        return np.array([self.kind, int(self.forfeit_all), self.bonus, self.cap,
                         self.min_stake, self.requirement, bmax, self.phases, self.max_bets,
                         self.max_bet], dtype=np.int64)

    # ---------------------------------------------------------------- helpers for policies
    def need(self, w: np.ndarray, g: np.ndarray) -> np.ndarray:
        """The smallest stake on game ``g`` that completes ``w`` wagering units at once."""
        step = self.games["step"][g]
        per = self.games["cw"][g] * step
        return -(-np.asarray(w) // per) * step

    def largest_stake(self, b: np.ndarray, g: np.ndarray) -> np.ndarray:
        """The largest stake allowed on game ``g`` with balance ``b`` (0 if none)."""
        step = self.games["step"][g]
        top = np.asarray(b)
        if self.max_bet:
            top = np.minimum(top, self.max_bet)
        return top // step * step

    def leave_value(self, phase: np.ndarray, b: np.ndarray) -> np.ndarray:
        """What walking away pays now (vectorised :func:`leave_payoff`)."""
        phase, b = np.asarray(phase), np.asarray(b)
        if self.kind == PARACHUTE:
            return np.where(phase == REAL_PHASE, b, 0)
        if self.forfeit_all:
            return np.zeros_like(b)
        return np.maximum(b - self.bonus, 0)

    def affine_ends(self) -> np.ndarray:
        """(alpha, beta) of the complete and leave payoffs per phase: shape (phases, 2, 2)."""
        out = np.zeros((self.phases, 2, 2), dtype=np.int64)
        for p in range(self.phases):
            out[p, 0] = _affine_complete(self.kind, p, self.bonus, self.cap)
            out[p, 1] = _affine_leave(self.kind, self.forfeit_all, p, self.bonus)
        return out

    def money(self, units: float) -> float:
        return units * self.unit

    def wagering_money(self, w: float) -> float:
        return w * self.unit / self.wagering_scale


@lru_cache(maxsize=64)
def lattice_for(rules: BonusRules) -> Lattice:
    """The integer lattice of some terms (built once per process)."""
    return Lattice.of(rules)


@dataclass(frozen=True, eq=False)
class PolicyTable:
    """A policy as arrays: the action in every state, and in the rich region.

    Attributes:
        stake: stake in units (0: walk away), shape (layers, phases, W + 1, bmax + 1); layers
            is 1 unless the action depends on the bets made (an optimal policy under a time
            limit: one layer per bet).
        game: the game of each action, same shape.
        rich_stake: the action for any balance above ``bmax``, shape (layers, phases, W + 1).
        rich_game: its game.
    """

    stake: np.ndarray
    game: np.ndarray
    rich_stake: np.ndarray
    rich_game: np.ndarray

    @property
    def bmax(self) -> int:
        return self.stake.shape[3] - 1

    def action(self, layer: int, phase: int, w: int, b: int) -> tuple[int, int]:
        """(stake, game) in one state."""
        layer = min(layer, self.stake.shape[0] - 1)
        if b > self.bmax:
            return int(self.rich_stake[layer, phase, w]), int(self.rich_game[layer, phase, w])
        return int(self.stake[layer, phase, w, b]), int(self.game[layer, phase, w, b])


def rich_losses(lattice: Lattice, rich_stake: np.ndarray, rich_game: np.ndarray) -> np.ndarray:
    """Per (phase, w): the most a rich player can lose before play ends (sum of its stakes)."""
    cw = lattice.games["cw"]
    loss = np.zeros(rich_stake.shape, dtype=np.int64)
    for w in range(1, rich_stake.shape[1]):
        s = rich_stake[:, w]
        after = np.maximum(w - s * cw[rich_game[:, w]], 0)
        loss[:, w] = np.where(s > 0, s + loss[np.arange(len(s)), after], 0)
    return loss


def choose_bmax(lattice: Lattice, rich_stake: np.ndarray, rich_game: np.ndarray,
                horizon: int) -> int:
    """The top of the balance lattice: above it, the rich closure is exact (see module doc)."""
    phase, balance = lattice.start
    worst = int(rich_losses(lattice, rich_stake, rich_game).max())
    return int(max(balance, horizon, lattice.kink + worst, lattice.min_stake + lattice.bonus)) + 1
