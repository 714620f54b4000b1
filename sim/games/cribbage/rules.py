"""Cribbage: the rules of a deal as data, and what a player sees when he discards.

See ``docs/rules/cribbage.md`` for the rules as modelled and the decisions where the source
texts are silent. A deal: the dealer deals ``cards_dealt`` cards to each player; each lays away
``discard`` of them face down into the crib (with three players one more card comes from the
pack), so the crib always holds four cards; the starter is cut; the dealer pegs two for his
heels if it is a jack; then every hand is shown with the starter, and the crib for the dealer.
"""

from __future__ import annotations

from dataclasses import dataclass

from sim.core.errors import RuleError
from sim.core.validation import check_fields

SEATS = ("pone", "dealer")


@dataclass(frozen=True)
class CribbageRules:
    """Every rule of a cribbage deal that a variant can change.

    Attributes:
        cards_dealt: cards dealt to each player: 5 (the old game, or three and four players),
            6 (the modern two-hand game) or 7 (seven-card cribbage).
        players: two, three or four.
        partners: with four players, partners opposite each other score together (their
            hands add; the dealer's side also takes the crib).
        muggins: an opponent may claim points a player fails to claim. Every score is claimed
            in full in this model, so muggins changes no figure; it is a rule so that a
            variant can name it.
        game_to: the points that win a game (61, 121, 151); a deal's statistics do not
            depend on it.
        seat: whose points a round reports: ``"pone"`` (the player on the dealer's left, who
            shows first) or ``"dealer"`` (his hand, his crib and his heels).
        pegging: the play is pegged too, and its points count (two players, six or seven
            cards; see :mod:`sim.games.cribbage.pegging`).
    """

    cards_dealt: int = 6
    players: int = 2
    partners: bool = True
    muggins: bool = False
    game_to: int = 121
    seat: str = "pone"
    pegging: bool = False

    def __post_init__(self) -> None:
        def whole(x: object) -> bool:
            return isinstance(x, int) and not isinstance(x, bool)

        checks = [
            ("cards_dealt", whole(self.cards_dealt) and self.cards_dealt in (5, 6, 7),
             "5, 6 or 7"),
            ("players", whole(self.players) and self.players in (2, 3, 4), "2, 3 or 4"),
            ("partners", isinstance(self.partners, bool), "true or false"),
            ("muggins", isinstance(self.muggins, bool), "true or false"),
            ("game_to", whole(self.game_to) and self.game_to > 0, "a positive integer"),
            ("seat", self.seat in SEATS, " or ".join(repr(s) for s in SEATS)),
            ("pegging", isinstance(self.pegging, bool), "true or false"),
        ]
        check_fields(self, checks)
        if self.players > 2 and self.cards_dealt != 5:
            raise RuleError("cards_dealt", self.cards_dealt,
                            detail=f"with {self.players} players five cards are dealt, "
                            f"got {self.cards_dealt}")
        if self.pegging and (self.players != 2 or self.cards_dealt == 5):
            raise RuleError("pegging", self.pegging,
                            detail=f"the play is modelled for two players dealt six or "
                            f"seven cards, got {self.players} dealt {self.cards_dealt}")

    @property
    def discard(self) -> int:
        """Cards each player lays away into the crib."""
        return 2 if self.players == 2 else 1

    @property
    def hand_size(self) -> int:
        """Cards each player keeps and shows (with the starter as one more)."""
        return self.cards_dealt - self.discard

    @property
    def crib_from_pack(self) -> int:
        """Cards dealt blind from the pack to complete the crib of four (three players)."""
        return 4 - self.players * self.discard

    @property
    def cards_used(self) -> int:
        """Cards taken from the pack in a deal, the starter included."""
        return self.players * self.cards_dealt + self.crib_from_pack + 1

    @property
    def team(self) -> bool:
        """Four players in two partnerships."""
        return self.players == 4 and self.partners


PRESETS: dict[str, CribbageRules] = {
    "six-card": CribbageRules(),
    "five-card": CribbageRules(cards_dealt=5, game_to=61),
    "seven-card": CribbageRules(cards_dealt=7, game_to=151),
    "three-player": CribbageRules(cards_dealt=5, players=3),
    "four-player": CribbageRules(cards_dealt=5, players=4),
    "six-card-muggins": CribbageRules(muggins=True),
    "six-card-pegging": CribbageRules(pegging=True),
}


@dataclass(frozen=True)
class CribbageView:
    """What a player sees when he lays away cards to the crib.

    Attributes:
        cards: his dealt cards (codes ``rank * 4 + suit``, ace low), in the order dealt.
        dealer: he is the dealer (the crib is his).
        seat: his seat, 0 the dealer, then to the dealer's left.
        players: players at the table.
        discard: how many cards he must lay away.
        partners: the seat opposite is his partner (four players in partnerships).
    """

    cards: tuple[int, ...]
    dealer: bool
    seat: int
    players: int
    discard: int
    partners: bool = False
