"""The exact points of the play when both keeps are random: every pair of four-card hands.

With the random keep (the first cards dealt) each player's four cards are a random four of the
pack, the two disjoint; a play policy that looks at ranks only and breaks ties by rank (greedy,
cautious: :mod:`.pegging`) pegs the same for every choice of suits. So the expected points are
a sum over pairs of rank multisets (kappa for the pone, lambda for the dealer), each weighted
by the number of pairs of hands with those ranks, prod over ranks of C(4, kappa_r) C(4 -
kappa_r, lambda_r), of C(52, 4) C(48, 4) pairs in all: 1,820 multisets a hand, 3.1 million
pairs that fit the pack, read from the play of every pair of multisets
(:func:`play_table`, 3.3 million plays of :func:`~.pegging.kernel_peg`), which the play of
policy keeps (:mod:`.joint`) reads too.
"""

from __future__ import annotations

import functools
import itertools
import math
from fractions import Fraction

import numba
import numpy as np

from sim.core import kernel_cache  # noqa: F401  (compiled code cached by digest)
from sim.games.cribbage.pegging import PLAYS, kernel_peg

KEPT = 4


@functools.cache
def keep_types() -> np.ndarray:
    """Every multiset of four ranks, increasing, as rows: the types of keep the play reads.
    Read-only."""
    rows = np.array(list(itertools.combinations_with_replacement(range(13), KEPT)),
                    dtype=np.int64)
    rows.setflags(write=False)
    return rows


@functools.cache
def type_of_key() -> np.ndarray:
    """The row of :func:`keep_types` of four ranks given as base-13 digits, increasing (-1 for
    other keys). Read-only."""
    out = np.full(13 ** KEPT, -1, dtype=np.int64)
    out[keep_types() @ (13 ** np.arange(KEPT - 1, -1, -1))] = np.arange(len(keep_types()))
    out.setflags(write=False)
    return out


@numba.njit(cache=True)
def _play_table(multisets, plays, out):
    """The pone's and the dealer's points in the play of every pair of keeps (rank multisets;
    pairs the pack cannot hold are played all the same)."""
    sequence = np.empty(16, dtype=np.int64)
    held = np.empty((2, KEPT), dtype=np.bool_)
    for i in range(multisets.shape[0]):
        for j in range(multisets.shape[0]):
            out[i, j, 0], out[i, j, 1] = kernel_peg(multisets[i], multisets[j], plays,
                                                    sequence, held)


@functools.lru_cache(maxsize=4)  # 13 MB a pair of play policies
def play_table(play: str, dealer_play: str = "") -> np.ndarray:
    """``table[kappa, lambda]``: the points the pone (0) and the dealer (1) peg when the pone
    keeps the ranks of multiset kappa (:func:`keep_types`) and lays them by ``play``, the
    dealer lambda by ``dealer_play`` (by ``play`` if empty); policies that read ranks only.
    Read-only."""
    if "first" in (play, dealer_play):
        raise ValueError("the first legal card depends on the order held, not on ranks only")
    plays = np.array([PLAYS.index(play), PLAYS.index(dealer_play or play)], dtype=np.int64)
    multisets = keep_types()
    out = np.zeros((len(multisets), len(multisets), 2), dtype=np.int16)
    _play_table(multisets, plays, out)
    out.setflags(write=False)
    return out


@numba.njit(cache=True)
def _random_keep_play(multisets, table, binom, pack_ranks):
    """Sums over every pair of disjoint four-card hands of the pack (``pack_ranks[r]`` cards
    of rank r) of the pone's and the dealer's points in the play (``table``)."""
    n = multisets.shape[0]
    counts = np.zeros((n, 13), dtype=np.int64)
    for i in range(n):
        for r in multisets[i]:
            counts[i, r] += 1
    pone_total = 0
    dealer_total = 0
    for i in range(n):
        ways_i = 1
        for r in range(13):
            ways_i *= binom[pack_ranks[r], counts[i, r]]
        if ways_i == 0:
            continue
        for j in range(n):
            ways = ways_i
            for r in range(13):
                if counts[j, r]:
                    ways *= binom[pack_ranks[r] - counts[i, r], counts[j, r]]
            pone_total += ways * table[i, j, 0]
            dealer_total += ways * table[i, j, 1]
    return pone_total, dealer_total


@functools.cache
def random_keep_play(play: str, dealer_play: str = "",
                     pack_ranks: tuple[int, ...] = (4,) * 13) -> tuple[Fraction, Fraction]:
    """The exact mean points the pone and the dealer peg in the play when both keep four
    random cards of the pack (``pack_ranks[r]`` cards of rank r: a smaller pack is for tests)
    and lay them by ``play`` (the dealer by ``dealer_play`` if given): greedy or cautious,
    which read ranks only."""
    binom = np.array([[math.comb(a, b) for b in range(5)] for a in range(5)], dtype=np.int64)
    pone, dealer = _random_keep_play(keep_types(), play_table(play, dealer_play), binom,
                                     np.array(pack_ranks, dtype=np.int64))
    n = sum(pack_ranks)
    pairs = math.comb(n, KEPT) * math.comb(n - KEPT, KEPT)
    return Fraction(int(pone), pairs), Fraction(int(dealer), pairs)
