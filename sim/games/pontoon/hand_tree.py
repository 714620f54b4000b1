"""A hand's play as a tree of draws, built once and valued from any cards left.

A hand whose split is settled plays by its own cards alone: which card it draws next, and
whether it stops, depends on the values drawn so far, never on the cards left. So its play is
a fixed tree (a node per sequence of values drawn, a leaf where it stops: at most 1,111 nodes
for three draws of ten values), and its chances from a stock of ``N`` cards with ``L[v]`` of
value ``v`` are products along the paths: a node drawing value ``v`` after ``k`` cards of
that value and ``d`` cards in all were drawn above it has chance ``(L[v] - k) / (N - d)``
given its parent. Valuing the hand from a stock is then one pass over the nodes in order,
with no decision taken again. The leaves are grouped by the multiset of values they drew
(the stock at a leaf is the stock less that multiset, whatever the order), so what the rest
of a deal is worth after the hand is looked up once per group, not once per leaf.
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.typed import Dict

from sim.core import (
    jit,
    kernel_cache,  # noqa: F401  (compiled code cached by digest)
)
from sim.games.pontoon.banker_odds import trie_distributions
from sim.games.pontoon.composition import banker_law, banker_structure_of
from sim.games.pontoon.hand import BUY_COUNT, N_SCORES
from sim.games.pontoon.rules import MAX_CARDS, VALUES
from sim.games.pontoon.walk import BIG_STOCK, table_move

MAX_NODES = 1 + 10 + 100 + 1000  # at most three draws of ten values
# A node: its parent, the value it drew (index 0..9, ten-cards 9), how many of that value
# its ancestors drew, its depth (cards drawn), and for a leaf its score (-1: it draws), its
# money (times the initial stake), its buys and its group.
N_PARENT, N_VALUE, N_PRIOR, N_DEPTH, N_SCORE, N_MONEY, N_BUYS, N_GROUP = range(8)
NODE_WIDTH = 8
# A group: what its multiset of values adds to :func:`removed_code`, then the values (index
# 0..9; -1 past the last).
G_CODE, G_CARDS = 0, 1
GROUP_WIDTH = 1 + MAX_CARDS - 2
# One seat's valuation removes at most 22 cards (a burn's four, a split's eight, three more
# in each of four hands), so 5 bits a value count them, 50 bits all ten values.
SEAT_RADIX = 32


@jit.njit(cache=True)
def hand_tree(c1, c2, split_hand, act, split, rule_i):
    """The tree of a hand of two values ``c1``, ``c2`` (index 0..9; ``split_hand``: split,
    so ``c1`` shows) played by the table ``act``: (nodes, leaves, groups, starts). ``leaves``
    lists the leaves by group and, within one, by score and money; group ``g``'s leaves are
    ``leaves[starts[g]:starts[g + 1]]``."""
    nodes = np.zeros((MAX_NODES, NODE_WIDTH), dtype=np.int64)
    hard = np.zeros(MAX_NODES, dtype=np.int64)
    ace = np.zeros(MAX_NODES, dtype=np.int64)
    buys = np.zeros(MAX_NODES, dtype=np.int64)
    twisted = np.zeros(MAX_NODES, dtype=np.int64)
    vis = np.zeros(MAX_NODES, dtype=np.int64)
    drawn = np.zeros((MAX_NODES, 10), dtype=np.int64)  # values drawn down to each node
    index = Dict.empty(key_type=types.int64, value_type=types.int64)
    groups = np.full((MAX_NODES, GROUP_WIDTH), -1, dtype=np.int64)
    hard[0] = VALUES[c1] + VALUES[c2]
    ace[0] = c1 == 0 or c2 == 0
    vis[0] = VALUES[c1] + 1 if split_hand else 2
    nodes[0, N_PARENT], nodes[0, N_VALUE] = -1, -1
    n, n_groups, n_leaves = 1, 0, 0
    i = 0
    while i < n:  # breadth first: a node's children follow every node above them
        depth = nodes[i, N_DEPTH]
        score, kind, new_buys, money = table_move(
            hard[i], ace[i], depth + 2, buys[i], twisted[i], vis[i], c1, c2, split_hand, 0, 0,
            BIG_STOCK, 1.0, act, split, rule_i, False)
        if kind == 0:
            code = 0
            for v in range(10):
                code += drawn[i, v] * SEAT_RADIX ** v
            if code not in index:
                index[code] = n_groups
                groups[n_groups, G_CODE] = code
                k = G_CARDS
                for v in range(10):
                    for _ in range(drawn[i, v]):
                        groups[n_groups, k] = v
                        k += 1
                n_groups += 1
            nodes[i, N_SCORE], nodes[i, N_MONEY] = score, int(money)
            nodes[i, N_BUYS], nodes[i, N_GROUP] = BUY_COUNT[buys[i]], index[code]
            n_leaves += 1
        else:
            nodes[i, N_SCORE] = -1
            twist = kind == 1
            for v in range(10):
                nodes[n, N_PARENT], nodes[n, N_VALUE] = i, v
                nodes[n, N_PRIOR], nodes[n, N_DEPTH] = drawn[i, v], depth + 1
                drawn[n] = drawn[i]
                drawn[n, v] += 1
                hard[n] = hard[i] + VALUES[v]
                ace[n] = ace[i] or v == 0
                buys[n] = buys[i] if twist else new_buys
                twisted[n] = 1 if (twist or twisted[i] != 0) else 0
                vis[n] = vis[i] + (VALUES[v] if twist else 1)
                n += 1
        i += 1
    leaves = np.zeros(n_leaves, dtype=np.int64)
    keys = np.zeros(n_leaves, dtype=np.int64)
    k = 0
    for i in range(n):
        if nodes[i, N_SCORE] >= 0:
            leaves[k] = i
            keys[k] = (nodes[i, N_GROUP] * 32 + nodes[i, N_SCORE]) * 16 + nodes[i, N_MONEY]
            k += 1
    leaves = leaves[np.argsort(keys, kind="mergesort")]
    starts = np.zeros(n_groups + 1, dtype=np.int64)
    for k in range(n_leaves):
        starts[nodes[leaves[k], N_GROUP] + 1] += 1
    for g in range(n_groups):
        starts[g + 1] += starts[g]
    return nodes[:n].copy(), leaves, groups[:n_groups].copy(), starts


@jit.njit(cache=True)
def node_chances(nodes, counts, out):
    """Fill ``out[i]`` with the chance of reaching node ``i`` from the stock ``counts`` (by
    value index 0..9, the total at index 13)."""
    out[0] = 1.0
    total = counts[13]
    for i in range(1, nodes.shape[0]):
        left = counts[nodes[i, N_VALUE]] - nodes[i, N_PRIOR]
        p = out[nodes[i, N_PARENT]]
        out[i] = p * left / (total - nodes[i, N_DEPTH] + 1) if left > 0 and p > 0.0 else 0.0


@jit.njit(cache=True)
def removed_code(counts, full):
    """The cards removed from ``full`` to leave ``counts`` (by rank, or by value with the
    ten-cards at index 9), by value: one integer (see ``SEAT_RADIX``)."""
    code = 0
    tens = 0
    for r in range(9, 13):
        tens += full[r] - counts[r]
    for v in range(8, -1, -1):
        code = code * SEAT_RADIX + (full[v] - counts[v])
    return code + tens * SEAT_RADIX ** 9


@jit.njit(cache=True)
def group_counts(counts, groups, g, out):
    """Fill ``out`` with the stock ``counts`` less group ``g``'s values."""
    out[:] = counts
    for k in range(G_CARDS, GROUP_WIDTH):
        v = groups[g, k]
        if v < 0:
            break
        out[v] -= 1
        out[13] -= 1


BATCH = 64  # stocks whose banker distributions are computed together


@jit.njit(cache=True)
def group_bankers(counts, groups, need, n_need, probs, params, btab, rule_i, smemo, srows,
                  sways):
    """The banker's distributions (:func:`~sim.games.pontoon.composition.banker_law`, no
    signal) for the cards left at the groups ``need[:n_need]`` of a tree played from
    ``counts``: an array (n_need, N_SCORES), by batches of stocks through his trie."""
    s = banker_structure_of(0, params, btab, rule_i, smemo, srows, sways)
    out = np.zeros((n_need, N_SCORES))
    left = np.empty(14, dtype=np.int64)
    for start in range(0, n_need, BATCH):
        size = min(BATCH, n_need - start)
        values_left = np.zeros((size, 11))
        cards = np.empty(size)
        for i in range(size):
            group_counts(counts, groups, need[start + i], left)
            for r in range(13):
                values_left[i, VALUES[r]] += left[r]
            cards[i] = left[13]
        if cards.min() > MAX_CARDS:  # else he may run out of cards: one by one
            trie_distributions(srows[s + 1], sways[s + 1], values_left, cards,
                               out[start:start + size])
        else:
            for i in range(size):
                group_counts(counts, groups, need[start + i], left)
                out[start + i] = banker_law(0, left, probs, params, btab, rule_i, smemo,
                                            srows, sways)
    return out


__all__ = ["G_CODE", "N_BUYS", "N_MONEY", "N_SCORE", "SEAT_RADIX", "group_bankers",
           "group_counts", "hand_tree", "node_chances", "removed_code"]
