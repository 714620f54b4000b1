"""Cards left in a pack, for the exact recursion: draw chances, removal, cache keys, and the
banker's final distribution for the cards left (cached).

The counts array holds the cards left of each rank and, at index 13, their total. In
infinite-deck mode nothing is removed and draws follow the pack's fixed law.
"""

from __future__ import annotations

import numba
import numpy as np

from sim.core import (
    jit,
    kernel_cache,  # noqa: F401  (compiled code cached by digest)
)
from sim.games.pontoon.banker_odds import (
    banker_distribution,
    banker_structure,
    banker_trie,
    trie_distribution,
)
from sim.games.pontoon.hand import NO_LIVE_HAND, RI_BANKER_FIVE
from sim.games.pontoon.rules import MAX_CARDS, VALUES

RADIX = 33  # removed cards of one rank: at most 8 packs x 4 suits
VALUE_RADIX = 129  # removed cards of one value: at most 8 packs x 16 ten-cards
# Parameters vector: infinite, keyed banker, players, cards in the pack, burn hard 13s, the
# most cached states allowed (the work budget), what to accumulate (0 values, 1 weights by
# the banker's signal).
P_INFINITE, P_KEYED, P_PLAYERS, P_CARDS, P_BURN, P_BUDGET, P_MODE = range(7)


@numba.njit(cache=True)
def pack_counts(full):
    """The cards left of each rank, their total at index 13: a fresh pack."""
    counts = np.zeros(14, dtype=np.int64)
    counts[:13] = full
    counts[13] = full.sum()
    return counts


@numba.njit(cache=True)
def draw_p(r, counts, probs, infinite):
    """Probability that the next card drawn has rank ``r``."""
    if infinite:
        return probs[r]
    if counts[13] <= 0:
        return 0.0
    return counts[r] / counts[13]


@numba.njit(cache=True)
def take(r, counts, infinite):
    if not infinite:
        counts[r] -= 1
        counts[13] -= 1


@numba.njit(cache=True)
def put_back(r, counts, infinite):
    if not infinite:
        counts[r] += 1
        counts[13] += 1


@numba.njit(cache=True)
def rank_codes(counts, full, infinite):
    """The multiset of cards removed, as two integers (zero in infinite-deck mode)."""
    if infinite:
        return 0, 0
    lo = 0
    hi = 0
    for r in range(7):
        lo = lo * RADIX + (full[r] - counts[r])
    for r in range(7, 13):
        hi = hi * RADIX + (full[r] - counts[r])
    return lo, hi


@numba.njit(cache=True)
def value_codes(counts, full, infinite):
    """The cards removed by value (ten-cards alike): what the banker's chances depend on.
    Negative, so these keys never meet the rank-level ones of :func:`rank_codes`."""
    if infinite:
        return -1, -1
    lo = 0
    for r in range(5):  # aces to fives
        lo = lo * VALUE_RADIX + (full[r] - counts[r])
    hi = 0
    for r in range(5, 9):  # sixes to nines
        hi = hi * VALUE_RADIX + (full[r] - counts[r])
    tens = 0
    for r in range(9, 13):
        tens += full[r] - counts[r]
    return -1 - lo, -1 - (hi * VALUE_RADIX + tens)


@numba.njit(cache=True)
def value_step(r):
    """What drawing a card of rank ``r`` subtracts from :func:`value_codes` (lo, hi): the
    codes of a walk's stock follow its draws without a pass over the ranks."""
    if r < 5:
        return VALUE_RADIX ** (4 - r), 0
    if r < 9:
        return 0, VALUE_RADIX ** (9 - r)
    return 0, 1


@jit.njit(cache=True)
def banker_structure_of(kc, params, btab, rule_i, smemo, srows, sways):
    """The index in ``srows``/``sways`` of the banker's structure for signal key ``kc``
    (:func:`~sim.games.pontoon.banker_odds.banker_structure`, built once); its trie
    (:func:`~sim.games.pontoon.banker_odds.banker_trie`) is at the next index."""
    if kc not in smemo:
        rows, ways = banker_structure(kc, btab, params[P_KEYED] != 0,
                                      rule_i[RI_BANKER_FIVE] != 0)
        smemo[kc] = len(srows)
        srows.append(rows)
        sways.append(ways)
        links, weights = banker_trie(rows, ways)
        srows.append(links)
        sways.append(weights)
    return smemo[kc]


@jit.njit(cache=True)  # one compilation whatever constant key a caller passes
def banker_law(kc, counts, probs, params, btab, rule_i, smemo, srows, sways):
    """Distribution of the banker's final score given the cards left and the signal key
    ``kc`` he reads, times the chance that his two cards are not a pontoon (not cached; his
    structure for ``kc`` is, in ``smemo``, ``srows`` and ``sways``)."""
    infinite = params[P_INFINITE] != 0
    s = banker_structure_of(kc, params, btab, rule_i, smemo, srows, sways)
    values_left = np.zeros(11)
    for r in range(13):
        values_left[VALUES[r]] += probs[r] if infinite else counts[r]
    if infinite or counts[13] <= MAX_CARDS:  # he may run out of cards
        return banker_distribution(srows[s], sways[s], values_left, counts[13], infinite)
    return trie_distribution(srows[s + 1], sways[s + 1], values_left, counts[13])


@jit.njit(cache=True)  # one compilation whatever constant key a caller passes
def banker_final(key, counts, full, probs, params, btab, rule_i, fmemo, fvals, smemo, srows,
                  sways):
    """Distribution of the banker's final score given the cards left and his signal, times
    the chance that his two cards are not a pontoon (cached; only values matter to him)."""
    kc = key if (params[P_KEYED] != 0 or key == NO_LIVE_HAND) else 0
    lo, hi = value_codes(counts, full, params[P_INFINITE] != 0)
    if (lo, hi, kc) in fmemo:
        return fvals[fmemo[(lo, hi, kc)]]
    out = banker_law(kc, counts, probs, params, btab, rule_i, smemo, srows, sways)
    fmemo[(lo, hi, kc)] = len(fvals)
    fvals.append(out)
    return out
