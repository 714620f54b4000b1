"""Exact odds of a dealt gin rummy hand: every deadwood counted, by a walk over the ranks.

The walk of :mod:`.melds` finds one hand's deadwood; here it runs over every hand at once. Up
the ranks, a hand so far reaches each run state (a suit state per suit: see :mod:`.melds`) at
some least deadwood. A *configuration* is those least deadwoods **relative to their minimum**
(the *base*): what the rest of a hand can leave depends on the states it reaches and their
differences, and the base only adds to it. So hands are counted per (configuration, cards so
far, base): extending every such class by each subset of suits at the next rank gives one next
configuration and adds the new minimum's rise to the base, alike for every hand of the class.
After the last rank a hand's deadwood is its base plus the least relative deadwood of a state
that leaves no run short.

Two reductions keep the configurations few. A state is dropped when another reaches as little
deadwood and can do, suit by suit, all it can (a run that may stop can do all, a run of two
all a run of one can): what follows from it never leaves less. And relabelling the suits maps
hands to hands and configurations to configurations, so a configuration stands for every
relabelling of itself (the least of them, entry by entry): the count of a class's successors
under each subset of suits is the same for every member. Relative deadwoods stay small (a
state trails the best by at most the cards of its last few ranks), so the configurations are a
few thousand however many hands; each (configuration, subset, pip value) step is computed once
and the counts are exact integers.

:func:`deadwood_distribution_counts` gives every deadwood's count (the mean and spread of the
dealt hand's deadwood follow exactly); :func:`deadwood_counts` the counts up to a cap, and
:func:`gin_probability` the chance of gin. Tests check them against the deadwood of every
hand of stripped packs.
"""

from __future__ import annotations

import functools
import itertools
import math
from fractions import Fraction

import numba
import numpy as np

from sim.core import kernel_cache  # noqa: F401  (compiled code cached by digest)
from sim.core.cards import N_RANKS, N_SUITS
from sim.games.gin_rummy.melds import step, transitions

_NONE = -1  # a state not reached (in a configuration row) or a step that fails


@functools.cache
def _tables(suits: int) -> tuple[np.ndarray, ...]:
    """The walk's tables for ``suits`` suits, states coded in base 4 (suit 0 the lowest
    digit): ``steps[state, run_mask]`` the next state (-1: a run left short); per subset of
    suits present, its placements as (run mask, dead cards) rows from ``move_start``; the
    states that dominate a state, ``dominators[dominator_start[state]:]`` up to the next
    state's start; ``closed[state]`` no run left short; ``relabel[k, state]`` the state with
    its suits permuted by the k-th permutation."""
    states = list(itertools.product(range(4), repeat=suits))
    codes = {s: sum(d << (2 * i) for i, d in enumerate(s)) for s in states}
    size = 4 ** suits
    steps = np.full((size, 1 << suits), _NONE, dtype=np.int64)
    for s in states:
        for mask in range(1 << suits):
            nxt = step(s, mask)
            if nxt is not None:
                steps[codes[s], mask] = codes[nxt]
    moves, move_start = [], [0]
    for present in range(1 << suits):
        moves += [(mask, dead) for mask, _, dead in transitions(present, suits)]
        move_start.append(len(moves))
    closed = np.zeros(size, dtype=np.bool_)
    dominators: list[list[int]] = [[] for _ in range(size)]
    for a in states:
        closed[codes[a]] = all(x in (0, 3) for x in a)
        for b in states:
            if a != b and all(x == y or x == 3 or (x == 2 and y == 1) for x, y in zip(a, b)):
                dominators[codes[b]].append(codes[a])
    dominator_start = np.cumsum([0] + [len(d) for d in dominators]).astype(np.int64)
    relabel = np.array([[codes[tuple(s[p] for p in perm)] for s in states]
                        for perm in itertools.permutations(range(suits))], dtype=np.int64)
    return (steps, np.array(moves, dtype=np.int64).reshape(-1, 2),
            np.array(move_start, dtype=np.int64),
            np.array([a for d in dominators for a in d], dtype=np.int64), dominator_start,
            closed, relabel)


@numba.njit(cache=True)
def _hash(row):
    h = np.uint64(14695981039346656037)
    for x in row:
        h = (h ^ np.uint64(x + 2)) * np.uint64(1099511628211)
    return h


@numba.njit(cache=True)
def _intern(row, store, n, slots):
    """The id of configuration ``row`` in ``store[:n]`` (added if new; ``slots`` an open
    addressing table of ids, -1 empty); returns (id, n, store, slots)."""
    mask = slots.shape[0] - 1
    i = np.int64(_hash(row) & np.uint64(mask))
    while slots[i] >= 0:
        j = slots[i]
        same = True
        for s in range(row.shape[0]):
            if store[j, s] != row[s]:
                same = False
                break
        if same:
            return j, n, store, slots
        i = (i + 1) & mask
    if n == store.shape[0]:  # grow the store, and the table with it
        bigger = np.empty((2 * n, row.shape[0]), dtype=store.dtype)
        bigger[:n] = store[:n]
        store = bigger
        slots = np.full(4 * bigger.shape[0], -1, dtype=np.int64)
        mask = slots.shape[0] - 1
        for j in range(n):
            k = np.int64(_hash(store[j]) & np.uint64(mask))
            while slots[k] >= 0:
                k = (k + 1) & mask
            slots[k] = j
        i = np.int64(_hash(row) & np.uint64(mask))
        while slots[i] >= 0:
            i = (i + 1) & mask
    store[n] = row
    slots[i] = n
    return n, n + 1, store, slots


@numba.njit(cache=True)
def _extend(config, present, pip, steps, moves, move_start, dominators, dominator_start,
            best):
    """The configuration after placing the suits of ``present`` at a rank of ``pip`` points,
    into ``best`` (relative, -1 unreached); returns the rise of the minimum."""
    size = config.shape[0]
    big = 1 << 30
    for s in range(size):
        best[s] = big
    for s in range(size):
        cost = config[s]
        if cost < 0:
            continue
        for m in range(move_start[present], move_start[present + 1]):
            nxt = steps[s, moves[m, 0]]
            if nxt >= 0:
                value = cost + moves[m, 1] * pip
                if value < best[nxt]:
                    best[nxt] = value
    low = big
    for s in range(size):
        if best[s] < big:
            low = min(low, best[s])
    # Drop a state that another dominates at no more deadwood (dominance is a partial order,
    # so what is left does not depend on the order states are looked at).
    keep = np.zeros(size, dtype=np.bool_)
    for b in range(size):
        if best[b] >= big:
            continue
        keep[b] = True
        for i in range(dominator_start[b], dominator_start[b + 1]):
            if best[dominators[i]] <= best[b]:
                keep[b] = False
                break
    for s in range(size):
        best[s] = best[s] - low if keep[s] else _NONE
    return low


@numba.njit(cache=True)
def _canonical(best, relabel, row, candidate):
    """The least (in order of its entries) of the rows of ``best`` with the suits relabelled,
    into ``row``."""
    size = best.shape[0]
    for s in range(size):
        row[s] = best[relabel[0, s]]
    for k in range(1, relabel.shape[0]):
        for s in range(size):
            candidate[s] = best[relabel[k, s]]
        for s in range(size):
            if candidate[s] != row[s]:
                if candidate[s] < row[s]:
                    row[:] = candidate
                break


@numba.njit(cache=True)
def _grow(memo_next, memo_rise, size):
    """The memo of each class's next class and deadwood rise, with room for ``size``
    classes (the new rows unknown: -1 and 0)."""
    grown = np.full((size,) + memo_next.shape[1:], -1, dtype=np.int64)
    grown[:memo_next.shape[0]] = memo_next
    risen = np.zeros((size,) + memo_rise.shape[1:], dtype=np.int64)
    risen[:memo_rise.shape[0]] = memo_rise
    return grown, risen


@numba.njit(cache=True)
def _walk(hand_size, ranks, pips, suits, steps, moves, move_start, dominators,
          dominator_start, closed, relabel):
    size = steps.shape[0]
    n_present = 1 << suits
    cards_of = np.zeros(n_present, dtype=np.int64)
    for p in range(n_present):
        for s in range(suits):
            cards_of[p] += (p >> s) & 1
    top = hand_size * 10 + 1  # no deadwood reaches this
    store = np.full((64, size), _NONE, dtype=np.int16)
    slots = np.full(256, -1, dtype=np.int64)
    start = np.full(size, _NONE, dtype=np.int16)
    start[0] = 0
    first, n, store, slots = _intern(start, store, 0, slots)
    layer_ids = np.array([first])
    counts = np.zeros((1, hand_size + 1, top), dtype=np.int64)
    counts[0, 0, 0] = 1
    high = np.zeros((1, hand_size + 1), dtype=np.int64) - 1
    high[0, 0] = 0
    best = np.empty(size, dtype=np.int64)
    row = np.empty(size, dtype=np.int16)
    candidate = np.empty(size, dtype=np.int16)
    # (configuration, subset) -> (next configuration, rise), per pip value
    memo_next = np.full((64, n_present, 11), -1, dtype=np.int64)
    memo_rise = np.zeros((64, n_present, 11), dtype=np.int64)
    for r in range(ranks):
        pip = pips[r]
        nxt_of = np.empty((layer_ids.shape[0], n_present), dtype=np.int64)
        rise_of = np.empty((layer_ids.shape[0], n_present), dtype=np.int64)
        for i in range(layer_ids.shape[0]):
            c = layer_ids[i]
            fewest = hand_size + 1  # the fewest cards a hand of this class holds
            for held in range(hand_size + 1):
                if high[i, held] >= 0:
                    fewest = held
                    break
            if c >= memo_next.shape[0]:
                memo_next, memo_rise = _grow(memo_next, memo_rise, 2 * c + 2)
            for p in range(n_present):
                if fewest + cards_of[p] > hand_size:
                    nxt_of[i, p] = -1  # no hand of the class has room for these cards
                    continue
                if memo_next[c, p, pip] < 0:
                    rise = _extend(store[c], p, pip, steps, moves, move_start, dominators,
                                   dominator_start, best)
                    _canonical(best, relabel, row, candidate)
                    j, n, store, slots = _intern(row, store, n, slots)
                    if j >= memo_next.shape[0]:
                        memo_next, memo_rise = _grow(memo_next, memo_rise, 2 * j + 2)
                    memo_next[c, p, pip] = j
                    memo_rise[c, p, pip] = rise
                nxt_of[i, p] = memo_next[c, p, pip]
                rise_of[i, p] = memo_rise[c, p, pip]
        # the next layer: the configurations reached, numbered in order of first reach
        index = np.full(n, -1, dtype=np.int64)
        ids = np.empty(layer_ids.shape[0] * n_present, dtype=np.int64)
        m = 0
        for i in range(layer_ids.shape[0]):
            for p in range(n_present):
                j = nxt_of[i, p]
                if j >= 0 and index[j] < 0:
                    index[j] = m
                    ids[m] = j
                    m += 1
        new = np.zeros((m, hand_size + 1, top), dtype=np.int64)
        new_high = np.full((m, hand_size + 1), -1, dtype=np.int64)
        for i in range(layer_ids.shape[0]):
            for p in range(n_present):
                if nxt_of[i, p] < 0:
                    continue
                k = cards_of[p]
                t = index[nxt_of[i, p]]
                rise = rise_of[i, p]
                for held in range(hand_size + 1 - k):
                    h = high[i, held]  # the largest base held so far (-1: none)
                    if h < 0:
                        continue
                    src = counts[i, held]
                    dst = new[t, held + k]
                    for d in range(h + 1):
                        dst[d + rise] += src[d]
                    if h + rise > new_high[t, held + k]:
                        new_high[t, held + k] = h + rise
        # keep the configurations some hand can still reach with at most hand_size cards
        alive = 0
        for t in range(m):
            if new_high[t].max() >= 0:
                alive += 1
        layer_ids = np.empty(alive, dtype=np.int64)
        counts = np.empty((alive, hand_size + 1, top), dtype=np.int64)
        high = np.empty((alive, hand_size + 1), dtype=np.int64)
        a = 0
        for t in range(m):
            if new_high[t].max() >= 0:
                layer_ids[a] = ids[t]
                counts[a] = new[t]
                high[a] = new_high[t]
                a += 1
    out = np.zeros(top + 64, dtype=np.int64)
    for i in range(layer_ids.shape[0]):
        config = store[layer_ids[i]]
        least = 1 << 30
        for s in range(size):
            if config[s] >= 0 and closed[s] and config[s] < least:
                least = config[s]
        for d in range(top):
            out[d + least] += counts[i, hand_size, d]
    return out


@functools.cache
def deadwood_distribution_counts(hand_size: int = 10, ranks: int = N_RANKS,
                                 suits: int = N_SUITS) -> tuple[int, ...]:
    """The number of hands of ``hand_size`` cards (from a pack of the lowest ``ranks`` ranks
    in ``suits`` suits) of each least deadwood 0, 1, ..., up to the largest there is."""
    pips = np.array([min(r + 1, 10) for r in range(ranks)], dtype=np.int64)
    counts = _walk(hand_size, ranks, pips, suits, *_tables(suits))
    last = int(np.flatnonzero(counts).max())
    return tuple(int(c) for c in counts[:last + 1])


def deadwood_moments(hand_size: int = 10, ranks: int = N_RANKS, suits: int = N_SUITS
                     ) -> tuple[Fraction, Fraction]:
    """The exact mean deadwood of a dealt hand and its variance, as fractions."""
    counts = deadwood_distribution_counts(hand_size, ranks, suits)
    total = math.comb(ranks * suits, hand_size)
    mean = Fraction(sum(d * c for d, c in enumerate(counts)), total)
    second = Fraction(sum(d * d * c for d, c in enumerate(counts)), total)
    return mean, second - mean * mean


@functools.cache
def deadwood_counts(hand_size: int = 10, ranks: int = N_RANKS, suits: int = N_SUITS,
                    cap: int = 11) -> tuple[int, ...]:
    """The number of hands of ``hand_size`` cards (from a pack of the lowest ``ranks`` ranks in
    ``suits`` suits) by least deadwood 0, 1, ..., cap - 1, and ``cap`` or more (last entry)."""
    counts = deadwood_distribution_counts(hand_size, ranks, suits)
    low = list(counts[:cap]) + [0] * max(0, cap - len(counts))
    return (*low, sum(counts[cap:]))


def gin_probability(hand_size: int = 10, ranks: int = N_RANKS, suits: int = N_SUITS
                    ) -> Fraction:
    """The exact chance that ``hand_size`` cards dealt from the pack meld completely."""
    return Fraction(deadwood_distribution_counts(hand_size, ranks, suits)[0],
                    math.comb(ranks * suits, hand_size))


def deadwood_distribution(hand_size: int = 10, ranks: int = N_RANKS, suits: int = N_SUITS,
                          cap: int = 11) -> np.ndarray:
    """Probabilities of deadwood 0 .. cap - 1 and of cap or more (float)."""
    counts = np.array(deadwood_counts(hand_size, ranks, suits, cap), dtype=float)
    return counts / math.comb(ranks * suits, hand_size)
