"""The exact points of the play when both keeps are random: every pair of four-card hands.

With the random keep (the first cards dealt) each player's four cards are a random four of the
pack, the two disjoint; a play policy that looks at ranks only and breaks ties by rank (greedy,
cautious: :mod:`.pegging`) pegs the same for every choice of suits. So the expected points are
a sum over pairs of rank multisets (kappa for the pone, lambda for the dealer), each weighted
by the number of pairs of hands with those ranks, prod over ranks of C(4, kappa_r) C(4 -
kappa_r, lambda_r), of C(52, 4) C(48, 4) pairs in all: 1,820 multisets a hand, 3.1 million
pairs that fit the pack, each played once by :func:`~.pegging.kernel_peg`.
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
def _multisets() -> np.ndarray:
    """Every multiset of four ranks (at most four of one), increasing, as rows."""
    rows = [m for m in itertools.combinations_with_replacement(range(13), KEPT)
            if max(m.count(r) for r in m) <= 4]
    return np.array(rows, dtype=np.int64)


@numba.njit(cache=True)
def _random_keep_play(multisets, plays, binom, pack_ranks):
    """Sums over every pair of disjoint four-card hands of the pack (``pack_ranks[r]`` cards
    of rank r) of the pone's and the dealer's points in the play."""
    n = multisets.shape[0]
    counts = np.zeros((n, 13), dtype=np.int64)
    for i in range(n):
        for r in multisets[i]:
            counts[i, r] += 1
    sequence = np.empty(16, dtype=np.int64)
    held = np.empty((2, KEPT), dtype=np.bool_)
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
            if ways == 0:
                continue
            pone, dealer = kernel_peg(multisets[i], multisets[j], plays, sequence, held)
            pone_total += ways * pone
            dealer_total += ways * dealer
    return pone_total, dealer_total


@functools.cache
def random_keep_play(play: str, dealer_play: str = "",
                     pack_ranks: tuple[int, ...] = (4,) * 13) -> tuple[Fraction, Fraction]:
    """The exact mean points the pone and the dealer peg in the play when both keep four
    random cards of the pack (``pack_ranks[r]`` cards of rank r: a smaller pack is for tests)
    and lay them by ``play`` (the dealer by ``dealer_play`` if given): greedy or cautious,
    which read ranks only."""
    if "first" in (play, dealer_play):
        raise ValueError("the first legal card depends on the order held, not on ranks only")
    plays = np.array([PLAYS.index(play), PLAYS.index(dealer_play or play)], dtype=np.int64)
    binom = np.array([[math.comb(a, b) for b in range(5)] for a in range(5)], dtype=np.int64)
    pone, dealer = _random_keep_play(_multisets(), plays, binom,
                                     np.array(pack_ranks, dtype=np.int64))
    n = sum(pack_ranks)
    pairs = math.comb(n, KEPT) * math.comb(n - KEPT, KEPT)
    return Fraction(int(pone), pairs), Fraction(int(dealer), pairs)
