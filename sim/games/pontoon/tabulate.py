"""Plain-Python pontoon punters and bankers built into a :class:`PlayerTable` and a
:class:`BankerTable`.

A punter's table tells apart what his own hand shows: the buys so far (in initial stakes),
whether he has twisted, his cards, the visible sum the banker sees, softness and total; plus,
where a pair may be split or a hard 13 burnt, the pair's rank and the burn; plus his stake by
first card. The engine walks every hand a punter can hold at a decision (every sequence of
card values, bought face down, twisted face up, from a fresh or a split hand), keeps one
hand for each table state, and asks the strategy about it, at every initial stake it places.
It sees the fields the table holds (``total``, ``soft``, ``n_cards``, ``visible_sum``,
``buys`` and ``buy_multiples``, ``stake``, ``initial_stake``, ``min_buy``, ``max_buy``,
``twisted``, ``legal``, ``rules``) and, where it may split or burn, its ``cards`` too (every
such pair is asked). A read of anything else (the cards seen, the stock, the seat, the cards
of an ordinary hand) would play differently from any table: it stays on the reference path.

A banker's table tells apart his cards, softness and total and the signal of the punters'
main hand (``view.signal()``); he sees ``total``, ``soft``, ``n_cards``, ``rules`` and
``signal()``. A banker who never calls ``signal()`` is an unkeyed table. Under the rules'
``banker_reads = "stake"`` he may also read the amount of the main hand's initial stake
(``view.main_stake()``): he is then asked at each stake the punters' table places (its
levels), and a banker who never reads it is a one-level table.

Why this is faithful: the reference path asks the strategy about the very views enumerated
(up to fields the strategy is not allowed to read), and the table answers each with the
answer given; a state met twice (two initial stakes, two pairs of a rank) is asked each time
and must be answered alike.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sim.core.tabulate import NotTabulable, Tabulation, ask, cached, tabulation
from sim.games.pontoon.hand import (
    BANKER_SHAPE,
    BUY1,
    BUY2,
    BUY_PATTERNS,
    N_KEYS,
    NO_LIVE_HAND,
    PLAYER_SHAPE,
    STICK,
    TWIST,
    V_CAP,
    hard_thirteen,
    is_pontoon_pair,
    key_parts,
    level_key,
    pair_splittable,
    rule_vectors,
    stake_levels,
)
from sim.games.pontoon.rules import MAX_CARDS, VALUES, PontoonRules
from sim.games.pontoon.tables import BankerTable, PlayerTable
from sim.games.pontoon.views import BankerView, Buy, Move, PlayerView, StakeView, hand_totals

PUNTER_FIELDS = frozenset({"total", "soft", "n_cards", "visible_sum", "buys", "buy_multiples",
                           "stake", "initial_stake", "min_buy", "max_buy", "twisted", "legal",
                           "rules"})
PAIR_FIELDS = PUNTER_FIELDS | {"cards"}
STAKE_FIELDS = frozenset({"first_card", "min_stake", "max_stake", "rules"})
BANKER_FIELDS = frozenset({"total", "soft", "n_cards", "rules"})


# ------------------------------------------------------------------------ punter
def _buy_limit(buys: tuple[int, ...], twisted: bool, n: int, total: int,
               rules: PontoonRules) -> int:
    """The largest buy allowed, in initial stakes (0: none), as the reference path rules."""
    if twisted or total >= 21 or n >= MAX_CARDS or len(buys) >= rules.max_buys:
        return 0
    if n == MAX_CARDS - 1 and not rules.buy_fifth_card:
        return 0
    return rules.first_buy_max if not buys else buys[-1]


def _hands(rules: PontoonRules):
    """Every hand at a decision as (cards, face_up, buys in initial stakes, twisted,
    split_hand): fresh hands and split hands, then each card bought or twisted. Hands alike
    in everything the play depends on (hard total, an ace, cards, buys, twist, visible sum,
    split) are followed once: what follows them is alike too."""
    value_of = [int(VALUES[r]) for r in range(13)]
    followed: set[tuple] = set()

    def grow(cards, face_up, buys, twisted, split_hand, hard, visible):
        ace = 0 in cards
        total = hard + 10 if ace and hard <= 11 else hard
        if hard > 21 or total >= 21 or len(cards) >= MAX_CARDS:
            return
        alike = (hard, ace, len(cards), buys, twisted, min(visible, V_CAP), split_hand)
        if len(cards) > 2 and alike in followed:  # two-card hands: every pair is asked
            return
        followed.add(alike)
        yield cards, face_up, buys, twisted, split_hand
        limit = _buy_limit(buys, twisted, len(cards), total, rules)
        draws = [(a, False) for a in (1, 2) if a <= limit and buys + (a,) in BUY_PATTERNS]
        draws.append((0, True))
        for rank in range(10):  # one rank of each value (ten: 9)
            value = value_of[rank]
            for amount, up in draws:
                yield from grow(cards + (rank,), face_up + (up,),
                                buys + ((amount,) if amount else ()), twisted or up,
                                split_hand, hard + value, visible + (value if up else 1))

    for a in range(13):
        for b in range(13):
            hard = value_of[a] + value_of[b]
            if not is_pontoon_pair(a, b):
                yield from grow((a, b), (False, False), (), False, False, hard, 2)
            # after a split: the first card shown
            yield from grow((a, b), (True, False), (), False, True, hard, value_of[a] + 1)


def _state(cards, face_up, buys, twisted) -> tuple[int, ...]:
    total, soft = hand_totals(cards)
    visible = sum(int(VALUES[c]) if up else 1 for c, up in zip(cards, face_up))
    return (BUY_PATTERNS.index(buys), int(twisted), len(cards) - 2, min(visible, V_CAP),
            int(soft), total)


def _player_view(rules: PontoonRules, cards, face_up, buys, twisted, split_hand, initial,
                 legal_extra=()) -> PlayerView:
    total, soft = hand_totals(cards)
    limit = _buy_limit(buys, twisted, len(cards), total, rules)
    legal = {"twist"} | ({"stick"} if total >= rules.stick_min else set()) | (
        {"buy"} if limit else set()) | set(legal_extra)
    return PlayerView(
        seat=0, hand_index=0, hands=1, cards=cards, face_up=face_up, total=total, soft=soft,
        stake=initial * (1 + sum(buys)), initial_stake=initial,
        buys=tuple(initial * b for b in buys), twisted=twisted, split_hand=split_hand,
        legal=frozenset(legal), min_buy=initial, max_buy=limit * initial,
        seen=(0,) * 13, stock=rules.n_cards, rules=rules)


def _describe(view: PlayerView) -> str:
    return (f"{'soft' if view.soft else 'hard'} {view.total} in {len(view.cards)} cards "
            f"{view.cards}, buys {view.buys or 'none'}{', twisted' if view.twisted else ''}")


def _action(view: Any, answer: Any) -> int | str:
    """The answer as a table code (or "split" / "burn")."""
    if isinstance(answer, Buy):
        multiple = answer.amount / view.initial_stake
        for code, m in ((BUY1, 1), (BUY2, 2)):
            if abs(multiple - m) < 1e-9:
                return code
        raise NotTabulable(f"it buys {answer.amount!r} on {_describe(view)}: a table holds "
                           "buys of one or two initial stakes")
    if answer == Move.STICK:
        return STICK
    if answer == Move.TWIST:
        return TWIST
    if answer in (Move.SPLIT, Move.BURN):
        return str(answer)
    raise NotTabulable(f"it answers {answer!r} on {_describe(view)}, which is not a pontoon "
                       "action (the reference path reports it)")


def _punter_stakes(rules: PontoonRules, strategy: Any) -> tuple[float, ...]:
    if not hasattr(strategy, "stake"):
        return (float(rules.min_stake),) * 13
    stakes = []
    for rank in range(13):
        view = StakeView(0, rank, rules.min_stake, rules.max_stake, (0,) * 13, rules.n_cards,
                         rules)
        amount = ask(strategy, "stake", view, STAKE_FIELDS,
                     describe=lambda v: f"the stake on a first card {v.first_card}")
        if (isinstance(amount, bool) or not isinstance(amount, (int, float, np.floating))
                or not rules.min_stake <= amount <= rules.max_stake):
            raise NotTabulable(f"it stakes {amount!r}, outside the table's limits (the "
                               "reference path reports it)")
        stakes.append(float(amount))
    return tuple(stakes)


def build_punter(rules: PontoonRules, strategy: Any) -> PlayerTable:
    """The punter as a :class:`PlayerTable` (see the module notes).

    Raises:
        NotTabulable: why he cannot be one.
    """
    stakes = _punter_stakes(rules, strategy)
    initials = sorted(set(stakes))
    rule_i = rule_vectors(rules)[0]
    actions = np.full(PLAYER_SHAPE, TWIST, dtype=np.uint8)
    asked: dict[tuple[int, ...], int] = {}
    pairs: list[tuple] = []
    for cards, face_up, buys, twisted, split_hand in _hands(rules):
        state = _state(cards, face_up, buys, twisted)
        if len(cards) == 2 and not buys and not twisted:
            may_split = bool(pair_splittable(cards[0], cards[1], rule_i)) and rules.max_hands > 1
            may_burn = rules.burn_hard_13 and not split_hand and bool(hard_thirteen(*cards))
            if may_split or may_burn:
                pairs.append((state, cards, face_up, split_hand, may_split, may_burn))
        if state in asked:
            continue
        for initial in initials:
            view = _player_view(rules, cards, face_up, buys, twisted, split_hand, initial)
            code = _action(view, ask(strategy, "decide", view, PUNTER_FIELDS,
                                     describe=_describe))
            if isinstance(code, str):
                raise NotTabulable(f"it answers {code} on {_describe(view)}, where the rules "
                                   "do not allow it (the reference path reports it)")
            if asked.setdefault(state, code) != code:
                raise NotTabulable(f"its play on {_describe(view)} depends on the initial "
                                   "stake, which a table cannot hold")
        actions[state] = asked[state]
    split = [None] * 13
    burn = None
    for state, cards, face_up, split_hand, may_split, may_burn in pairs:
        extra = ({"split"} if may_split else set()) | ({"burn"} if may_burn else set())
        for initial in initials:
            view = _player_view(rules, cards, face_up, (), False, split_hand, initial, extra)
            code = _action(view, ask(strategy, "decide", view, PAIR_FIELDS,
                                     describe=_describe))
            if code == "burn" and not may_burn or code == "split" and not may_split:
                raise NotTabulable(f"it answers {code} on {_describe(view)}, where the rules "
                                   "do not allow it (the reference path reports it)")
            if not isinstance(code, str) and code != asked[state]:
                raise NotTabulable(f"it plays {_describe(view)} differently from other hands "
                                   "of that total, which a table cannot hold")
            if may_split:
                if split[cards[0]] not in (None, code == "split"):
                    raise NotTabulable(f"its splits of a pair led by rank {cards[0]} differ "
                                       "by the other card or the stake, which a table cannot "
                                       "hold")
                split[cards[0]] = code == "split"
            if may_burn:
                if burn not in (None, code == "burn"):
                    raise NotTabulable("it burns some hard 13s and not others, which a table "
                                       "cannot hold")
                burn = code == "burn"
    table = PlayerTable(actions, tuple(bool(s) for s in split), bool(burn), stakes)
    problems = table.problems(rules)
    if problems:
        raise NotTabulable(f"its play is not allowed here ({problems[0]}; the reference path "
                           "reports it)")
    return table


# ------------------------------------------------------------------------ banker
def _banker_hands():
    """A hand of the banker for each (cards, soft, total) he may draw to."""
    seen: dict[tuple[int, int, int], tuple[int, ...]] = {}

    def grow(cards):
        total, soft = hand_totals(cards)
        if sum(int(VALUES[c]) for c in cards) > 21 or total >= 21 or len(cards) >= MAX_CARDS:
            return
        seen.setdefault((len(cards), int(soft), total), cards)
        for rank in range(10):  # one rank of each value (ten: 9)
            grow(cards + (rank,))

    for a in range(10):
        for b in range(10):
            if not is_pontoon_pair(a, b):
                grow((a, b))
    return seen


def build_banker(rules: PontoonRules, strategy: Any,
                 stakes: tuple[float, ...] = ()) -> BankerTable:
    """The banker as a :class:`BankerTable` (see the module notes); ``stakes``: the punters'
    initial stakes by first card, whose amounts he may read under ``banker_reads = "stake"``.

    Raises:
        NotTabulable: why he cannot be one.
    """
    hands = _banker_hands()
    signalled: list[bool] = []
    read_stake: list[bool] = []
    levels = stake_levels(stakes) if rules.banker_reads == "stake" else ()

    def answer(cards: tuple[int, ...], key: int, amount: float = 0.0) -> int:
        total, soft = hand_totals(cards)
        view = BankerView(cards, total, soft, (), (0,) * 13, rules.n_cards, rules)

        def signal() -> int:
            signalled.append(True)
            return key

        def main_stake() -> float:
            read_stake.append(True)
            return amount

        overrides: dict[str, Any] = {"signal": signal}
        if levels:
            overrides["main_stake"] = main_stake
        move = ask(strategy, "decide", view, BANKER_FIELDS, overrides=overrides,
                   describe=lambda v: f"the bank's {'soft' if soft else 'hard'} {total} in "
                                      f"{len(cards)} cards")
        if move not in (Move.TWIST, Move.STICK):
            raise NotTabulable(f"it answers {move!r}, not twist or stick (the reference path "
                               "reports it)")
        return int(move == Move.TWIST)

    draw = np.zeros(BANKER_SHAPE, dtype=np.uint8)
    for (n, soft, total), cards in hands.items():
        draw[:, n - 2, soft, total] = answer(cards, 0, levels[0] if levels else 0.0)
    if not signalled and not read_stake:
        return BankerTable(draw, keyed=False)
    for key in range(N_KEYS):
        # He does not draw when no punter's hand is live; a signal's lower bound is never
        # below the smallest total a punter may stick on.
        if key == NO_LIVE_HAND or key_parts(key)[1] < rules.stick_min:
            continue
        for (n, soft, total), cards in hands.items():
            draw[key, n - 2, soft, total] = answer(cards, key, levels[0] if levels else 0.0)
    if not read_stake or len(levels) < 2:
        return BankerTable(draw, keyed=True)
    by_level = np.tile(draw, (len(levels), 1, 1, 1))
    for level, amount in enumerate(levels[1:], start=1):
        for key in range(N_KEYS):
            if key == NO_LIVE_HAND or key_parts(key)[1] < rules.stick_min:
                continue
            for (n, soft, total), cards in hands.items():
                by_level[level_key(level, key), n - 2, soft, total] = answer(cards, key,
                                                                             amount)
    return BankerTable(by_level, keyed=True, stake_levels=levels)


# ------------------------------------------------------------------------ wiring
def tabulate(rules: PontoonRules, strategy: Any, player: Any, banker: Any
             ) -> Tabulation[tuple[PlayerTable, BankerTable]]:
    """The experiment's ``strategy``, seated as ``player`` and ``banker``, as tables: each
    given by the strategy where it describes itself as one and built here where it does not;
    or the reason the deal stays on the reference path. Built once per rules and strategy."""

    def build() -> tuple[PlayerTable, BankerTable]:
        describe_player = getattr(player, "as_table", None)
        describe_banker = getattr(banker, "as_table", None)
        try:
            player_table = (describe_player(rules) if describe_player is not None
                            else build_punter(rules, player))
        except NotTabulable as refused:
            raise NotTabulable(f"the punter: {refused.reason}") from None
        if player_table is None:  # a built-in that plays only in Python under these rules
            raise NotTabulable("the punter plays only in Python under these rules")
        try:
            banker_table = (describe_banker(rules) if describe_banker is not None
                            else build_banker(rules, banker, player_table.stakes))
        except NotTabulable as refused:
            raise NotTabulable(f"the banker: {refused.reason}") from None
        return player_table, banker_table

    return cached(rules, strategy, lambda: tabulation(build))
