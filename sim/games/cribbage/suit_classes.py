"""Sets of cards up to a relabelling of the suits: one set of each orbit, with its size.

A score, a discard policy's choice and the law of a deal are unchanged when the suits are
relabelled (every suit plays the same part), so a sum over every set of k cards is a sum over
one set of each orbit, weighted by the orbit's size. The representatives come from a walk up
the ranks that keeps the suits met so far in ordered *blocks* of suits no card has told apart
yet: at a rank it takes j_i of the suits of block i (for every choice of the counts) and, the
suits of a block being interchangeable, the first j_i of them, the block splitting into the
suits taken and, after them, those left. A set's counts j_i are those of any relabelling of it
(a relabelling carries the blocks along, in the same order), so each orbit has one path and
one representative, and the product of the binomials C(size_i, j_i) along the path is the
orbit's size.

:func:`canonical` walks a given set along its path and returns its representative and the
relabelling that maps one onto the other. The pack is rectangular: the same ``suits`` suits
(0..suits-1) of each of its ranks; codes are ``rank * 4 + suit`` as everywhere."""

from __future__ import annotations

import functools
import itertools
import math

import numba
import numpy as np

from sim.core import kernel_cache  # noqa: F401  (compiled code cached by digest)
from sim.core.cards import N_SUITS

BINOM4 = np.array([[math.comb(n, k) for k in range(5)] for n in range(5)], dtype=np.int64)


@numba.njit(cache=True)
def _next_counts(counts, sizes, n_blocks, most):
    """Advance ``counts`` (per block, at most its size, summing to at most ``most``) to the
    next vector in mixed-radix order; False when done. A counter starting at -1 in block 0
    gives the all-zero vector first."""
    while True:
        i = 0
        while i < n_blocks:
            counts[i] += 1
            if counts[i] <= sizes[i]:
                break
            counts[i] = 0
            i += 1
        if i == n_blocks:
            return False
        total = 0
        for b in range(n_blocks):
            total += counts[b]
        if total <= most:
            return True


@numba.njit(cache=True)
def _walk(ranks, suits, k, out_cards, out_weight, binom):
    """Every representative of k-card sets (see the module docstring); with ``out_cards``
    of no rows it only counts them. Returns the count."""
    nr = ranks.shape[0]
    sizes = np.zeros((nr + 1, 4), dtype=np.int64)
    n_blocks = np.zeros(nr + 1, dtype=np.int64)
    counts = np.zeros((nr + 1, 4), dtype=np.int64)
    weight = np.zeros(nr + 1, dtype=np.int64)
    left = np.zeros(nr + 1, dtype=np.int64)
    held = np.zeros(nr + 1, dtype=np.int64)
    cards = np.zeros(max(k, 1), dtype=np.int64)
    sizes[0, 0] = suits
    n_blocks[0] = 1
    weight[0] = 1
    left[0] = k
    counts[0, :] = 0
    counts[0, 0] = -1
    found = 0
    d = 0
    while d >= 0:
        if d == nr or left[d] == 0:
            if left[d] == 0:
                if out_cards.shape[0] > 0:
                    for i in range(k):
                        out_cards[found, i] = cards[i]
                    out_weight[found] = weight[d]
                found += 1
            d -= 1
            continue
        if not _next_counts(counts[d], sizes[d], n_blocks[d], left[d]):
            d -= 1
            continue
        taken = 0
        for b in range(n_blocks[d]):
            taken += counts[d, b]
        if left[d] - taken > suits * (nr - d - 1):
            continue  # the ranks above cannot hold the cards still to place
        w = weight[d]
        label = 0
        n = held[d]
        m = 0
        for b in range(n_blocks[d]):
            size, j = sizes[d, b], counts[d, b]
            w *= binom[size, j]
            for t in range(j):
                cards[n] = ranks[d] * N_SUITS + label + t
                n += 1
            if j > 0:
                sizes[d + 1, m] = j
                m += 1
            if size - j > 0:
                sizes[d + 1, m] = size - j
                m += 1
            label += size
        n_blocks[d + 1] = m
        weight[d + 1] = w
        left[d + 1] = left[d] - taken
        held[d + 1] = n
        counts[d + 1, :] = 0
        counts[d + 1, 0] = -1
        d += 1
    return found


@functools.cache
def representatives(k: int, ranks: tuple[int, ...] = tuple(range(13)), suits: int = N_SUITS
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Representatives of the k-card sets of the pack (rows of codes, increasing) and the
    number of sets each stands for (they sum to C(len(ranks) * suits, k)). Read-only."""
    rank_array = np.array(sorted(ranks), dtype=np.int64)
    empty = np.zeros((0, max(k, 1)), dtype=np.int64)
    n = _walk(rank_array, suits, k, empty, np.zeros(0, dtype=np.int64), BINOM4)
    cards = np.zeros((n, max(k, 1)), dtype=np.int64)
    weights = np.zeros(n, dtype=np.int64)
    _walk(rank_array, suits, k, cards, weights, BINOM4)
    cards = cards[:, :k]
    cards.setflags(write=False)
    weights.setflags(write=False)
    return cards, weights


@numba.njit(cache=True)
def canonical(cards, k, rep, relabel):
    """The representative of the increasing codes ``cards[:k]`` into ``rep[:k]``, and into
    ``relabel`` the suit of the set that each of the representative's suits stands for (so
    the set is the representative with suit s read as ``relabel[s]``)."""
    block_of = np.zeros(N_SUITS, dtype=np.int64)  # the block of each actual suit
    order = np.zeros(N_SUITS, dtype=np.int64)  # actual suits, block by block
    new_order = np.zeros(N_SUITS, dtype=np.int64)
    new_block = np.zeros(N_SUITS, dtype=np.int64)
    for s in range(N_SUITS):
        order[s] = s
    i = 0
    while i < k:
        rank = cards[i] // N_SUITS
        mask = 0
        j = i
        while j < k and cards[j] // N_SUITS == rank:
            mask |= 1 << (cards[j] % N_SUITS)
            j += 1
        # within each block the suits of this rank go first, and the block splits there;
        # the representative takes the block's first labels for them
        pos = 0
        nb = 0
        out = i
        start = 0
        while start < N_SUITS:
            end = start
            while end < N_SUITS and block_of[order[end]] == block_of[order[start]]:
                end += 1
            inside = 0
            for t in range(start, end):
                if mask >> order[t] & 1:
                    new_order[pos] = order[t]
                    new_block[order[t]] = nb
                    rep[out] = rank * N_SUITS + start + inside
                    out += 1
                    inside += 1
                    pos += 1
            if inside > 0:
                nb += 1
            outside = 0
            for t in range(start, end):
                if not mask >> order[t] & 1:
                    new_order[pos] = order[t]
                    new_block[order[t]] = nb
                    outside += 1
                    pos += 1
            if outside > 0:
                nb += 1
            start = end
        order[:] = new_order
        block_of[:] = new_block
        i = j
    for s in range(N_SUITS):
        relabel[s] = order[s]


def suit_perms(suits: int = N_SUITS) -> np.ndarray:
    """Every relabelling of the first ``suits`` suits (the others fixed), as rows."""
    return np.array([list(p) + list(range(suits, N_SUITS))
                     for p in itertools.permutations(range(suits))], dtype=np.int64)
