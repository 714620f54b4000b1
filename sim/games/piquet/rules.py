"""Piquet: the rules of a deal as data, the exchange policies as data, and what a player sees.

See ``docs/rules/piquet.md``. The 32-card pack is dealt 12 to each player and 8 to the talon.
Carte blanche is declared on the dealt hands; elder hand exchanges first, discarding one to
``elder_max`` cards and taking as many from the top of the talon; younger hand then discards
and takes in up to ``younger_max`` of what elder left. The hands' declarations are compared
and scored (see :mod:`.hand`), with repique. The play of the tricks (and so pique, and the
point for leading) is not modelled.
"""

from __future__ import annotations

from dataclasses import dataclass

from sim.core.errors import RuleError
from sim.core.validation import check_fields, is_int

HAND = 12
TALON = 8


@dataclass(frozen=True)
class PiquetRules:
    """Every rule a piquet variant can change.

    Attributes:
        elder_max: the most cards elder hand may exchange (1..8; 5 by the texts).
        younger_max: the most cards younger hand may exchange, within what elder left
            (1..8): 5 by the text ("up to five cards, depending on how many the Elder
            exchanged"); 8 lets him take every card elder left, as classical rules do.
        minimum_exchange: the fewest cards each player must exchange (0 or 1; the texts: 1).
        sets_from: the lowest rank that makes trios and quatorzes: ``"10"`` (the texts) or
            ``"9"``, ``"8"``, ``"7"``.
        carte_blanche: points for a dealt hand without a court card (10).
        repique: points added for a repique (60).
    """

    elder_max: int = 5
    younger_max: int = 5
    minimum_exchange: int = 1
    sets_from: str = "10"
    carte_blanche: int = 10
    repique: int = 60

    def __post_init__(self) -> None:
        checks = [
            ("elder_max", is_int(self.elder_max) and 1 <= self.elder_max <= TALON,
             "an integer 1..8"),
            ("younger_max", is_int(self.younger_max) and 1 <= self.younger_max <= TALON,
             "an integer 1..8"),
            ("minimum_exchange", self.minimum_exchange in (0, 1)
             and is_int(self.minimum_exchange), "0 or 1"),
            ("sets_from", self.sets_from in ("7", "8", "9", "10"), "'7', '8', '9' or '10'"),
            ("carte_blanche", is_int(self.carte_blanche) and self.carte_blanche >= 0,
             "an integer >= 0"),
            ("repique", is_int(self.repique) and self.repique >= 0, "an integer >= 0"),
        ]
        check_fields(self, checks)
        if self.elder_max == TALON and self.minimum_exchange:
            raise RuleError("elder_max", self.elder_max,
                            detail="8 leaves younger hand nothing to take, but "
                            "minimum_exchange is 1")

    @property
    def set_rank(self) -> int:
        """The rank index (0 = seven) from which sets count."""
        return ("7", "8", "9", "10").index(self.sets_from)


@dataclass(frozen=True)
class PiquetView:
    """What a player sees when he exchanges: his hand (card codes, sorted), his seat, how
    many cards he may take (``low``..``high``), the rules of the deal (from which rank sets
    count, among others), and whether carte blanche was declared by elder (younger sees it
    before his exchange)."""

    hand: tuple[int, ...]
    seat: str
    low: int
    high: int
    rules: PiquetRules
    elder_blanche: bool = False


@dataclass(frozen=True)
class ExchangePolicy:
    """An exchange policy as data: the kernel and the exact analysis read it.

    Each card of the hand gets a keep value: its rank (0 the seven .. 7 the ace), plus
    ``point`` if it is of the hand's point suit, plus ``sequence`` if it lies in a run of
    two or more of its suit, plus ``sets`` if its rank makes sets and the hand holds two or
    more of it. The player discards the ``take`` cards of lowest keep value (the lower card
    first on a tie), taking ``take`` cards: elder up to ``elder_take``, younger up to
    ``younger_take`` (0: every card he may), within what the rules allow.
    """

    elder_take: int = 5
    younger_take: int = 0
    point: float = 0.0
    sequence: float = 0.0
    sets: float = 0.0

    def __post_init__(self) -> None:
        if not (is_int(self.elder_take) and 0 <= self.elder_take <= TALON):
            raise RuleError("elder_take", self.elder_take, 'an integer 0..8',
                            f"expected an integer 0..8, got {self.elder_take!r}")
        if not (is_int(self.younger_take) and 0 <= self.younger_take <= TALON):
            raise RuleError("younger_take", self.younger_take, 'an integer 0..8',
                            f"expected an integer 0..8, got "
                            f"{self.younger_take!r}")


PRESETS = {
    "classic": PiquetRules(),
    "sets-from-nine": PiquetRules(sets_from="9"),
    "no-minimum": PiquetRules(minimum_exchange=0),
    "younger-takes-all": PiquetRules(younger_max=8),
}


# The exchange policies the built-in strategies play (strategies/piquet.py names them).
POLICIES = {
    "lowest": ExchangePolicy(),
    "point": ExchangePolicy(point=20.0),
    "combinations": ExchangePolicy(point=6.0, sequence=5.0, sets=8.0),
    "cautious": ExchangePolicy(elder_take=3, younger_take=1, point=6.0, sequence=5.0,
                               sets=8.0),
}
