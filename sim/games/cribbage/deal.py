"""The reference deal: plain Python, any strategy, the rules read line by line.

The cards of a deal come from the top of a shuffled pack in a fixed layout: ``cards_dealt``
cards for each seat in turn (seat 1, on the dealer's left, first; the dealer, seat 0, last),
then the cards that complete a three-player crib, then the starter. Each seat's strategy
answers a :class:`~sim.games.cribbage.rules.CribbageView` with the cards it lays away. The
kernel uses the same layout, so the two paths score the same cards alike (a test feeds both
the same deals).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sim.core.errors import IllegalActionError, StrategyFailedError
from sim.games.cribbage.pegging import peg
from sim.games.cribbage.policy import expected_hand
from sim.games.cribbage.rules import CribbageRules, CribbageView
from sim.games.cribbage.score import JACK, card_names, show_score


@dataclass(frozen=True)
class CribbageDeal:
    """What a deal scored.

    Attributes:
        hands: each seat's show (seat 0 the dealer).
        crib: the crib's show (the dealer's).
        heels: the dealer's two for his heels (0 or 2).
        expected: each seat's exact expected hand with what it kept, over every starter it
            could not see (the 52 cards less its own).
        pegs: the pone's and the dealer's points in the play, where the rules peg it.
    """

    hands: tuple[int, ...]
    crib: int
    heels: int
    expected: tuple[float, ...]
    pegs: tuple[int, int] = (0, 0)

    def side_points(self, rules: CribbageRules, dealer_side: bool) -> int:
        """The points of the dealer's side or of the pone's (a seat, or a partnership)."""
        if dealer_side:
            own = self.hands[0] + self.crib + self.heels + self.pegs[1]
            return own + (self.hands[2] if rules.team else 0)
        return self.hands[1] + self.pegs[0] + (self.hands[3] if rules.team else 0)

    def seat_points(self, rules: CribbageRules) -> int:
        """The points of the seat the rules follow (``rules.seat``)."""
        return self.side_points(rules, rules.seat == "dealer")


def seat_cards(cards: Sequence[int], rules: CribbageRules, seat: int) -> tuple[int, ...]:
    """The cards dealt to ``seat`` in the layout of the module docstring."""
    block = (seat - 1) % rules.players
    return tuple(int(c) for c in cards[block * rules.cards_dealt:(block + 1) * rules.cards_dealt])


def _discards(strategy: Any, view: CribbageView, rng: Any) -> tuple[int, ...]:
    situation = f"discarding from {card_names(view.cards)} (seat {view.seat})"
    try:
        action = strategy.decide(view, rng)
    except Exception as exc:  # a user's strategy: report which and where
        raise StrategyFailedError(strategy, situation, exc) from exc
    try:
        laid = tuple(int(c) for c in action)
    except TypeError:
        raise IllegalActionError(strategy, action, situation,
                                 f"expected {view.discard} card codes") from None
    if len(laid) != view.discard or len(set(laid)) != view.discard \
            or not set(laid) <= set(view.cards):
        raise IllegalActionError(strategy, action, situation,
                                 f"expected {view.discard} different cards of the hand")
    return laid


def play_deal(cards: Sequence[int], rules: CribbageRules, strategy: Any,
              rng: Any = None) -> CribbageDeal:
    """Play one deal from ``cards`` (at least ``rules.cards_used`` codes, in layout order);
    every seat lays away the cards its strategy's ``decide(view, rng)`` returns. Where the
    rules peg the play, the cards are laid by the strategy's ``play`` (one of
    :data:`~sim.games.cribbage.pegging.PLAYS`; greedy if it names none), the dealer's by its
    ``dealer_play`` if it has one."""
    hands, crib, expected = [], [], []
    for seat in range(rules.players):
        dealt = seat_cards(cards, rules, seat)
        view = CribbageView(dealt, seat == 0, seat, rules.players, rules.discard, rules.team)
        laid = _discards(strategy, view, rng)
        kept = tuple(c for c in dealt if c not in laid)
        hands.append(kept)
        crib.extend(laid)
        expected.append(expected_hand(dealt, kept))
    at = rules.players * rules.cards_dealt
    crib.extend(int(c) for c in cards[at:at + rules.crib_from_pack])
    starter = int(cards[rules.cards_used - 1])
    pegs = (0, 0)
    if rules.pegging:
        pegs = peg([c // 4 for c in hands[1]], [c // 4 for c in hands[0]],
                   getattr(strategy, "play", "greedy"), getattr(strategy, "dealer_play", None))
    return CribbageDeal(tuple(show_score(h, starter) for h in hands),
                      show_score(crib, starter, crib=True),
                      2 if starter // 4 == JACK else 0, tuple(expected), pegs)
