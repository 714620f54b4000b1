"""The dealer's crib under both players' discard policies, exactly, over every deal.

The crib is the pone's discard A, the dealer's discard B and the starter c. Each discard has a
law given its own six cards (:mod:`.laws`), but the two hands share one pack, so the crib's
expectation is a sum over pairs of *disjoint* hands P and D and the starters c left:

    N E[crib] = sum over P, D disjoint, c not in P or D, of  E[score(A + B, c) | P, D].

**Splitting the score.** The show of a crib is its fifteens, pairs and runs (a function
R(a, b, rho) of the ranks of A, of B and of the starter), its flush (all five cards of one
suit s) and his nobs. Summing over the starters left, with N_rho and M_s the pack's cards of
rank rho and of suit s, and n, m those of a hand,

    sum_c R = sum_rho R(a, b, rho) (N_rho - n_rho(P) - n_rho(D)),
    sum_c flush = 5 sum_s [A in s] [B in s] (M_s - m_s(P) - m_s(D)),

so, for a pair of hands, the sum Phi(P, D) is a sum of products of something of P and
something of D: the pone's discard ranks a with his rank counts, the dealer's b with his, and
the suited discards with the suit counts. His nobs (the jack of the starter's suit in the
crib) involves one discard at a time, and given one hand the starter is any other card alike,
so its part is a sum over single hands.

**Disjoint pairs by inclusion and exclusion.** For any function Phi of two hands,

    sum over disjoint P, D of Phi(P, D) = sum over sets T of (-1)^|T| F(T),
    F(T) = sum over P containing T, D containing T, of Phi(P, D),

(a pair sharing the set S is counted, over the subsets T of S, by the alternating sum of
binomials, which is 1 for S empty and 0 otherwise), and T has at most six cards. As Phi is a
sum of products, F(T) is the same products of X(T), the sums over the pone's hands P
containing T of their features, and Y(T), the dealer's: with cnt(a) the weight of
discards of ranks a, V(b) the sum of R(a, b, rho) n_rho(P) and W(a) likewise for the dealer,

    F(T) = sum_ab cnt_P(a) Rbar(a, b) cnt_D(b) - sum_b V_P(b) cnt_D(b) - sum_a cnt_P(a) W_D(a)
           + 5 sum_s (flush features),    Rbar(a, b) = sum_rho N_rho R(a, b, rho).

Pairs that overlap make impossible cribs (five cards of a rank), but the alternating sum
cancels them whatever value Phi gives them, so the same formula serves.

**Sets up to relabelled suits.** Relabelling the suits maps hands to hands, laws to laws and
F(T) to itself, so the sum over T is a sum over representatives (:mod:`.suit_classes`) with
their weights. X and Y of a set of five cards sum its supersets (one card each); those of four
cards sum their 1,128 supersets, read from the laws of every six-card hand (each propagated
from its class's representative). Below four cards every hand containing T holds 6 - |T| sets
of one card more, so X(T) is the sum of X(T + x) over the cards x, divided by 6 - |T|: each
X(T + x) is its representative's with the suits relabelled. For T of six cards P = D = T.

The laws weigh each keep by its count out of the 720 orders dealt, so the sums carry a factor
720 per player. They are kept in float64: the features are whole numbers below 2^53, and only
the products round, to about one part in 10^15.
"""

from __future__ import annotations

import functools
import itertools
import math

import numba
import numpy as np

from sim.core import kernel_cache  # noqa: F401  (compiled code cached by digest)
from sim.core.cards import N_SUITS
from sim.games.cribbage.laws import (
    DEALT,
    DROPS,
    KEEP_OF_BITS,
    KEEPS,
    N_KEEPS,
    ORDERS,
    rep_choices,
    tie_law,
    tie_laws,
)
from sim.games.cribbage.score import rank_points_table
from sim.games.cribbage.suit_classes import canonical, representatives, suit_perms

N_PAIRS = 91  # rank pairs r1 <= r2
ORDERS720 = len(ORDERS)


@functools.cache
def _pair_tables() -> tuple[np.ndarray, np.ndarray]:
    """``pair_of[r1, r2]`` the index of a rank pair (either order) and ``pair_ranks[i]``."""
    pair_of = np.zeros((13, 13), dtype=np.int64)
    pair_ranks = np.zeros((N_PAIRS, 2), dtype=np.int64)
    for i, (r1, r2) in enumerate(itertools.combinations_with_replacement(range(13), 2)):
        pair_of[r1, r2] = pair_of[r2, r1] = i
        pair_ranks[i] = (r1, r2)
    return pair_of, pair_ranks


@functools.cache
def crib_rank_points() -> np.ndarray:
    """``R[a, rho, b]``: fifteens, pairs and runs of the ranks of pairs a and b with a starter
    of rank rho (the table's -1 where five of a rank: those cancel). Read-only."""
    _, pair_ranks = _pair_tables()
    five = np.sort(np.concatenate([
        np.broadcast_to(pair_ranks[:, None, None, :], (N_PAIRS, 13, N_PAIRS, 2)),
        np.broadcast_to(np.arange(13)[None, :, None, None], (N_PAIRS, 13, N_PAIRS, 1)),
        np.broadcast_to(pair_ranks[None, None, :, :], (N_PAIRS, 13, N_PAIRS, 2))], axis=3),
        axis=3)
    keys = five @ (13 ** np.arange(4, -1, -1))
    out = rank_points_table(5)[keys].astype(float)
    out.setflags(write=False)
    return out


@numba.njit(cache=True)
def _propagate(reps, masks, pos_of, perms, binom, keep_of_bits, keeps, code_of, mask_of, out):
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
def _nobs_sum(reps, weights, masks, table, known, orders, keeps, drops, pack_suits):
    """Sum over every hand (with its law's weights, out of 720) of the starters left of the
    suit of each jack it discards: one player's nobs in the crib, times 720 and the starters
    left after his hand."""
    total = 0
    for h in range(reps.shape[0]):
        law = tie_law(masks[h], table, known, orders, keeps)
        hand = reps[h]
        for j in range(N_KEEPS):
            if law[j] == 0:
                continue
            for d in range(2):
                card = hand[drops[j, d]]
                if card // N_SUITS == 10:
                    s = card % N_SUITS
                    same = 0
                    for i in range(DEALT):
                        if hand[i] % N_SUITS == s:
                            same += 1
                    total += weights[h] * law[j] * (pack_suits[s] - same)
    return total


@numba.njit(cache=True)
def _same_hand(reps, weights, masks_pone, masks_dealer, table, known, orders, keeps, drops,
               pair_of, points, pack_ranks, pack_suits):
    """The sets of six cards: F(T) with P = D = T, summed with the weights."""
    total = 0.0
    ranks = np.zeros(13, dtype=np.int64)
    suits = np.zeros(N_SUITS, dtype=np.int64)
    for h in range(reps.shape[0]):
        hand = reps[h]
        law_pone = tie_law(masks_pone[h], table, known, orders, keeps)
        law_dealer = tie_law(masks_dealer[h], table, known, orders, keeps)
        ranks[:] = 0
        suits[:] = 0
        for i in range(DEALT):
            ranks[hand[i] // N_SUITS] += 1
            suits[hand[i] % N_SUITS] += 1
        value = 0.0
        for j in range(N_KEEPS):
            if law_pone[j] == 0:
                continue
            p0, p1 = hand[drops[j, 0]], hand[drops[j, 1]]
            a = pair_of[p0 // N_SUITS, p1 // N_SUITS]
            for k in range(N_KEEPS):
                if law_dealer[k] == 0:
                    continue
                d0, d1 = hand[drops[k, 0]], hand[drops[k, 1]]
                b = pair_of[d0 // N_SUITS, d1 // N_SUITS]
                v = 0.0
                for rho in range(13):
                    v += points[a, rho, b] * (pack_ranks[rho] - 2 * ranks[rho])
                s = p0 % N_SUITS
                if p1 % N_SUITS == s and d0 % N_SUITS == s and d1 % N_SUITS == s:
                    v += 5.0 * (pack_suits[s] - 2 * suits[s])
                value += float(law_pone[j]) * float(law_dealer[k]) * v
        total += weights[h] * value
    return total


@numba.njit(cache=True, inline="always")
def _add_discards(hand, extras, m, code, mask_of, table, known, orders, keeps, drops,
                  pair_of, suits_base, role, cnt, touched, hist, listed, flush, flush_held,
                  counts):
    """Add one hand's discards, by its law, to player ``role``'s features for its set T:
    ``cnt[role, a]`` the law's weight of discard ranks a; ``hist[role, a * 13 + rho]`` the
    same times the hand's cards of rank rho beyond T's (``extras[:m]``, the cards added to T);
    ``flush[role, s]`` a suited discard of suit s and ``flush_held[role, s]`` the same times
    the hand's cards of suit s (T's ``suits_base[s]`` and the extras'). ``counts[role]``
    holds how many pairs are ``touched`` and hist entries ``listed``."""
    if code < N_KEEPS:  # one keep: taken in every order
        _add_keep(hand, extras, m, code, ORDERS720, drops, pair_of, suits_base, role, cnt,
                  touched, hist, listed, flush, flush_held, counts)
        return
    law = tie_law(mask_of[code], table, known, orders, keeps)
    for j in range(N_KEEPS):
        if law[j]:
            _add_keep(hand, extras, m, j, law[j], drops, pair_of, suits_base, role, cnt,
                      touched, hist, listed, flush, flush_held, counts)


@numba.njit(cache=True, inline="always")
def _add_keep(hand, extras, m, j, weight, drops, pair_of, suits_base, role, cnt, touched,
              hist, listed, flush, flush_held, counts):
    """Add the discards of keep ``j`` with ``weight`` (see :func:`_add_discards`)."""
    c0 = hand[drops[j, 0]]
    c1 = hand[drops[j, 1]]
    a = pair_of[c0 // N_SUITS, c1 // N_SUITS]
    if cnt[role, a] == 0:
        touched[role, counts[role, 0]] = a
        counts[role, 0] += 1
    cnt[role, a] += weight
    for t in range(m):
        key = a * 13 + extras[t] // N_SUITS
        if hist[role, key] == 0:
            listed[role, counts[role, 1]] = key
            counts[role, 1] += 1
        hist[role, key] += weight
    s = c0 % N_SUITS
    if c1 % N_SUITS == s:
        held = suits_base[s]
        for t in range(m):
            if extras[t] % N_SUITS == s:
                held += 1
        flush[role, s] += weight
        flush_held[role, s] += weight * held


@numba.njit(cache=True)
def _rank_part(cnt, touched, n_touched, hist, listed, n_listed, base_ranks, points, out):
    """Into ``out[b]``: the sum over the player's hands of R(a, rho, b) times its cards of rank
    rho (T's ``base_ranks`` and the extras'), the feature V (or W) of the module docstring."""
    out[:] = 0.0
    for i in range(n_touched):
        a = touched[i]
        for rho in range(13):
            if base_ranks[rho]:
                w = cnt[a] * base_ranks[rho]
                row = points[a, rho]
                for b in range(N_PAIRS):
                    out[b] += w * row[b]
    for i in range(n_listed):
        key = listed[i]
        w = hist[key]
        row = points[key // 13, key % 13]
        for b in range(N_PAIRS):
            out[b] += w * row[b]


@numba.njit(cache=True)
def _supersets(reps, weights, k, pack, pos_of, binom, all_pone, all_dealer, same, mask_pone,
               mask_dealer, table, known, orders, keeps, drops, pair_of, points, rbar,
               pack_suits, stored):
    """F(T) summed with the weights over the representatives T of k = 4 or 5 cards, from
    every hand containing T, and each T's features contracted (cnt, V, flush and its second
    feature, for the pone and then the dealer) into ``stored[t]`` (if ``stored`` has a row
    for each; else only into its one row). With ``same`` the two
    players' laws are one (the same policy), and the pone's sums serve both."""
    n = pack.shape[0]
    m = DEALT - k
    cnt = np.zeros((2, N_PAIRS))
    touched = np.zeros((2, N_PAIRS), dtype=np.int64)
    hist = np.zeros((2, N_PAIRS * 13))
    listed = np.zeros((2, N_PAIRS * 13), dtype=np.int64)
    flush = np.zeros((2, N_SUITS))
    flush_held = np.zeros((2, N_SUITS))
    counts = np.zeros((2, 2), dtype=np.int64)
    hand = np.empty(DEALT, dtype=np.int64)
    extras = np.empty(2, dtype=np.int64)
    x_idx = np.zeros(2, dtype=np.int64)
    rest = np.empty(n, dtype=np.int64)
    below = np.empty(n, dtype=np.int64)  # T's cards below each card of the rest
    base_ranks = np.zeros(13, dtype=np.int64)
    suits_base = np.zeros(N_SUITS, dtype=np.int64)
    rank_sum = np.empty((2, N_PAIRS))
    roles = 1 if same else 2
    total = 0.0
    for t in range(reps.shape[0]):
        base = reps[t]
        base_ranks[:] = 0
        suits_base[:] = 0
        for i in range(k):
            base_ranks[base[i] // N_SUITS] += 1
            suits_base[base[i] % N_SUITS] += 1
        r = 0
        i = 0
        for x in range(n):
            while i < k and base[i] < pack[x]:
                i += 1
            if i < k and base[i] == pack[x]:
                continue
            rest[r] = pack[x]
            below[r] = i
            r += 1
        for i in range(m):
            x_idx[i] = i
        while True:
            # the hand: T with the extras, in order, and its colex index
            for i in range(m):
                extras[i] = rest[x_idx[i]]
            a_i = 0
            e_i = 0
            index = 0
            for slot in range(DEALT):
                if e_i >= m or (a_i < k and base[a_i] < extras[e_i]):
                    hand[slot] = base[a_i]
                    a_i += 1
                else:
                    hand[slot] = extras[e_i]
                    e_i += 1
                index += binom[pos_of[hand[slot]], slot + 1]
            for role in range(roles):
                if role == 0:
                    code, mask_of = all_pone[index], mask_pone
                else:
                    code, mask_of = all_dealer[index], mask_dealer
                _add_discards(hand, extras, m, code, mask_of, table, known, orders, keeps,
                              drops, pair_of, suits_base, role, cnt, touched, hist, listed,
                              flush, flush_held, counts)
            i = m - 1
            while i >= 0 and x_idx[i] == r - m + i:
                i -= 1
            if i < 0:
                break
            x_idx[i] += 1
            for j in range(i + 1, m):
                x_idx[j] = x_idx[j - 1] + 1
        dealer = 0 if same else 1
        for role in range(roles):
            _rank_part(cnt[role], touched[role], counts[role, 0], hist[role], listed[role],
                       counts[role, 1], base_ranks, points, rank_sum[role])
        row = stored[t] if stored.shape[0] == reps.shape[0] else stored[0]
        row[:N_PAIRS] = cnt[0]
        row[N_PAIRS:2 * N_PAIRS] = rank_sum[0]
        row[2 * N_PAIRS + 8:3 * N_PAIRS + 8] = cnt[dealer]
        row[3 * N_PAIRS + 8:4 * N_PAIRS + 8] = rank_sum[dealer]
        for s in range(N_SUITS):
            row[2 * N_PAIRS + s] = flush[0, s]
            row[2 * N_PAIRS + 4 + s] = pack_suits[s] * flush[0, s] - flush_held[0, s]
            row[4 * N_PAIRS + 8 + s] = flush[dealer, s]
            row[4 * N_PAIRS + 12 + s] = flush_held[dealer, s]
        total += weights[t] * _dense_value(row, rbar)
        for role in range(roles):
            for i in range(counts[role, 0]):
                cnt[role, touched[role, i]] = 0.0
            for i in range(counts[role, 1]):
                hist[role, listed[role, i]] = 0.0
            flush[role, :] = 0.0
            flush_held[role, :] = 0.0
            counts[role, :] = 0
    return total


@numba.njit(cache=True)
def _insert(base, k, extra, n_extra, out):
    """The increasing merge of ``base[:k]`` and ``extra[:n_extra]`` into ``out``."""
    i = 0
    j = 0
    for t in range(k + n_extra):
        if j >= n_extra or (i < k and base[i] < extra[j]):
            out[t] = base[i]
            i += 1
        else:
            out[t] = extra[j]
            j += 1


FEATURES = 4 * N_PAIRS + 16  # pone: cnt, V, flush, flush2; dealer: cnt, W, flush, flush2


@numba.njit(cache=True)
def _dense_value(row, rbar):
    """F(T) from a set's contracted features (see :func:`_supersets`)."""
    cnt_p = row[:N_PAIRS]
    v_p = row[N_PAIRS:2 * N_PAIRS]
    cnt_d = row[2 * N_PAIRS + 8:3 * N_PAIRS + 8]
    w_d = row[3 * N_PAIRS + 8:4 * N_PAIRS + 8]
    value = 0.0
    for a in range(N_PAIRS):
        if cnt_p[a] != 0.0:
            inner = 0.0
            for b in range(N_PAIRS):
                inner += rbar[a, b] * cnt_d[b]
            value += cnt_p[a] * (inner - w_d[a])
    for b in range(N_PAIRS):
        value -= v_p[b] * cnt_d[b]
    for s in range(N_SUITS):
        value += 5.0 * (row[2 * N_PAIRS + 4 + s] * row[4 * N_PAIRS + 8 + s]
                        - row[2 * N_PAIRS + s] * row[4 * N_PAIRS + 12 + s])
    return value


@numba.njit(cache=True)
def _fewer(reps, weights, k, pack, pos_of, binom, rep_index, above, rbar, stored):
    """F(T) summed with the weights over the representatives T of k < 4 cards, each T's
    features the sum over the cards x of those of T + x (its representative's, the suits
    relabelled) divided by 6 - k; ``above`` holds the features of the sets of k + 1 cards
    (rows by ``rep_index`` of their representative's pack positions)."""
    n = pack.shape[0]
    cards = np.empty(k + 1, dtype=np.int64)
    rep = np.empty(k + 1, dtype=np.int64)
    relabel = np.empty(N_SUITS, dtype=np.int64)
    positions = np.empty(k + 1, dtype=np.int64)
    extra = np.empty(1, dtype=np.int64)
    inside = np.zeros(52, dtype=np.bool_)
    total = 0.0
    for t in range(reps.shape[0]):
        base = reps[t]
        for i in range(k):
            inside[base[i]] = True
        row = stored[t]
        row[:] = 0.0
        for x in range(n):
            if inside[pack[x]]:
                continue
            extra[0] = pack[x]
            _insert(base, k, extra, 1, cards)
            canonical(cards, k + 1, rep, relabel)
            for i in range(k + 1):
                positions[i] = pos_of[rep[i]]
            index = 0
            for i in range(k + 1):
                index += binom[positions[i], i + 1]
            src = above[rep_index[index]]
            for f in range(2 * N_PAIRS):
                row[f] += src[f]
            for f in range(2 * N_PAIRS + 8, 4 * N_PAIRS + 8):
                row[f] += src[f]
            for s in range(N_SUITS):  # the representative's suit s is this set's relabel[s]
                for block in (2 * N_PAIRS, 2 * N_PAIRS + 4, 4 * N_PAIRS + 8, 4 * N_PAIRS + 12):
                    row[block + relabel[s]] += src[block + s]
        for f in range(FEATURES):
            row[f] /= DEALT - k
        total += weights[t] * _dense_value(row, rbar)
        for i in range(k):
            inside[base[i]] = False
    return total


def _binomials(n: int, k: int) -> np.ndarray:
    return np.array([[math.comb(a, b) for b in range(k + 1)] for a in range(n + 1)],
                    dtype=np.int64)


def _rep_index(reps: np.ndarray, pos_of: np.ndarray, binom: np.ndarray, n: int) -> np.ndarray:
    """Row of each representative by the colex index of its pack positions (-1: none)."""
    k = reps.shape[1]
    index = np.full(math.comb(n, k), -1, dtype=np.int64)
    for row, cards in enumerate(reps.tolist()):
        index[sum(int(binom[pos_of[c], i + 1]) for i, c in enumerate(cards))] = row
    return index


def _every_hand(hands: np.ndarray, masks: np.ndarray, pos_of: np.ndarray, perms: np.ndarray,
                binom: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Every hand's code of tied keeps (one byte where the masks met are few enough, as they
    are for the policies here) and the mask of each code."""
    code_of = np.full(1 << N_KEEPS, -1, dtype=np.int64)
    mask_of = np.zeros(1 << N_KEEPS, dtype=np.int64)
    for dtype in (np.uint8, np.uint16):
        out = np.zeros(math.comb(n, DEALT), dtype=dtype)
        code_of[:] = -1
        if _propagate(hands, masks, pos_of, perms, binom, KEEP_OF_BITS, KEEPS, code_of,
                      mask_of, out) >= 0:
            return out, mask_of
    raise AssertionError("more than 65,536 masks of 15 keeps")  # there are 32,768


def crib_expectation(pone: tuple[str, float], dealer: tuple[str, float],
                     ranks: tuple[int, ...] = tuple(range(13)), suits: int = N_SUITS
                     ) -> float:
    """The exact mean show of the dealer's crib when the pone discards by ``pone`` and the
    dealer by ``dealer`` (each a policy kind and its crib weight for that seat, as the
    chooser reads them), over every deal of two six-card hands and a starter from the pack of
    ``ranks`` in ``suits`` suits (the chooser values keeps as in the full pack whatever the
    pack: a smaller one is for tests)."""
    pack = np.array(sorted(r * N_SUITS + s for r in ranks for s in range(suits)),
                    dtype=np.int64)
    n = pack.size
    pos_of = np.full(52, -1, dtype=np.int64)
    pos_of[pack] = np.arange(n)
    binom = _binomials(n, DEALT)
    pack_ranks = np.bincount(pack // N_SUITS, minlength=13).astype(np.int64)
    pack_suits = np.bincount(pack % N_SUITS, minlength=N_SUITS).astype(np.int64)
    pair_of, _ = _pair_tables()
    points = crib_rank_points()
    rbar = np.einsum("arb,r->ab", points, pack_ranks.astype(float))
    laws = tie_laws()
    table, known = laws.table, laws.known
    hands, hand_weights = representatives(DEALT, ranks, suits)
    masks_pone = rep_choices(*pone, ranks, suits)
    masks_dealer = rep_choices(*dealer, ranks, suits)
    perms = suit_perms(suits)
    same = pone == dealer
    all_pone, mask_pone = _every_hand(hands, masks_pone, pos_of, perms, binom, n)
    all_dealer, mask_dealer = ((all_pone, mask_pone) if same else
                               _every_hand(hands, masks_dealer, pos_of, perms, binom, n))

    total = _same_hand(hands, hand_weights, masks_pone, masks_dealer, table, known, ORDERS,
                       KEEPS, DROPS, pair_of, points, pack_ranks, pack_suits)
    fives, five_weights = representatives(5, ranks, suits)
    total -= _supersets(fives, five_weights, 5, pack, pos_of, binom, all_pone, all_dealer,
                        same, mask_pone, mask_dealer, table, known, ORDERS, KEEPS, DROPS,
                        pair_of, points, rbar, pack_suits, np.zeros((1, FEATURES)))
    fours, four_weights = representatives(4, ranks, suits)
    above = np.zeros((len(fours), FEATURES))
    total += _supersets(fours, four_weights, 4, pack, pos_of, binom, all_pone, all_dealer,
                        same, mask_pone, mask_dealer, table, known, ORDERS, KEEPS, DROPS,
                        pair_of, points, rbar, pack_suits, above)
    above_index = _rep_index(fours, pos_of, binom, n)
    for k in (3, 2, 1, 0):
        sets, set_weights = representatives(k, ranks, suits)
        stored = np.zeros((len(sets), FEATURES))
        value = _fewer(sets if k else np.zeros((1, 1), dtype=np.int64), set_weights, k, pack,
                       pos_of, binom, above_index, above, rbar, stored)
        total += value if k % 2 == 0 else -value
        above = stored
        above_index = _rep_index(sets, pos_of, binom, n) if k else None
    deals = math.comb(n, DEALT) * math.comb(n - DEALT, DEALT) * (n - 2 * DEALT)
    rank_and_flush = total / (deals * ORDERS720 ** 2)
    nobs = sum(_nobs_sum(hands, hand_weights, masks, table, known, ORDERS, KEEPS, DROPS,
                         pack_suits) for masks in (masks_pone, masks_dealer))
    return rank_and_flush + nobs / (math.comb(n, DEALT) * (n - DEALT) * ORDERS720)
