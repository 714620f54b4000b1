"""Exact value of a deal from a finite pack when its hands can be valued one by one.

When the banker draws on his own cards only (a table that does not read the punters' hands)
and the stock cannot run out, each hand's result depends on the cards before it only through
the cards left when it is formed. Two facts of a shuffled pack make that exact:

* **Any order that respects the decisions.** Cards may be drawn in any order in which the
  existence of each card slot is decided by cards already drawn (the pack is exchangeable).
  A split depends only on second cards, never on a hand's later draws, so a seat's split can
  be settled first: every second card it draws, splitting again on a match, until its hands
  (at most four) each hold two cards. This is the split's **structure**.
* **Optional skipping.** A hand's draws, and the banker's after every hand, are stopping rules
  on the cards. For a stopping time T of a shuffled pack, the cards after T are, given the
  cards up to T, a shuffled pack of what is left, and the chance that the cards at positions
  T+1..T+k are any given sequence is a martingale (it is the chance that the pack's *last* k
  cards are that sequence). So whatever is dealt between two stopping times can be skipped:
  a hand is worth exactly what it would be worth if the banker drew right after it, and,
  once its two cards are known, exactly what it would be worth if it were played at once,
  before the rest of the structure and the hands formed after it.

So a seat is worth the sum over its first two cards and its split structures of its hands'
values, each hand played from the cards left when it is **formed** (its second card dealt
and no split to follow) and settled against the banker's distribution for the cards left
when the hand ends. A hand's play depends on the values of its cards, never on the ranks of
ten-cards (its split is settled), so it is played and cached by values. Seats are alike: a
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
    intmap,
    jit,
    kernel_cache,  # noqa: F401  (compiled code cached by digest)
)
from sim.core.memo import by_content
from sim.games.pontoon.composition import (
    P_BURN,
    P_INFINITE,
    draw_p,
    pack_counts,
    put_back,
    take,
)
from sim.games.pontoon.hand import (
    BUST,
    FIVE,
    N_SCORES,
    PONTOON,
    RI_MAX_HANDS,
    RI_TIES_TO_BANKER,
    RI_UNEQUAL_TENS,
    settle,
)
from sim.games.pontoon.hand_tree import (
    G_CODE,
    N_BUYS,
    N_MONEY,
    N_SCORE,
    SEAT_RADIX,
    group_bankers,
    group_counts,
    hand_tree,
    node_chances,
    removed_code,
)
from sim.games.pontoon.rules import MAX_CARDS, VALUES, PontoonRules
from sim.games.pontoon.tables import BankerTable, PlayerTable
from sim.games.pontoon.walk import BIG_STOCK, N_EVENTS, row_width, table_move

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
def _no_pontoon(counts, probs, infinite):
    """The chance that the banker's two cards, from the cards left, are not a pontoon: all
    that matters to a bust hand or a pontoon."""
    if infinite:
        t = 0.0
        for r in range(9, 13):
            t += probs[r]
        return 1.0 - 2.0 * probs[0] * t
    n = counts[13]
    t = 0
    for r in range(9, 13):
        t += counts[r]
    return 1.0 - 2.0 * counts[0] * t / (n * (n - 1.0)) if n > 1 else 1.0


def no_pontoon(full: np.ndarray, probs: np.ndarray, infinite: bool) -> float:
    """The chance that the banker's two cards are not a pontoon, from the cards ``full``."""
    return float(_no_pontoon(pack_counts(full), probs, infinite))


@jit.njit(cache=True)
def _pays_row(banker, pays):
    """A hand's net per unit of its stake by its score against the banker's distribution
    ``banker``, and (last) the chance that he has no pontoon."""
    out = np.zeros(N_SCORES + 1)
    for b in range(N_SCORES):
        if banker[b] != 0.0:
            out[N_SCORES] += banker[b]
            for s in range(N_SCORES):
                out[s] += pays[s, b] * banker[b]
    return out


@jit.njit(cache=True)
def _fill_pays(need, n_need, code, vc, groups, probs, pays, btab, rule_i, params, pmemo, pvals,
               smemo, srows, sways):
    """Cache the banker's rows (:func:`_pays_row`) for the cards left at the groups
    ``need[:n_need]`` of a hand's tree, from the stock ``vc`` at its start (removed code
    ``code``)."""
    bankers = group_bankers(vc, groups, need, n_need, probs, params, btab, rule_i, smemo,
                            srows, sways)
    for i in range(n_need):
        intmap.put(pmemo, code + groups[need[i], G_CODE], len(pvals))
        pvals.append(_pays_row(bankers[i], pays))


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


# A hand's row, per unit of its initial stake (the chance that the banker has no pontoon
# folded in): its net, its money staked, then the chance it is played and its events.
H_NET, H_STAKED, H_MASS, H_BUSTS, H_FIVES, H_PONTOONS, H_BUYS = range(7)
H_WIDTH = 7


@jit.njit(cache=True)
def by_values(counts, full):
    """``counts`` and ``full`` with the ten-cards as one rank (index 9): a hand whose split is
    settled plays by values alone, so it draws 10 branches a card instead of 13."""
    vc = counts.copy()
    vf = full.copy()
    for r in range(10, 13):
        vc[9] += vc[r]
        vc[r] = 0
        vf[9] += vf[r]
        vf[r] = 0
    return vc, vf


@jit.njit(cache=True)
def new_trees():
    """An empty cache of hand trees (:func:`tree_of`)."""
    return (Dict.empty(key_type=types.int64, value_type=types.int64),
            List.empty_list(types.int64[:, ::1]), List.empty_list(types.int64[::1]),
            List.empty_list(types.int64[:, ::1]), List.empty_list(types.int64[::1]))


@jit.njit(cache=True)
def tree_of(c1, c2, split_hand, act, split, rule_i, trees):
    """The index in ``trees`` of the tree of a hand of values ``c1``, ``c2`` (built once)."""
    index, nodes, leaves, groups, starts = trees
    code = (c1 * 10 + c2) * 2 + split_hand
    if code not in index:
        tree = hand_tree(c1, c2, split_hand, act, split, rule_i)
        index[code] = len(nodes)
        nodes.append(tree[0])
        leaves.append(tree[1])
        groups.append(tree[2])
        starts.append(tree[3])
    return index[code]


@jit.njit(cache=True)
def _hand_row(c1, c2, split_hand, counts, full, probs, act, split, pays, btab, rule_i, params,
              memo, rows, pmemo, pvals, smemo, srows, sways, trees):
    """A hand's row from the cards left (cached by their values and the hand's two values:
    its play depends on nothing else, and its stake only scales it): its tree's leaves, each
    settled against the banker's distribution for the cards left at it."""
    c1, c2 = min(c1, 9), min(c2, 9)  # a ten-card by its value
    if not split_hand and c1 > c2:  # an unsplit hand shows neither card: the pair is a set
        c1, c2 = c2, c1
    code = removed_code(counts, full)
    key = _row_key(code, c1, c2, split_hand)
    found = intmap.get(memo, key)
    if found >= 0:
        return rows[found]
    t = tree_of(c1, c2, split_hand, act, split, rule_i, trees)
    nodes, leaves, groups, starts = trees[1][t], trees[2][t], trees[3][t], trees[4][t]
    vc, _ = by_values(counts, full)
    chances = np.empty(nodes.shape[0])
    node_chances(nodes, vc, chances)
    banker = np.full(groups.shape[0], -1)  # each group's banker row, where it needs one
    need = np.empty(groups.shape[0], dtype=np.int64)  # those not computed yet
    n_need = 0
    for g in range(groups.shape[0]):
        for k in range(starts[g], starts[g + 1]):
            score = nodes[leaves[k], N_SCORE]
            if chances[leaves[k]] > 0.0 and score != BUST and score != PONTOON:
                banker[g] = intmap.get(pmemo, code + groups[g, G_CODE])
                if banker[g] < 0:
                    need[n_need] = g
                    n_need += 1
                break
    if n_need:
        _fill_pays(need, n_need, code, vc, groups, probs, pays, btab, rule_i, params, pmemo,
                   pvals, smemo, srows, sways)
        for i in range(n_need):
            banker[need[i]] = intmap.get(pmemo, code + groups[need[i], G_CODE])
    left = np.empty(14, dtype=np.int64)
    row = np.zeros(H_WIDTH)
    for g in range(groups.shape[0]):
        dead = -1.0  # the chance that the banker has no pontoon from the cards left here
        for k in range(starts[g], starts[g + 1]):
            leaf = leaves[k]
            q = chances[leaf]
            if q == 0.0:
                continue
            score, money = nodes[leaf, N_SCORE], nodes[leaf, N_MONEY]
            if score == BUST or score == PONTOON:  # whatever the banker holds
                if dead < 0.0:
                    group_counts(vc, groups, g, left)
                    dead = _no_pontoon(left, probs, False)
                mass = dead
                pay = pays[score, 0] * mass
            else:
                mass = pvals[banker[g]][N_SCORES]
                pay = pvals[banker[g]][score]
            row[H_NET] += q * money * pay
            row[H_STAKED] += q * money * mass
            row[H_MASS] += q * mass
            row[H_BUSTS] += q * mass * (score == BUST)
            row[H_FIVES] += q * mass * (score == FIVE)
            row[H_PONTOONS] += q * mass * (score == PONTOON)
            row[H_BUYS] += q * mass * nodes[leaf, N_BUYS]
    intmap.put(memo, key, len(rows))
    rows.append(row)
    return row


@jit.njit(cache=True)
def _add_hand(acc, p, row, stake, r1, burnt):
    """Add a hand's row, of chance ``p``, to a seat's row (see :func:`value_seat`)."""
    net = p * stake * row[H_NET]
    acc[N_SCORES] += net
    acc[N_SCORES + 1] += p * stake * row[H_STAKED]
    e = N_SCORES + 2
    acc[e] += p * row[H_MASS]
    acc[e + 1] += p * row[H_BUSTS]
    acc[e + 2] += p * row[H_FIVES]
    acc[e + 3] += p * row[H_PONTOONS]
    acc[e + 4] += p * row[H_BUYS]
    acc[e + 5] += p * row[H_MASS] * burnt
    acc[e + N_EVENTS + r1] += net


@jit.njit(cache=True)
def _structure_counts(counts, f, rule_i):
    """The cards left as a split's structure tells them apart: a second card either matches
    the pair or joins a hand by its value, so the ten-cards that cannot match are one rank.
    Returns the counts and the pair's first card in them."""
    folded = counts.copy()
    unequal = rule_i[RI_UNEQUAL_TENS] != 0
    keep = f if (f >= 9 and not unequal) else -1  # a ten that matches its own rank only
    into = 10 if keep == 9 else 9
    for r in range(9, 13):
        if r != keep and r != into:
            folded[into] += folded[r]
            folded[r] = 0
    return folded, (into if (f >= 9 and keep < 0) else f)


@jit.njit(cache=True)
def _row_key(code, c1, c2, split_hand):
    """The cache key of a hand's row: the cards removed (:func:`removed_code`) and the hand's
    two values (a set for an unsplit hand)."""
    c1, c2 = min(c1, 9), min(c2, 9)
    if not split_hand and c1 > c2:
        c1, c2 = c2, c1
    return code * 512 + (c1 * 13 + c2) * 2 + split_hand


@jit.njit(cache=True)
def _split_structures(acc, prob0, c1, burnt, r1, counts, full, probs, act, split, stakes,
                      pays, btab, rule_i, params, memo, rows, pmemo, pvals, smemo, srows,
                      sways, trees):
    """Add a split pair's hands to ``acc``: every structure (second cards drawn as the walk
    and the reference deal draw them, the newest pending hand first), each hand valued from
    the cards left when it is formed, weighted by the chance of the structure so far."""
    infinite = params[P_INFINITE] != 0
    L = MAX_SPLIT_DRAWS
    first = np.zeros(L, dtype=np.int64)  # the first card of the hand drawing at this level
    queue = np.zeros(L, dtype=np.int64)  # pending first cards, base 14, newest lowest
    cap = np.zeros(L, dtype=np.int64)
    done = np.zeros(L, dtype=np.int64)  # hands formed before this level
    card = np.zeros(L, dtype=np.int64)
    taken = np.zeros(L, dtype=np.int64)
    code = np.zeros(L, dtype=np.int64)  # the cards removed (:func:`removed_code`)
    prob = np.zeros(L)
    left, f0 = _structure_counts(counts, c1, rule_i)
    first[0], queue[0], cap[0], prob[0] = f0, f0 + 1, rule_i[RI_MAX_HANDS] - 2, prob0
    code[0] = removed_code(counts, full)
    d = 0
    while d >= 0:
        p = _next_at(card, taken, d, left, probs, infinite) * prob[d]
        if p == 0.0:
            d -= 1
            continue
        x = card[d]
        f = first[d]
        c = code[d] + SEAT_RADIX ** min(x, 9)
        _, kind, _, _ = table_move(VALUES[f] + VALUES[x], f == 0 or x == 0, 2, 0, 0,
                                   VALUES[f] + 1, f, x, 1, 0, cap[d], BIG_STOCK, 1.0, act,
                                   split, rule_i, False)
        k = done[d]
        if kind == 4:  # a match: split again, the new card waits, the hand draws again
            first[d + 1], queue[d + 1] = f, (x + 1) + 14 * queue[d]
            cap[d + 1], done[d + 1] = cap[d] - 1, k
        else:  # the hand is formed: value it from the cards left now
            key = _row_key(c, f, x, 1)  # looked up here: the call costs more than it
            found = intmap.get(memo, key)
            if found >= 0:
                row = rows[found]
            else:
                row = _hand_row(f, x, 1, left, full, probs, act, split, pays, btab, rule_i,
                                params, memo, rows, pmemo, pvals, smemo, srows, sways, trees)
            _add_hand(acc, p, row, stakes[r1], r1, burnt if k == 0 else 0)
            if queue[d] == 0:  # the structure is complete
                continue
            first[d + 1], queue[d + 1] = queue[d] % 14 - 1, queue[d] // 14
            cap[d + 1], done[d + 1] = cap[d], k + 1
        card[d + 1], taken[d + 1], prob[d + 1], code[d + 1] = 0, 0, p, c
        d += 1


@jit.njit(cache=True)
def _two_cards(acc, prob, a, b, burnt, r1, counts, full, probs, act, split, stakes, pays, btab,
               rule_i, params, memo, rows, pmemo, pvals, smemo, srows, sways, trees):
    """Add a seat's hand from its two cards (a burnt hand's new ones, or a split) to ``acc``;
    returns True when the hand is a hard 13 to burn."""
    _, kind, _, _ = table_move(VALUES[a] + VALUES[b], a == 0 or b == 0, 2, 0, 0, 2, a, b, 0,
                               burnt, rule_i[RI_MAX_HANDS] - 1, BIG_STOCK, 1.0, act, split,
                               rule_i, params[P_BURN] != 0)
    if kind == 3:
        return True
    if kind == 4:
        _split_structures(acc, prob, a, burnt, r1, counts, full, probs, act, split, stakes,
                          pays, btab, rule_i, params, memo, rows, pmemo, pvals, smemo, srows,
                          sways, trees)
        return False
    row = _hand_row(a, b, 0, counts, full, probs, act, split, pays, btab, rule_i, params,
                    memo, rows, pmemo, pvals, smemo, srows, sways, trees)
    _add_hand(acc, prob, row, stakes[r1], r1, burnt)
    return False


@jit.njit(cache=True)
def settle_matrix(rule_i, rule_f):
    """``pays[score, banker's score]``: a hand's net per unit of its stake (banker without a
    pontoon)."""
    ties = rule_i[RI_TIES_TO_BANKER] != 0
    pays = np.zeros((N_SCORES, N_SCORES))
    for s in range(N_SCORES):
        for b in range(N_SCORES):
            pays[s, b] = settle(s, b, ties, rule_f)
    return pays


@jit.njit(cache=True)
def value_seat(full, probs, act, split, stakes, btab, rule_i, rule_f, params):
    """One seat's row (the layout of :func:`sim.games.pontoon.walk.row_width` for one seat,
    without the banker's distribution) and the number of cached states."""
    memo = intmap.intmap()
    rows = List.empty_list(_ROW)
    pmemo = intmap.intmap()
    pvals = List.empty_list(_ROW)
    smemo = Dict.empty(key_type=types.int64, value_type=types.int64)
    srows = List.empty_list(types.int64[:, ::1])
    sways = List.empty_list(_ROW)
    trees = new_trees()
    pays = settle_matrix(rule_i, rule_f)
    infinite = params[P_INFINITE] != 0
    acc = np.zeros(N_SCORES + 2 + N_EVENTS + 13)
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
                          pays, btab, rule_i, params, memo, rows, pmemo, pvals, smemo, srows,
                          sways, trees):
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
                                   act, split, stakes, pays, btab, rule_i, params, memo, rows,
                                   pmemo, pvals, smemo, srows, sways, trees)
                        put_back(y, counts, infinite)
                    put_back(x, counts, infinite)
            put_back(b, counts, infinite)
        put_back(a, counts, infinite)
    return acc, len(rows) + len(pvals)


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
