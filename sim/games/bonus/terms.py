"""Wagering bonuses: the terms as data, the games played, and what a player sees.

See ``docs/rules/scratchcards.md``. A round is one player's life with one bonus: deposit,
bonus credited, bets until the requirement is met (then the balance is withdrawn), the balance
no longer covers a stake (bust), the player walks away, or the time limit runs out.

Decisions recorded where real terms differ (each is a parameter where sites differ):

* cashable: once the requirement is met, the whole balance is withdrawable; sticky: the bonus
  amount is removed at cash-out; parachute (non-sticky): real money is played first, may be
  withdrawn at any time (the bonus is then forfeited), and the bonus is credited only when
  the real money no longer covers a stake (what is left of it joins the bonus); a requirement
  met while still on real money turns the bonus into cash as well.
* ``max_cashout`` caps what a completed bonus pays out of bonus money (cashable and sticky:
  the withdrawal; parachute: the bonus part).
* Leaving before completion (walking away, or running out of bets under a time limit)
  forfeits the bonus: ``forfeit = "bonus"`` takes the bonus amount off the balance and pays
  the rest; ``forfeit = "all"`` pays nothing of a locked balance. Real money of a parachute
  bonus is always the player's.
* Every stake counts towards the requirement times its game's contribution, pushes included;
  a game with no contribution is not offered (it could only lose money).
* Payouts are in whole units of ``unit``: stakes are multiples of a game's smallest stake
  that pays whole units on every outcome.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache, reduce

import numpy as np

from sim import games
from sim.core.errors import InputError, RuleError
from sim.core.validation import check_fields

KINDS = ("cashable", "sticky", "parachute")
FORFEITS = ("bonus", "all")
BASES = ("bonus", "deposit+bonus")
CASHABLE, STICKY, PARACHUTE = 0, 1, 2
BONUS_PHASE, REAL_PHASE = 0, 1
MAX_STATES = 60_000_000  # balance x wagering states the exact programme may hold


def _lcm(a: int, b: int) -> int:
    return a * b // math.gcd(a, b)


def _fraction(x: float | str) -> Fraction:
    return Fraction(x).limit_denominator(10**6) if not isinstance(x, str) else Fraction(x)


@dataclass(frozen=True)
class PlayedGame:
    """A game as the bonus sees it: what one unit staked returns, and how often.

    Attributes:
        name: the spec it was made from (``scratch:<table>``, ``faro:rank``, ...).
        returns: total returned per unit staked on each outcome (0: lost; 2: even money won).
        probabilities: the probability of each outcome.
    """

    name: str
    returns: tuple[Fraction, ...]
    probabilities: tuple[float, ...]

    @property
    def mean(self) -> float:
        return float(np.dot([float(r) for r in self.returns], self.probabilities))

    @property
    def edge(self) -> float:
        """House edge per unit staked."""
        return 1.0 - self.mean

    @property
    def variance(self) -> float:
        r = np.array([float(x) for x in self.returns])
        return float(((r - self.mean) ** 2) @ np.array(self.probabilities))

    @property
    def stake_step(self) -> int:
        """The smallest stake (in units) that pays whole units on every outcome."""
        return reduce(_lcm, (r.denominator for r in self.returns), 1)


def scratch_table(spec: object) -> str | None:
    """The prize table of a ``scratch:<table>`` game (a shipped name or a file), else None."""
    if isinstance(spec, str) and spec.startswith("scratch:") and spec != "scratch:":
        return spec.removeprefix("scratch:")
    return None


@lru_cache(maxsize=64)
def played_game(spec: str) -> PlayedGame:
    """The game named by ``spec``.

    ``scratch:<table>`` (an online scratch card: a stake buys one ticket priced at the stake;
    a printed table is played as a virtual series), ``faro:rank`` (a bet on one rank left until
    it is decided, from the first turn; a split loses half), ``faro:high-card`` (the winning
    card outranks the losing card; a pair is a push), ``even-money:<p>`` (wins 1:1 with
    probability p, e.g. ``even-money:18/37``).

    Raises:
        ValueError: unknown game or bad parameter (the message says what was expected).
    """
    kind, _, arg = spec.partition(":")
    if kind == "scratch" and arg:
        try:
            table = games.get("scratchcard").prize_table(arg)
        except InputError as exc:
            raise ValueError(str(exc)) from None
        price = _fraction(table.price)
        probs = table.tier_probabilities()
        returns = tuple(_fraction(p) / price for p in table.prizes) + (Fraction(0),)
        return PlayedGame(spec, returns, (*probs.tolist(), max(0.0, 1.0 - float(probs.sum()))))
    if kind == "faro" and arg in ("rank", "high-card"):
        faro = games.get("faro")
        rules = faro.rules_type()
        odds = faro.opening_odds(arg, rules)
        if arg == "rank":
            decided = odds.win + odds.lose + odds.split
            return PlayedGame(spec, (Fraction(2), Fraction(0), 1 - _fraction(rules.split_take)),
                              (odds.win / decided, odds.lose / decided, odds.split / decided))
        return PlayedGame(spec, (Fraction(2), Fraction(0), Fraction(1)),
                          (odds.win, odds.lose, odds.none))
    if kind == "even-money" and arg:
        try:
            p = _fraction(arg)
        except (ValueError, ZeroDivisionError):
            p = Fraction(-1)
        if not 0 <= p <= 1:
            raise ValueError(f"even-money: expected a win probability in [0, 1] such as 0.486 "
                             f"or 18/37, got {arg!r}")
        return PlayedGame(spec, (Fraction(2), Fraction(0)), (float(p), float(1 - p)))
    raise ValueError(f"unknown game {spec!r} (expected scratch:<table>, faro:rank, "
                     "faro:high-card or even-money:<p>)")


def _number(x: object) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _whole(x: float, unit: float) -> bool:
    return abs(x / unit - round(x / unit)) < 1e-9


@dataclass(frozen=True)
class BonusRules:
    """The terms of a bonus, and the games it may be played on.

    Attributes:
        deposit: the player's deposit.
        match: the bonus as a share of the deposit (1.0: 100%).
        cap: the largest bonus (0: no cap).
        wagering: the requirement as a multiple of ``wagering_of``.
        wagering_of: ``"bonus"`` or ``"deposit+bonus"``.
        games: the games that may be played (see :func:`played_game`).
        contributions: the share of a stake on each game that counts towards the requirement.
        max_bet: the largest stake while wagering (0: none).
        max_cashout: the most a completed bonus pays out of bonus money (0: no cap).
        max_bets: the time limit, as a number of bets (0: none).
        kind: ``"cashable"``, ``"sticky"`` or ``"parachute"``.
        forfeit: what leaving before completion costs: ``"bonus"`` or ``"all"``.
        unit: the money step: every amount and payout is a whole number of units.
    """

    deposit: float = 100.0
    match: float = 1.0
    cap: float = 100.0
    wagering: float = 20.0
    wagering_of: str = "bonus"
    games: tuple[str, ...] = ("scratch:online-example",)
    contributions: tuple[float, ...] = (1.0,)
    max_bet: float = 0.0
    max_cashout: float = 0.0
    max_bets: int = 0
    kind: str = "cashable"
    forfeit: str = "bonus"
    unit: float = 1.0

    def __post_init__(self) -> None:
        for name in ("games", "contributions"):
            value = getattr(self, name)
            if isinstance(value, (list, tuple)):
                object.__setattr__(self, name, tuple(value))
            elif isinstance(value, str) and name == "games":
                object.__setattr__(self, name, (value,))
        checks = [
            ("unit", _number(self.unit) and self.unit > 0, "a positive number"),
            ("deposit", _number(self.deposit) and self.deposit > 0, "a positive amount"),
            ("match", _number(self.match) and self.match >= 0, "a share >= 0 (1.0: 100%)"),
            ("cap", _number(self.cap) and self.cap >= 0, "an amount >= 0 (0: no cap)"),
            ("wagering", _number(self.wagering) and self.wagering >= 0, "a multiple >= 0"),
            ("wagering_of", self.wagering_of in BASES, " or ".join(map(repr, BASES))),
            ("games", bool(self.games) and all(isinstance(g, str) for g in self.games),
             "a non-empty list of game names"),
            ("max_bet", _number(self.max_bet) and self.max_bet >= 0, "an amount >= 0 (0: none)"),
            ("max_cashout", _number(self.max_cashout) and self.max_cashout >= 0,
             "an amount >= 0 (0: none)"),
            ("max_bets", isinstance(self.max_bets, int) and not isinstance(self.max_bets, bool)
             and self.max_bets >= 0, "a whole number >= 0 (0: no time limit)"),
            ("kind", self.kind in KINDS, " or ".join(map(repr, KINDS))),
            ("forfeit", self.forfeit in FORFEITS, " or ".join(map(repr, FORFEITS))),
        ]
        check_fields(self, checks)
        if len(self.contributions) != len(self.games):
            raise RuleError("contributions", self.contributions,
                            detail=f"expected one per game ({len(self.games)}), got "
                            f"{len(self.contributions)}")
        for i, c in enumerate(self.contributions):
            if not (_number(c) and 0 < c <= 1):
                raise RuleError("contributions", self.contributions,
                                detail=f"expected shares in (0, 1] (a game that does "
                                f"not count is never worth playing), got {c!r} for game {i}")
        for i, spec in enumerate(self.games):
            try:
                played_game(spec)
            except ValueError as exc:
                raise RuleError("games", self.games,
                                detail=f"game {i}: {exc}") from None
        for name in ("deposit", "max_bet", "max_cashout"):
            if not _whole(getattr(self, name), self.unit):
                raise RuleError(name, getattr(self, name),
                                detail=f"{getattr(self, name):g} is not a whole number of "
                                f"units ({self.unit:g})")
        self._check_feasible()

    def _check_feasible(self) -> None:
        steps = [played_game(g).stake_step * self.unit for g in self.games]
        if self.max_bet and self.max_bet < min(steps):
            raise RuleError("max_bet", self.max_bet,
                            detail=f"{self.max_bet:g} is below the smallest stake of every "
                            f"game ({min(steps):g})")
        start = self.deposit if self.kind == "parachute" else self.deposit + self.bonus
        if start < min(steps) and self.bonus + self.deposit < min(steps):
            raise RuleError("deposit", self.deposit,
                            detail=f"a balance of {start:g} does not cover the smallest "
                            f"stake ({min(steps):g})")
        wq = self.wagering_scale
        if not _whole(self.requirement * wq, self.unit):
            raise RuleError("wagering", self.wagering,
                            detail=f"a requirement of {self.requirement:g} is not a whole "
                            f"number of wagering units ({self.unit / wq:g})")
        if self.max_bets and self.max_bet:
            most = self.max_bets * self.max_bet * max(self.contributions)
            if most < self.requirement:
                raise RuleError("max_bets", self.max_bets,
                                detail=f"the requirement of {self.requirement:g} cannot be "
                                f"met in {self.max_bets} bets of at most {self.max_bet:g} "
                                f"(at most {most:g} counts)")
        states = (self.requirement / self.unit * wq + 1) * (
            (start + self.requirement / min(self.contributions) + self.bonus
             + self.max_cashout) / self.unit)
        if states > MAX_STATES:
            raise RuleError("unit", self.unit,
                            detail=f"the exact programme would hold about {states:,.0f} states "
                            f"(at most {MAX_STATES:,}); use a larger unit")

    # ------------------------------------------------------------------ derived terms
    @property
    def bonus(self) -> float:
        """The bonus credited (whole units, rounded down)."""
        raw = self.match * self.deposit
        if self.cap:
            raw = min(raw, self.cap)
        return math.floor(raw / self.unit + 1e-9) * self.unit

    @property
    def requirement(self) -> float:
        """The amount to wager (weighted by contribution) before withdrawing."""
        base = self.bonus if self.wagering_of == "bonus" else self.deposit + self.bonus
        return self.wagering * base

    @property
    def wagering_scale(self) -> int:
        """Wagering sub-units per money unit (contributions such as 0.1 need tenths)."""
        return reduce(_lcm, (_fraction(c).denominator for c in self.contributions), 1)

    def played(self) -> tuple[PlayedGame, ...]:
        return tuple(played_game(g) for g in self.games)

    def naive_profit(self, game: int = 0) -> float:
        """The naive value "bonus - requirement x edge" of playing one game throughout."""
        g = played_game(self.games[game])
        # Rounded to a billionth: 1 - 0.95 is not 0.05 in binary, and 0.0 should read 0.0.
        return round(self.bonus - self.requirement / self.contributions[game] * g.edge, 9) + 0.0


PRESETS = {
    "seed": BonusRules(),
    "seed-sticky": BonusRules(kind="sticky"),
    "seed-parachute": BonusRules(kind="parachute"),
    "seed-max-bet-5": BonusRules(max_bet=5.0),
    "seed-max-cashout-300": BonusRules(max_cashout=300.0),
    "seed-oh-snap": BonusRules(games=("scratch:oh-snap",)),
    "seed-two-games": BonusRules(games=("scratch:online-example", "faro:high-card"),
                                 contributions=(1.0, 0.5)),
}


@dataclass(frozen=True)
class BonusBet:
    """A bet: ``stake`` (money) on game number ``game`` of the terms."""

    stake: float
    game: int = 0


@dataclass(frozen=True)
class BonusView:
    """What a player sees before each bet (never the generator).

    Attributes:
        balance: the balance now (real money in a parachute's real phase).
        wagering_left: what is left of the requirement.
        wagered: stakes placed so far.
        bets: bets placed so far.
        phase: ``"real"`` (a parachute's real money) or ``"bonus"``.
        bets_left: bets left under the time limit, or None.
        rules: the terms.
    """

    balance: float
    wagering_left: float
    wagered: float
    bets: int
    phase: str
    bets_left: int | None
    rules: BonusRules
