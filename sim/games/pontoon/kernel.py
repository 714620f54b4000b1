"""The fast path: heads-up pontoon deals in a compiled kernel, strategies given as tables.

The kernel plays exactly the rules of :mod:`sim.games.pontoon.reference` for one punter and
the banker: the same order of cards, the same decisions from a :class:`PlayerTable` and a
:class:`BankerTable`, the same settlement, the same return of used cards to the bottom of the
pack and the same shuffles. Tests compare the two deal by deal on given card orders.

The pack is kept between deals as a circular stock. After a shuffle its order is not drawn
up front: each card is drawn when needed from the cards not yet dealt since the shuffle (a
lazy Fisher-Yates), so a deal costs only the cards it uses; returned cards queue at the bottom
in their known order. The generator (xoshiro256**) lives in local variables.

Common random numbers: the kernel is given a *key* (four words from the chunk's seed), never
advanced. At each shuffle (every deal where the pack is shuffled every deal, or in the infinite
deck) the generator is re-seeded from the key and the shuffle's index
(:func:`sim.core.xoshiro.round_state`) and the pack is put back in its sorted order, so shuffle k of
a chunk deals the same cards in the same order to every strategy, however many cards the
strategies took before. The order in which the used piles are gathered (``gathering =
"varied"``) is drawn from the same stream, after the deal's cards.

Cycles: where nothing random happens between deals (gathering "fixed", no undealt card left,
no shuffle) a deal is a function of the stock's order; the kernel compares the stock at the
start of each such deal with one saved order (Brent's cycle detection: the saved order is
replaced at each power of two deals) and, when it repeats, counts every deal from there as
locked in a cycle (``cycle_locks``, ``cycle_locked_deals``).

The deal's helpers (the draw, the return of cards) are compiled without the
reference-counting runtime and marked ``forceinline``, so that LLVM inlines them into the one
entry point; what that and the other choices buy, with the figures: ``docs/performance.md``.
"""

from __future__ import annotations

import numba
import numpy as np

from sim.core import kernel_cache  # noqa: F401  (compiled code cached by digest)
from sim.core.histogram import NetGrid, count
from sim.core.jit import read_only
from sim.core.stats import BATCH_FIELDS, Stats, kernel_add_batch
from sim.core.xoshiro import coin, draw_below, round_state
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
    RI_GATHER_VARIED,
    RI_INFINITE,
    RI_MAX_HANDS,
    RI_SOFT21_DRAWS,
    RI_SPLIT_PONTOON,
    RI_STICK_MIN,
    RI_TIES_TO_BANKER,
    STICK,
    TWIST,
    banker_index,
    banker_score,
    best_total,
    hand_key,
    hand_over,
    hard_thirteen,
    is_pontoon_pair,
    pair_splittable,
    player_index,
    player_score,
    rule_vectors,
    settle,
    settle_banker_pontoon,
)
from sim.games.pontoon.rules import MAX_CARDS, MAX_HANDS, PontoonRules
from sim.games.pontoon.tables import BankerTable, PlayerTable

HIST = NetGrid(per_unit=2, low=-2048, high=2048)  # net results in half units, +-2048 units
HIST_PER_UNIT, HIST_FIRST, HIST_LAST, HIST_SIZE = HIST.constants()
# Pack state vector: top of the stock, cards in it, fresh (not yet dealt since the shuffle)
# cards at its top, pack size, next given order (given-order mode: -1 when drawing at random).
PS_HEAD, PS_STOCK, PS_FRESH, PS_SIZE, PS_ORDER = 0, 1, 2, 3, 4
# Per-deal results recorded by play_ordered_deals (columns).
(D_NET, D_INITIAL, D_WAGERED, D_HANDS, D_BUSTS, D_FIVES, D_PONTOONS, D_SPLITS, D_BUYS,
 D_BURNS, D_BANKER_PONTOON, D_BANKER_BUST, D_BANKER_FIVE, D_SHUFFLE, D_PASS,
 D_LOCKED) = range(16)
N_D = 16
COUNTER_NAMES = ("hands", "busts", "fives", "pontoons", "splits", "buys", "burns",
                 "banker_pontoons", "banker_busts", "banker_fives", "shuffles", "bank_passes",
                 "cycle_locks", "cycle_locked_deals")
# Scratch rows of the gathering: the ends of the set-aside piles, the live hands, the order.
G_ASIDE, G_LIVE, G_ORDER, G_SIZE = 0, 16, 32, 48
# Hand arrays: one row per hand of the seat.
H_N, H_HARD, H_ACE, H_BUYS, H_TWISTED, H_V, H_SPLIT, H_STATUS = range(8)
PLAYING, STOOD, BUSTED, DECLARED = 0, 1, 2, 3


@numba.njit(_nrt=False, forceinline=True)
def _value(card):
    """A card's value (ace one, ten-cards ten): arithmetic, not a table lookup."""
    return card + 1 if card < 9 else 10


@numba.njit(_nrt=False, forceinline=True)
def _draw(pack, n, head, stock, fresh, infinite, s0, s1, s2, s3):
    """The top card of the stock (a fresh card is chosen at random among the fresh ones);
    returns it with the stock's new state (head, cards, fresh) and the generator's."""
    if infinite:
        j, s0, s1, s2, s3 = draw_below(n, s0, s1, s2, s3)
        return pack[j], head, stock, fresh, s0, s1, s2, s3
    if fresh > 1:
        j, s0, s1, s2, s3 = draw_below(fresh, s0, s1, s2, s3)
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


@numba.njit(_nrt=False, forceinline=True)
def _to_bottom(pack, n, head, stock, card):
    """Put ``card`` at the bottom of the stock; returns the cards in the stock."""
    pos = head + stock
    if pos >= n:
        pos -= n
    pack[pos] = card
    return stock + 1


@numba.njit(_nrt=False, forceinline=True)
def _put(pack, n, head, at, card):
    """Put ``card`` ``at`` places below the top of the stock."""
    pos = head + at
    if pos >= n:
        pos -= n
    pack[pos] = card


@numba.njit(_nrt=False, forceinline=True)
def _play_deal(pack, ps, act, split, burn, stakes, offsets, btab, keyed, rule_i, rule_f,
               cards, hands, aside, bcards, gather, infinite, s0, s1, s2, s3):
    """Play one heads-up deal. Returns the generator state and the deal's results (net,
    initial stake, wagered, hands, busts, five card tricks, pontoons, splits, buys, burns,
    banker pontoon, banker bust, banker five card trick, a pontoon, an unsplit pontoon), as
    locals rather than stores into an array, which the compiler could not keep in registers.

    The hand being played lives in local variables, loaded from ``hands`` when its turn
    comes and stored back when it ends, so no field is reloaded from memory after a store
    into the pack (a draw swaps two cards)."""
    ties = rule_i[RI_TIES_TO_BANKER] != 0
    split_pontoon = rule_i[RI_SPLIT_PONTOON] != 0
    may_burn = burn and rule_i[RI_BURN] != 0
    max_hands = rule_i[RI_MAX_HANDS]
    soft21 = rule_i[RI_SOFT21_DRAWS] != 0
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
    n_piles_aside = 0
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
    hands[0, H_N] = 2
    hands[0, H_HARD] = _value(p1) + _value(p2)
    hands[0, H_ACE] = p1 == 0 or p2 == 0
    hands[0, H_BUYS] = 0
    hands[0, H_TWISTED] = 0
    hands[0, H_V] = 2
    hands[0, H_SPLIT] = 0
    n_hands = 1
    i = 0
    while i < n_hands:
        n = hands[i, H_N]
        hard = hands[i, H_HARD]
        ace = hands[i, H_ACE] != 0
        hand_buys = hands[i, H_BUYS]
        twisted = hands[i, H_TWISTED] != 0
        v = hands[i, H_V]
        was_split = hands[i, H_SPLIT] != 0
        c1 = cards[i, 0]
        c2 = cards[i, 1]
        while True:
            total, soft = best_total(hard, ace)
            left = stock if not infinite else 1 << 30
            if n == 2 and is_pontoon_pair(c1, c2) and (not was_split or split_pontoon):
                status = DECLARED
                break
            if hard > 21:
                status = BUSTED
                for k in range(n):
                    aside[n_aside] = cards[i, k]
                    n_aside += 1
                gather[G_ASIDE + n_piles_aside] = n_aside
                n_piles_aside += 1
                break
            if hand_over(total, soft, n, soft21) or left == 0:
                status = STOOD
                break
            if n == 2 and left >= 2 and not was_split and may_burn and hard_thirteen(c1, c2):
                aside[n_aside] = c1
                aside[n_aside + 1] = c2
                n_aside += 2
                gather[G_ASIDE + n_piles_aside] = n_aside
                n_piles_aside += 1
                c1, head, stock, fresh, s0, s1, s2, s3 = _draw(
                    pack, n_pack, head, stock, fresh, infinite, s0, s1, s2, s3)
                c2, head, stock, fresh, s0, s1, s2, s3 = _draw(
                    pack, n_pack, head, stock, fresh, infinite, s0, s1, s2, s3)
                cards[i, 0] = c1
                cards[i, 1] = c2
                hard = _value(c1) + _value(c2)
                ace = c1 == 0 or c2 == 0
                may_burn = False
                burns += 1
                continue
            if n == 2 and left >= 2 and n_hands < max_hands and split[c1] \
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
                cards[i + 1, 0] = c2
                cards[i + 1, 1] = y
                hands[i + 1, H_N] = 2
                hands[i + 1, H_HARD] = _value(c2) + _value(y)
                hands[i + 1, H_ACE] = c2 == 0 or y == 0
                hands[i + 1, H_BUYS] = 0
                hands[i + 1, H_TWISTED] = 0
                hands[i + 1, H_V] = _value(c2) + 1
                hands[i + 1, H_SPLIT] = 1
                cards[i, 1] = x
                c2 = x
                hard = _value(c1) + _value(x)
                ace = c1 == 0 or x == 0
                v = _value(c1) + 1
                was_split = True
                wagered += stake
                splits += 1
                continue
            action = act[player_index(hand_buys, twisted, n, v, soft, total)]
            if action == STICK:
                status = STOOD
                break
            x, head, stock, fresh, s0, s1, s2, s3 = _draw(
                pack, n_pack, head, stock, fresh, infinite, s0, s1, s2, s3)
            cards[i, n] = x
            n += 1
            hard += _value(x)
            ace = ace or x == 0
            if action == TWIST:
                twisted = True
                v += _value(x)
            else:
                amount = action - 1  # BUY1 = 2 -> 1, BUY2 = 3 -> 2
                hand_buys = NEXT_BUY[hand_buys, amount]
                v += 1
                wagered += amount * stake
                buys += 1
        hands[i, H_N] = n
        hands[i, H_HARD] = hard
        hands[i, H_ACE] = ace
        hands[i, H_BUYS] = hand_buys
        hands[i, H_V] = v
        hands[i, H_STATUS] = status
        i += 1

    # The banker plays against the live hand with the most money (the first of equals); where
    # he reads stake levels, his key also carries the level of the seat's initial stake.
    key = NO_LIVE_HAND
    best = 0
    for j in range(n_hands):
        if hands[j, H_STATUS] == STOOD:
            m = 1 + BUY_SUM[hands[j, H_BUYS]]
            if m > best:
                best = m
                key = offsets[p1] + hand_key(m, hands[j, H_V], hands[j, H_N],
                                             rule_i[RI_STICK_MIN])
    bhard = _value(b1) + _value(b2)
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
        bhard += _value(x)
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
    shuffle_next = pontoons > 0 or rule_i[RI_EVERY_DEAL] != 0 or rule_i[RI_INFINITE] != 0
    varied = not infinite and rule_i[RI_GATHER_VARIED] != 0 and not shuffle_next
    if varied and n_hands == 1 and n_piles_aside + (hands[0, H_STATUS] != BUSTED) == 1:
        # Two piles (the punter's hand, bust or not, and the banker's): the same draw as the
        # general case below, without its bookkeeping. Each pile is written at its place
        # under the stock, so no branch hangs on the draw (a coin toss the processor cannot
        # predict).
        banker_first, s0, s1, s2, s3 = coin(s0, s1, s2, s3)
        live = hands[0, H_STATUS] != BUSTED
        size = hands[0, H_N] if live else n_aside
        at = stock + banker_first * bn
        if live:
            for k in range(size):
                _put(pack, n_pack, head, at + k, cards[0, k])
        else:
            for k in range(size):
                _put(pack, n_pack, head, at + k, aside[k])
        at = stock + (1 - banker_first) * size
        for k in range(bn):
            _put(pack, n_pack, head, at + k, bcards[k])
        stock += size + bn
    elif varied:
        # The piles in an order drawn from the card stream: a forward Fisher-Yates over the
        # set-aside piles, the live hands and the banker's hand.
        n_live = 0
        for j in range(n_hands):
            if hands[j, H_STATUS] != BUSTED:
                gather[G_LIVE + n_live] = j
                n_live += 1
        n_piles = n_piles_aside + n_live + 1
        for q in range(n_piles):
            gather[G_ORDER + q] = q
        for q in range(n_piles - 1):
            j, s0, s1, s2, s3 = draw_below(n_piles - q, s0, s1, s2, s3)
            j += q
            tmp = gather[G_ORDER + q]
            gather[G_ORDER + q] = gather[G_ORDER + j]
            gather[G_ORDER + j] = tmp
        for q in range(n_piles):
            p = gather[G_ORDER + q]
            if p < n_piles_aside:
                start = 0 if p == 0 else gather[G_ASIDE + p - 1]
                for k in range(start, gather[G_ASIDE + p]):
                    stock = _to_bottom(pack, n_pack, head, stock, aside[k])
            elif p < n_piles_aside + n_live:
                j = gather[G_LIVE + p - n_piles_aside]
                for k in range(hands[j, H_N]):
                    stock = _to_bottom(pack, n_pack, head, stock, cards[j, k])
            else:
                for k in range(bn):
                    stock = _to_bottom(pack, n_pack, head, stock, bcards[k])
    elif not infinite:  # the fixed order (or the pack is shuffled next: no draw)
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


@numba.njit(_nrt=False, forceinline=True)
def _save_stock(pack, head, saved):
    """Copy the stock, top first, into ``saved`` (the whole pack is in the stock between
    deals)."""
    n = pack.shape[0]
    for i in range(n):
        pos = head + i
        if pos >= n:
            pos -= n
        saved[i] = pack[pos]


@numba.njit(_nrt=False, forceinline=True)
def _same_stock(pack, head, saved):
    """The stock, top first, is ``saved`` (usually settled by the first card)."""
    n = pack.shape[0]
    for i in range(n):
        pos = head + i
        if pos >= n:
            pos -= n
        if pack[pos] != saved[i]:
            return False
    return True


@numba.njit(cache=True)
def _simulate(n_deals, key, pack, orders, act, split, burn, stakes, offsets, btab, keyed,
              rule_i, rule_f, record, infinite, session, first, batch_len):
    """Play ``n_deals`` deals in a row; with ``orders`` (one row per shuffle; in infinite-deck
    mode one row per deal) the cards are given instead of drawn. With ``session`` > 0 the
    deals come in sessions of that many, each from a fresh shuffle with the bank at person
    0, as if each were a call of its own (one call for all saves a call per session). The
    generator is re-seeded at each shuffle from ``key`` and the shuffle's index, counted from
    ``first``. With ``batch_len`` > 0 the deals are cut into batches of that many (the last
    may be shorter) whose totals go into ``batch`` (:func:`sim.core.stats.kernel_add_batch`).
    Returns (outcomes, sums, histogram, counters, per-deal rows, batch)."""
    k0, k1, k2, k3 = key[0], key[1], key[2], key[3]
    s0, s1, s2, s3 = k0, k1, k2, k3
    every_deal = rule_i[RI_EVERY_DEAL] != 0 or rule_i[RI_INFINITE] != 0
    passes = rule_i[RI_BANK_PASSES] != 0
    varied = rule_i[RI_GATHER_VARIED] != 0
    given = orders.shape[0] > 0
    if given:  # the cards come from the rows in turn (infinite deck: a row per deal)
        work = np.zeros(orders.shape[1], dtype=np.int64)
    else:  # the stock; each shuffle starts again from the sorted pack
        work = pack.copy()
    n = work.shape[0]
    ps = np.zeros(5, dtype=np.int64)
    ps[PS_SIZE] = n
    cards = np.zeros((MAX_HANDS + 1, MAX_CARDS), dtype=np.int64)
    hands = np.zeros((MAX_HANDS + 1, 8), dtype=np.int64)
    aside = np.zeros(4 * MAX_HANDS * MAX_CARDS + 4, dtype=np.int64)
    bcards = np.zeros(MAX_CARDS, dtype=np.int64)
    gather = np.zeros(G_SIZE, dtype=np.int64)
    saved = np.zeros(n, dtype=np.int64)  # the cycle watch's saved stock
    outcomes = np.zeros(3, dtype=np.int64)
    sums = np.zeros(8)
    hist = np.zeros(HIST_SIZE, dtype=np.int64)
    counters = np.zeros(len(COUNTER_NAMES) + 2)
    batch = np.zeros(1 + len(BATCH_FIELDS))
    b_net = b_init = b_w = 0.0
    b_left = batch_len
    # record: 0 nothing, 1 every column of every deal, 2 the nets alone (sessions).
    rows = np.zeros((n_deals if record else 0, N_D + 1 if record == 1 else 1))
    banker = 0
    shuffle = True
    next_order = 0
    n_shuffles = 0
    every_deal_rule = rule_i[RI_EVERY_DEAL] != 0
    wins = losses = 0
    t_net = t_net2 = t_init = t_init2 = t_ni = t_w = t_w2 = t_nw = person0 = 0.0
    c_hands = c_busts = c_fives = c_pontoons = c_splits = c_buys = c_burns = 0
    c_bp = c_bb = c_b5 = c_shuffles = c_passes = c_locks = c_locked = 0
    watching = locked = False
    power = lam = 1
    left_in_session = session
    for d in range(n_deals):
        if session > 0:
            if left_in_session == 0:
                shuffle = True
                banker = 0
                left_in_session = session
            left_in_session -= 1
        if shuffle:
            s0, s1, s2, s3 = round_state(k0, k1, k2, k3, first + n_shuffles)
            n_shuffles += 1
            ps[PS_HEAD] = 0
            ps[PS_STOCK] = n
            if given:
                work[:] = orders[next_order % orders.shape[0]]
                next_order += 1
                ps[PS_FRESH] = 0
            else:
                if not infinite:  # an infinite deck draws from the pack and never moves it
                    for i in range(n):
                        work[i] = pack[i]
                ps[PS_FRESH] = n
        # The cycle watch (Brent): only where this deal follows from the stock's order alone.
        deal_locked = False
        if shuffle or infinite or varied or ps[PS_FRESH] != 0:
            watching = locked = False
            power = lam = 1
        elif locked:
            deal_locked = True
        elif not watching:
            _save_stock(work, ps[PS_HEAD], saved)
            watching = True
        elif _same_stock(work, ps[PS_HEAD], saved):
            locked = deal_locked = True
            c_locks += 1
        else:
            if lam == power:
                _save_stock(work, ps[PS_HEAD], saved)
                power *= 2
                lam = 0
            lam += 1
        c_locked += deal_locked
        (s0, s1, s2, s3, net, initial, wagered, n_hands, busts, fives, pontoons, splits, buys,
         burns, banker_pontoon, banker_bust, banker_five, pontoon, unsplit) = _play_deal(
            work, ps, act, split, burn, stakes, offsets, btab, keyed, rule_i, rule_f, cards,
            hands, aside, bcards, gather, infinite, s0, s1, s2, s3)
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
        if batch_len > 0:
            b_net += net
            b_init += initial
            b_w += wagered
            b_left -= 1
            if b_left == 0 or d == n_deals - 1:
                kernel_add_batch(batch, b_net, b_init, b_w)
                b_net = b_init = b_w = 0.0
                b_left = batch_len
        count(hist, net, HIST_PER_UNIT, HIST_FIRST, HIST_LAST)
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
        if record == 2:
            rows[d, D_NET] = net
        elif record:
            rows[d, D_NET], rows[d, D_INITIAL], rows[d, D_WAGERED] = net, initial, wagered
            rows[d, D_HANDS], rows[d, D_BUSTS], rows[d, D_FIVES] = n_hands, busts, fives
            rows[d, D_PONTOONS], rows[d, D_SPLITS], rows[d, D_BUYS] = pontoons, splits, buys
            rows[d, D_BURNS], rows[d, D_BANKER_PONTOON] = burns, banker_pontoon
            rows[d, D_BANKER_BUST], rows[d, D_BANKER_FIVE] = banker_bust, banker_five
            rows[d, D_SHUFFLE], rows[d, D_PASS], rows[d, N_D] = shuffled, passed, banker
            rows[d, D_LOCKED] = deal_locked
        if passed:
            banker = 1 - banker
    outcomes[0], outcomes[1], outcomes[2] = wins, n_deals - wins - losses, losses
    sums[0], sums[1], sums[2], sums[3] = t_net, t_net2, t_init, t_init2
    sums[4], sums[5], sums[6], sums[7] = t_ni, t_w, t_w2, t_nw
    counted = (c_hands, c_busts, c_fives, c_pontoons, c_splits, c_buys, c_burns, c_bp, c_bb, c_b5,
               c_shuffles, c_passes, c_locks, c_locked)
    for k in range(len(counted)):
        counters[k] = counted[k]
    counters[len(counted)], counters[len(counted) + 1] = person0, -person0
    return outcomes, sums, hist, counters, rows, batch


def _kernel_args(rules: PontoonRules, player: PlayerTable, banker: BankerTable) -> tuple:
    rule_i, rule_f = rule_vectors(rules)
    # Tables read-only at every call: a frozen table and a fresh one compile one kernel.
    return (read_only(player.actions.ravel()), read_only(np.array(player.split, dtype=np.bool_)),
            player.burn, read_only(np.array(player.stakes)),
            read_only(banker.offsets(rules, player.stakes)),
            read_only(banker.under(rules).draw.ravel()), banker.keyed, rule_i, rule_f)


def simulate_tables(rules: PontoonRules, player: PlayerTable, banker: BankerTable, deals: int,
                    key: np.ndarray, batch_len: int = 0) -> Stats:
    """Play ``deals`` heads-up deals in a row on the kernel, the cards keyed by ``key`` (four
    64-bit words: the same key gives the same shuffles to every strategy), cut into batches
    of ``batch_len`` deals where it is positive."""
    if rules.players != 1:
        raise ValueError("players: the kernel plays heads-up (one punter)")
    pack = rules.pack_ranks().astype(np.int64)
    no_orders = np.zeros((0, pack.size), dtype=np.int64)
    outcomes, sums, hist, counters, _, batch = _simulate(
        deals, key, pack, no_orders, *_kernel_args(rules, player, banker), 0,
        rules.infinite_deck, 0, 0, batch_len)
    values = HIST.values()
    named = dict(zip(COUNTER_NAMES, counters[:len(COUNTER_NAMES)].tolist()))
    if rules.bank_passes:
        named["person0_net"], named["person1_net"] = counters[-2], counters[-1]
    return Stats.from_arrays(deals, outcomes, sums, values, hist, named,
                             batch if batch_len else None)


def deal_rows(rules: PontoonRules, player: PlayerTable, banker: BankerTable, deals: int,
              key: np.ndarray) -> np.ndarray:
    """The per-deal rows (as :func:`play_ordered_deals`) of ``deals`` deals in a row from the
    cards keyed by ``key``: the deals :func:`simulate_tables` plays."""
    pack = rules.pack_ranks().astype(np.int64)
    no_orders = np.zeros((0, pack.size), dtype=np.int64)
    rows = _simulate(deals, key, pack, no_orders, *_kernel_args(rules, player, banker), 1,
                     rules.infinite_deck, 0, 0, 0)[4]
    return rows


def session_nets(rules: PontoonRules, player: PlayerTable, banker: BankerTable, sessions: int,
                 rounds: int, key: np.ndarray, first: int = 0) -> np.ndarray:
    """The net of each deal of ``sessions`` heads-up sessions of ``rounds`` deals, one row
    each, the cards keyed by ``key``. Each session starts from a fresh shuffle (in the
    infinite deck the deals are independent, so one run is cut into rows); shuffles are
    counted from ``first``."""
    pack = rules.pack_ranks().astype(np.int64)
    no_orders = np.zeros((0, pack.size), dtype=np.int64)
    args = _kernel_args(rules, player, banker)
    if rules.infinite_deck:
        rows = _simulate(sessions * rounds, key, pack, no_orders, *args, 2, True, 0, first,
                         0)[4]
        return rows[:, D_NET].reshape(sessions, rounds).copy()
    rows = _simulate(sessions * rounds, key, pack, no_orders, *args, 2, False, rounds, first,
                     0)[4]
    return rows[:, D_NET].reshape(sessions, rounds).copy()


def play_ordered_deals(rules: PontoonRules, player: PlayerTable, banker: BankerTable,
                       orders: np.ndarray, deals: int, key: tuple[int, ...] = (1, 2, 3, 4)
                       ) -> np.ndarray:
    """Play ``deals`` deals in a row where each shuffle takes the next row of ``orders`` (in
    infinite-deck mode each deal draws the next row's cards in turn): one row per deal of
    (net, initial, wagered, hands, busts, fives, pontoons, splits, buys, burns, banker
    pontoon, banker bust, banker five, shuffle after, bank passes, locked in a cycle, banker
    person). The gathering order (where drawn) comes from the generator keyed by ``key``, as
    :class:`~sim.games.pontoon.pack.GivenCards` draws it. For tests against the reference path
    and exact enumeration."""
    pack = rules.pack_ranks().astype(np.int64)
    orders = np.ascontiguousarray(orders, dtype=np.int64)
    state = np.array(key, dtype=np.uint64)
    return _simulate(deals, state, pack, orders, *_kernel_args(rules, player, banker),
                     1, False, 0, 0, 0)[4]
