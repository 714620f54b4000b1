"""Newmarket: the rules as data, the play policies as data, and what a player sees.

See ``docs/rules/newmarket.md``. Cards are ``suit * 13 + rank``: suits clubs, diamonds,
hearts, spades (0..3; clubs and spades black), ranks 0 the two .. 12 the ace.
"""

from __future__ import annotations

from dataclasses import dataclass

from sim.core.errors import RuleError
from sim.core.validation import check_fields, is_int

BOODLE_CARDS = {
    "text": (3 * 13 + 9, 1 * 13 + 10, 0 * 13 + 11, 2 * 13 + 12),  # J spades, Q d, K c, A h
    "kings": (0 * 13 + 11, 1 * 13 + 11, 2 * 13 + 11, 3 * 13 + 11),
}
CHANGES = ("colour", "suit")
# play policies: how a player who must begin a new run chooses its suit
POLICY_NAMES = ("longest", "shortest", "boodle", "lowest")
MAX_DEALS = 200  # a round still unfinished after this many deals returns the boodle money


@dataclass(frozen=True)
class NewmarketRules:
    """Every rule a newmarket variant can change.

    Attributes:
        players: 3..8 players, seats 0..players-1; the deal goes to the left (seat s to s+1),
            and seat 0 deals the first deal of every round.
        boodle: the boodle (pay) cards: ``"text"`` (jack of spades, queen of diamonds, king of
            clubs, ace of hearts) or ``"kings"`` (the four kings).
        kitty_stake: units each player puts in the kitty every deal.
        boodle_stake: units each player puts on each boodle card every deal.
        change: a player who begins a new run must change to a suit of another ``"colour"``
            (the text's rule) or only to another ``"suit"`` (the variant the text advises).
    """

    players: int = 4
    boodle: str = "text"
    kitty_stake: int = 2
    boodle_stake: int = 1
    change: str = "colour"

    def __post_init__(self) -> None:
        checks = [
            ("players", is_int(self.players) and 3 <= self.players <= 8, "an integer 3..8"),
            ("boodle", self.boodle in BOODLE_CARDS, "'text' or 'kings'"),
            ("kitty_stake", is_int(self.kitty_stake) and self.kitty_stake >= 0,
             "an integer >= 0"),
            ("boodle_stake", is_int(self.boodle_stake) and self.boodle_stake >= 0,
             "an integer >= 0"),
            ("change", self.change in CHANGES, "'colour' or 'suit'"),
        ]
        check_fields(self, checks)
        if self.kitty_stake + self.boodle_stake == 0:
            raise RuleError("kitty_stake", self.kitty_stake,
                            detail="a game needs some stake (kitty or boodle)")

    @property
    def boodle_cards(self) -> tuple[int, ...]:
        return BOODLE_CARDS[self.boodle]

    @property
    def stake_per_deal(self) -> int:
        """What each player puts in every deal."""
        return self.kitty_stake + 4 * self.boodle_stake


@dataclass(frozen=True)
class NewmarketView:
    """What a player who must begin a new run sees: his seat and hand (card codes, sorted),
    the suits he may begin with, the boodle cards still holding money, and the cards left
    in each player's hand."""

    seat: int
    hand: tuple[int, ...]
    allowed: tuple[int, ...]
    boodle_live: tuple[int, ...]
    cards_left: tuple[int, ...]


@dataclass(frozen=True)
class NewmarketTable:
    """A newmarket strategy as data: every seat's play policy (an index of POLICY_NAMES)."""

    policies: tuple[int, ...]

    def __post_init__(self) -> None:
        if any(not 0 <= p < len(POLICY_NAMES) for p in self.policies):
            raise RuleError("policies", self.policies,
                            detail=f"expected indices of {POLICY_NAMES}")


PRESETS = {
    "four": NewmarketRules(),
    "five": NewmarketRules(players=5),
    "kings-suit": NewmarketRules(boodle="kings", change="suit"),
    "three": NewmarketRules(players=3),
}
