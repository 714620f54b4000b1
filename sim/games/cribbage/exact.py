"""Exact cribbage odds by enumeration: every hand with every starter, every crib, every deal.

**Hand and crib.** :func:`show_counts` walks every set of ``k`` cards of the pack (in colex
order, by an index array) and, for each, every card left as the starter, and counts the show
scores: C(52, 4) x 48 = 12,994,800 pairs for the six-card hand, C(52, 5) x 47 for the
seven-card one. A crib is four random cards with a random starter, scored by the crib's flush
rule. Each pair is counted once, so the counts divided by their total are the exact
probabilities of a random hand (or crib) with a random starter.

**"In a game".** The source texts' odds of a 28 or a 29 "in a game" count a deal as having the
hand when some keep of the cards dealt makes it with the starter turned: the best keep in
hindsight. :func:`best_keep_counts` gives the distribution of that maximum over every (deal,
starter) pair. For a starter s, it scores every k-card keep from the other cards once, into
an array indexed by the keep's colex rank; a deal of d cards (not holding s) then reads its
C(d, k) keeps from the array. When the pack has every suit of each of its ranks, a suit
permutation maps a starter to any other of its rank and preserves every score, so one starter
per rank is walked and weighted by the number of suits.

Counts are exact integers; :func:`fraction` turns one into a reduced fraction. Tests check
every function against brute force over a stripped pack with the plain scorer.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import numba
import numpy as np

from sim.core import kernel_cache  # noqa: F401  (compiled code cached by digest)
from sim.core.cards import N_SUITS, make_pack
from sim.core.combinations import next_combination
from sim.games.cribbage.score import kernel_show, rank_points_table

MAX_SCORE = 64  # no show reaches this (the seven-card maximum is 46)


@numba.njit(cache=True)
def _show_counts(pack, k, crib, table):
    n = pack.shape[0]
    counts = np.zeros(MAX_SCORE, dtype=np.int64)
    idx = np.arange(k)
    hand = np.empty(k, dtype=np.int64)
    scratch = np.empty(k + 1, dtype=np.int64)
    while True:
        for i in range(k):
            hand[i] = pack[idx[i]]
        j = 0
        for s in range(n):
            if j < k and idx[j] == s:
                j += 1
                continue
            counts[kernel_show(hand, k, pack[s], crib, table, scratch)] += 1
        if not next_combination(idx, n):
            break
    return counts


def show_counts(hand_size: int, crib: bool = False, pack: np.ndarray | None = None
                ) -> np.ndarray:
    """Counts of each show score over every (hand, starter) pair of ``pack``.

    Args:
        hand_size: cards in the hand (3, 4 or 5), the starter not included.
        crib: score by the crib's flush rule (for a crib, ``hand_size`` is 4).
        pack: the card codes (default: the 52-card pack).

    Returns:
        int64 counts indexed by score (0..63).
    """
    pack = make_pack() if pack is None else np.asarray(pack)
    return _show_counts(pack.astype(np.int64), hand_size, crib, rank_points_table(hand_size + 1))


@functools.cache
def hand_counts(hand_size: int = 4, crib: bool = False) -> np.ndarray:
    """:func:`show_counts` of the full pack, cached (read-only)."""
    counts = show_counts(hand_size, crib)
    counts.setflags(write=False)
    return counts


@numba.njit(cache=True)
def _colex(idx, positions, binom):
    """The colex rank of the subset ``positions[idx]`` (increasing)."""
    rank = 0
    for i in range(idx.shape[0]):
        rank += binom[positions[idx[i]], i + 1]
    return rank


@numba.njit(cache=True)
def _best_keep_for_starter(pack, s, d, k, table, binom, counts, weight):
    n = pack.shape[0]
    others = np.empty(n - 1, dtype=np.int64)
    j = 0
    for i in range(n):
        if i != s:
            others[j] = pack[i]
            j += 1
    m = n - 1
    # Every keep of k cards from the others, scored once, by colex rank.
    keep_scores = np.empty(binom[m, k], dtype=np.int16)
    idx = np.arange(k)
    hand = np.empty(k, dtype=np.int64)
    scratch = np.empty(k + 1, dtype=np.int64)
    identity = np.arange(m)
    while True:
        for i in range(k):
            hand[i] = others[idx[i]]
        keep_scores[_colex(idx, identity, binom)] = kernel_show(hand, k, pack[s], False,
                                                                table, scratch)
        if not next_combination(idx, m):
            break
    if d == 6 and k == 4:
        _six_card_deals(keep_scores, m, binom, counts, weight)
        return
    if d == 5 and k == 4:
        _five_card_deals(keep_scores, m, binom, counts, weight)
        return
    # Every deal of d cards: the best of its keeps.
    deal = np.arange(d)
    sub = np.arange(k)
    while True:
        best = 0
        for i in range(k):
            sub[i] = i
        while True:
            score = keep_scores[_colex(sub, deal, binom)]
            if score > best:
                best = score
            if not next_combination(sub, d):
                break
        counts[best] += weight
        if not next_combination(deal, m):
            break


@numba.njit(cache=True)
def _six_card_deals(keep_scores, m, binom, counts, weight):
    """The six-card deals of :func:`_best_keep_for_starter`, in nested loops: the five keeps
    without the highest card f and the colex sums of the ten triples below f are the same for
    every f, so the innermost loop reads ten keeps, not fifteen."""
    t1, t2, t3, t4 = binom[:, 1], binom[:, 2], binom[:, 3], binom[:, 4]
    triples = np.empty(10, dtype=np.int64)
    for a in range(m):
        for b in range(a + 1, m):
            for c in range(b + 1, m):
                for d in range(c + 1, m):
                    abc = t1[a] + t2[b] + t3[c]
                    abd = t1[a] + t2[b] + t3[d]
                    acd = t1[a] + t2[c] + t3[d]
                    bcd = t1[b] + t2[c] + t3[d]
                    for e in range(d + 1, m):
                        # keeps without f: the four-card subsets of a..e
                        five = max(keep_scores[abc + t4[d]], keep_scores[abc + t4[e]],
                                   keep_scores[abd + t4[e]], keep_scores[acd + t4[e]],
                                   keep_scores[bcd + t4[e]])
                        triples[0] = abc
                        triples[1] = abd
                        triples[2] = acd
                        triples[3] = bcd
                        triples[4] = t1[a] + t2[b] + t3[e]
                        triples[5] = t1[a] + t2[c] + t3[e]
                        triples[6] = t1[a] + t2[d] + t3[e]
                        triples[7] = t1[b] + t2[c] + t3[e]
                        triples[8] = t1[b] + t2[d] + t3[e]
                        triples[9] = t1[c] + t2[d] + t3[e]
                        for f in range(e + 1, m):
                            best = five
                            top = t4[f]
                            for i in range(10):
                                score = keep_scores[triples[i] + top]
                                if score > best:
                                    best = score
                            counts[best] += weight


@numba.njit(cache=True)
def _five_card_deals(keep_scores, m, binom, counts, weight):
    """The five-card deals kept to four, in nested loops (the keeps of a..e are abcd and the
    four with e, whose triples below e are the same for every e)."""
    t1, t2, t3, t4 = binom[:, 1], binom[:, 2], binom[:, 3], binom[:, 4]
    for a in range(m):
        for b in range(a + 1, m):
            for c in range(b + 1, m):
                abc = t1[a] + t2[b] + t3[c]
                for d in range(c + 1, m):
                    abd = t1[a] + t2[b] + t3[d]
                    acd = t1[a] + t2[c] + t3[d]
                    bcd = t1[b] + t2[c] + t3[d]
                    abcd = keep_scores[abc + t4[d]]
                    for e in range(d + 1, m):
                        top = t4[e]
                        best = max(abcd, keep_scores[abc + top], keep_scores[abd + top],
                                   keep_scores[acd + top], keep_scores[bcd + top])
                        counts[best] += weight


def _binomials(n: int, k: int) -> np.ndarray:
    return np.array([[math.comb(a, b) for b in range(k + 1)] for a in range(n + 1)],
                    dtype=np.int64)


def _rectangular(pack: np.ndarray) -> bool:
    """Every rank of the pack comes in the same suits, once each."""
    suits: dict[int, set[int]] = {}
    for c in pack.tolist():
        suits.setdefault(c // N_SUITS, set()).add(c % N_SUITS)
    return len(set(pack.tolist())) == pack.size and len({frozenset(v) for v in suits.values()}) == 1


def best_keep_counts(cards_dealt: int, hand_size: int, pack: np.ndarray | None = None
                     ) -> np.ndarray:
    """Counts of the best hand score (the best keep of the deal, in hindsight, with the
    starter) over every (deal of ``cards_dealt``, starter) pair of ``pack``.

    Returns:
        int64 counts indexed by score (0..63); they sum to C(n, d) x (n - d).
    """
    pack = np.sort(make_pack() if pack is None else np.asarray(pack)).astype(np.int64)
    table = rank_points_table(hand_size + 1)
    binom = _binomials(pack.size, max(cards_dealt, hand_size))
    counts = np.zeros(MAX_SCORE, dtype=np.int64)
    if _rectangular(pack):
        ranks = pack // N_SUITS
        suits_per_rank = int(np.sum(ranks == ranks[0]))
        starters = [int(np.flatnonzero(ranks == r)[0]) for r in np.unique(ranks)]
        weight = suits_per_rank
    else:
        starters, weight = list(range(pack.size)), 1
    for s in starters:
        _best_keep_for_starter(pack, s, cards_dealt, hand_size, table, binom, counts, weight)
    return counts


@functools.cache
def game_counts(cards_dealt: int, hand_size: int) -> np.ndarray:
    """:func:`best_keep_counts` of the full pack, cached (read-only)."""
    counts = best_keep_counts(cards_dealt, hand_size)
    counts.setflags(write=False)
    return counts


def fraction(count: int, total: int) -> Fraction:
    """``count / total`` as a reduced fraction."""
    return Fraction(int(count), int(total))


def mean_and_sd(counts: np.ndarray) -> tuple[Fraction, float]:
    """The exact mean (a fraction) and the standard deviation of a score distribution."""
    scores = np.arange(counts.size)
    total = int(counts.sum())
    mean = Fraction(int((scores * counts).sum()), total)
    second = Fraction(int((scores * scores * counts).sum()), total)
    return mean, math.sqrt(second - mean * mean)
