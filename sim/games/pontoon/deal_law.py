"""The exact distribution of a heads-up deal's net result in the infinite deck.

Drawing with replacement, the punter's cards, the banker's two cards and the banker's draws
are independent, and so is each card of them. Three facts make the law small:

* **The seat, on its own.** The punter's hands are played by his table from his own cards
  only, so the outcome of his seat (the list of its hands' scores and money, splits and buys
  included) has a law of its own, walked card by card exactly as the kernel plays a seat (a
  pontoon declared, busts, 21 and five cards standing, the burn and the split before the
  table's move). The rest of a seat after any point depends only on the hands still to play,
  the hands made so far and whether the burn is used, so those walks are cached.
* **The banker, on his own.** A banker who does not read the punter's hands draws on his own
  cards only, and only if some hand stood. His law is therefore the two-card law (when no
  hand stood) or the drawn law (when one did), each the same whatever the punter holds.
* **Settlement is a sum over hands.** Given the seat's outcome and the banker's final score,
  the net is the sum of each hand's settlement times its money. A banker's pontoon settles
  the first two cards at once.

So the law is a sum over the seat's outcomes of its settlement against the right banker law,
plus the banker-pontoon part. Its mean is the exact value of
:mod:`sim.games.pontoon.exact_infinite`, which the tests check to rounding.
"""

from __future__ import annotations

from collections import defaultdict
from functools import cache

import numpy as np

from sim.games.pontoon.hand import (
    BUST,
    BUY_SUM,
    N_SCORES,
    NEXT_BUY,
    PONTOON,
    RI_BANKER_FIVE,
    RI_BURN,
    RI_MAX_HANDS,
    RI_SPLIT_PONTOON,
    RI_TIES_TO_BANKER,
    STICK,
    TWIST,
    banker_index,
    banker_score,
    best_total,
    hand_over,
    hard_thirteen,
    is_pontoon_pair,
    pair_splittable,
    player_index,
    player_score,
    settle,
    settle_banker_pontoon,
)
from sim.games.pontoon.rules import MAX_CARDS, VALUES, PontoonRules
from sim.games.pontoon.tables import BankerTable, PlayerTable

STOOD = 1  # a hand result: (score, money multiple, stood)


def deal_law(rules: PontoonRules, player: PlayerTable, banker: BankerTable
             ) -> tuple[np.ndarray, np.ndarray] | None:
    """(values, probabilities) of the punter's net in one heads-up infinite-deck deal; None
    for several punters, a finite pack or a banker who reads the punters' hands."""
    from sim.games.pontoon.kernel import _kernel_args

    if rules.players != 1 or not rules.infinite_deck:
        return None
    act, split, burn, stakes, _, btab, keyed, rule_i, rule_f = _kernel_args(rules, player, banker)
    if keyed:
        return None
    probs = rules.rank_probabilities()
    ranks = [r for r in range(13) if probs[r] > 0]
    ties = bool(rule_i[RI_TIES_TO_BANKER])
    max_hands = int(rule_i[RI_MAX_HANDS])
    may_burn_rule = bool(burn) and bool(rule_i[RI_BURN])
    split_pontoon = bool(rule_i[RI_SPLIT_PONTOON])

    def fresh(c1: int, c2: int, split_hand: bool, v: int) -> tuple:
        return (VALUES[c1] + VALUES[c2], c1 == 0 or c2 == 0, 2, 0, False, v, c1, c2,
                split_hand)

    @cache
    def play(state: tuple, n_hands: int, may_burn: bool) -> tuple:
        """The law of a hand played from ``state`` with the hands split from it, as
        ((results, hands made by then, burn still allowed), probability) pairs; the kernel
        plays a hand and the hands it splits into before the older ones waiting."""
        hard, ace, n, buys, twisted, v, c1, c2, split_hand = state
        money = 1 + int(BUY_SUM[buys])
        total, soft = best_total(hard, ace)
        if n == 2 and is_pontoon_pair(c1, c2) and (not split_hand or split_pontoon):
            return ((((PONTOON, money, 0),), n_hands, may_burn), 1.0),
        if hard > 21:
            return ((((BUST, money, 0),), n_hands, may_burn), 1.0),
        if hand_over(total, soft, n, rules.soft_21_draws):
            return ((((player_score(hard, ace, n, False), money, STOOD),), n_hands,
                     may_burn), 1.0),
        out: dict = defaultdict(float)
        if n == 2 and not split_hand and may_burn and may_burn_rule and hard_thirteen(c1, c2):
            for x in ranks:
                for y in ranks:
                    for key, q in play(fresh(x, y, False, v), n_hands, False):
                        out[key] += probs[x] * probs[y] * q
            return tuple(out.items())
        if n == 2 and n_hands < max_hands and split[c1] and pair_splittable(c1, c2, rule_i):
            for x in ranks:
                for y in ranks:
                    p = probs[x] * probs[y]
                    for (first, made, burn_left), q in play(
                            fresh(c1, x, True, VALUES[c1] + 1), n_hands + 1, may_burn):
                        for (second, made2, burn2), r in play(
                                fresh(c2, y, True, VALUES[c2] + 1), made, burn_left):
                            out[(tuple(sorted(first + second)), made2, burn2)] += p * q * r
            return tuple(out.items())
        action = act[player_index(buys, twisted, n, v, soft, total)]
        if action == STICK:
            return ((((player_score(hard, ace, n, False), money, STOOD),), n_hands,
                     may_burn), 1.0),
        for x in ranks:
            if action == TWIST:
                nxt = (hard + VALUES[x], ace or x == 0, n + 1, buys, True, v + VALUES[x],
                       -1, -1, split_hand)
            else:
                nxt = (hard + VALUES[x], ace or x == 0, n + 1, int(NEXT_BUY[buys, action - 1]),
                       twisted, v + 1, -1, -1, split_hand)
            for key, q in play(nxt, n_hands, may_burn):
                out[key] += probs[x] * q
        return tuple(out.items())

    def seat(first: tuple) -> dict:
        law: dict = defaultdict(float)
        for (results, _, _), q in play(first, 1, True):
            law[results] += q
        return law

    five_rule = bool(rule_i[RI_BANKER_FIVE])

    @cache
    def banker_draws(hard: int, ace: bool, n: int) -> tuple:
        """The law of the banker's final score, drawing by his table."""
        total, soft = best_total(hard, ace)
        if hard > 21 or total >= 21 or n >= MAX_CARDS or btab[banker_index(0, n, soft,
                                                                          total)] == 0:
            return ((int(banker_score(hard, ace, n, five_rule)), 1.0),)
        out: dict = defaultdict(float)
        for x in ranks:
            for score, q in banker_draws(hard + VALUES[x], ace or x == 0, n + 1):
                out[score] += probs[x] * q
        return tuple(out.items())

    two_card = np.zeros(N_SCORES)
    drawn = np.zeros(N_SCORES)
    p_bp = 0.0
    for b1 in ranks:
        for b2 in ranks:
            p = probs[b1] * probs[b2]
            if is_pontoon_pair(b1, b2):
                p_bp += p
                continue
            hard, ace = VALUES[b1] + VALUES[b2], b1 == 0 or b2 == 0
            two_card[int(banker_score(hard, ace, 2, five_rule))] += p
            for score, q in banker_draws(hard, ace, 2):
                drawn[score] += p * q
    pay = np.array([[settle(s, b, ties, rule_f) for b in range(N_SCORES)]
                    for s in range(N_SCORES)])
    law: dict[float, float] = defaultdict(float)
    outcomes: dict = defaultdict(float)  # (stake, results) -> probability
    for p1 in ranks:
        for p2 in ranks:
            p = probs[p1] * probs[p2]
            stake = float(stakes[p1])
            law[round(settle_banker_pontoon(is_pontoon_pair(p1, p2), ties, rule_f) * stake,
                      9)] += p * p_bp
            for results, q in seat(fresh(p1, p2, False, 2)).items():
                outcomes[(stake, results)] += p * q
    for (stake, results), q in outcomes.items():
        net = np.zeros(N_SCORES)
        for score, money, _ in results:
            net += (-1.0 if score == BUST else pay[score]) * money * stake
        banker_law = drawn if any(s for *_, s in results) else two_card
        for b in np.flatnonzero(banker_law):
            law[round(float(net[b]), 9)] += q * banker_law[b]
    values = np.array(sorted(law))
    return values, np.array([law[v] for v in values.tolist()])
