"""Lansquenet: the rules as data, the seats' policies as data, and what a seat sees.

See ``docs/rules/lansquenet.md`` for the rules and the decisions taken where the source is
silent. A *coup*: the punters meet the banker's stake in turn (only the covered part is at
risk); two cards are turned, one for the table and one for the banker; both of one rank is a
*jumelle* (the banker takes half, or all, of the covered stake); otherwise cards are turned
until a card matches one of the two: the banker's matched first wins him the covered stake, the
table's loses it. A *bank* runs from the coup its banker opens to the coup he loses or the
moment he passes it on; the bank goes to the player on the left either way.

Money is in units of the base stake (the opening stake of a bank at a flat progression).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from sim.core.cards import N_RANKS, RANK_SYMBOLS, PackRules
from sim.core.errors import RuleError
from sim.core.validation import check_fields, is_int

FIRST_CARDS = ("table", "banker")
JUMELLE_RULES = ("half", "whole")
RESHUFFLE_RULES = ("bank", "coup")
# Q, Q, 10, 7, 10, 9, 9, A, 8, A: the portee of Robert-Houdin's sharper (ace low, ranks 0..12).
SOURCE_SERIES = (11, 11, 9, 6, 9, 8, 8, 0, 7, 0)
MONEY_EPS = 1e-9  # stakes are sums of binary fractions of the unit; compare with slack


@dataclass(frozen=True)
class LansquenetRules(PackRules):
    """Every rule a lansquenet variant can change.

    Attributes:
        punters: punters at the table besides the banker (2..8); seats are numbered 0..punters
            and the bank goes round them to the left (seat s passes to s + 1).
        first_card: whose card is turned first, ``"table"`` (default) or ``"banker"``. Fair
            play does not depend on it; a stacked pack does.
        jumelle: on a jumelle the banker takes ``"half"`` the covered stake or the ``"whole"``
            (German rules).
        reshuffle: ``"bank"``: a fresh pack when a bank starts, none between its coups, and a
            coup during which the pack runs out is void and the pack reshuffled (a pack found
            empty at the start of a coup is reshuffled without a void); ``"coup"``: a fresh
            pack before every coup.
        pool: the shares in which the seats put up each bank's opening stake and share in
            its result, counted from the banker to his left (``()``: the banker alone).
        packs: 52-card packs shuffled together (1..8).
        rank_count: the pack keeps the lowest ``rank_count`` ranks (13: the full pack; fewer
            for exact enumeration in tests).
        suits: the pack keeps this many suits.
        observed: a CSV of coups seen at a table played under these rules (``""``: none);
            ``houseedge exact`` reports how unlikely its longest run of banker wins is under
            fair play (see :mod:`sim.games.lansquenet.cheat`). In an experiment file a
            relative path is taken from the file's folder.
    """

    punters: int = 4
    first_card: str = "table"
    jumelle: str = "half"
    reshuffle: str = "bank"
    pool: tuple[float, ...] = ()
    packs: int = 1
    rank_count: int = N_RANKS
    suits: int = 4
    observed: str = ""

    def __post_init__(self) -> None:
        if isinstance(self.pool, list):
            object.__setattr__(self, "pool", tuple(self.pool))
        checks = [
            ("punters", is_int(self.punters) and 2 <= self.punters <= 8, "an integer 2..8"),
            ("first_card", self.first_card in FIRST_CARDS,
             " or ".join(repr(r) for r in FIRST_CARDS)),
            ("jumelle", self.jumelle in JUMELLE_RULES, " or ".join(repr(r) for r in JUMELLE_RULES)),
            ("reshuffle", self.reshuffle in RESHUFFLE_RULES,
             " or ".join(repr(r) for r in RESHUFFLE_RULES)),
            ("packs", is_int(self.packs) and 1 <= self.packs <= 8, "an integer 1..8"),
            ("rank_count", is_int(self.rank_count) and 2 <= self.rank_count <= N_RANKS,
             "an integer 2..13"),
            ("suits", is_int(self.suits) and 1 <= self.suits <= 4, "an integer 1..4"),
            ("observed", isinstance(self.observed, str), "a file path or \"\""),
        ]
        check_fields(self, checks)
        if self.max_per_rank < 2:
            raise RuleError("suits", self.suits,
                            detail=f"expected packs * suits >= 2 (a lone card of a rank is "
                            f"never matched), got {self.packs} pack(s) of {self.suits} suit(s)")
        if self.pool:
            shares = self.pool
            if (len(shares) != self.seats or not all(
                    isinstance(s, (int, float)) and not isinstance(s, bool) and math.isfinite(s)
                    and s >= 0 for s in shares) or abs(sum(shares) - 1.0) > 1e-9):
                raise RuleError("pool", self.pool,
                                detail=f"expected {self.seats} non-negative shares (banker first, "
                                f"then to his left) summing to 1, got {list(shares)!r}")

    # ------------------------------------------------------------------ derived facts
    @property
    def seats(self) -> int:
        return self.punters + 1

    @property
    def jumelle_take(self) -> float:
        """Share of the covered stake the banker takes on a jumelle."""
        return 0.5 if self.jumelle == "half" else 1.0

    @property
    def banker_first(self) -> bool:
        return self.first_card == "banker"

    @property
    def pool_shares(self) -> tuple[float, ...]:
        """Each seat's share of a bank, counted from the banker to his left."""
        return tuple(float(s) for s in self.pool) if self.pool else (1.0,) + (0.0,) * self.punters


PRESETS = {
    "one-pack": LansquenetRules(),
    "german": LansquenetRules(jumelle="whole"),
    "banker-first": LansquenetRules(first_card="banker"),
    "reshuffle": LansquenetRules(reshuffle="coup"),
    "six-packs": LansquenetRules(packs=6),
}


# ------------------------------------------------------------------ the stacked series
def split_coups(series: tuple[int, ...], banker_first: bool) -> list[tuple[tuple[int, ...], str]]:
    """The coups a series of ranks deals from the top of a pack, with their outcomes.

    Returns (cards, outcome) per coup, outcome ``"J"`` (jumelle), ``"W"`` (the banker's card
    matched first), ``"L"`` (the table's) or ``""`` for a last coup the series does not finish.
    """
    coups = []
    i = 0
    while i < len(series):
        first = series[i:i + 2]
        if len(first) < 2:
            coups.append((tuple(first), ""))
            break
        if first[0] == first[1]:
            coups.append((tuple(first), "J"))
            i += 2
            continue
        banker, table = (first[0], first[1]) if banker_first else (first[1], first[0])
        j = i + 2
        while j < len(series) and series[j] not in (banker, table):
            j += 1
        if j == len(series):
            coups.append((tuple(series[i:]), ""))
            break
        coups.append((tuple(series[i:j + 1]), "W" if series[j] == banker else "L"))
        i = j + 1
    return coups


def adapt_series(series: tuple[int, ...], banker_first: bool) -> tuple[int, ...]:
    """A series written for the banker's card first, rearranged for the rules' order: when the
    table's card is turned first, the first two cards of each coup change places."""
    if banker_first:
        return tuple(series)
    out: list[int] = []
    for cards, _ in split_coups(tuple(series), True):
        out.extend(cards[1::-1] + cards[2:] if len(cards) >= 2 else cards)
    return tuple(out)


def stacked_wins(series: tuple[int, ...], rules: LansquenetRules) -> int:
    """Coups won running (jumelles included) that ``series`` on top of a fresh pack deals the
    banker; under ``reshuffle="coup"`` only the first coup is dealt from the stacked pack."""
    won = 0
    for _, outcome in split_coups(tuple(series), rules.banker_first):
        if outcome not in ("J", "W"):
            break
        won += 1
        if rules.reshuffle == "coup":
            break
    return won


def check_series(series: tuple[int, ...], rules: LansquenetRules) -> None:
    """Raises ValueError unless the pack holds every card of ``series``."""
    totals = rules.rank_totals()
    need = np.bincount(np.asarray(series, dtype=np.int64), minlength=N_RANKS)
    for r in range(N_RANKS):
        if need[r] > totals[r]:
            raise ValueError(f"series: needs {need[r]} card(s) of rank {RANK_SYMBOLS[r]}, the pack "
                             f"holds {totals[r]}")


# ------------------------------------------------------------------ policies as data
@dataclass(frozen=True)
class BankerPolicy:
    """What a seat does with the bank.

    Attributes:
        pass_after: pass the bank after this many coups won running (jumelles count); 0: no
            such rule.
        target: pass when the bank reaches ``target`` times its opening stake; 0: none.
        carry: carry on a bank passed to this seat at the amount it was left at (otherwise open
            at the seat's own stake).
        portee: ranks stacked on top of the pack when this seat opens a bank (the sharper); the
            cards come out of the pack itself, which is not augmented.
    """

    pass_after: int = 0
    target: float = 0.0
    carry: bool = False
    portee: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "portee", tuple(int(r) for r in self.portee))
        if not is_int(self.pass_after) or self.pass_after < 0:
            raise RuleError("pass_after", self.pass_after, 'an integer >= 0',
                            f"expected an integer >= 0, got {self.pass_after!r}")
        if not isinstance(self.target, (int, float)) or not (self.target == 0 or
                                                              self.target > 1):
            raise RuleError("target", self.target, '0 (none) or a multiple > 1',
                            f"expected 0 (none) or a multiple > 1, got {self.target!r}")
        if any(not 0 <= r < N_RANKS for r in self.portee):
            raise RuleError("portee", self.portee, 'ranks 0..12',
                            f"expected ranks 0..12, got {self.portee!r}")

    def passes(self, bank: float, opening: float, run: int) -> bool:
        """After a won coup: True to take the bank and pass it on."""
        if self.pass_after and run >= self.pass_after:
            return True
        return bool(self.target) and bank >= self.target * opening - MONEY_EPS


@dataclass(frozen=True)
class PunterPolicy:
    """How much of a stake a seat meets when it punts.

    Attributes:
        share: offers to cover this share of the stake (1: the whole, "a moi le tout"), capped
            at what the punters nearer the banker left uncovered.
        limit: covers only stakes of at most this many units; 0: any stake.
        avoid_after: covers nothing once the bank has won this many coups running; 0: never.
        follow_after: covers all that is left uncovered once the bank has won this many coups
            running (betting that its luck must turn); 0: never.
    """

    share: float = 1.0
    limit: float = 0.0
    avoid_after: int = 0
    follow_after: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.share, (int, float)) or not 0 <= self.share <= 1:
            raise RuleError("share", self.share, 'a number 0..1',
                            f"expected a number 0..1, got {self.share!r}")
        if not isinstance(self.limit, (int, float)) or self.limit < 0:
            raise RuleError("limit", self.limit, 'a number >= 0',
                            f"expected a number >= 0, got {self.limit!r}")
        for name in ("avoid_after", "follow_after"):
            value = getattr(self, name)
            if not is_int(value) or value < 0:
                raise RuleError(name, value, "an integer >= 0")

    def cover(self, stake: float, uncovered: float, run: int) -> float:
        """The amount met of ``stake``, of which ``uncovered`` is still open."""
        if self.limit and stake > self.limit + MONEY_EPS:
            return 0.0
        if self.avoid_after and run >= self.avoid_after:
            return 0.0
        if self.follow_after and run >= self.follow_after:
            return uncovered
        return min(uncovered, self.share * stake)


@dataclass(frozen=True)
class LansquenetTable:
    """Every seat's policies: the form in which the kernel and the exact analysis take a
    strategy (one entry per seat, seat 0 first)."""

    bankers: tuple[BankerPolicy, ...]
    punters: tuple[PunterPolicy, ...] = field(default=())

    def __post_init__(self) -> None:
        if not self.bankers or len(self.bankers) != len(self.punters):
            raise ValueError("bankers and punters need one entry per seat")

    @property
    def seats(self) -> int:
        return len(self.bankers)

    def covers(self, banker: int, stake: float, run: int) -> list[float]:
        """What each seat meets of ``stake``, nearest the banker first (0 for the banker)."""
        n = self.seats
        out = [0.0] * n
        covered = 0.0
        for k in range(1, n):
            seat = (banker + k) % n
            left = stake - covered
            if left <= MONEY_EPS:
                break
            out[seat] = min(left, max(0.0, self.punters[seat].cover(stake, left, run)))
            covered += out[seat]
        return out


# ------------------------------------------------------------------ views and actions
@dataclass(frozen=True)
class Portee:
    """Open a bank with ``ranks`` stacked on top of the pack (a sharper's prepared series)."""

    ranks: tuple[int, ...]
    carry: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "ranks", tuple(self.ranks))


OpenAction = str | Portee  # "open" (at the seat's stake), "carry", or a Portee


@dataclass(frozen=True)
class OpenView:
    """A seat about to hold the bank.

    Attributes:
        seat: the seat (0..punters). seats: how many seats.
        unit: the opening stake at the seat's progression.
        carry: the amount at which the previous banker passed the bank (0.0: it was lost, so
            there is nothing to carry on).
        first_card: whose card is turned first (a sharper arranges his series by it).
        reshuffle: the pack rule (``"bank"`` or ``"coup"``).
    """

    seat: int
    seats: int
    unit: float
    carry: float
    first_card: str
    reshuffle: str


@dataclass(frozen=True)
class RideView:
    """The banker after a won coup: ``"ride"`` (the whole bank is the next stake) or
    ``"pass"``.

    Attributes:
        seat, seats: as in :class:`OpenView`.
        bank: the money in the bank. opening: its opening stake.
        run: coups won running (jumelles included). jumelles: how many of them were jumelles.
        cards_left: cards left in the pack.
        first_card, reshuffle: as in :class:`OpenView`.
    """

    seat: int
    seats: int
    bank: float
    opening: float
    run: int
    jumelles: int
    cards_left: int
    first_card: str
    reshuffle: str


@dataclass(frozen=True)
class PunterView:
    """A punter asked to meet the stake: the answer is an amount 0..uncovered, or ``"all"``.

    Attributes:
        seat, seats: as in :class:`OpenView`. banker: the banker's seat.
        position: 1 for the seat nearest the banker (first to meet), and so on.
        stake: the banker's stake this coup. uncovered: what is still open of it.
        run: coups the bank has won running. opening: the bank's opening stake.
        cards_left: cards left in the pack.
    """

    seat: int
    seats: int
    banker: int
    position: int
    stake: float
    uncovered: float
    run: int
    opening: float
    cards_left: int


View = OpenView | RideView | PunterView
