"""Faro and stuss: the rules as data, the bets, and what a player sees.

See ``docs/rules/faro.md`` for the rules and the decisions taken where the source is silent.
A deal runs through the whole pack: the soda is burned, then turns of two cards (the first
loses, the second wins); an odd card left at the end is the hock, which has no action.
"""

from __future__ import annotations

from dataclasses import dataclass

from sim.core.cards import N_RANKS, PackRules
from sim.core.errors import RuleError
from sim.core.validation import check_fields, is_int

HIGH_CARD_PAIR_RULES = ("push", "lose-half")


def _is_half_multiple(x: float) -> bool:
    return float(2 * x).is_integer()


@dataclass(frozen=True)
class FaroRules(PackRules):
    """Every rule a faro variant can change.

    Attributes:
        split_take: share of each bet on a split rank that the house takes (faro 0.5, stuss 1).
        soda: the top card is burned before the first turn.
        last_winner_void: the last card, on a winning position, is void (old pharo).
        call_turn_pays: odds paid for calling the last turn, three ranks different.
        cat_hop_pays: odds paid for calling the last turn with a pair among the three.
        high_card_pair: a high-card bet on a pair is a ``"push"`` or ``"lose-half"``.
        packs: how many 52-card packs are mixed.
        rank_count: the pack keeps the lowest ``rank_count`` ranks (13: the full pack; fewer
            for exact enumeration in tests).
        suits: the pack keeps this many suits.
    """

    split_take: float = 0.5
    soda: bool = True
    last_winner_void: bool = False
    call_turn_pays: float = 4.0
    cat_hop_pays: float = 1.0
    high_card_pair: str = "push"
    packs: int = 1
    rank_count: int = N_RANKS
    suits: int = 4

    def __post_init__(self) -> None:
        checks = [
            ("split_take", isinstance(self.split_take, (int, float)) and 0 <= self.split_take <= 1
             and _is_half_multiple(self.split_take), "0, 0.5 or 1"),
            ("soda", isinstance(self.soda, bool), "true or false"),
            ("last_winner_void", isinstance(self.last_winner_void, bool), "true or false"),
            ("call_turn_pays", isinstance(self.call_turn_pays, (int, float))
             and self.call_turn_pays >= 0 and _is_half_multiple(self.call_turn_pays),
             "a non-negative multiple of 0.5"),
            ("cat_hop_pays", isinstance(self.cat_hop_pays, (int, float))
             and self.cat_hop_pays >= 0 and _is_half_multiple(self.cat_hop_pays),
             "a non-negative multiple of 0.5"),
            ("high_card_pair", self.high_card_pair in HIGH_CARD_PAIR_RULES,
             " or ".join(repr(r) for r in HIGH_CARD_PAIR_RULES)),
            ("packs", isinstance(self.packs, int) and not isinstance(self.packs, bool)
             and 1 <= self.packs <= 8, "an integer 1..8"),
            ("rank_count", is_int(self.rank_count) and 2 <= self.rank_count <= N_RANKS,
             "an integer 2..13"),
            ("suits", isinstance(self.suits, int) and not isinstance(self.suits, bool)
             and 1 <= self.suits <= 4, "an integer 1..4"),
        ]
        check_fields(self, checks)
        if self.n_cards - int(self.soda) < 3:
            raise RuleError("rank_count", self.rank_count,
                            detail=f"a pack of {self.n_cards} cards is too small to deal")

    # ------------------------------------------------------------- the deal's shape
    @property
    def n_turns(self) -> int:
        """Turns in a deal."""
        return (self.n_cards - int(self.soda)) // 2

    @property
    def has_hock(self) -> bool:
        """An odd card is left at the end (the hock, no action)."""
        return (self.n_cards - int(self.soda)) % 2 == 1


PRESETS = {
    "faro": FaroRules(),
    "stuss": FaroRules(split_take=1.0),
    "stuss-no-soda": FaroRules(split_take=1.0, soda=False),
    "old-pharo": FaroRules(soda=False, last_winner_void=True),
}


# ------------------------------------------------------------------------------ bets
@dataclass(frozen=True)
class RankBet:
    """A bet on one rank or on a set of ranks, to win or coppered (to lose).

    Resolved at the first turn in which a covered rank shows: wins if only the winning card is
    covered, loses if only the losing card is, no action if both are, of different ranks; a
    split (both cards of one covered rank) costs ``split_take`` of the stake.
    """

    ranks: frozenset[int]
    coppered: bool = False
    units: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "ranks", frozenset(self.ranks))


@dataclass(frozen=True)
class HighCardBet:
    """The winning card outranks the losing card (ace low); a pair per ``high_card_pair``."""

    units: float = 1.0


@dataclass(frozen=True)
class CallTurnBet:
    """The exact order (loser, winner, hock) of the last three cards."""

    order: tuple[int, int, int]
    units: float = 1.0


FaroBet = RankBet | HighCardBet | CallTurnBet


@dataclass(frozen=True)
class FaroView:
    """What a player sees before a turn: the case keeper, never the cards to come.

    Attributes:
        turn: index of the coming turn (0-based).
        turns: turns in the deal.
        remaining: cards of each rank not yet shown (13 entries; includes the hock).
        cards_left: cards left in the box.
        last_turn: (losing rank, winning rank) of the previous turn, or None.
        winner_void: the coming turn's winning card will be void (old pharo's last turn).
        can_call_turn: three cards are left (loser, winner, hock): the turn may be called.
        unit: the current stake unit of the strategy's progression.
    """

    turn: int
    turns: int
    remaining: tuple[int, ...]
    cards_left: int
    last_turn: tuple[int, int] | None
    winner_void: bool
    can_call_turn: bool
    unit: float = 1.0
