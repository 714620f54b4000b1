"""Bonus player policies: what to stake, on which game, and when to walk away.

Each is one vectorised rule of the state (phase, balance, wagering left) that serves three
paths: the exact programme and the compiled walk read its table over every state, and the
reference path asks it one view at a time. Amounts are money (multiples of the terms' unit); a
stake the terms do not allow somewhere (above the max bet, not a multiple of the game's
smallest stake) is an error before anything runs. A stake above the max bet is cut to it, and
a balance below the stake is bet in full (rounded down to what the game allows).
"""

from __future__ import annotations

import numpy as np

from sim.core.memo import remember, table_cache
from sim.games.bonus.dp import optimal_table
from sim.games.bonus.lattice import Lattice, PolicyTable, lattice_for
from sim.games.bonus.policy import decide_by_rule, tabulate, view_state
from sim.games.bonus.terms import BonusBet, BonusRules, BonusView

DEFAULT_STAKES = (1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0)


def _units(lattice: Lattice, money: float, name: str) -> int:
    units = money / lattice.unit
    if money < 0 or abs(units - round(units)) > 1e-9:
        raise ValueError(f"{name}: {money:g} is not a whole number of units "
                         f"({lattice.unit:g}) >= 0")
    return int(round(units))


def _stake(lattice: Lattice, money: float, game: int, name: str) -> int:
    s = _units(lattice, money, name)
    step = int(lattice.games["step"][game])
    if s <= 0 or s % step:
        raise ValueError(f"{name}: {money:g} is not a positive multiple of the smallest stake "
                         f"{step * lattice.unit:g} of {lattice.rules.games[game]}")
    return s


def _game(lattice: Lattice, game: int, name: str = "game") -> int:
    if isinstance(game, bool) or not isinstance(game, int) or not 0 <= game < len(
            lattice.rules.games):
        raise ValueError(f"{name}: expected a game number 0..{len(lattice.rules.games) - 1}, "
                         f"got {game!r}")
    return game


class RulePolicy:
    """A policy given by a vectorised rule; see the module doc."""

    name = "rule"
    stop_at = 0.0

    def key(self) -> tuple:
        """What identifies the policy (tables are cached on it)."""
        return (type(self).__name__, tuple(sorted(vars(self).items())))

    def as_table(self, rules: BonusRules) -> PolicyTable:
        """The policy over every state of the terms' lattice."""
        return _table(lattice_for(rules), self)

    def decide(self, view: BonusView, rng: object) -> BonusBet | None:
        return decide_by_rule(lattice_for(view.rules), self, view)

    def stops(self, lattice: Lattice, phase: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Walk away at ``stop_at`` (if set) where walking away pays something."""
        if not self.stop_at:
            return np.zeros(np.broadcast(phase, b).shape, dtype=bool)
        target = _units(lattice, self.stop_at, "stop_at")
        return (b >= target) & (lattice.leave_value(phase, b) > 0)

    def horizon(self, lattice: Lattice) -> int:
        return _units(lattice, self.stop_at, "stop_at")

    def actions(self, lattice: Lattice, phase: np.ndarray, w: np.ndarray, b: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError


# Tables are cached per process on (terms, policy parameters), within a bound in bytes: a
# worker builds each once while it plays that row's chunks.
_TABLES = table_cache()


def _table(lattice: Lattice, policy: RulePolicy) -> PolicyTable:
    return remember(_TABLES, (lattice.rules, policy.key()),
                    lambda: tabulate(lattice, policy, policy.name))


class FlatStake(RulePolicy):
    """The same stake on one game every bet (walking away at stop_at, if set)."""

    name = "flat"

    def __init__(self, stake: float = 1.0, game: int = 0, stop_at: float = 0.0) -> None:
        self.stake, self.game, self.stop_at = stake, game, stop_at

    def actions(self, lattice, phase, w, b):
        g = _game(lattice, self.game)
        s = np.minimum(_stake(lattice, self.stake, g, "stake"), lattice.largest_stake(b, g))
        s = np.where(self.stops(lattice, phase, b), 0, s)
        return s, np.full(np.shape(s), g)

    def horizon(self, lattice):
        return max(super().horizon(lattice), _units(lattice, self.stake, "stake"))


class Bold(RulePolicy):
    """Stake the most allowed, never more than what finishes the requirement at once.

    The most allowed: the balance, cut to the max bet.
    """

    name = "bold"

    def __init__(self, game: int = 0, stop_at: float = 0.0) -> None:
        self.game, self.stop_at = game, stop_at

    def actions(self, lattice, phase, w, b):
        g = _game(lattice, self.game)
        s = np.minimum(lattice.largest_stake(b, g), lattice.need(w, g))
        s = np.where(self.stops(lattice, phase, b), 0, s)
        return s, np.full(np.shape(s), g)

    def horizon(self, lattice):
        g = _game(lattice, self.game)
        return max(super().horizon(lattice), int(lattice.need(lattice.requirement, g)))


class TwoTier(RulePolicy):
    """A big stake while the balance is below target, a small one from there on."""

    name = "two-tier"

    def __init__(self, big: float = 10.0, small: float = 1.0, target: float = 300.0,
                 game: int = 0, stop_at: float = 0.0) -> None:
        self.big, self.small, self.target, self.game, self.stop_at = (big, small, target, game,
                                                                       stop_at)

    def actions(self, lattice, phase, w, b):
        g = _game(lattice, self.game)
        big, small = _stake(lattice, self.big, g, "big"), _stake(lattice, self.small, g, "small")
        s = np.where(b < _units(lattice, self.target, "target"), big, small)
        s = np.minimum(s, lattice.largest_stake(b, g))
        s = np.where(self.stops(lattice, phase, b), 0, s)
        return s, np.full(np.shape(s), g)

    def horizon(self, lattice):
        return max(super().horizon(lattice), _units(lattice, self.target, "target"),
                   _units(lattice, self.big, "big"))


class SwitchGame(RulePolicy):
    """One game and stake until the wagering left falls to switch_at, then another.

    The other game is by default the terms' last; its stake by default the same.
    """

    name = "switch-game"

    def __init__(self, stake: float = 1.0, game: int = 0, then_game: int | None = None,
                 then_stake: float = 0.0, switch_at: float = 1000.0,
                 stop_at: float = 0.0) -> None:
        self.stake, self.game, self.then_game = stake, game, then_game
        self.then_stake, self.switch_at, self.stop_at = then_stake, switch_at, stop_at

    def actions(self, lattice, phase, w, b):
        then = len(lattice.rules.games) - 1 if self.then_game is None else self.then_game
        g1, g2 = _game(lattice, self.game), _game(lattice, then, "then_game")
        s1 = _stake(lattice, self.stake, g1, "stake")
        s2 = _stake(lattice, self.then_stake or self.stake, g2, "then_stake")
        switch = _units(lattice, self.switch_at, "switch_at") * lattice.wagering_scale
        late = np.asarray(w) <= switch
        g = np.where(late, g2, g1)
        s = np.minimum(np.where(late, s2, s1), lattice.largest_stake(b, g))
        s = np.where(self.stops(lattice, phase, b), 0, s)
        return s, np.broadcast_to(g, np.shape(s))

    def horizon(self, lattice):
        return max(super().horizon(lattice), _units(lattice, self.stake, "stake"),
                   _units(lattice, self.then_stake or self.stake, "then_stake"))


def _optimal(rules: BonusRules, stakes: tuple[float, ...], games: tuple[int, ...] | None
             ) -> PolicyTable:
    return remember(_TABLES, (rules, ("OptimalStakes", stakes, games)),
                    lambda: optimal_table(lattice_for(rules), stakes, games))


class OptimalStakes:
    """The best stake and game in every state, from the exact programme.

    Best: the largest expected withdrawal, among the listed stakes, all-in (cut to the max
    bet) and the stake that finishes the requirement at once, and walking away. Under a max
    bet this is the optimum over those stakes; without one, play above the programme's lattice
    stakes at most what finishes the requirement (a rich balance is not staked at once).
    """

    name = "optimal"

    def __init__(self, stakes: tuple[float, ...] | list[float] = DEFAULT_STAKES,
                 games: tuple[int, ...] | list[int] | None = None) -> None:
        self.stakes = tuple(float(s) for s in stakes)
        self.games = tuple(games) if games is not None else None

    def key(self) -> tuple:
        return ("OptimalStakes", self.stakes, self.games)

    def as_table(self, rules: BonusRules) -> PolicyTable:
        """The best action in every state of the terms' lattice."""
        lattice = lattice_for(rules)
        for g in self.games or ():
            _game(lattice, g, "games")
        return _optimal(rules, self.stakes, self.games)

    def decide(self, view: BonusView, rng: object) -> BonusBet | None:
        lattice = lattice_for(view.rules)
        phase, w, b = view_state(lattice, view)
        s, g = self.as_table(view.rules).action(view.bets, phase, w, b)
        return BonusBet(s * lattice.unit, g) if s > 0 else None
