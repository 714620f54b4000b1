"""Exact value of a deal from a finite pack when its hands can be valued one by one.

When the banker draws on his own cards only (a table that does not read the punters' hands)
and the stock cannot run out, each hand's result depends on the cards before it only through
the cards left when it starts. Two facts of a shuffled pack make that exact:

* **Any order that respects the decisions.** Cards may be drawn in any order in which the
  existence of each card slot is decided by cards already drawn (the pack is exchangeable).
  A split depends only on second cards, never on a hand's later draws, so a seat's split can
  be settled first: every second card it draws, splitting again on a match, until its hands
  (at most four) each hold two cards. This is the split's **structure**.
* **Optional skipping.** A hand's draws, and the banker's after every hand, are stopping rules
  on the cards. For a stopping time T of a shuffled pack, the cards after T are, given the
  cards up to T, a shuffled pack of what is left, and the chance that the cards at positions
  T+1..T+k are any given sequence is a martingale (it is the chance that the pack's *last* k
  cards are that sequence). So the hands between a hand and the banker can be skipped: a hand
  is worth exactly what it would be worth if the banker drew right after it.

So a seat is worth the sum over its first two cards and its split structures of its hands'
values, each hand played from the cards left when the structure is complete and settled
against the banker's distribution for the cards left when the hand ends. Seats are alike: a
seat after others starts after a stopping time, so each seat is worth what the first is.
Compared with :mod:`sim.games.pontoon.walk`, which follows each hand with the rest of the deal
(every split hand after every path of the ones before), the work drops from minutes to a
fraction of a second for strategies splitting into four hands.
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.typed import Dict, List

from sim.core import (
    jit,
    kernel_cache,  # noqa: F401  (compiled code cached by digest)
)
from sim.core.memo import by_content
from sim.games.pontoon.composition import (
    P_BURN,
    P_INFINITE,
    banker_final,
    draw_p,
    pack_counts,
    put_back,
    rank_codes,
    take,
)
from sim.games.pontoon.hand import (
    BUST,
    N_SCORES,
    PONTOON,
    RI_MAX_HANDS,
)
from sim.games.pontoon.rules import MAX_CARDS, VALUES, PontoonRules
from sim.games.pontoon.tables import BankerTable, PlayerTable
from sim.games.pontoon.walk import BIG_STOCK, N_EVENTS, _settle_into, row_width, table_move

_KEY = types.UniTuple(types.int64, 3)
_ROW = types.float64[::1]
MAX_SPLIT_DRAWS = 8  # a structure draws at most one second card per hand and per split


def applies(rules: PontoonRules, player: PlayerTable, banker: BankerTable,
            cards: int) -> bool:
    """Whether hands may be valued one by one: a finite pack, a banker who does not read the
    punters' hands, and a stock of ``cards`` that no deal can exhaust."""
    if rules.infinite_deck or banker.keyed:
        return False
    splits = rules.splits_allowed and any(
        player.split[r] and rules.may_split_rank(r) for r in range(13))
    per_seat = (rules.max_hands if splits else 1) * MAX_CARDS + (
        2 if rules.burn_hard_13 and player.burn else 0)
    return rules.players * per_seat + MAX_CARDS <= cards


@jit.njit(cache=True)
def _dead_rest(counts, probs, infinite):
    """A one-entry banker row for a bust hand or a pontoon: only the chance that the banker has
    no pontoon matters to them."""
    rest = np.zeros(N_SCORES)
    if infinite:
        t = 0.0
        for r in range(9, 13):
            t += probs[r]
        rest[0] = 1.0 - 2.0 * probs[0] * t
        return rest
    n = counts[13]
    t = 0
    for r in range(9, 13):
        t += counts[r]
    rest[0] = 1.0 - 2.0 * counts[0] * t / (n * (n - 1.0)) if n > 1 else 1.0
    return rest


def no_pontoon(full: np.ndarray, probs: np.ndarray, infinite: bool) -> float:
    """The chance that the banker's two cards are not a pontoon, from the cards ``full``."""
    return float(_dead_rest(pack_counts(full), probs, infinite)[0])


@jit.njit(cache=True)
def _next_at(card, taken, d, counts, probs, infinite):
    """Advance level ``d``'s loop over the next card: its probability (the card is then out
    of the pack), or 0 when the loop is over."""
    if taken[d]:
        put_back(card[d], counts, infinite)
        taken[d] = 0
        card[d] += 1
    while card[d] < 13:
        p = draw_p(card[d], counts, probs, infinite)
        if p > 0.0:
            take(card[d], counts, infinite)
            taken[d] = 1
            return p
        card[d] += 1
    return 0.0


@jit.njit(cache=True)
def _play_hand(row, c1, c2, split_hand, burnt, r1, counts, full, probs, act, split, stakes,
               btab, rule_i, rule_f, params, fmemo, fvals, smemo, srows, sways):
    """Add to ``row`` the value of one hand played from two cards (already out of ``counts``)
    and settled against the banker's distribution for the cards left when it ends."""
    infinite = params[P_INFINITE] != 0
    depth_max = MAX_CARDS - 1
    hard = np.zeros(depth_max, dtype=np.int64)
    ace = np.zeros(depth_max, dtype=np.int64)
    buys = np.zeros(depth_max, dtype=np.int64)
    twisted = np.zeros(depth_max, dtype=np.int64)
    vis = np.zeros(depth_max, dtype=np.int64)
    draw = np.zeros(depth_max, dtype=np.int64)
    new_buys = np.zeros(depth_max, dtype=np.int64)
    card = np.zeros(depth_max, dtype=np.int64)
    taken = np.zeros(depth_max, dtype=np.int64)
    prob = np.zeros(depth_max)
    hard[0] = VALUES[c1] + VALUES[c2]
    ace[0] = c1 == 0 or c2 == 0
    vis[0] = VALUES[c1] + 1 if split_hand else 2
    prob[0] = 1.0
    d = 0
    fresh = True
    while d >= 0:
        n = d + 2
        if fresh:
            fresh = False
            score, kind, nb, money = table_move(
                hard[d], ace[d], n, buys[d], twisted[d], vis[d], c1, c2, split_hand, burnt, 0,
                BIG_STOCK, stakes[r1], act, split, rule_i, False)
            if kind == 0:
                if score == BUST or score == PONTOON:
                    rest = _dead_rest(counts, probs, infinite)
                else:
                    rest = banker_final(0, counts, full, probs, params, btab, rule_i, fmemo,
                                        fvals, smemo, srows, sways)
                _settle_into(row, rest, score, money, burnt, buys[d], 0, r1, 1, prob[d],
                             rule_i, rule_f, 0)
                d -= 1
                continue
            draw[d], new_buys[d], card[d], taken[d] = kind, nb, 0, 0
        p = _next_at(card, taken, d, counts, probs, infinite)
        if p == 0.0:
            d -= 1
            continue
        x = card[d]
        twist = draw[d] == 1
        hard[d + 1] = hard[d] + VALUES[x]
        ace[d + 1] = ace[d] or x == 0
        buys[d + 1] = buys[d] if twist else new_buys[d]
        twisted[d + 1] = 1 if (twist or twisted[d] != 0) else 0
        vis[d + 1] = vis[d] + (VALUES[x] if twist else 1)
        prob[d + 1] = prob[d] * p
        d += 1
        fresh = True


@jit.njit(cache=True)
def _hand_row(c1, c2, split_hand, burnt, r1, counts, full, probs, act, split, stakes, btab,
              rule_i, rule_f, params, width, memo, rows, fmemo, fvals, smemo, srows, sways):
    """The value of one hand from the cards left (cached by them and the hand)."""
    lo, hi = rank_codes(counts, full, params[P_INFINITE] != 0)
    state = (((r1 * 13 + c1) * 13 + c2) * 2 + split_hand) * 2 + burnt
    if (lo, hi, state) in memo:
        return rows[memo[(lo, hi, state)]]
    row = np.zeros(width)
    _play_hand(row, c1, c2, split_hand, burnt, r1, counts, full, probs, act, split, stakes,
               btab, rule_i, rule_f, params, fmemo, fvals, smemo, srows, sways)
    memo[(lo, hi, state)] = len(rows)
    rows.append(row)
    return row


@jit.njit(cache=True)
def _split_structures(acc, prob0, c1, c2, burnt, r1, counts, full, probs, act, split, stakes,
                      btab, rule_i, rule_f, params, width, memo, rows, fmemo, fvals, smemo,
                      srows, sways):
    """Add a split pair's hands to ``acc``: every structure (second cards drawn as the walk
    and the reference deal draw them, the newest pending hand first), then each hand valued
    from the cards left once the structure is complete."""
    infinite = params[P_INFINITE] != 0
    L = MAX_SPLIT_DRAWS
    first = np.zeros(L, dtype=np.int64)  # the first card of the hand drawing at this level
    queue = np.zeros(L, dtype=np.int64)  # pending first cards, base 14, newest lowest
    cap = np.zeros(L, dtype=np.int64)
    done = np.zeros(L, dtype=np.int64)  # hands formed before this level
    card = np.zeros(L, dtype=np.int64)
    taken = np.zeros(L, dtype=np.int64)
    prob = np.zeros(L)
    formed = np.zeros((L, 4, 2), dtype=np.int64)
    first[0], queue[0], cap[0], prob[0] = c1, c2 + 1, rule_i[RI_MAX_HANDS] - 2, prob0
    d = 0
    while d >= 0:
        p = _next_at(card, taken, d, counts, probs, infinite) * prob[d]
        if p == 0.0:
            d -= 1
            continue
        x = card[d]
        f = first[d]
        _, kind, _, _ = table_move(VALUES[f] + VALUES[x], f == 0 or x == 0, 2, 0, 0,
                                   VALUES[f] + 1, f, x, 1, 0, cap[d], BIG_STOCK, 1.0, act,
                                   split, rule_i, False)
        k = done[d]
        formed[d + 1] = formed[d]
        if kind == 4:  # a match: split again, the new card waits, the hand draws again
            first[d + 1], queue[d + 1] = f, (x + 1) + 14 * queue[d]
            cap[d + 1], done[d + 1] = cap[d] - 1, k
        else:
            formed[d + 1, k, 0], formed[d + 1, k, 1] = f, x
            k += 1
            if queue[d] == 0:  # the structure is complete: value its hands
                for h in range(k):
                    row = _hand_row(formed[d + 1, h, 0], formed[d + 1, h, 1], 1,
                                    burnt if h == 0 else 0, r1, counts, full, probs, act,
                                    split, stakes, btab, rule_i, rule_f, params, width, memo,
                                    rows, fmemo, fvals, smemo, srows, sways)
                    for j in range(width):
                        acc[j] += p * row[j]
                continue
            first[d + 1], queue[d + 1] = queue[d] % 14 - 1, queue[d] // 14
            cap[d + 1], done[d + 1] = cap[d], k
        card[d + 1], taken[d + 1], prob[d + 1] = 0, 0, p
        d += 1


@jit.njit(cache=True)
def _two_cards(acc, prob, a, b, burnt, r1, counts, full, probs, act, split, stakes, btab,
               rule_i, rule_f, params, width, memo, rows, fmemo, fvals, smemo, srows, sways):
    """Add a seat's hand from its two cards (a burnt hand's new ones, or a split) to ``acc``;
    returns True when the hand is a hard 13 to burn."""
    _, kind, _, _ = table_move(VALUES[a] + VALUES[b], a == 0 or b == 0, 2, 0, 0, 2, a, b, 0,
                               burnt, rule_i[RI_MAX_HANDS] - 1, BIG_STOCK, 1.0, act, split,
                               rule_i, params[P_BURN] != 0)
    if kind == 3:
        return True
    if kind == 4:
        _split_structures(acc, prob, a, b, burnt, r1, counts, full, probs, act, split, stakes,
                          btab, rule_i, rule_f, params, width, memo, rows, fmemo, fvals, smemo,
                          srows, sways)
        return False
    row = _hand_row(a, b, 0, burnt, r1, counts, full, probs, act, split, stakes, btab, rule_i,
                    rule_f, params, width, memo, rows, fmemo, fvals, smemo, srows, sways)
    for j in range(width):
        acc[j] += prob * row[j]
    return False


@jit.njit(cache=True)
def value_seat(full, probs, act, split, stakes, btab, rule_i, rule_f, params):
    """One seat's row (the layout of :func:`sim.games.pontoon.walk.row_width` for one seat,
    without the banker's distribution) and the number of cached states."""
    memo = Dict.empty(key_type=_KEY, value_type=types.int64)
    rows = List.empty_list(_ROW)
    fmemo = Dict.empty(key_type=_KEY, value_type=types.int64)
    fvals = List.empty_list(_ROW)
    smemo = Dict.empty(key_type=types.int64, value_type=types.int64)
    srows = List.empty_list(types.int64[:, ::1])
    sways = List.empty_list(_ROW)
    infinite = params[P_INFINITE] != 0
    width = N_SCORES + 2 + N_EVENTS + 13
    acc = np.zeros(width)
    counts = pack_counts(full)
    for a in range(13):
        pa = draw_p(a, counts, probs, infinite)
        if pa == 0.0:
            continue
        take(a, counts, infinite)
        for b in range(13):
            pb = draw_p(b, counts, probs, infinite)
            if pb == 0.0:
                continue
            take(b, counts, infinite)
            if _two_cards(acc, pa * pb, a, b, 0, a, counts, full, probs, act, split, stakes,
                          btab, rule_i, rule_f, params, width, memo, rows, fmemo, fvals,
                          smemo, srows, sways):
                for x in range(13):  # burnt: two new cards, the stake stays by the first card
                    px = draw_p(x, counts, probs, infinite)
                    if px == 0.0:
                        continue
                    take(x, counts, infinite)
                    for y in range(13):
                        py = draw_p(y, counts, probs, infinite)
                        if py == 0.0:
                            continue
                        take(y, counts, infinite)
                        _two_cards(acc, pa * pb * px * py, x, y, 1, a, counts, full, probs,
                                   act, split, stakes, btab, rule_i, rule_f, params, width,
                                   memo, rows, fmemo, fvals, smemo, srows, sways)
                        put_back(y, counts, infinite)
                    put_back(x, counts, infinite)
            put_back(b, counts, infinite)
        put_back(a, counts, infinite)
    acc[:N_SCORES] = 0.0  # not the banker's distribution here: see the module notes
    return acc, len(rows) + len(fvals)


# Equal inputs (variants alike where a seat's value looks) are valued once.
_value_seat = by_content()(value_seat)


def clear_caches() -> None:
    """Forget every seat value computed so far."""
    _value_seat.cache_clear()


def seat_row(args: tuple, players: int) -> tuple[np.ndarray, int]:
    """The walk's top row (:func:`sim.games.pontoon.walk.walk_deal`) for ``players`` alike
    seats, from one seat's value; the banker's distribution is left at zero. ``args`` are
    the walk's; the stake levels' offsets are left out (a banker who reads no hand reads no
    stake either)."""
    row, states = _value_seat(*args[:5], *args[6:])
    out = np.zeros(row_width(players, 0))
    seat_net, seat_staked = row[N_SCORES], row[N_SCORES + 1]
    out[N_SCORES:N_SCORES + players] = seat_net
    out[N_SCORES + players:N_SCORES + 2 * players] = seat_staked
    e = N_SCORES + 2 * players
    out[e:e + N_EVENTS] = players * row[N_SCORES + 2:N_SCORES + 2 + N_EVENTS]
    out[e + N_EVENTS:] = row[N_SCORES + 2 + N_EVENTS:]
    return out, states


__all__ = ["applies", "clear_caches", "no_pontoon", "seat_row", "value_seat"]
