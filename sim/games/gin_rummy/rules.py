"""Gin rummy: the deal as data (see ``docs/rules/gin_rummy.md``).

An odds engine reaches the dealt hand: ten cards from the pack, their melds, deadwood and
gin. The play (drawing, discarding, knocking, laying off) is not modelled.
"""

from __future__ import annotations

from dataclasses import dataclass

from sim.core.cards import N_RANKS, N_SUITS
from sim.core.errors import RuleError
from sim.core.validation import check_fields


@dataclass(frozen=True)
class GinRules:
    """The dealt hand of gin rummy.

    Attributes:
        hand_size: cards in the hand (10 dealt; 11 after a draw, before the discard).
        knock_limit: the most deadwood a player may knock with (10).
        rank_count: the pack keeps the lowest ``rank_count`` ranks (13: the full pack; fewer
            for exact enumeration in tests).
        suits: the pack keeps this many suits.
    """

    hand_size: int = 10
    knock_limit: int = 10
    rank_count: int = N_RANKS
    suits: int = N_SUITS

    def __post_init__(self) -> None:
        def whole(x: object) -> bool:
            return isinstance(x, int) and not isinstance(x, bool)

        checks = [
            ("hand_size", whole(self.hand_size) and 1 <= self.hand_size <= 13, "1..13"),
            ("knock_limit", whole(self.knock_limit) and 0 <= self.knock_limit <= 30, "0..30"),
            ("rank_count", whole(self.rank_count) and 3 <= self.rank_count <= N_RANKS, "3..13"),
            ("suits", whole(self.suits) and 1 <= self.suits <= N_SUITS, "1..4"),
        ]
        check_fields(self, [(name, ok, f"an integer {allowed}") for name, ok, allowed in checks])
        if self.hand_size > self.rank_count * self.suits:
            raise RuleError("hand_size", self.hand_size,
                            detail=f"{self.hand_size} cards from a pack of "
                            f"{self.rank_count * self.suits}")


# eleven cards: the hand after a draw; all eleven melding is "big gin" in some rules
PRESETS = {"ten-card": GinRules(), "eleven-card": GinRules(hand_size=11)}
