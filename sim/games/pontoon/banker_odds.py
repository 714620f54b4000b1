"""The banker's final score, exactly, for any cards left (finite pack) or the infinite deck.

The banker's draws depend only on his hand, which depends only on the multiset of his cards;
and every ordering of a multiset of values has the same chance, whatever the cards left. So
his drawing policy (for one signal) is compiled once into a **structure**: every multiset of
values he can hold, how many value orderings reach it without standing earlier, and whether
he stands there; then his distribution for a given pack is a sum over that structure of
falling-factorial products, a few thousand multiplications. His pontoon is excluded (it is
valued apart): a structure starts from his non-pontoon two-card hands.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import types
from numba.typed import Dict

from sim.core import (
    jit,
    kernel_cache,  # noqa: F401  (compiled code cached by digest)
)
from sim.games.pontoon.hand import N_SCORES, NO_LIVE_HAND, banker_index, banker_score, best_total
from sim.games.pontoon.rules import MAX_CARDS

MAX_ROWS = 3000  # multisets of 2..5 values: 2992 at most
# A row: cards, score if he stops there, 1 if he stops (or is bust) there, number of distinct
# values, then (value, multiplicity) pairs.
R_SIZE, R_SCORE, R_STOPS, R_PAIRS, R_FIRST = 0, 1, 2, 3, 4
ROW_WIDTH = R_FIRST + 2 * MAX_CARDS


@numba.njit(cache=True)
def _add_row(rows, ways, codes, index, n, code, mult, w, key, btab, keyed, five_rule):
    """Append the multiset ``mult`` (counts by value 1..10) reached in ``w`` orderings."""
    size = 0
    hard = 0
    pairs = 0
    for v in range(1, 11):
        if mult[v]:
            size += mult[v]
            hard += v * mult[v]
            rows[n, R_FIRST + 2 * pairs] = v
            rows[n, R_FIRST + 2 * pairs + 1] = mult[v]
            pairs += 1
    ace = mult[1] > 0
    total, soft = best_total(hard, ace)
    stops = hard > 21 or total >= 21 or size >= MAX_CARDS or key == NO_LIVE_HAND
    if not stops:
        stops = btab[banker_index(key if keyed else 0, size, soft, total)] == 0
    rows[n, R_SIZE] = size
    rows[n, R_SCORE] = banker_score(hard, ace, size, five_rule)
    rows[n, R_STOPS] = stops
    rows[n, R_PAIRS] = pairs
    ways[n] = w
    codes[n] = code
    index[code] = n


@jit.njit(cache=True)  # one compilation whatever constant key a caller passes
def banker_structure(key, btab, keyed, five_rule):
    """Every multiset of values the banker can hold against signal ``key`` (his pontoon
    excluded), with the number of value orderings reaching it: (rows, ways)."""
    rows = np.zeros((MAX_ROWS, ROW_WIDTH), dtype=np.int64)
    ways = np.zeros(MAX_ROWS)
    codes = np.zeros(MAX_ROWS, dtype=np.int64)
    index = Dict.empty(key_type=types.int64, value_type=types.int64)
    mult = np.zeros(11, dtype=np.int64)
    n = np.int64(0)  # typed: a literal 0 would compile _add_row a second time
    for v1 in range(1, 11):
        for v2 in range(v1, 11):
            if v1 == 1 and v2 == 10:
                continue  # a pontoon
            mult[:] = 0
            mult[v1] += 1
            mult[v2] += 1
            code = 6 ** (v1 - 1) + 6 ** (v2 - 1)
            _add_row(rows, ways, codes, index, n, code, mult, 1.0 if v1 == v2 else 2.0, key,
                     btab, keyed, five_rule)
            n += 1
    start = 0
    end = n
    while start < end:
        for i in range(start, end):
            if rows[i, R_STOPS]:
                continue
            for v in range(1, 11):
                code = codes[i] + 6 ** (v - 1)
                if code in index:
                    ways[index[code]] += ways[i]
                    continue
                mult[:] = 0
                for p in range(rows[i, R_PAIRS]):
                    mult[rows[i, R_FIRST + 2 * p]] = rows[i, R_FIRST + 2 * p + 1]
                mult[v] += 1
                _add_row(rows, ways, codes, index, n, code, mult, ways[i], key, btab, keyed,
                         five_rule)
                n += 1
        start = end
        end = n
    return rows[:n].copy(), ways[:n].copy()


@numba.njit(cache=True)
def banker_distribution(rows, ways, values_left, left, infinite):
    """The banker's final score distribution (times the chance that he has no pontoon).

    Args:
        rows, ways: a structure from :func:`banker_structure`.
        values_left: per value 1..10, the cards left (finite) or the probability (infinite).
        left: the cards left in the pack (finite; the banker's two included).
        infinite: draws with replacement from the law ``values_left``.
    """
    falling = np.ones((11, MAX_CARDS + 1))
    for v in range(1, 11):
        for k in range(1, MAX_CARDS + 1):
            if infinite:
                falling[v, k] = falling[v, k - 1] * values_left[v]
            else:
                falling[v, k] = falling[v, k - 1] * max(values_left[v] - k + 1, 0.0)
    total = np.ones(MAX_CARDS + 1)
    if not infinite:
        for k in range(1, MAX_CARDS + 1):
            total[k] = total[k - 1] * max(left - k + 1, 0)
    out = np.zeros(N_SCORES)
    for i in range(rows.shape[0]):
        size = rows[i, R_SIZE]
        # He stops where his policy says, or when the stock is empty (all cards drawn).
        if not rows[i, R_STOPS] and (infinite or size != left):
            continue
        if not infinite and size > left:
            continue
        p = ways[i]
        for q in range(rows[i, R_PAIRS]):
            p *= falling[rows[i, R_FIRST + 2 * q], rows[i, R_FIRST + 2 * q + 1]]
        out[rows[i, R_SCORE]] += p / total[size]
    return out


# A trie node: its parent, the value and multiplicity it adds, then (where a multiset of the
# structure ends there, he stopping) that multiset's size and score, else size 0.
T_PARENT, T_VALUE, T_COUNT, T_SIZE, T_SCORE = 0, 1, 2, 3, 4


@jit.njit(cache=True)
def banker_trie(rows, ways):
    """The multisets a structure stops on, as a trie over (value, multiplicity) pairs in
    ascending value: (links, weights), one node per distinct prefix, every parent before its
    children. A multiset's falling-factorial product is its parent's times one factor, so a
    distribution costs a multiplication per node, not one per pair of every multiset."""
    n_max = 1
    for i in range(rows.shape[0]):
        if rows[i, R_STOPS]:
            n_max += rows[i, R_PAIRS]
    links = np.zeros((n_max, 5), dtype=np.int64)
    weights = np.zeros(n_max)
    index = Dict.empty(key_type=types.int64, value_type=types.int64)
    n = 1  # node 0: the empty prefix
    for i in range(rows.shape[0]):
        if not rows[i, R_STOPS]:
            continue
        node = 0
        for q in range(rows[i, R_PAIRS]):
            v, k = rows[i, R_FIRST + 2 * q], rows[i, R_FIRST + 2 * q + 1]
            code = (node * 11 + v) * (MAX_CARDS + 1) + k
            if code not in index:
                index[code] = n
                links[n, T_PARENT], links[n, T_VALUE], links[n, T_COUNT] = node, v, k
                n += 1
            node = index[code]
        links[node, T_SIZE], links[node, T_SCORE] = rows[i, R_SIZE], rows[i, R_SCORE]
        weights[node] = ways[i]
    return links[:n].copy(), weights[:n].copy()


@numba.njit(cache=True)
def trie_distribution(links, weights, values_left, left):
    """:func:`banker_distribution` from a finite pack of ``left`` cards, more than he can
    hold (so he stops only where his policy says), by the trie of :func:`banker_trie`."""
    falling = np.ones((11, MAX_CARDS + 1))
    for v in range(1, 11):
        for k in range(1, MAX_CARDS + 1):
            falling[v, k] = falling[v, k - 1] * max(values_left[v] - k + 1, 0.0)
    by_size = np.zeros((MAX_CARDS + 1, N_SCORES))
    product = np.empty(links.shape[0])
    product[0] = 1.0
    for j in range(1, links.shape[0]):
        p = product[links[j, T_PARENT]] * falling[links[j, T_VALUE], links[j, T_COUNT]]
        product[j] = p
        if links[j, T_SIZE]:
            by_size[links[j, T_SIZE], links[j, T_SCORE]] += weights[j] * p
    out = np.zeros(N_SCORES)
    total = 1.0
    for size in range(1, MAX_CARDS + 1):
        total *= left - size + 1
        if size >= 2:
            for s in range(N_SCORES):
                out[s] += by_size[size, s] / total
    return out


@numba.njit(cache=True)
def trie_distributions(links, weights, values_left, left, out):
    """:func:`trie_distribution` for a batch of packs at once (row ``i`` of ``values_left``,
    ``left[i]`` cards), into ``out[i]``: the batch is the inner loop, one multiplication per
    node and pack, which the compiler vectorises."""
    batch = left.shape[0]
    falling = np.ones((11, MAX_CARDS + 1, batch))
    for v in range(1, 11):
        for k in range(1, MAX_CARDS + 1):
            for i in range(batch):
                falling[v, k, i] = falling[v, k - 1, i] * max(values_left[i, v] - k + 1, 0.0)
    by_size = np.zeros((MAX_CARDS + 1, N_SCORES, batch))
    product = np.empty((links.shape[0], batch))
    product[0] = 1.0
    for j in range(1, links.shape[0]):
        parent = product[links[j, T_PARENT]]
        factor = falling[links[j, T_VALUE], links[j, T_COUNT]]
        here = product[j]
        for i in range(batch):
            here[i] = parent[i] * factor[i]
        size = links[j, T_SIZE]
        if size:
            target = by_size[size, links[j, T_SCORE]]
            w = weights[j]
            for i in range(batch):
                target[i] += w * here[i]
    for i in range(batch):
        total = 1.0
        for size in range(1, MAX_CARDS + 1):
            total *= left[i] - size + 1
            if size >= 2:
                for s in range(N_SCORES):
                    out[i, s] += by_size[size, s, i] / total
