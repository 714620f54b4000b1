"""What each person at a pontoon table may see, and the actions they answer with.

A punter's strategy answers ``stake(StakeView, rng) -> amount`` after his first card and
``decide(PlayerView, rng) -> action`` at each decision: ``"stick"``, ``"twist"``, ``"split"``,
``"burn"`` (a :class:`Move`) or ``Buy(amount)``. The banker's policy answers
``decide(BankerView, rng) -> "twist" | "stick"``. Views are frozen and hold only what that
person may see: his own cards, the face-up cards on the table, the number of cards and the
stakes of every hand, and the cards seen since the last shuffle; never a face-down card of
someone else, never the pack.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from enum import StrEnum

from sim.games.pontoon.hand import NO_LIVE_HAND, best_total, hand_key
from sim.games.pontoon.rules import VALUES, PontoonRules


class Move(StrEnum):
    """The actions without an amount (plain strings compare equal: ``"stick"``)."""

    STICK = "stick"
    TWIST = "twist"
    SPLIT = "split"
    BURN = "burn"


@dataclass(frozen=True)
class Buy:
    """Buy a card (face down), adding ``amount`` to the hand's stake."""

    amount: float


@functools.lru_cache(maxsize=1 << 16)
def hand_totals(cards: tuple[int, ...]) -> tuple[int, bool]:
    """(best total, soft) of ranks (remembered: the reference deal asks it of the same hand
    for every action it checks, and each answer is a call into compiled code)."""
    hard = int(sum(VALUES[c] for c in cards))
    total, soft = best_total(hard, 0 in cards)
    return int(total), bool(soft)


@dataclass(frozen=True)
class StakeView:
    """A punter's view when he places his initial stake, having looked at his first card.

    Attributes:
        seat: his seat, counted from the dealer's left (0-based).
        first_card: the rank of his first card (0 = ace .. 12 = king).
        min_stake: the table's smallest initial stake.
        max_stake: the table's largest initial stake.
        seen: cards of each rank he has seen since the last shuffle (his first card included).
        stock: cards left in the stock.
        rules: the rules of the game.
    """

    seat: int
    first_card: int
    min_stake: float
    max_stake: float
    seen: tuple[int, ...]
    stock: int
    rules: PontoonRules


@dataclass(frozen=True)
class PlayerView:
    """A punter's view at a decision on one of his hands.

    Attributes:
        seat: his seat from the dealer's left (0-based).
        hand_index: which of his hands is being played (0-based; more than one after splits).
        hands: how many hands he has.
        cards: the ranks of this hand in the order dealt.
        face_up: for each card, whether it lies face up (twisted cards, split cards).
        total: the best total.
        soft: an ace counts 11 in it.
        stake: the hand's stake so far (initial stake plus buys).
        initial_stake: the seat's initial stake.
        buys: the amounts added by each buy, in order.
        twisted: a card has been twisted on this hand (no more buying).
        split_hand: the hand comes from a split.
        legal: the actions allowed now (``"stick"``, ``"twist"``, ``"buy"``, ``"split"``,
            ``"burn"``).
        min_buy: the smallest buy allowed (the initial stake).
        max_buy: the largest buy allowed now (0 when buying is not allowed).
        seen: cards of each rank seen since the last shuffle (his own cards included).
        stock: cards left in the stock.
        rules: the rules of the game.
    """

    seat: int
    hand_index: int
    hands: int
    cards: tuple[int, ...]
    face_up: tuple[bool, ...]
    total: int
    soft: bool
    stake: float
    initial_stake: float
    buys: tuple[float, ...]
    twisted: bool
    split_hand: bool
    legal: frozenset[str]
    min_buy: float
    max_buy: float
    seen: tuple[int, ...]
    stock: int
    rules: PontoonRules

    @property
    def n_cards(self) -> int:
        return len(self.cards)

    @property
    def visible_sum(self) -> int:
        """What the banker can tell of the hand's total: face-up cards (aces as one) plus one
        for each face-down card."""
        return sum(int(VALUES[c]) if up else 1 for c, up in zip(self.cards, self.face_up))

    @property
    def buy_multiples(self) -> tuple[int, ...]:
        """The buys in multiples of the initial stake (rounded)."""
        return tuple(int(round(b / self.initial_stake)) for b in self.buys)


LIVE, BUSTED, DECLARED = "live", "bust", "pontoon"


@dataclass(frozen=True)
class ShownHand:
    """A punter's hand as the banker sees it.

    Attributes:
        seat: the punter's seat from the dealer's left.
        hand_index: which of the seat's hands.
        n_cards: cards in the hand.
        up_cards: the ranks of its face-up cards (a declared pontoon shows its ace).
        stake: the money on it.
        initial_stake: the seat's initial stake.
        status: ``"live"``, ``"bust"`` (thrown in) or ``"pontoon"`` (declared).
    """

    seat: int
    hand_index: int
    n_cards: int
    up_cards: tuple[int, ...]
    stake: float
    initial_stake: float
    status: str

    @property
    def visible_sum(self) -> int:
        return int(sum(VALUES[c] for c in self.up_cards)) + self.n_cards - len(self.up_cards)

    def key(self, rules: PontoonRules) -> int:
        """The banker's signal of this hand (stake multiple and visible lower bound)."""
        return int(hand_key(int(round(self.stake / self.initial_stake)), self.visible_sum,
                            self.n_cards, rules.stick_min))


@dataclass(frozen=True)
class BankerView:
    """The banker's view when he decides whether to draw.

    Attributes:
        cards: his own cards, in the order dealt.
        total: his best total.
        soft: an ace counts 11 in it.
        hands: every punter hand as he sees it (face-up cards, card counts, stakes).
        seen: cards of each rank seen since the last shuffle (his own included).
        stock: cards left in the stock.
        rules: the rules of the game.
    """

    cards: tuple[int, ...]
    total: int
    soft: bool
    hands: tuple[ShownHand, ...]
    seen: tuple[int, ...]
    stock: int
    rules: PontoonRules

    @property
    def n_cards(self) -> int:
        return len(self.cards)

    @property
    def live_hands(self) -> tuple[ShownHand, ...]:
        return tuple(h for h in self.hands if h.status == LIVE)

    def main_hand(self) -> ShownHand | None:
        """The live hand with the most money on it (the first of equals), or None."""
        best = None
        for hand in self.live_hands:
            if best is None or hand.stake > best.stake:
                best = hand
        return best

    def signal(self) -> int:
        """The key a one-level banker table reads: the main hand's signal (or 'no live
        hand')."""
        main = self.main_hand()
        return NO_LIVE_HAND if main is None else main.key(self.rules)

    def main_stake(self) -> float:
        """The initial stake of the main hand, as an amount (0 when no hand is live): what a
        banker's table reads beside :meth:`signal` under ``banker_reads = "stake"``."""
        main = self.main_hand()
        return 0.0 if main is None else main.initial_stake
