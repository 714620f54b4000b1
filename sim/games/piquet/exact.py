"""Exact piquet odds: a dealt hand's declarations, carte blanche, taking in from the talon,
and the expected declaration score an exchange reaches.

*A dealt hand.* The 12 cards are a uniform 12-subset of the 32. The best point's length, the
best sequence and the sets are each a function of per-suit (or per-rank) holdings, so their
distributions come from a short dynamic programme over the four suits (or eight ranks):
``ways[c][x]`` counts the ways to hold ``c`` cards so far with statistic ``x`` (the longest suit
so far, the longest run so far, the set score so far); a suit holding of ``j`` cards with value
``v`` enters in as many ways as the suit has such holdings (``C(8, j)`` for a length; the
count of 8-bit masks with ``j`` bits and longest run ``v``; ``C(4, j)`` for a rank). Dividing
by ``C(32, 12)`` gives exact fractions. The expected score of a dealt hand, unopposed (its
point's length, all its sequences, all its sets) is a sum of expectations, so by linearity it
needs only each suit's and each rank's own expectation.

*Carte blanche.* No king, queen or jack: the 12 cards all come from the 20 others,
``C(20, 12) / C(32, 12)``; both hands cannot be blank (24 > 20), so "either hand" is twice
one hand's chance.

*The talon.* The 20 cards a player cannot see (his opponent's 12 and the talon's 8) are in a
uniformly random order; the ``d`` cards he takes in are a uniform ``d``-subset of them, so the
chance of taking in at least ``m`` of ``j`` cards he wants is hypergeometric. Elder takes the
talon's top cards; younger the next ones, which are just as random to him.

*An exchange.* For a given hand and a given discard of ``d`` cards, every ``d``-subset of the
20 unseen cards is equally likely to be what comes in; :func:`exchange_value` averages the
unopposed score over all of them (``C(20, 5) = 15504`` at most) in compiled code.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb

import numba
import numpy as np

from sim.core import kernel_cache  # noqa: F401  (compiled code cached by digest)
from sim.core.combinations import next_combination
from sim.games.piquet.hand import masks_of, suit_runs, unopposed
from sim.games.piquet.rules import HAND

SUIT = 8
SUITS = 4
PACK = 32


def _dp(per_group: list[dict[tuple[int, int], int]], hand: int, combine) -> dict[int, int]:
    """ways[cards][stat] over groups; each group offers {(cards, value): ways}."""
    ways: dict[tuple[int, int], int] = {(0, 0): 1}
    for group in per_group:
        nxt: dict[tuple[int, int], int] = {}
        for (c, x), w in ways.items():
            for (j, v), n in group.items():
                if c + j <= hand:
                    key = (c + j, combine(x, v))
                    nxt[key] = nxt.get(key, 0) + w * n
        ways = nxt
    out: dict[int, int] = {}
    for (c, x), w in ways.items():
        if c == hand:
            out[x] = out.get(x, 0) + w
    return dict(sorted(out.items()))


def _suit_masks(ranks: int = SUIT) -> range:
    return range(1 << ranks)


def point_length_counts(hand: int = HAND, ranks: int = SUIT, suits: int = SUITS
                        ) -> dict[int, int]:
    """Hands by the length of their longest suit."""
    group = {(j, j): comb(ranks, j) for j in range(ranks + 1)}
    return _dp([group] * suits, hand, max)


def sequence_length_counts(hand: int = HAND, ranks: int = SUIT, suits: int = SUITS
                           ) -> dict[int, int]:
    """Hands by the length of their longest run in a suit (below 3: no sequence, shown 0)."""
    group: dict[tuple[int, int], int] = {}
    for m in _suit_masks(ranks):
        best = suit_runs(m)[1]
        key = (bin(m).count("1"), best if best >= 3 else 0)
        group[key] = group.get(key, 0) + 1
    return _dp([group] * suits, hand, max)


def set_score_counts(hand: int = HAND, ranks: int = SUIT, suits: int = SUITS,
                     sets_from: int = 3) -> dict[int, int]:
    """Hands by the total score of their sets (trio 3, quatorze 14)."""
    groups = []
    for r in range(ranks):
        scores = {3: 3, 4: 14} if r >= sets_from and suits == 4 else {}
        groups.append({(j, scores.get(j, 0)): comb(suits, j) for j in range(suits + 1)})
    return _dp(groups, hand, lambda x, v: x + v)


def distribution(counts: dict[int, int], hand: int = HAND, pack: int = PACK
                 ) -> dict[int, Fraction]:
    total = comb(pack, hand)
    return {k: Fraction(v, total) for k, v in counts.items()}


def p_carte_blanche(hand: int = HAND, faces: int = 12, pack: int = PACK) -> Fraction:
    """P(a dealt hand holds no king, queen or jack)."""
    return Fraction(comb(pack - faces, hand), comb(pack, hand))


def p_quatorze(hand: int = HAND, sets_from: int = 3, ranks: int = SUIT) -> Fraction:
    """P(a dealt hand holds at least one quatorze), by inclusion and exclusion over ranks
    (a pack of ``ranks`` ranks from the seven up, four suits)."""
    pack = SUITS * ranks
    set_ranks = max(ranks - sets_from, 0)
    total = Fraction(0)
    for k in range(1, set_ranks + 1):
        if 4 * k > hand:
            break
        total += (-1) ** (k + 1) * comb(set_ranks, k) * Fraction(
            comb(pack - 4 * k, hand - 4 * k), comb(pack, hand))
    return total


def mean_dealt_score(hand: int = HAND, sets_from: int = 3, ranks: int = SUIT) -> Fraction:
    """The exact mean of a dealt hand's unopposed score (point length + every sequence +
    every set; carte blanche apart), by linearity over suits and ranks (a pack of ``ranks``
    ranks from the seven up, four suits)."""
    pack = SUITS * ranks
    point = sum((k * p for k, p in distribution(point_length_counts(hand, ranks), hand,
                                                pack).items()), Fraction(0))
    total = comb(pack, hand)
    per_suit = sum(suit_runs(m)[0] * comb(pack - ranks, hand - bin(m).count("1"))
                   for m in _suit_masks(ranks) if bin(m).count("1") <= hand)
    sequences = SUITS * Fraction(per_suit, total)
    per_rank = 3 * comb(4, 3) * comb(pack - 4, hand - 3) + 14 * comb(pack - 4, hand - 4)
    sets = max(ranks - sets_from, 0) * Fraction(per_rank, total)
    return point + sequences + sets


def take_in_odds(draws: int, wanted: int, at_least: int, unseen: int = 20) -> Fraction:
    """P(taking in at least ``at_least`` of ``wanted`` given cards when ``draws`` cards come in
    from ``unseen`` unseen ones)."""
    return sum((Fraction(comb(wanted, i) * comb(unseen - wanted, draws - i), comb(unseen, draws))
                for i in range(at_least, min(wanted, draws) + 1)), Fraction(0))


def take_in_table(unseen: int = 20) -> list[dict]:
    """The handbooks' table: for elder taking 1..5 and younger taking 1..3, the chance of
    taking in at least m of j wanted cards."""
    rows = []
    for seat, most in (("elder", 5), ("younger", 3)):
        for draws in range(1, most + 1):
            for wanted in range(1, 5):
                for at_least in range(1, min(wanted, draws) + 1):
                    p = take_in_odds(draws, wanted, at_least, unseen)
                    rows.append({"seat": seat, "takes": draws, "wanted": wanted,
                                 "at_least": at_least, "exact": str(p), "probability": float(p),
                                 "odds_against": f"{float((1 - p) / p):.2f} to 1" if p else ""})
    return rows


@numba.njit(cache=True)
def _exchange_sum(kept, unseen, draws, sets_from):
    """Sum over every ``draws``-subset of ``unseen`` of the unopposed score of kept + subset,
    and the count of subsets (index combinations walked in lexicographic order)."""
    n = unseen.shape[0]
    idx = np.arange(draws)
    hand = np.empty(kept.shape[0] + draws, dtype=np.int64)
    hand[:kept.shape[0]] = kept
    total = 0
    count = 0
    while True:
        for i in range(draws):
            hand[kept.shape[0] + i] = unseen[idx[i]]
        total += unopposed(masks_of(hand), sets_from)
        count += 1
        if not next_combination(idx, n):
            break
    return total, count


def exchange_value(hand, discard, sets_from: int = 3, unseen=None) -> Fraction:
    """The exact expected unopposed score after discarding ``discard`` from ``hand`` and taking
    in as many cards from the ``unseen`` ones (default: the 20 cards outside the hand)."""
    hand = [int(c) for c in hand]
    discard = [int(c) for c in discard]
    if not set(discard) <= set(hand):
        raise ValueError("the discard must come from the hand")
    kept = np.array([c for c in hand if c not in discard], dtype=np.int64)
    if unseen is None:
        unseen = [c for c in range(PACK) if c not in hand]
    unseen = np.array(sorted(int(c) for c in unseen), dtype=np.int64)
    if not discard:
        return Fraction(int(unopposed(masks_of(kept), sets_from)))
    total, count = _exchange_sum(kept, unseen, len(discard), sets_from)
    return Fraction(int(total), int(count))
