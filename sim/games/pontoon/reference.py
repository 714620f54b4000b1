"""The reference path: pontoon deals played readably, with any Python strategies.

Tests treat this module as the specification: the compiled kernel must agree with it deal by
deal, and the exact analysis with it on every ordering of small packs. A :class:`Session` holds
what carries from deal to deal: the pack (used cards go to the bottom; shuffled only after a
pontoon, or every deal), who holds the bank, and the cards seen since the shuffle. Money moves
only through a :class:`~sim.core.ledger.Ledger` between the persons at the table and the stakes on
the table, so its conservation is checked, not assumed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sim.core.cards import RANK_SYMBOLS
from sim.core.errors import IllegalActionError, StrategyFailedError
from sim.core.ledger import Ledger
from sim.games.pontoon.hand import (
    banker_score,
    hand_over,
    hard_thirteen,
    is_pontoon_pair,
    pair_splittable,
    player_score,
    rule_vectors,
    settle,
    settle_banker_pontoon,
)
from sim.games.pontoon.pack import Pack
from sim.games.pontoon.rules import MAX_CARDS, VALUES, PontoonRules
from sim.games.pontoon.views import (
    BUSTED,
    DECLARED,
    LIVE,
    BankerView,
    Buy,
    Move,
    PlayerView,
    ShownHand,
    StakeView,
    hand_totals,
)

TABLE = "table"  # the ledger account where stakes lie until settled


def person(i: int) -> str:
    """The ledger account of person ``i`` (persons keep their number as the bank moves)."""
    return f"person{i}"


def card_names(cards: Iterable[int]) -> str:
    return " ".join(RANK_SYMBOLS[c] for c in cards)


# ------------------------------------------------------------------ the hands
@dataclass
class Hand:
    """One hand on the table (a punter's, or the banker's with no stake)."""

    stake: float = 0.0
    cards: list[int] = field(default_factory=list)
    face_up: list[bool] = field(default_factory=list)
    fresh: list[bool] = field(default_factory=list)
    buys: list[float] = field(default_factory=list)
    twisted: bool = False
    split_hand: bool = False
    status: str = "playing"  # playing, stood, bust, pontoon

    @property
    def hard(self) -> int:
        return int(sum(VALUES[c] for c in self.cards))

    def take(self, card: tuple[int, bool], face_up: bool) -> None:
        self.cards.append(card[0])
        self.fresh.append(card[1])
        self.face_up.append(face_up)

    def describe(self) -> str:
        total, soft = hand_totals(tuple(self.cards))
        return (f"[{card_names(self.cards)}] ({'soft' if soft else 'hard'} {total}, "
                f"{len(self.cards)} cards, stake {self.stake:g}"
                f"{', buys ' + '+'.join(f'{b:g}' for b in self.buys) if self.buys else ''}"
                f"{', twisted' if self.twisted else ''})")


@dataclass
class SeatResult:
    """One punter seat's deal (money in stake units; ``net`` positive: he won)."""

    person: int
    net: float = 0.0
    initial: float = 0.0
    wagered: float = 0.0
    hands: int = 0
    busts: int = 0
    fives: int = 0
    pontoons: int = 0
    splits: int = 0
    buys: int = 0
    burns: int = 0


@dataclass
class PontoonDeal:
    """A deal's money and events."""

    seats: list[SeatResult]
    banker: int
    banker_net: float
    banker_pontoon: bool
    banker_bust: bool
    banker_five: bool
    shuffle_next: bool
    next_banker: int
    ledger_total: float
    table_left: float
    person_nets: dict[int, float]
    cycle_locked: bool = False
    cycle_lock_found: bool = False

    @property
    def net(self) -> float:
        return sum(s.net for s in self.seats)

    @property
    def initial(self) -> float:
        return sum(s.initial for s in self.seats)

    @property
    def wagered(self) -> float:
        return sum(s.wagered for s in self.seats)

    def kernel_row(self) -> list[float]:
        """The deal as the kernel reports one heads-up deal, column for column
        (:func:`~sim.games.pontoon.kernel.play_ordered_deals`): what the tests compare."""
        seat = self.seats[0]
        return [self.net, self.initial, self.wagered, seat.hands, seat.busts, seat.fives,
                seat.pontoons, seat.splits, seat.buys, seat.burns, self.banker_pontoon,
                self.banker_bust, self.banker_five, self.shuffle_next,
                self.next_banker != self.banker, self.cycle_locked, self.banker]


# ------------------------------------------------------------------- legality
def buy_limits(hand: Hand, initial: float, rules: PontoonRules) -> tuple[float, str | None]:
    """(largest buy allowed, None) or (0, why not)."""
    total, soft = hand_totals(tuple(hand.cards))
    if hand.twisted:
        return 0.0, "no buying after a twist"
    if hand_over(total, soft, len(hand.cards), rules.soft_21_draws):
        return 0.0, "no card may be taken on 21 or five cards"
    if len(hand.buys) >= rules.max_buys:
        return 0.0, f"at most {rules.max_buys} buys on a hand"
    if len(hand.cards) == MAX_CARDS - 1 and not rules.buy_fifth_card:
        return 0.0, "the fifth card may only be twisted"
    return (rules.first_buy_max * initial if not hand.buys else hand.buys[-1]), None


def why_illegal(action: Any, hand: Hand, n_hands: int, may_burn: bool, initial: float,
                stock: int, rules: PontoonRules) -> str | None:
    """Why ``action`` is not allowed on ``hand`` now (None: it is allowed)."""
    total, soft = hand_totals(tuple(hand.cards))
    two = len(hand.cards) == 2
    if isinstance(action, Buy):
        limit, why = buy_limits(hand, initial, rules)
        if why:
            return why
        amount = action.amount
        if (isinstance(amount, bool) or not isinstance(amount, (int, float))
                or not math.isfinite(amount) or not initial - 1e-9 <= amount <= limit + 1e-9):
            return f"a buy must add between {initial:g} and {limit:g}"
        return None
    if action == Move.STICK:
        return None if total >= rules.stick_min else (
            f"sticking needs a total of {rules.stick_min} or more")
    if action == Move.TWIST:
        return None if not hand_over(total, soft, len(hand.cards), rules.soft_21_draws) else (
            "no card may be taken on 21 or five cards")
    if action == Move.SPLIT:
        if not two or hand.buys or hand.twisted:
            return "only the first two cards of a hand may be split"
        a, b = hand.cards
        if not pair_splittable(a, b, rule_vectors(rules)[0]):
            if a != b and VALUES[a] == VALUES[b] == 10 and rules.may_split_rank(a):
                return "two ten-cards may be split only if of the same rank"
            if rules.split_pairs == "none":
                return "splitting is not allowed"
            if rules.split_pairs == "aces" and a == b:
                return "only aces may be split"
            return "only two cards of the same rank may be split"
        if n_hands >= rules.max_hands:
            return f"at most {rules.max_hands} hands"
        return None if stock >= 2 else "the stock holds fewer than two cards"
    if action == Move.BURN:
        if not rules.burn_hard_13:
            return "burning is not allowed"
        if not may_burn or not two or hand.split_hand or not hard_thirteen(*hand.cards):
            return "only a hard 13 in the first two cards may be burnt, once"
        return None if stock >= 2 else "the stock holds fewer than two cards"
    return "not a pontoon action (stick, twist, split, burn or Buy(amount))"


# ------------------------------------------------------------------- cycles
class CycleWatch:
    """Brent's cycle detection over the pack's order at the start of each deal.

    Where nothing random happens between two deals (no shuffle, no undealt card left, the
    piles gathered in a fixed order), a deal is a function of the stock's order alone (the bank
    passes only on a pontoon, which shuffles), so a stock order seen before means the deals
    repeat from there, to the end of the run, as a cycle holding no pontoon. The watch keeps
    one saved order, replaced at each power of two deals (Brent), so its memory is one pack and
    its cost a comparison per deal, usually settled by the first card. It is what the kernel
    does; for a strategy that uses its generator a repeat is no lock, and counts all the same.
    """

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.saved: tuple[int, ...] | None = None
        self.power = self.lam = 1
        self.locked = False

    def step(self, stock: tuple[int, ...] | None) -> tuple[bool, bool]:
        """Watch the stock of a deal about to be played (None: something random happens, or
        happened, since the last deal). Returns (locked, the lock is found at this deal)."""
        if stock is None:
            self.reset()
            return False, False
        if self.locked:
            return True, False
        if self.saved is None:
            self.saved = stock
            return False, False
        if stock == self.saved:
            self.locked = True
            return True, True
        if self.lam == self.power:
            self.saved, self.power, self.lam = stock, 2 * self.power, 0
        self.lam += 1
        return False, False


# -------------------------------------------------------------------- a deal
class Session:
    """Deals in a row at one table, the pack and the bank carried from deal to deal.

    Args:
        rules: the rules.
        player: the punters' strategy (every punter seat plays it).
        banker: the banker's policy.
        source: where shuffled packs come from (:class:`RandomCards`, :class:`GivenCards`).
    """

    def __init__(self, rules: PontoonRules, player: Any, banker: Any, source: Any) -> None:
        self.rules = rules
        self.player = player
        self.banker_policy = banker
        self.pack = Pack(rules, source)
        self.banker = 0
        self.needs_shuffle = True
        self.seen = [0] * 13  # cards shown since the shuffle, each physical card once
        self.rule_i, self.rule_f = rule_vectors(rules)
        self.cycles = CycleWatch()
        self.varied = rules.gathering == "varied"

    # ------------------------------------------------------------- helpers
    def _deal(self, hand: Hand, face_up: bool) -> None:
        card = self.pack.draw()
        assert card is not None  # callers check the stock
        hand.take(card, face_up)
        if face_up and card[1]:
            self.seen[card[0]] += 1

    def _turn_up(self, hand: Hand) -> None:
        """Turn every card of ``hand`` face up (shown to the table)."""
        for i, up in enumerate(hand.face_up):
            if not up:
                hand.face_up[i] = True
                self.seen[hand.cards[i]] += hand.fresh[i]

    def _seen_with(self, own: Iterable[Hand]) -> tuple[int, ...]:
        """What a person has seen: the table's shown cards and his own face-down ones."""
        seen = list(self.seen)
        for hand in own:
            for c, up, fresh in zip(hand.cards, hand.face_up, hand.fresh):
                if not up and fresh:
                    seen[c] += 1
        return tuple(seen)

    def _ask(self, strategy: Any, method: str, view: Any, rng: Any,
             situation: Callable[[], str]) -> Any:
        """The strategy's answer; ``situation`` words where it was asked, for an error (built
        only then: describing every hand cost a twentieth of a deal)."""
        try:
            return getattr(strategy, method)(view, rng)
        except Exception as exc:  # a strategy's own bug is reported as such
            raise StrategyFailedError(strategy, situation(), exc) from exc

    # --------------------------------------------------------------- the deal
    def play(self, rng: np.random.Generator) -> PontoonDeal:
        """Play one deal."""
        rules = self.rules
        shuffled = self.needs_shuffle or rules.infinite_deck
        if shuffled:
            self.pack.shuffle()
            self.seen = [0] * 13
        deterministic = not (shuffled or rules.infinite_deck or self.varied
                             or getattr(self.pack, "undealt", 1))
        locked, lock_found = self.cycles.step(
            tuple(self.pack.ranks()) if deterministic else None)
        n_persons = rules.players + 1
        persons = [(self.banker + k) % n_persons for k in range(1, n_persons)]
        ledger = Ledger()
        seats = [SeatResult(p) for p in persons]
        set_aside: list[list[int]] = []  # piles: each bust hand, each burnt pair
        hands = [[Hand()] for _ in persons]
        banker_hand = Hand()
        for seat_hands in hands:
            self._deal(seat_hands[0], face_up=False)
        self._deal(banker_hand, face_up=False)
        for s, seat_hands in enumerate(hands):
            first = seat_hands[0].cards[0]
            view = StakeView(s, first, rules.min_stake, rules.max_stake,
                             self._seen_with(seat_hands), len(self.pack), rules)
            def situation(s: int = s, first: int = first) -> str:
                return f"at seat {s + 1} with first card {RANK_SYMBOLS[first]}"

            amount = self._ask(self.player, "stake", view, rng, situation) if hasattr(
                self.player, "stake") else rules.min_stake
            if (isinstance(amount, bool) or not isinstance(amount, (int, float, np.floating))
                    or not math.isfinite(amount)
                    or not rules.min_stake <= amount <= rules.max_stake):
                raise IllegalActionError(self.player, amount, situation(),
                                         f"the initial stake must be between "
                                         f"{rules.min_stake:g} and {rules.max_stake:g}")
            ledger.transfer(person(persons[s]), TABLE, float(amount))
            seat_hands[0].stake = seats[s].initial = seats[s].wagered = float(amount)
        for seat_hands in hands:
            self._deal(seat_hands[0], face_up=False)
        self._deal(banker_hand, face_up=False)

        banker_pontoon = bool(is_pontoon_pair(*banker_hand.cards))
        any_pontoon = banker_pontoon
        banker_bust = banker_five = False
        if banker_pontoon:  # exposed at once: he collects from every punter
            self._turn_up(banker_hand)
            for s, seat in enumerate(seats):
                hand = hands[s][0]
                per_unit = settle_banker_pontoon(bool(is_pontoon_pair(*hand.cards)),
                                                 bool(rules.banker_wins_ties), self.rule_f)
                self._pay(ledger, persons[s], hand, per_unit)
                seat.hands = 1
        else:
            for s in range(len(persons)):
                any_pontoon |= self._play_seat(s, hands, seats[s], ledger, set_aside, rng)
            b_score = self._play_banker(banker_hand, hands, [seat.initial for seat in seats],
                                        rng)
            banker_bust = b_score == 0
            banker_five = len(banker_hand.cards) == MAX_CARDS and b_score > 0
            for s, seat_hands in enumerate(hands):
                for hand in seat_hands:
                    if hand.status in ("stood", "pontoon"):
                        p_score = player_score(hand.hard, 0 in hand.cards, len(hand.cards),
                                               hand.status == "pontoon")
                        per_unit = settle(p_score, b_score, bool(rules.banker_wins_ties),
                                          self.rule_f)
                        self._pay(ledger, persons[s], hand, per_unit)

        # Every hand is shown; the piles go to the bottom: in the fixed order the set-aside
        # piles, the punters' hands in seat order, the banker's; or in an order drawn from the
        # card stream (varied), unless the pack is shuffled before the next deal anyway.
        piles = list(set_aside)
        for hand in [h for seat_hands in hands for h in seat_hands] + [banker_hand]:
            if hand.status != "bust":
                self._turn_up(hand)
                piles.append(list(hand.cards))
        self.needs_shuffle = any_pontoon or rules.reshuffle == "every-deal"
        self.pack.gather(piles, self.varied and not self.needs_shuffle)

        banker_person = self.banker
        if rules.bank_passes and not banker_pontoon:
            for s, seat_hands in enumerate(hands):
                if len(seat_hands) == 1 and seat_hands[0].status == "pontoon":
                    self.banker = persons[s]
                    break
        for seat in seats:
            seat.net = ledger.balance(person(seat.person))
        return PontoonDeal(
            seats=seats, banker=banker_person, banker_net=ledger.balance(person(banker_person)),
            banker_pontoon=banker_pontoon, banker_bust=banker_bust, banker_five=banker_five,
            shuffle_next=self.needs_shuffle, next_banker=self.banker,
            ledger_total=ledger.total(), table_left=ledger.balance(TABLE),
            person_nets={p: ledger.balance(person(p)) for p in range(n_persons)},
            cycle_locked=locked, cycle_lock_found=lock_found)

    def _pay(self, ledger: Ledger, who: int, hand: Hand, per_unit: float) -> None:
        """Settle a hand: its stake comes off the table, the banker pays or collects the rest."""
        ledger.transfer(TABLE, person(who), hand.stake)
        ledger.transfer(person(self.banker), person(who), per_unit * hand.stake)

    # --------------------------------------------------------- a punter's turn
    def _play_seat(self, s: int, hands: list[list[Hand]], seat: SeatResult, ledger: Ledger,
                   set_aside: list[list[int]], rng: Any) -> bool:
        """Play seat ``s``'s hands in order; True if one of them is a pontoon."""
        rules = self.rules
        seat_hands = hands[s]
        may_burn = True
        i = 0
        while i < len(seat_hands):
            hand = seat_hands[i]
            while hand.status == "playing":
                total, soft = hand_totals(tuple(hand.cards))
                if len(hand.cards) == 2 and is_pontoon_pair(*hand.cards) and (
                        not hand.split_hand or rules.split_pontoon_counts):
                    hand.status = "pontoon"  # declared: the ace is turned face up
                    ace = hand.cards.index(0)
                    if not hand.face_up[ace]:
                        hand.face_up[ace] = True
                        self.seen[0] += hand.fresh[ace]
                elif hand.hard > 21:
                    hand.status = "bust"  # thrown in face up; the banker takes the stake
                    ledger.transfer(TABLE, person(self.banker), hand.stake)
                    self._turn_up(hand)
                    set_aside.append(list(hand.cards))
                    seat.busts += 1
                elif hand_over(total, soft, len(hand.cards), rules.soft_21_draws) \
                        or len(self.pack) == 0:
                    hand.status = "stood"
                else:
                    may_burn = self._act(s, i, seat_hands, seat, may_burn, ledger, set_aside,
                                         rng)
            i += 1
        seat.hands = len(seat_hands)
        seat.fives += sum(h.status == "stood" and len(h.cards) == MAX_CARDS
                          for h in seat_hands)
        seat.pontoons += sum(h.status == "pontoon" for h in seat_hands)
        return seat.pontoons > 0

    def _act(self, s: int, i: int, seat_hands: list[Hand], seat: SeatResult, may_burn: bool,
             ledger: Ledger, set_aside: list[list[int]], rng: Any) -> bool:
        """Ask the punter about hand ``i``, check the answer and carry it out; returns whether
        the seat may still burn."""
        rules = self.rules
        hand = seat_hands[i]
        initial = seat.initial
        total, soft = hand_totals(tuple(hand.cards))
        stock = len(self.pack)
        args = (hand, len(seat_hands), may_burn, initial, stock, rules)
        legal = frozenset(name for name, probe in (
            ("stick", Move.STICK), ("twist", Move.TWIST), ("buy", Buy(initial)),
            ("split", Move.SPLIT), ("burn", Move.BURN)) if why_illegal(probe, *args) is None)
        limit, _ = buy_limits(hand, initial, rules)
        view = PlayerView(
            seat=s, hand_index=i, hands=len(seat_hands), cards=tuple(hand.cards),
            face_up=tuple(hand.face_up), total=total, soft=soft, stake=hand.stake,
            initial_stake=initial, buys=tuple(hand.buys), twisted=hand.twisted,
            split_hand=hand.split_hand, legal=legal, min_buy=initial,
            max_buy=limit if "buy" in legal else 0.0, seen=self._seen_with(seat_hands),
            stock=stock, rules=rules)
        def situation() -> str:
            return f"at seat {s + 1}, hand {i + 1} of {len(seat_hands)}: {hand.describe()}"

        action = self._ask(self.player, "decide", view, rng, situation)
        why = why_illegal(action, *args)
        if why is not None:
            raise IllegalActionError(self.player, action, situation(), why)
        if action == Move.STICK:
            hand.status = "stood"
        elif action == Move.TWIST:
            self._deal(hand, face_up=True)
            hand.twisted = True
        elif isinstance(action, Buy):
            amount = float(action.amount)
            ledger.transfer(person(seat.person), TABLE, amount)
            hand.stake += amount
            hand.buys.append(amount)
            seat.wagered += amount
            seat.buys += 1
            self._deal(hand, face_up=False)
        elif action == Move.SPLIT:  # both cards face up, a new stake, a card to each hand
            self._turn_up(hand)
            new = Hand(initial, hand.cards[1:], hand.face_up[1:], hand.fresh[1:],
                       split_hand=True)
            del hand.cards[1:], hand.face_up[1:], hand.fresh[1:]
            hand.split_hand = True
            seat_hands.insert(i + 1, new)
            ledger.transfer(person(seat.person), TABLE, initial)
            seat.wagered += initial
            seat.splits += 1
            self._deal(hand, face_up=False)
            self._deal(new, face_up=False)
        else:  # burn: thrown in face up, two new cards face down
            self._turn_up(hand)
            set_aside.append(list(hand.cards))
            hand.cards, hand.face_up, hand.fresh = [], [], []
            self._deal(hand, face_up=False)
            self._deal(hand, face_up=False)
            seat.burns += 1
            return False
        return may_burn

    # --------------------------------------------------------- the banker's turn
    def _play_banker(self, banker: Hand, hands: list[list[Hand]], initials: list[float],
                     rng: Any) -> int:
        """The banker turns his cards up and draws by his policy; returns his score."""
        rules = self.rules
        self._turn_up(banker)
        live = any(h.status == "stood" for seat_hands in hands for h in seat_hands)
        while live:
            total, soft = hand_totals(tuple(banker.cards))
            if banker.hard > 21 or total >= 21 or len(banker.cards) >= MAX_CARDS \
                    or len(self.pack) == 0:
                break
            shown = tuple(
                ShownHand(seat=s, hand_index=i, n_cards=len(h.cards),
                          up_cards=tuple(c for c, up in zip(h.cards, h.face_up) if up),
                          stake=h.stake, initial_stake=initials[s],
                          status={"stood": LIVE, "bust": BUSTED, "pontoon": DECLARED}[h.status])
                for s, seat_hands in enumerate(hands) for i, h in enumerate(seat_hands))
            view = BankerView(tuple(banker.cards), total, soft, shown, tuple(self.seen),
                              len(self.pack), rules)
            def situation(soft: bool = soft, total: int = total) -> str:
                return (f"with the bank: [{card_names(banker.cards)}] "
                        f"({'soft' if soft else 'hard'} {total}, {len(banker.cards)} cards)")

            if rules.banker_hits_soft_17 and soft and total == 17:
                action = Move.TWIST  # the house's rule, not his choice
            else:
                action = self._ask(self.banker_policy, "decide", view, rng, situation)
            if action == Move.TWIST:
                self._deal(banker, face_up=True)
            elif action == Move.STICK:
                break
            else:
                raise IllegalActionError(self.banker_policy, action, situation(),
                                         "the banker may only twist or stick")
        return int(banker_score(banker.hard, 0 in banker.cards, len(banker.cards),
                                rules.banker_five_card_trick))
