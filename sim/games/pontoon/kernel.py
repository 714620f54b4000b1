"""The fast path: heads-up pontoon deals in a compiled kernel, strategies given as tables.

The kernel plays exactly the rules of :mod:`sim.games.pontoon.reference` for one punter and
the banker: the same order of cards, the same decisions from a :class:`PlayerTable` and a
:class:`BankerTable`, the same settlement, the same return of used cards to the bottom of the
pack and the same shuffles. Tests compare the two deal by deal on given card orders.

The pack is kept between deals as a circular stock. After a shuffle its order is not drawn
up front: each card is drawn when needed from the cards not yet dealt since the shuffle (a
lazy Fisher-Yates), so a deal costs only the cards it uses; returned cards queue at the bottom
in their known order. The generator (xoshiro256**) lives in local variables.
"""

from __future__ import annotations

import numba
import numpy as np

from sim.games.pontoon.hand import (
    BUST,
    BUY_SUM,
    FIVE,
    NEXT_BUY,
    NO_LIVE_HAND,
    PONTOON,
    RI_BANK_PASSES,
    RI_BANKER_FIVE,
    RI_BURN,
    RI_EVERY_DEAL,
    RI_INFINITE,
    RI_MAX_HANDS,
    RI_SPLIT_PONTOON,
    RI_STICK_MIN,
    RI_TIES_TO_BANKER,
    STICK,
    TWIST,
    banker_index,
    banker_score,
    best_total,
    hand_key,
    hard_thirteen,
    is_pontoon_pair,
    pair_splittable,
    player_index,
    player_score,
    rule_vectors,
    settle,
    settle_banker_pontoon,
)
from sim.games.pontoon.rules import MAX_CARDS, MAX_HANDS, VALUES, PontoonRules
from sim.games.pontoon.tables import BankerTable, PlayerTable
from sim.stats import Stats
from sim.xoshiro import _bounded

HIST_HALF_UNITS = 4096  # the histogram of net results spans +-2048 units, in half units
# Pack state vector: top of the stock, cards in it, fresh (not yet dealt since the shuffle)
# cards at its top, pack size, next given order (given-order mode: -1 when drawing at random).
PS_HEAD, PS_STOCK, PS_FRESH, PS_SIZE, PS_ORDER = 0, 1, 2, 3, 4
# Per-deal results recorded by play_ordered_deals (columns).
(D_NET, D_INITIAL, D_WAGERED, D_HANDS, D_BUSTS, D_FIVES, D_PONTOONS, D_SPLITS, D_BUYS,
 D_BURNS, D_BANKER_PONTOON, D_BANKER_BUST, D_BANKER_FIVE, D_SHUFFLE, D_PASS) = range(15)
N_D = 15
COUNTER_NAMES = ("hands", "busts", "fives", "pontoons", "splits", "buys", "burns",
                 "banker_pontoons", "banker_busts", "banker_fives", "shuffles", "bank_passes")
# Hand arrays: one row per hand of the seat.
H_N, H_HARD, H_ACE, H_BUYS, H_TWISTED, H_V, H_SPLIT, H_STATUS = range(8)
PLAYING, STOOD, BUSTED, DECLARED = 0, 1, 2, 3


@numba.njit(inline="always")
def _draw(pack, n, head, stock, fresh, infinite, s0, s1, s2, s3):
    """The top card of the stock (a fresh card is chosen at random among the fresh ones);
    returns it with the stock's new state (head, cards, fresh) and the generator's."""
    if infinite:
        j, s0, s1, s2, s3 = _bounded(n, s0, s1, s2, s3)
        return pack[j], head, stock, fresh, s0, s1, s2, s3
    if fresh > 1:
        j, s0, s1, s2, s3 = _bounded(fresh, s0, s1, s2, s3)
        if j:
            pos = head + j
            if pos >= n:
                pos -= n
            card = pack[pos]
            pack[pos] = pack[head]
            pack[head] = card
    if fresh > 0:
        fresh -= 1
    card = pack[head]
    head += 1
    if head == n:
        head = 0
    return card, head, stock - 1, fresh, s0, s1, s2, s3


@numba.njit(inline="always")
def _to_bottom(pack, n, head, stock, card):
    """Put ``card`` at the bottom of the stock; returns the cards in the stock."""
    pos = head + stock
    if pos >= n:
        pos -= n
    pack[pos] = card
    return stock + 1


@numba.njit(inline="always")
def _play_deal(pack, ps, act, split, burn, stakes, btab, keyed, rule_i, rule_f, cards, hands,
               aside, bcards, infinite, s0, s1, s2, s3):
    """Play one heads-up deal. Returns the generator state and the deal's results (net,
    initial stake, wagered, hands, busts, five card tricks, pontoons, splits, buys, burns,
    banker pontoon, banker bust, banker five card trick, a pontoon, an unsplit pontoon), as
    locals rather than stores into an array, which the compiler could not keep in registers.
    ``infinite`` is a constant where this is inlined: a run-time flag tested at every card
    would cost a factor of two."""
    ties = rule_i[RI_TIES_TO_BANKER] != 0
    head, stock, fresh, n_pack = ps[PS_HEAD], ps[PS_STOCK], ps[PS_FRESH], ps[PS_SIZE]
    p1, head, stock, fresh, s0, s1, s2, s3 = _draw(
        pack, n_pack, head, stock, fresh, infinite, s0, s1, s2, s3)
    b1, head, stock, fresh, s0, s1, s2, s3 = _draw(
        pack, n_pack, head, stock, fresh, infinite, s0, s1, s2, s3)
    stake = stakes[p1]
    p2, head, stock, fresh, s0, s1, s2, s3 = _draw(
        pack, n_pack, head, stock, fresh, infinite, s0, s1, s2, s3)
    b2, head, stock, fresh, s0, s1, s2, s3 = _draw(
        pack, n_pack, head, stock, fresh, infinite, s0, s1, s2, s3)
    wagered = stake
    busts = fives = pontoons = splits = buys = burns = 0
    bcards[0] = b1
    bcards[1] = b2
    bn = 2
    n_aside = 0
    if is_pontoon_pair(b1, b2):  # exposed at once
        net = settle_banker_pontoon(is_pontoon_pair(p1, p2), ties, rule_f) * stake
        if not infinite:
            stock = _to_bottom(pack, n_pack, head, stock, p1)
            stock = _to_bottom(pack, n_pack, head, stock, p2)
            stock = _to_bottom(pack, n_pack, head, stock, b1)
            stock = _to_bottom(pack, n_pack, head, stock, b2)
        ps[PS_HEAD], ps[PS_STOCK], ps[PS_FRESH] = head, stock, fresh
        return (s0, s1, s2, s3, net, stake, wagered, 1, 0, 0, 0, 0, 0, 0, True, False, False,
                True, False)

    cards[0, 0] = p1
    cards[0, 1] = p2
    for k in range(8):
        hands[0, k] = 0
    hands[0, H_N] = 2
    hands[0, H_HARD] = VALUES[p1] + VALUES[p2]
    hands[0, H_ACE] = p1 == 0 or p2 == 0
    hands[0, H_V] = 2
    n_hands = 1
    may_burn = True
    i = 0
    while i < n_hands:
        while hands[i, H_STATUS] == PLAYING:
            n = hands[i, H_N]
            hard = hands[i, H_HARD]
            total, soft = best_total(hard, hands[i, H_ACE] != 0)
            left = stock if not infinite else 1 << 30
            c1 = cards[i, 0]
            c2 = cards[i, 1]
            if n == 2 and is_pontoon_pair(c1, c2) and (
                    hands[i, H_SPLIT] == 0 or rule_i[RI_SPLIT_PONTOON] != 0):
                hands[i, H_STATUS] = DECLARED
                break
            if hard > 21:
                hands[i, H_STATUS] = BUSTED
                for k in range(n):
                    aside[n_aside] = cards[i, k]
                    n_aside += 1
                break
            if total == 21 or n >= MAX_CARDS or left == 0:
                hands[i, H_STATUS] = STOOD
                break
            if n == 2 and left >= 2 and hands[i, H_SPLIT] == 0 and may_burn and burn \
                    and rule_i[RI_BURN] != 0 and hard_thirteen(c1, c2):
                aside[n_aside] = c1
                aside[n_aside + 1] = c2
                n_aside += 2
                x, head, stock, fresh, s0, s1, s2, s3 = _draw(
                    pack, n_pack, head, stock, fresh, infinite, s0, s1, s2, s3)
                y, head, stock, fresh, s0, s1, s2, s3 = _draw(
                    pack, n_pack, head, stock, fresh, infinite, s0, s1, s2, s3)
                cards[i, 0] = x
                cards[i, 1] = y
                hands[i, H_HARD] = VALUES[x] + VALUES[y]
                hands[i, H_ACE] = x == 0 or y == 0
                may_burn = False
                burns += 1
                continue
            if n == 2 and left >= 2 and n_hands < rule_i[RI_MAX_HANDS] and split[c1] \
                    and pair_splittable(c1, c2, rule_i):
                for j in range(n_hands - 1, i, -1):  # make room after hand i
                    for k in range(8):
                        hands[j + 1, k] = hands[j, k]
                    for k in range(MAX_CARDS):
                        cards[j + 1, k] = cards[j, k]
                n_hands += 1
                x, head, stock, fresh, s0, s1, s2, s3 = _draw(
                    pack, n_pack, head, stock, fresh, infinite, s0, s1, s2, s3)
                y, head, stock, fresh, s0, s1, s2, s3 = _draw(
                    pack, n_pack, head, stock, fresh, infinite, s0, s1, s2, s3)
                for j, first, second in ((i, c1, x), (i + 1, c2, y)):
                    cards[j, 0] = first
                    cards[j, 1] = second
                    for k in range(8):
                        hands[j, k] = 0
                    hands[j, H_N] = 2
                    hands[j, H_HARD] = VALUES[first] + VALUES[second]
                    hands[j, H_ACE] = first == 0 or second == 0
                    hands[j, H_V] = VALUES[first] + 1
                    hands[j, H_SPLIT] = 1
                wagered += stake
                splits += 1
                continue
            action = act[player_index(hands[i, H_BUYS], hands[i, H_TWISTED] != 0, n,
                                      hands[i, H_V], soft, total)]
            if action == STICK:
                hands[i, H_STATUS] = STOOD
                break
            x, head, stock, fresh, s0, s1, s2, s3 = _draw(
                pack, n_pack, head, stock, fresh, infinite, s0, s1, s2, s3)
            cards[i, n] = x
            hands[i, H_N] = n + 1
            hands[i, H_HARD] = hard + VALUES[x]
            if x == 0:
                hands[i, H_ACE] = 1
            if action == TWIST:
                hands[i, H_TWISTED] = 1
                hands[i, H_V] += VALUES[x]
            else:
                amount = action - 1  # BUY1 = 2 -> 1, BUY2 = 3 -> 2
                hands[i, H_BUYS] = NEXT_BUY[hands[i, H_BUYS], amount]
                hands[i, H_V] += 1
                wagered += amount * stake
                buys += 1
        i += 1

    # The banker plays against the live hand with the most money (the first of equals).
    key = NO_LIVE_HAND
    best = 0
    for j in range(n_hands):
        if hands[j, H_STATUS] == STOOD:
            m = 1 + BUY_SUM[hands[j, H_BUYS]]
            if m > best:
                best = m
                key = hand_key(m, hands[j, H_V], hands[j, H_N], rule_i[RI_STICK_MIN])
    bhard = VALUES[b1] + VALUES[b2]
    bace = b1 == 0 or b2 == 0
    while key != NO_LIVE_HAND and bhard <= 21 and bn < MAX_CARDS and (
            infinite or stock > 0):
        total, soft = best_total(bhard, bace)
        if total >= 21 or btab[banker_index(key if keyed else 0, bn, soft, total)] == 0:
            break
        x, head, stock, fresh, s0, s1, s2, s3 = _draw(
            pack, n_pack, head, stock, fresh, infinite, s0, s1, s2, s3)
        bcards[bn] = x
        bn += 1
        bhard += VALUES[x]
        bace = bace or x == 0
    b_score = banker_score(bhard, bace, bn, rule_i[RI_BANKER_FIVE] != 0)

    net = 0.0
    for j in range(n_hands):
        status = hands[j, H_STATUS]
        money = stake * (1 + BUY_SUM[hands[j, H_BUYS]])
        if status == BUSTED:
            net -= money
            busts += 1
            continue
        if status == DECLARED:
            p_score = PONTOON
            pontoons += 1
        else:
            p_score = player_score(hands[j, H_HARD], hands[j, H_ACE] != 0, hands[j, H_N],
                                   False)
            fives += p_score == FIVE
        net += settle(p_score, b_score, ties, rule_f) * money
    unsplit_pontoon = n_hands == 1 and hands[0, H_STATUS] == DECLARED
    if not infinite:
        for k in range(n_aside):
            stock = _to_bottom(pack, n_pack, head, stock, aside[k])
        for j in range(n_hands):
            if hands[j, H_STATUS] != BUSTED:
                for k in range(hands[j, H_N]):
                    stock = _to_bottom(pack, n_pack, head, stock, cards[j, k])
        for k in range(bn):
            stock = _to_bottom(pack, n_pack, head, stock, bcards[k])
    ps[PS_HEAD], ps[PS_STOCK], ps[PS_FRESH] = head, stock, fresh
    return (s0, s1, s2, s3, net, stake, wagered, n_hands, busts, fives, pontoons, splits, buys,
            burns, False, b_score == BUST, bn == MAX_CARDS and b_score != BUST, pontoons > 0,
            unsplit_pontoon)


@numba.njit(inline="always")
def _simulate(n_deals, state, pack, orders, act, split, burn, stakes, btab, keyed, rule_i,
              rule_f, record, infinite):
    """Play ``n_deals`` deals in a row; with ``orders`` (one row per shuffle; in infinite-deck
    mode one row per deal) the cards are given instead of drawn. Returns (outcomes, sums,
    histogram, counters, per-deal rows)."""
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    every_deal = rule_i[RI_EVERY_DEAL] != 0 or rule_i[RI_INFINITE] != 0
    passes = rule_i[RI_BANK_PASSES] != 0
    given = orders.shape[0] > 0
    if given:  # the cards come from the rows in turn (infinite deck: a row per deal)
        pack = np.zeros(orders.shape[1], dtype=np.int64)
    n = pack.shape[0]
    ps = np.zeros(5, dtype=np.int64)
    ps[PS_SIZE] = n
    cards = np.zeros((MAX_HANDS + 1, MAX_CARDS), dtype=np.int64)
    hands = np.zeros((MAX_HANDS + 1, 8), dtype=np.int64)
    aside = np.zeros(4 * MAX_HANDS * MAX_CARDS + 4, dtype=np.int64)
    bcards = np.zeros(MAX_CARDS, dtype=np.int64)
    outcomes = np.zeros(3, dtype=np.int64)
    sums = np.zeros(8)
    hist = np.zeros(2 * HIST_HALF_UNITS + 1, dtype=np.int64)
    counters = np.zeros(len(COUNTER_NAMES) + 2)
    rows = np.zeros((n_deals if record else 0, N_D + 1))
    banker = 0
    shuffle = True
    next_order = 0
    every_deal_rule = rule_i[RI_EVERY_DEAL] != 0
    wins = losses = 0
    t_net = t_net2 = t_init = t_init2 = t_ni = t_w = t_w2 = t_nw = person0 = 0.0
    c_hands = c_busts = c_fives = c_pontoons = c_splits = c_buys = c_burns = 0
    c_bp = c_bb = c_b5 = c_shuffles = c_passes = 0
    for d in range(n_deals):
        if shuffle:
            ps[PS_HEAD] = 0
            ps[PS_STOCK] = n
            if given:
                pack[:] = orders[next_order % orders.shape[0]]
                next_order += 1
                ps[PS_FRESH] = 0
            else:
                ps[PS_FRESH] = n
        (s0, s1, s2, s3, net, initial, wagered, n_hands, busts, fives, pontoons, splits, buys,
         burns, banker_pontoon, banker_bust, banker_five, pontoon, unsplit) = _play_deal(
            pack, ps, act, split, burn, stakes, btab, keyed, rule_i, rule_f, cards, hands, aside,
            bcards, infinite, s0, s1, s2, s3)
        # Statistics in locals (kept in registers), written out once at the end.
        if net > 0.0:
            wins += 1
        elif net < 0.0:
            losses += 1
        t_net += net
        t_net2 += net * net
        t_init += initial
        t_init2 += initial * initial
        t_ni += net * initial
        t_w += wagered
        t_w2 += wagered * wagered
        t_nw += net * wagered
        h = int(round(net * 2.0))
        h = min(max(h, -HIST_HALF_UNITS), HIST_HALF_UNITS)
        hist[h + HIST_HALF_UNITS] += 1
        shuffle = pontoon or every_deal
        shuffled = pontoon or every_deal_rule
        passed = passes and unsplit
        c_hands += n_hands
        c_busts += busts
        c_fives += fives
        c_pontoons += pontoons
        c_splits += splits
        c_buys += buys
        c_burns += burns
        c_bp += banker_pontoon
        c_bb += banker_bust
        c_b5 += banker_five
        c_shuffles += shuffled
        c_passes += passed
        if banker == 0:  # the persons' results: the banker pays the punter
            person0 -= net
        else:
            person0 += net
        if record:
            rows[d, D_NET], rows[d, D_INITIAL], rows[d, D_WAGERED] = net, initial, wagered
            rows[d, D_HANDS], rows[d, D_BUSTS], rows[d, D_FIVES] = n_hands, busts, fives
            rows[d, D_PONTOONS], rows[d, D_SPLITS], rows[d, D_BUYS] = pontoons, splits, buys
            rows[d, D_BURNS], rows[d, D_BANKER_PONTOON] = burns, banker_pontoon
            rows[d, D_BANKER_BUST], rows[d, D_BANKER_FIVE] = banker_bust, banker_five
            rows[d, D_SHUFFLE], rows[d, D_PASS], rows[d, N_D] = shuffled, passed, banker
        if passed:
            banker = 1 - banker
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3
    outcomes[0], outcomes[1], outcomes[2] = wins, n_deals - wins - losses, losses
    sums[0], sums[1], sums[2], sums[3] = t_net, t_net2, t_init, t_init2
    sums[4], sums[5], sums[6], sums[7] = t_ni, t_w, t_w2, t_nw
    counted = (c_hands, c_busts, c_fives, c_pontoons, c_splits, c_buys, c_burns, c_bp, c_bb, c_b5,
               c_shuffles, c_passes)
    for k in range(len(counted)):
        counters[k] = counted[k]
    counters[12], counters[13] = person0, -person0
    return outcomes, sums, hist, counters, rows


@numba.njit(cache=True)
def _simulate_finite(n_deals, state, pack, orders, act, split, burn, stakes, btab, keyed,
                     rule_i, rule_f, record):
    return _simulate(n_deals, state, pack, orders, act, split, burn, stakes, btab, keyed,
                     rule_i, rule_f, record, False)


@numba.njit(cache=True)
def _simulate_infinite(n_deals, state, pack, orders, act, split, burn, stakes, btab, keyed,
                       rule_i, rule_f, record):
    return _simulate(n_deals, state, pack, orders, act, split, burn, stakes, btab, keyed,
                     rule_i, rule_f, record, True)


def _kernel_args(rules: PontoonRules, player: PlayerTable, banker: BankerTable) -> tuple:
    rule_i, rule_f = rule_vectors(rules)
    return (player.actions.ravel(), np.array(player.split, dtype=np.bool_), player.burn,
            np.array(player.stakes), banker.under(rules).draw.ravel(), banker.keyed, rule_i,
            rule_f)


def simulate_tables(rules: PontoonRules, player: PlayerTable, banker: BankerTable, deals: int,
                    state: np.ndarray) -> Stats:
    """Play ``deals`` heads-up deals in a row on the kernel, advancing the xoshiro ``state``
    in place."""
    if rules.players != 1:
        raise ValueError("players: the kernel plays heads-up (one punter)")
    pack = rules.pack_ranks().astype(np.int64)
    no_orders = np.zeros((0, pack.size), dtype=np.int64)
    run = _simulate_infinite if rules.infinite_deck else _simulate_finite
    outcomes, sums, hist, counters, _ = run(
        deals, state, pack, no_orders, *_kernel_args(rules, player, banker), False)
    values = np.arange(-HIST_HALF_UNITS, HIST_HALF_UNITS + 1) / 2.0
    named = dict(zip(COUNTER_NAMES, counters[:len(COUNTER_NAMES)].tolist()))
    if rules.bank_passes:
        named["person0_net"], named["person1_net"] = counters[-2], counters[-1]
    return Stats.from_arrays(deals, outcomes, sums, values, hist, named)


def session_nets(rules: PontoonRules, player: PlayerTable, banker: BankerTable, sessions: int,
                 rounds: int, state: np.ndarray) -> np.ndarray:
    """The net of each deal of ``sessions`` heads-up sessions of ``rounds`` deals, one row
    each, advancing the xoshiro ``state``. Each session starts from a fresh shuffle (in the
    infinite deck the deals are independent, so one run is cut into rows)."""
    pack = rules.pack_ranks().astype(np.int64)
    no_orders = np.zeros((0, pack.size), dtype=np.int64)
    args = _kernel_args(rules, player, banker)
    if rules.infinite_deck:
        *_, rows = _simulate_infinite(sessions * rounds, state, pack, no_orders, *args, True)
        return rows[:, D_NET].reshape(sessions, rounds).copy()
    out = np.empty((sessions, rounds))
    for s in range(sessions):
        *_, rows = _simulate_finite(rounds, state, pack, no_orders, *args, True)
        out[s] = rows[:, D_NET]
    return out


def play_ordered_deals(rules: PontoonRules, player: PlayerTable, banker: BankerTable,
                       orders: np.ndarray, deals: int) -> np.ndarray:
    """Play ``deals`` deals in a row where each shuffle takes the next row of ``orders`` (in
    infinite-deck mode each deal draws the next row's cards in turn): one row per deal of
    (net, initial, wagered, hands, busts, fives, pontoons, splits, buys, burns, banker
    pontoon, banker bust, banker five, shuffle after, bank passes, banker person). For tests
    against the reference path and exact enumeration."""
    pack = rules.pack_ranks().astype(np.int64)
    orders = np.ascontiguousarray(orders, dtype=np.int64)
    state = np.array([1, 2, 3, 4], dtype=np.uint64)
    *_, rows = _simulate_finite(deals, state, pack, orders,
                                *_kernel_args(rules, player, banker), True)
    return rows
