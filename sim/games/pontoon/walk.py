"""The exact recursion over a deal, on an explicit stack of frames (see
:mod:`sim.games.pontoon.exact_deal` for what it computes and why it stays small).

Numba compiles recursion slowly and cannot cache it, so the walk over every card a deal can
draw is a loop over a stack of frames. A ``SEAT`` frame draws a seat's two cards; a ``HAND``
frame plays one hand from its state, card by card; a ``NEXT`` frame values what is left of the
deal after a hand (the seat's pending split hands, the next seats), is cached, and hands its
row to the hand below it, which settles against it. Rows (mode 0) hold the expected banker
distribution, each seat's expected net and stake, event counts and seat 0's net by first
card; in mode 1 (infinite deck) they hold the chance of each final banker signal and the
money on each score jointly with it, which the banker's best response needs.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import types
from numba.typed import Dict, List

from sim.core import (
    jit,
    kernel_cache,  # noqa: F401  (compiled code cached by digest)
)
from sim.games.pontoon.composition import (
    P_BUDGET,
    P_BURN,
    P_CARDS,
    P_INFINITE,
    P_KEYED,
    P_MODE,
    P_PLAYERS,
    banker_final,
    draw_p,
    pack_counts,
    put_back,
    rank_codes,
    take,
)
from sim.games.pontoon.hand import (
    BANKER_KEY_SIZE,
    BUST,
    BUY_COUNT,
    BUY_SUM,
    FIVE,
    N_KEYS,
    N_SCORES,
    NEXT_BUY,
    NO_LIVE_HAND,
    PONTOON,
    RI_BURN,
    RI_MAX_HANDS,
    RI_SOFT21_DRAWS,
    RI_SPLIT_PONTOON,
    RI_STICK_MIN,
    RI_TIES_TO_BANKER,
    STICK,
    TWIST,
    best_total,
    hand_key,
    hand_over,
    hard_thirteen,
    is_pontoon_pair,
    key_multiple,
    pair_splittable,
    player_index,
    player_score,
    settle,
)
from sim.games.pontoon.rules import VALUES

EVENTS = ("hands", "busts", "fives", "pontoons", "buys", "burns")

# What a hand played by a table does next (:func:`table_move`).
DRAW_OVER, DRAW_TWIST, DRAW_BUY, DRAW_BURN, DRAW_SPLIT = 0, 1, 2, 3, 4
# The stages of a HAND frame: its first move, drawing a card, settling against the rest.
HAND_START, HAND_DRAWS, HAND_SETTLES = 0, 1, 2
# The stages of a NEXT frame: its start, the seat's next split hand, waiting for the next
# seat, complete (its row is cached).
NEXT_START, NEXT_SPLIT_HAND, NEXT_SEAT, NEXT_DONE = 0, 1, 3, 4
N_EVENTS = len(EVENTS)
BIG_STOCK = 1 << 30
STEPS_PER_STATE = 128  # the work budget also bounds the frames walked: budget x this
_KEY = types.UniTuple(types.int64, 3)
_ROW = types.float64[::1]


def row_width(players: int, mode: int, n_keys: int = N_KEYS) -> int:
    """Entries of a row: mode 0 banker scores, nets, stakes, events, seat 0 by first card;
    mode 1 per signal key (``n_keys`` of them) its chance, then its money by score."""
    if mode == 1:
        return n_keys + n_keys * N_SCORES
    return N_SCORES + 2 * players + N_EVENTS + 13


# The recursion over a deal runs on an explicit stack of frames (numba compiles recursion
# slowly and cannot cache it). A frame is a row of integers and a row of floats:
HAND, NEXT, SEAT = 0, 1, 2  # frame modes
(F_MODE, F_STAGE, F_HARD, F_ACE, F_N, F_BUYS, F_TWISTED, F_V, F_C1, F_C2, F_SPLIT, F_BURNT,
 F_SEAT, F_R1, F_PENDING, F_CAP, F_KK, F_MAIN, F_PHYS, F_DRAW, F_X, F_Y, F_TAKEN_X,
 F_TAKEN_Y, F_ACC, F_SCORE, F_NEW_BUYS, F_LO, F_HI, F_STATE, F_RESULT) = range(31)
N_FI = 31
G_PROB, G_MONEY, G_PX = 0, 1, 2
MAX_FRAMES = 1024


@jit.njit(cache=True)
def _money(key, main_r1, stakes):
    if key == NO_LIVE_HAND:
        return 0.0
    return stakes[main_r1] * key_multiple(key)


@jit.njit(cache=True)
def _settle_into(acc, rest, score, money, burnt, buys, seat, r1, players, prob, rule_i, rule_f,
                 mode, n_keys=N_KEYS):
    """Add a finished hand (and what is left of the deal after it) to ``acc``. ``rest`` is the
    banker's row (the deal's last hand) or a cached row of what is left; mode 1 rows hold
    ``n_keys`` signal keys."""
    if mode == 1:
        if rest.shape[0] == 1:  # the last hand: rest[0] is the banker's final signal
            key = int(rest[0])
            acc[key] += prob
            acc[n_keys + key * N_SCORES + score] += prob * money
            return
        for key in range(n_keys):
            if rest[key] != 0.0:
                acc[n_keys + key * N_SCORES + score] += prob * money * rest[key]
        for i in range(rest.shape[0]):
            acc[i] += prob * rest[i]
        return
    mass = 0.0
    pay = 0.0
    ties = rule_i[RI_TIES_TO_BANKER] != 0
    for b in range(N_SCORES):
        mass += rest[b]
        pay += settle(score, b, ties, rule_f) * rest[b]
    for i in range(rest.shape[0]):  # the banker's row alone, or a whole row of what is left
        acc[i] += prob * rest[i]
    acc[N_SCORES + seat] += prob * money * pay
    acc[N_SCORES + players + seat] += prob * money * mass
    e = N_SCORES + 2 * players
    acc[e] += prob * mass
    acc[e + 1] += prob * mass * (score == BUST)
    acc[e + 2] += prob * mass * (score == FIVE)
    acc[e + 3] += prob * mass * (score == PONTOON)
    acc[e + 4] += prob * mass * BUY_COUNT[buys]
    acc[e + 5] += prob * mass * burnt
    if seat == 0:
        acc[e + N_EVENTS + r1] += prob * money * pay


@jit.njit(cache=True)
def _push_hand(F, G, sp, parent, hard, ace, n, buys, twisted, v, c1, c2, split_hand, burnt,
               pending, cap, phys, prob):
    """Push a HAND frame that inherits the seat, stake and signal of ``parent``."""
    F[sp, :] = 0
    F[sp, F_MODE] = HAND
    F[sp, F_HARD] = hard
    F[sp, F_ACE] = ace
    F[sp, F_N] = n
    F[sp, F_BUYS] = buys
    F[sp, F_TWISTED] = twisted
    F[sp, F_V] = v
    F[sp, F_C1] = c1
    F[sp, F_C2] = c2
    F[sp, F_SPLIT] = split_hand
    F[sp, F_BURNT] = burnt
    F[sp, F_SEAT] = F[parent, F_SEAT]
    F[sp, F_R1] = F[parent, F_R1]
    F[sp, F_PENDING] = pending
    F[sp, F_CAP] = cap
    F[sp, F_KK] = F[parent, F_KK]
    F[sp, F_MAIN] = F[parent, F_MAIN]
    F[sp, F_PHYS] = phys
    F[sp, F_ACC] = F[parent, F_ACC]
    G[sp, :] = 0.0
    G[sp, G_PROB] = prob


@jit.njit(cache=True)
def _next_card(F, G, i, slot, taken, counts, probs, infinite):
    """Advance frame ``i``'s loop over the next card (field ``slot``); returns its
    probability, or 0 when the loop is over (the card is taken from the pack meanwhile)."""
    if F[i, taken]:
        put_back(F[i, slot], counts, infinite)
        F[i, taken] = 0
        F[i, slot] += 1
    while F[i, slot] < 13:
        p = draw_p(F[i, slot], counts, probs, infinite)
        if p > 0.0:
            take(F[i, slot], counts, infinite)
            F[i, taken] = 1
            return p
        F[i, slot] += 1
    return 0.0


@jit.njit(cache=True)
def _next_pair(F, G, i, counts, probs, infinite):
    """Advance frame ``i``'s loop over the next two cards (fields X and Y): the probability
    of the second given the first (the first's is kept in G), or 0 when the loop is over."""
    while True:
        if F[i, F_TAKEN_Y]:
            put_back(F[i, F_Y], counts, infinite)
            F[i, F_TAKEN_Y] = 0
            F[i, F_Y] += 1
        if not F[i, F_TAKEN_X]:
            pa = _next_card(F, G, i, F_X, F_TAKEN_X, counts, probs, infinite)
            if pa == 0.0:
                return 0.0
            G[i, G_PX] = pa
            F[i, F_Y] = 0
        pb = _next_card(F, G, i, F_Y, F_TAKEN_Y, counts, probs, infinite)
        if pb > 0.0:
            return pb
        put_back(F[i, F_X], counts, infinite)
        F[i, F_TAKEN_X] = 0
        F[i, F_X] += 1


@jit.njit(cache=True)
def _next_key(F, i, counts, full, infinite, keyed):
    """The cache key of what is left after frame ``i``'s hand (a banker who ignores the
    signal needs only to know whether a hand is live)."""
    pending = F[i, F_PENDING]
    lo, hi = rank_codes(counts, full, infinite)
    r1_key = F[i, F_R1] if pending > 0 else 0
    kk, main = F[i, F_KK], F[i, F_MAIN]
    if not keyed:
        kk = NO_LIVE_HAND if kk == NO_LIVE_HAND else 0
        main = 0
    state = ((((kk * 13 + main) * 8 + F[i, F_SEAT]) * 2745 + pending) * 5
             + F[i, F_CAP]) * 13 + r1_key
    state = state * 512 + (0 if infinite else F[i, F_PHYS])
    return lo, hi, state


# Specialised on constant arguments (numba's default), unlike the helpers around it: the calls
# that open a hand pass n=2 and no buys, and the folded code runs 6% faster; it is small, so
# its extra compilations cost little.
@numba.njit(cache=True)
def table_move(hard, ace, n, buys, twisted, v, c1, c2, split_hand, burnt, cap, stock, stake,
               act, split, rule_i, burn_on):
    """What a hand played by a table does next: (score, draw, new buys pattern, money).

    ``score`` is the hand's final score, or -1 while it draws; ``draw`` is ``DRAW_OVER``,
    ``DRAW_TWIST``, ``DRAW_BUY`` (to the pattern ``new buys``), ``DRAW_BURN`` (a hard 13 thrown
    in) or ``DRAW_SPLIT``; ``money`` is
    what the hand stakes (its buys included)."""
    total, soft = best_total(hard, ace != 0)
    money = stake * (1 + BUY_SUM[buys])
    score = -1
    if n == 2 and is_pontoon_pair(c1, c2) and (
            split_hand == 0 or rule_i[RI_SPLIT_PONTOON] != 0):
        return PONTOON, DRAW_OVER, buys, stake
    if hard > 21:
        score = BUST
    elif hand_over(total, soft, n, rule_i[RI_SOFT21_DRAWS] != 0) or stock == 0:
        score = player_score(hard, ace != 0, n, False)
    if score >= 0:
        return score, DRAW_OVER, buys, money
    if n == 2 and stock >= 2:
        if (split_hand == 0 and burnt == 0 and rule_i[RI_BURN] != 0 and burn_on
                and hard_thirteen(c1, c2)):
            return -1, DRAW_BURN, buys, money
        if cap > 0 and split[c1] and pair_splittable(c1, c2, rule_i):
            return -1, DRAW_SPLIT, buys, money
    action = act[player_index(buys, twisted != 0, n, v, soft, total)]
    if action == STICK:
        return player_score(hard, ace != 0, n, False), DRAW_OVER, buys, money
    if action == TWIST:
        return -1, DRAW_TWIST, buys, money
    return -1, DRAW_BUY, NEXT_BUY[buys, action - 1], money  # BUY1 = 2 -> 1, BUY2 = 3 -> 2


@jit.njit(cache=True)
def _hand_start(F, G, i, act, split, stakes, offsets, rule_i, params):
    """Decide what frame ``i``'s hand does: over (sets the score and the banker's signal) or
    draws (sets the kind: 1 twist, 2 buy, 3 burn, 4 split)."""
    stock = BIG_STOCK if params[P_INFINITE] != 0 else params[P_CARDS] - F[i, F_PHYS]
    score, draw, new_buys, money = table_move(
        F[i, F_HARD], F[i, F_ACE], F[i, F_N], F[i, F_BUYS], F[i, F_TWISTED], F[i, F_V],
        F[i, F_C1], F[i, F_C2], F[i, F_SPLIT], F[i, F_BURNT], F[i, F_CAP], stock,
        stakes[F[i, F_R1]], act, split, rule_i, params[P_BURN] != 0)
    F[i, F_NEW_BUYS] = new_buys
    F[i, F_DRAW] = draw
    F[i, F_SCORE] = score
    G[i, G_MONEY] = money
    if draw == DRAW_OVER and score != BUST and score != PONTOON and money > _money(
            F[i, F_KK], F[i, F_MAIN], stakes):  # the hand with the most money so far
        F[i, F_KK] = offsets[F[i, F_R1]] + hand_key(1 + BUY_SUM[F[i, F_BUYS]], F[i, F_V],
                                                    F[i, F_N], rule_i[RI_STICK_MIN])
        F[i, F_MAIN] = F[i, F_R1]


@jit.njit(cache=True)
def walk_deal(full, probs, act, split, stakes, offsets, btab, rule_i, rule_f, params):
    """The top row of a deal's no-banker-pontoon part (see the module notes), walking every
    card; also the number of cached states (-1: over the work budget). ``offsets``: per first
    card, what its stake's level adds to the banker's signal (zeros: he reads no level)."""
    memo = Dict.empty(key_type=_KEY, value_type=types.int64)
    memo_vals = List.empty_list(_ROW)
    fmemo = Dict.empty(key_type=_KEY, value_type=types.int64)
    fvals = List.empty_list(_ROW)
    smemo = Dict.empty(key_type=types.int64, value_type=types.int64)
    srows = List.empty_list(types.int64[:, ::1])
    sways = List.empty_list(_ROW)
    infinite = params[P_INFINITE] != 0
    players = params[P_PLAYERS]
    counts = pack_counts(full)
    mode = params[P_MODE]
    n_keys = btab.shape[0] // BANKER_KEY_SIZE
    width = n_keys + n_keys * N_SCORES if mode == 1 else N_SCORES + 2 * players + N_EVENTS + 13
    last = np.zeros(1)  # mode 1: the banker's final signal, as a one-entry row
    F = np.zeros((MAX_FRAMES, N_FI), dtype=np.int64)
    G = np.zeros((MAX_FRAMES, 3))
    bufs = np.zeros((MAX_FRAMES, width))
    F[0, F_MODE] = SEAT
    F[0, F_KK] = NO_LIVE_HAND
    F[0, F_PHYS] = 2 * (players + 1)
    G[0, G_PROB] = 1.0
    sp = 1
    free_buf = 1  # buffers are taken and given back in stack order
    steps = 0
    max_steps = params[P_BUDGET] * STEPS_PER_STATE
    while sp > 0:
        steps += 1
        if steps > max_steps or len(memo_vals) + len(fvals) > params[P_BUDGET]:
            return bufs[0].copy(), -1  # over the budget: no value
        i = sp - 1
        kind = F[i, F_MODE]
        if kind == SEAT:  # the seat's two cards, then its hands
            pb = _next_pair(F, G, i, counts, probs, infinite)
            if pb == 0.0:
                sp -= 1
                continue
            a, b = F[i, F_X], F[i, F_Y]
            F[i, F_R1] = a
            ace = a == 0 or b == 0
            _push_hand(F, G, sp, i, VALUES[a] + VALUES[b], ace, 2, 0, 0, 2, a, b, 0, 0, 0,
                       rule_i[RI_MAX_HANDS] - 1, F[i, F_PHYS], G[i, G_PROB] * G[i, G_PX] * pb)
            sp += 1
        elif kind == NEXT:
            stage = F[i, F_STAGE]
            if stage == NEXT_START:
                bufs[F[i, F_ACC]] = 0.0
                if F[i, F_PENDING] > 0:
                    F[i, F_STAGE] = NEXT_SPLIT_HAND
                elif F[i, F_SEAT] + 1 < players:
                    F[i, F_STAGE] = NEXT_SEAT
                    F[sp, :] = 0
                    F[sp, F_MODE] = SEAT
                    F[sp, F_SEAT] = F[i, F_SEAT] + 1
                    F[sp, F_KK] = F[i, F_KK]
                    F[sp, F_MAIN] = F[i, F_MAIN]
                    F[sp, F_PHYS] = F[i, F_PHYS]
                    F[sp, F_ACC] = F[i, F_ACC]
                    G[sp, G_PROB] = 1.0
                    sp += 1
                    continue
                elif mode == 1:
                    bufs[F[i, F_ACC], F[i, F_KK]] = 1.0
                    F[i, F_STAGE] = NEXT_DONE
                else:
                    bufs[F[i, F_ACC], :N_SCORES] = banker_final(
                        F[i, F_KK], counts, full, probs, params, btab, rule_i, fmemo, fvals,
                        smemo, srows, sways)
                    F[i, F_STAGE] = NEXT_DONE
            if F[i, F_STAGE] == NEXT_SPLIT_HAND:  # first card face up, the second drawn now
                px = _next_card(F, G, i, F_X, F_TAKEN_X, counts, probs, infinite)
                if px > 0.0:
                    r, x = F[i, F_PENDING] % 14 - 1, F[i, F_X]
                    ace = r == 0 or x == 0
                    _push_hand(F, G, sp, i, VALUES[r] + VALUES[x], ace, 2, 0, 0, VALUES[r] + 1,
                               r, x, 1, 0, F[i, F_PENDING] // 14, F[i, F_CAP], F[i, F_PHYS], px)
                    sp += 1
                    continue
                F[i, F_STAGE] = NEXT_DONE
            elif F[i, F_STAGE] == NEXT_SEAT:
                F[i, F_STAGE] = NEXT_DONE
            # complete: cache the row; the waiting hand below reads it
            memo[(F[i, F_LO], F[i, F_HI], F[i, F_STATE])] = len(memo_vals)
            F[i - 1, F_RESULT] = len(memo_vals)
            memo_vals.append(bufs[F[i, F_ACC]].copy())
            free_buf -= 1
            sp -= 1
        else:  # HAND
            stage = F[i, F_STAGE]
            if stage == HAND_START:
                _hand_start(F, G, i, act, split, stakes, offsets, rule_i, params)
                if (F[i, F_DRAW] == DRAW_OVER and F[i, F_PENDING] == 0
                        and F[i, F_SEAT] == players - 1):
                    # only the banker is left: settle against his distribution at once
                    if mode == 1:
                        last[0] = F[i, F_KK]
                        rest = last
                    else:
                        rest = banker_final(F[i, F_KK], counts, full, probs, params, btab,
                                            rule_i, fmemo, fvals, smemo, srows, sways)
                    _settle_into(bufs[F[i, F_ACC]], rest, F[i, F_SCORE], G[i, G_MONEY],
                                 F[i, F_BURNT], F[i, F_BUYS], F[i, F_SEAT], F[i, F_R1],
                                 players, G[i, G_PROB], rule_i, rule_f, mode, n_keys)
                    sp -= 1
                    continue
                if F[i, F_DRAW] == DRAW_OVER:
                    lo, hi, state = _next_key(F, i, counts, full, infinite, params[P_KEYED])
                    if (lo, hi, state) in memo:
                        F[i, F_RESULT] = memo[(lo, hi, state)]
                        F[i, F_STAGE] = HAND_SETTLES
                    else:  # work out what is left of the deal first
                        F[i, F_STAGE] = HAND_SETTLES
                        F[sp, :] = 0
                        F[sp, F_MODE] = NEXT
                        for f in (F_SEAT, F_R1, F_PENDING, F_CAP, F_KK, F_MAIN, F_PHYS):
                            F[sp, f] = F[i, f]
                        F[sp, F_LO], F[sp, F_HI], F[sp, F_STATE] = lo, hi, state
                        F[sp, F_ACC] = free_buf
                        free_buf += 1
                        sp += 1
                        continue
                else:
                    F[i, F_STAGE] = HAND_DRAWS
            if F[i, F_STAGE] == HAND_SETTLES:  # settle the finished hand
                _settle_into(bufs[F[i, F_ACC]], memo_vals[F[i, F_RESULT]], F[i, F_SCORE],
                             G[i, G_MONEY], F[i, F_BURNT], F[i, F_BUYS], F[i, F_SEAT],
                             F[i, F_R1], players, G[i, G_PROB], rule_i, rule_f, mode, n_keys)
                sp -= 1
                continue
            draw = F[i, F_DRAW]
            if draw == DRAW_BURN:  # burnt: thrown in face up, two new cards face down
                pb = _next_pair(F, G, i, counts, probs, infinite)
                if pb == 0.0:
                    sp -= 1
                    continue
                x, y = F[i, F_X], F[i, F_Y]
                ace = x == 0 or y == 0
                _push_hand(F, G, sp, i, VALUES[x] + VALUES[y], ace, 2, 0, 0, 2, x, y, 0, 1,
                           F[i, F_PENDING], F[i, F_CAP], F[i, F_PHYS] + 2,
                           G[i, G_PROB] * G[i, G_PX] * pb)
                sp += 1
                continue
            px = _next_card(F, G, i, F_X, F_TAKEN_X, counts, probs, infinite)
            if px == 0.0:
                sp -= 1
                continue
            x = F[i, F_X]
            prob = G[i, G_PROB] * px
            if draw == DRAW_SPLIT:
                # c1 stays, face up, and gets a card now; c2 starts the next hand (its card,
                # dealt at the same time, is drawn when that hand is played).
                c1 = F[i, F_C1]
                ace = c1 == 0 or x == 0
                queued = (F[i, F_C2] + 1) + 14 * F[i, F_PENDING]
                _push_hand(F, G, sp, i, VALUES[c1] + VALUES[x], ace, 2, 0, 0, VALUES[c1] + 1,
                           c1, x, 1, F[i, F_BURNT], queued, F[i, F_CAP] - 1, F[i, F_PHYS] + 2,
                           prob)
            else:  # a card twisted (face up) or bought (face down)
                seen = VALUES[x] if draw == DRAW_TWIST else 1
                buys = F[i, F_NEW_BUYS] if draw == DRAW_BUY else F[i, F_BUYS]
                twisted = 1 if (draw == DRAW_TWIST or F[i, F_TWISTED] != 0) else 0
                ace = F[i, F_ACE] != 0 or x == 0
                _push_hand(F, G, sp, i, F[i, F_HARD] + VALUES[x], ace, F[i, F_N] + 1, buys,
                           twisted, F[i, F_V] + seen, F[i, F_C1], F[i, F_C2], F[i, F_SPLIT],
                           F[i, F_BURNT], F[i, F_PENDING], F[i, F_CAP], F[i, F_PHYS] + 1, prob)
            sp += 1
    return bufs[0].copy(), len(memo_vals) + len(fvals)


