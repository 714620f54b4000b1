"""What a discard policy lays away from every six-card hand, as a law over its keeps.

The chooser (:func:`~sim.games.cribbage.policy.kernel_choose`) walks the fifteen keeps of the
cards in the order dealt and takes the first of greatest value, ties in value going to the
better expected hand. Its values are exact rationals (an expected hand is a whole number of
points over the 46 unseen starters, a crib value one over 58,800 cribs), so keeps are tied
exactly when their values are equal, and the chooser's tolerances (far below the gap between
two different values) tell the same ties apart. Where keeps tie, which is taken depends on the
order dealt: the first of them, in the order of their dealt positions. The order is uniformly
random, so the keep taken from a set of cards has the law :func:`tie_law`: over the 720 orders,
the share in which each tied keep comes first. A hand without ties takes its best keep.

:func:`hand_choice` finds a hand's tied keeps (a mask of the fifteen, in the order of the
cards' codes) with the same arithmetic as the chooser, and its best expected hand as a whole
number of points over the starters. Relabelling the suits relabels the keeps and their values,
so the law of one hand of a class (:mod:`.suit_classes`) gives every hand's
(:func:`propagate`).
:func:`seat_hand_sums` sums, over every six-card hand and every starter, the show the seat's
keep scores and its square: the exact mean and spread of the hand a seat shows under the
policy (given his six cards, the starter is any of the others alike, whoever holds them).
"""

from __future__ import annotations

import functools
import itertools
import math
from fractions import Fraction

import numba
import numpy as np

from sim.core import kernel_cache  # noqa: F401  (compiled code cached by digest)
from sim.core.cards import N_SUITS
from sim.games.cribbage.policy import KINDS, crib_table, keep_indices
from sim.games.cribbage.score import rank_points_table
from sim.games.cribbage.suit_classes import representatives

DEALT, KEPT = 6, 4
KEEPS, DROPS = keep_indices(DEALT, KEPT)  # positions, the keeps in the chooser's order
N_KEEPS = KEEPS.shape[0]
ORDERS = np.array(list(itertools.permutations(range(DEALT))), dtype=np.int64)
KEEP_OF_BITS = np.full(1 << DEALT, -1, dtype=np.int64)  # a 6-bit set of positions -> keep
for _j, _keep in enumerate(KEEPS.tolist()):
    KEEP_OF_BITS[sum(1 << p for p in _keep)] = _j
UNSEEN = 52 - DEALT  # the chooser's starters: the 52 cards less the six it holds


@functools.cache
def rank_profile() -> np.ndarray:
    """``profile[key, r]``: fifteens, pairs and runs of four ranks (``key`` their base-13
    digits, increasing) with a starter of rank r (-1 where five of a rank). Read-only."""
    five = rank_points_table(5)
    profile = np.full((13 ** 4, 13), -1, dtype=np.int16)
    for ranks in itertools.combinations_with_replacement(range(13), 4):
        key = 0
        for r in ranks:
            key = key * 13 + r
        for r in range(13):
            full = 0
            for x in sorted((*ranks, r)):
                full = full * 13 + x
            profile[key, r] = five[full]
    profile.setflags(write=False)
    return profile


@numba.njit(cache=True)
def _keep_key(hand, j, keeps):
    key = 0
    for i in range(keeps.shape[1]):
        key = key * 13 + hand[keeps[j, i]] // N_SUITS
    return key


@numba.njit(cache=True)
def hand_choice(hand, kind, weight, profile, crib2, keeps, drops, totals, work):
    """The keeps a policy ties between for the increasing codes ``hand`` (a mask of the
    fifteen), with each keep's expected hand as a whole number of points over the unseen
    starters into ``totals``; the same arithmetic as the chooser, so the same ties.
    ``work``: a float array of 30."""
    rank_left = np.full(13, 4, dtype=np.int64)
    suit_left = np.full(N_SUITS, 13, dtype=np.int64)
    for i in range(DEALT):
        rank_left[hand[i] // N_SUITS] -= 1
        suit_left[hand[i] % N_SUITS] -= 1
    values = work[:N_KEEPS]
    evs = work[N_KEEPS:2 * N_KEEPS]
    for j in range(N_KEEPS):
        key = _keep_key(hand, j, keeps)
        total = 0
        for r in range(13):
            if rank_left[r]:
                total += rank_left[r] * profile[key, r]
        suit = hand[keeps[j, 0]] % N_SUITS
        flush = True
        for i in range(KEPT):
            card = hand[keeps[j, i]]
            if card % N_SUITS != suit:
                flush = False
            if card // N_SUITS == 10:
                total += suit_left[card % N_SUITS]  # his nobs
        if flush:
            total += KEPT * UNSEEN + suit_left[suit]
        totals[j] = total
        ev = total / UNSEEN
        evs[j] = ev
        if kind == 1:
            value = 0.0
            for i in range(KEPT):
                r = hand[keeps[j, i]] // N_SUITS
                value += min(r + 1, 10) * 100.0 + r
        else:
            value = ev
            if kind == 3:
                value += weight * crib2[hand[drops[j, 0]], hand[drops[j, 1]]]
        values[j] = value
    # the chooser's order of preference: value, then expected hand, with its tolerances
    top = values.max()
    best_ev = -1e300
    for j in range(N_KEEPS):
        if values[j] > top - 1e-9 and evs[j] > best_ev:
            best_ev = evs[j]
    mask = 0
    for j in range(N_KEEPS):
        if values[j] > top - 1e-9 and evs[j] > best_ev - 1e-12:
            mask |= 1 << j
    return mask


@numba.njit(cache=True)
def propagate(reps, masks, pos_of, perms, binom, keep_of_bits, keeps, code_of, mask_of, out):
    """Every hand's tied keeps, from its class's representative with the suits relabelled,
    as a code into ``out`` (by the hand's colex index): ``mask_of[code]`` is the mask of the
    keeps in the order of the hand's own cards, codes 0..14 one keep each, and ``code_of``
    numbers the masks met (-1: not yet). Returns the number of codes, or -1 if they overflow
    ``out``'s type. A relabelling keeps each card's rank, so the image stays in rank order
    and only the cards of one rank change places."""
    image = np.empty(DEALT, dtype=np.int64)
    where = np.empty(DEALT, dtype=np.int64)  # the rep's card at each place of the image
    inverse = np.empty(DEALT, dtype=np.int64)  # the image's place of each card of the rep
    limit = np.iinfo(out.dtype).max
    n_codes = N_KEEPS
    for j in range(N_KEEPS):
        code_of[1 << j] = j
        mask_of[j] = 1 << j
    for h in range(reps.shape[0]):
        for p in range(perms.shape[0]):
            for i in range(DEALT):
                c = reps[h, i]
                image[i] = (c // N_SUITS) * N_SUITS + perms[p, c % N_SUITS]
                where[i] = i
            for i in range(1, DEALT):  # insertion sort, tracking where each card goes
                x = image[i]
                w = where[i]
                j = i - 1
                while j >= 0 and image[j] > x:
                    image[j + 1] = image[j]
                    where[j + 1] = where[j]
                    j -= 1
                image[j + 1] = x
                where[j + 1] = w
            index = 0
            for i in range(DEALT):
                index += binom[pos_of[image[i]], i + 1]
                inverse[where[i]] = i
            mask = masks[h]
            moved = 0
            while mask:
                j = 0
                while not mask >> j & 1:
                    j += 1
                mask &= mask - 1
                bits = 0
                for i in range(keeps.shape[1]):
                    bits |= 1 << inverse[keeps[j, i]]
                moved |= 1 << keep_of_bits[bits]
            code = code_of[moved]
            if code < 0:
                if n_codes > limit:
                    return -1
                code = n_codes
                code_of[moved] = code
                mask_of[code] = moved
                n_codes += 1
            out[index] = code
    return n_codes


@numba.njit(cache=True)
def _fill_tie_law(mask, orders, keeps, out):
    """Counts, over the 720 orders of six cards, of each keep of ``mask`` being the first of
    them in the order dealt (its dealt positions, increasing, least in lexicographic order)."""
    out[:] = 0
    for o in range(orders.shape[0]):
        best = -1
        best_key = 1 << 30
        for j in range(N_KEEPS):
            if not mask >> j & 1:
                continue
            # the keep's dealt positions, increasing, as base-6 digits
            p = np.empty(KEPT, dtype=np.int64)
            for i in range(KEPT):
                p[i] = orders[o, keeps[j, i]]
            p.sort()
            key = ((p[0] * 6 + p[1]) * 6 + p[2]) * 6 + p[3]
            if key < best_key:
                best_key = key
                best = j
        out[best] += 1


@numba.njit(cache=True)
def tie_law(mask, table, known, orders, keeps):
    """The row of ``table`` (counts out of 720, per keep) for ``mask``, filled on first use
    (``known`` marks the rows filled)."""
    if not known[mask]:
        _fill_tie_law(mask, orders, keeps, table[mask])
        known[mask] = True
    return table[mask]


class TieLaws:
    """The tie laws met so far, filled as masks are met (32,768 possible rows of 15)."""

    def __init__(self) -> None:
        self.table = np.zeros((1 << N_KEEPS, N_KEEPS), dtype=np.int64)
        self.known = np.zeros(1 << N_KEEPS, dtype=np.bool_)
        for j in range(N_KEEPS):  # one keep: taken in every order
            self.table[1 << j, j] = len(ORDERS)
            self.known[1 << j] = True


@functools.cache
def tie_laws() -> TieLaws:
    """The process's tie laws (rows are filled once, as masks are met)."""
    return TieLaws()


@numba.njit(cache=True)
def _choose_all(reps, kind, weight, profile, crib2, keeps, drops, masks):
    totals = np.empty(N_KEEPS, dtype=np.int64)
    work = np.empty(2 * N_KEEPS)
    for h in range(reps.shape[0]):
        masks[h] = hand_choice(reps[h], kind, weight, profile, crib2, keeps, drops, totals,
                               work)


@functools.lru_cache(maxsize=8)  # 8 MB a policy
def rep_choices(kind: str, weight: float, ranks: tuple[int, ...] = tuple(range(13)),
                suits: int = N_SUITS) -> np.ndarray:
    """The tied keeps (masks) a policy of ``kind`` with crib ``weight`` makes from each
    representative six-card hand of the pack (:func:`.suit_classes.representatives`)."""
    hands, _ = representatives(DEALT, ranks, suits)
    masks = np.empty(len(hands), dtype=np.int64)
    _choose_all(hands, KINDS.index(kind), float(weight), rank_profile(), crib_table(2), KEEPS,
                DROPS, masks)
    masks.setflags(write=False)
    return masks


@numba.njit(cache=True)
def _seat_hand_sums(reps, weights, masks, in_pack, profile, keeps, table, known, orders):
    """Sums over every hand (representatives with their weights) of the show of the keep the
    policy takes (by ``masks``), and of its square, over every starter left in the pack
    (``in_pack`` marks its cards), each keep weighted by its tie law (out of 720)."""
    pack_ranks = np.zeros(13, dtype=np.int64)
    for c in range(52):
        if in_pack[c]:
            pack_ranks[c // N_SUITS] += 1
    left = np.zeros(13, dtype=np.int64)
    held = np.zeros(52, dtype=np.bool_)
    first = 0
    second = 0
    for h in range(reps.shape[0]):
        hand = reps[h]
        law = tie_law(masks[h], table, known, orders, keeps)
        # the starters left, by rank (a suit-dependent score looks at each card)
        left[:] = pack_ranks
        for i in range(DEALT):
            held[hand[i]] = True
            left[hand[i] // N_SUITS] -= 1
        for j in range(N_KEEPS):
            if law[j] == 0:
                continue
            key = _keep_key(hand, j, keeps)
            suit = hand[keeps[j, 0]] % N_SUITS
            flush = True
            jacks = 0  # the suits of the jacks kept, as bits
            for i in range(KEPT):
                card = hand[keeps[j, i]]
                if card % N_SUITS != suit:
                    flush = False
                if card // N_SUITS == 10:
                    jacks |= 1 << (card % N_SUITS)
            points_sum = 0
            squares = 0
            for r in range(13):
                base = np.int64(profile[key, r])
                if not flush and jacks == 0:  # every suit of the rank scores alike
                    points_sum += left[r] * base
                    squares += left[r] * base * base
                    continue
                for s in range(N_SUITS):
                    c = r * N_SUITS + s
                    if held[c] or not in_pack[c]:
                        continue
                    points = base + (jacks >> s & 1)
                    if flush:
                        points += KEPT + (1 if s == suit else 0)
                    points_sum += points
                    squares += points * points
            first += weights[h] * law[j] * points_sum
            second += weights[h] * law[j] * squares
        for i in range(DEALT):
            held[hand[i]] = False
    return first, second


@functools.cache
def seat_hand_moments(kind: str, weight: float, ranks: tuple[int, ...] = tuple(range(13)),
                      suits: int = N_SUITS) -> tuple[Fraction, Fraction]:
    """The exact mean of the show of the hand a seat keeps by the policy, and of its square,
    over every deal and starter of the pack (``weight``: the crib's weight for the seat)."""
    hands, weights = representatives(DEALT, ranks, suits)
    in_pack = np.zeros(52, dtype=np.bool_)
    for r in ranks:
        in_pack[r * N_SUITS:r * N_SUITS + suits] = True
    laws = tie_laws()
    first, second = _seat_hand_sums(hands, weights, rep_choices(kind, weight, ranks, suits),
                                    in_pack, rank_profile(), KEEPS, laws.table, laws.known,
                                    ORDERS)
    n = len(ranks) * suits
    total = math.comb(n, DEALT) * len(ORDERS) * (n - DEALT)
    return Fraction(int(first), total), Fraction(int(second), total)
