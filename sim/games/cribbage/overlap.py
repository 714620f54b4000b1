"""The compiled sums of :mod:`.joint`: the features of the sets T, and their products.

For a set T a player's *features* are sums over his hands containing T, each weighted by its
law (out of 720 per player): for the crib, ``cnt[a]`` the weight of discards of ranks a,
``hist[a * 13 + rho]`` the same times the hand's cards of rank rho beyond T's (T's own add
``cnt[a]`` times their count), ``flush[s]`` suited discards of suit s and ``flush_held[s]``
the same times the hand's cards of suit s; for the play, ``kcnt[kappa]`` the weight of keeps
of ranks kappa (one of the 1,820 multisets of four ranks), whose products over the sets T
sum, with their signs, to the joint law of the two keeps' types. The sets of four and five
cards read their supersets from every hand's law (:func:`~.laws.propagate`); the crib's
features of four cards are kept, contracted to a row of :data:`FEATURES`, for the sets below
(:func:`fewer`), and the keep types are passed down at once (:func:`types_down`)."""

from __future__ import annotations

import numba
import numpy as np

from sim.core import kernel_cache  # noqa: F401  (compiled code cached by digest)
from sim.core.cards import N_SUITS
from sim.games.cribbage.laws import DEALT, KEPT, N_KEEPS, tie_law
from sim.games.cribbage.suit_classes import canonical

N_PAIRS = 91  # rank pairs r1 <= r2
N_TYPES = 1820  # multisets of four ranks
ORDERS720 = 720
# a set's crib features, contracted: pone cnt, V, flush, flush2; dealer cnt, W, flush, flush2
FEATURES = 4 * N_PAIRS + 16


@numba.njit(cache=True)
def nobs_sum(reps, weights, masks, table, known, orders, keeps, drops, pack_suits):
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


@numba.njit(cache=True, inline="always")
def _add_keep(hand, extras, m, j, weight, keeps, drops, pair_of, type_of, suits_base, role,
              cnt, touched, hist, listed, flush, flush_held, kcnt, ktouched, counts):
    """Add keep ``j`` of ``hand`` (T with the cards ``extras[:m]``) with ``weight`` to player
    ``role``'s features; ``counts[role]`` holds how many pairs are ``touched``, hist entries
    ``listed`` and keep types ``ktouched``."""
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
    key = 0
    for i in range(KEPT):
        key = key * 13 + hand[keeps[j, i]] // N_SUITS
    kappa = type_of[key]
    if kcnt[role, kappa] == 0:
        ktouched[role, counts[role, 2]] = kappa
        counts[role, 2] += 1
    kcnt[role, kappa] += weight


@numba.njit(cache=True, inline="always")
def _add_hand(hand, extras, m, code, mask_of, table, known, orders, keeps, drops, pair_of,
              type_of, suits_base, role, cnt, touched, hist, listed, flush, flush_held, kcnt,
              ktouched, counts):
    """Add one hand's keeps, by its law (``code``: see :func:`~.laws.propagate`), to a player's
    features."""
    if code < N_KEEPS:  # one keep: taken in every order
        _add_keep(hand, extras, m, code, ORDERS720, keeps, drops, pair_of, type_of,
                  suits_base, role, cnt, touched, hist, listed, flush, flush_held, kcnt,
                  ktouched, counts)
        return
    law = tie_law(mask_of[code], table, known, orders, keeps)
    for j in range(N_KEEPS):
        if law[j]:
            _add_keep(hand, extras, m, j, law[j], keeps, drops, pair_of, type_of, suits_base,
                      role, cnt, touched, hist, listed, flush, flush_held, kcnt, ktouched,
                      counts)


@numba.njit(cache=True)
def _pair_types(kcnt, ktouched, counts, dealer, factor, joint):
    """Add ``factor`` times the product of the two players' keep types (a set's F(T) for
    every pair of types) into ``joint[kappa, lambda]``."""
    for i in range(counts[0, 2]):
        kappa = ktouched[0, i]
        c = kcnt[0, kappa] * factor
        row = joint[kappa]
        for k in range(counts[dealer, 2]):
            lam = ktouched[dealer, k]
            row[lam] += c * kcnt[dealer, lam]


@numba.njit(cache=True)
def _below_index(cards, k, pos_of, binom, rep_index, rep, relabel):
    """The row of the representative of ``cards[:k]`` (and, into ``relabel``, its suits)."""
    canonical(cards, k, rep, relabel)
    index = 0
    for i in range(k):
        index += binom[pos_of[rep[i]], i + 1]
    return rep_index[index]


@numba.njit(cache=True)
def supersets(reps, weights, k, pack, pos_of, binom, all_pone, all_dealer, same, mask_pone,
              mask_dealer, table, known, orders, keeps, drops, pair_of, type_of, points, rbar,
              pack_suits, joint, stored, below_index, below_weights, below_types):
    """The sets T of k = 4 or 5 cards (representatives, with their weights): returns the sum
    of the crib's F(T) (weighted) and adds the keep types', with the sign (-1)^k, into
    ``joint``. With k = 4 each T's crib features go, contracted, into ``stored[t]``, and its
    keep types down into ``below_types`` (the sets of three cards: each gets, from every T of
    its orbit that holds it, 1/3 of T's types). With ``same`` the two players' laws are one
    (the same policy) and the pone's sums serve both."""
    n = pack.shape[0]
    m = DEALT - k
    sign = 1.0 if k % 2 == 0 else -1.0
    cnt = np.zeros((2, N_PAIRS))
    touched = np.zeros((2, N_PAIRS), dtype=np.int64)
    hist = np.zeros((2, N_PAIRS * 13))
    listed = np.zeros((2, N_PAIRS * 13), dtype=np.int64)
    flush = np.zeros((2, N_SUITS))
    flush_held = np.zeros((2, N_SUITS))
    kcnt = np.zeros((2, N_TYPES))
    ktouched = np.zeros((2, N_TYPES), dtype=np.int64)
    counts = np.zeros((2, 3), dtype=np.int64)
    base_ranks = np.zeros(13, dtype=np.int64)
    suits_base = np.zeros(N_SUITS, dtype=np.int64)
    hand = np.empty(DEALT, dtype=np.int64)
    extras = np.empty(2, dtype=np.int64)
    x_idx = np.zeros(2, dtype=np.int64)
    rest = np.empty(n, dtype=np.int64)
    rank_sum = np.empty((2, N_PAIRS))
    part = np.empty(3, dtype=np.int64)
    rep = np.empty(3, dtype=np.int64)
    relabel = np.empty(N_SUITS, dtype=np.int64)
    roles = 1 if same else 2
    dealer = 0 if same else 1
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
        for x in range(n):  # the cards T lacks
            while i < k and base[i] < pack[x]:
                i += 1
            if i < k and base[i] == pack[x]:
                continue
            rest[r] = pack[x]
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
                _add_hand(hand, extras, m, code, mask_of, table, known, orders, keeps, drops,
                          pair_of, type_of, suits_base, role, cnt, touched, hist, listed,
                          flush, flush_held, kcnt, ktouched, counts)
            i = m - 1
            while i >= 0 and x_idx[i] == r - m + i:
                i -= 1
            if i < 0:
                break
            x_idx[i] += 1
            for j in range(i + 1, m):
                x_idx[j] = x_idx[j - 1] + 1
        total += weights[t] * _close_set(
            roles, dealer, cnt, touched, hist, listed, flush, flush_held, counts, base_ranks,
            points, rbar, pack_suits, stored[t] if k == 4 else stored[0], rank_sum)
        _pair_types(kcnt, ktouched, counts, dealer, sign * weights[t], joint)
        if k == 4:
            for leave in range(k):  # the sets of three cards T holds
                p = 0
                for i in range(k):
                    if i != leave:
                        part[p] = base[i]
                        p += 1
                s_row = _below_index(part, 3, pos_of, binom, below_index, rep, relabel)
                share = weights[t] / (3.0 * below_weights[s_row])
                for role in range(roles):
                    for i in range(counts[role, 2]):
                        kappa = ktouched[role, i]
                        below_types[s_row, role, kappa] += share * kcnt[role, kappa]
        for role in range(roles):
            for i in range(counts[role, 0]):
                cnt[role, touched[role, i]] = 0.0
            for i in range(counts[role, 1]):
                hist[role, listed[role, i]] = 0.0
            for i in range(counts[role, 2]):
                kcnt[role, ktouched[role, i]] = 0.0
            flush[role, :] = 0.0
            flush_held[role, :] = 0.0
            counts[role, :] = 0
    return total


@numba.njit(cache=True)
def _close_set(roles, dealer, cnt, touched, hist, listed, flush, flush_held, counts,
               base_ranks, points, rbar, pack_suits, row, rank_sum):
    """A scanned set's crib features, contracted into ``row``; returns its crib F(T)."""
    for role in range(roles):
        _rank_part(cnt[role], touched[role], counts[role, 0], hist[role], listed[role],
                   counts[role, 1], base_ranks, points, rank_sum[role])
    row[:N_PAIRS] = cnt[0]
    row[N_PAIRS:2 * N_PAIRS] = rank_sum[0]
    row[2 * N_PAIRS + 8:3 * N_PAIRS + 8] = cnt[dealer]
    row[3 * N_PAIRS + 8:4 * N_PAIRS + 8] = rank_sum[dealer]
    for s in range(N_SUITS):
        row[2 * N_PAIRS + s] = flush[0, s]
        row[2 * N_PAIRS + 4 + s] = pack_suits[s] * flush[0, s] - flush_held[0, s]
        row[4 * N_PAIRS + 8 + s] = flush[dealer, s]
        row[4 * N_PAIRS + 12 + s] = flush_held[dealer, s]
    return dense_value(row, rbar)


@numba.njit(cache=True)
def types_down(reps, weights, k, types, pos_of, binom, below_index, below_weights, below):
    """Pass the keep types of the sets of k cards down to those of k - 1. A set S of k - 1
    cards has 1 / (7 - k) of the sum of the types of the sets S + x; over S's orbit those are
    the sets of k cards that hold a member of it, so S gets from each representative T the
    weight of T over that of S times 1 / (7 - k) of T's types, once for each subset of T in
    S's orbit (the types are ranks only: a relabelling leaves them)."""
    part = np.empty(max(k - 1, 1), dtype=np.int64)
    rep = np.empty(max(k - 1, 1), dtype=np.int64)
    relabel = np.empty(N_SUITS, dtype=np.int64)
    for t in range(reps.shape[0]):
        base = reps[t]
        for leave in range(k):
            p = 0
            for i in range(k):
                if i != leave:
                    part[p] = base[i]
                    p += 1
            s_row = _below_index(part, k - 1, pos_of, binom, below_index, rep, relabel)
            share = weights[t] / ((7.0 - k) * below_weights[s_row])
            below[s_row] += share * types[t]


@numba.njit(cache=True)
def types_value(types, weights, same, sign, joint):
    """Add ``sign`` times the keep types' F(T), weighted, of the sets whose types are
    ``types[t]`` (dense, per player) into ``joint``."""
    n_types = types.shape[2]
    nz_p = np.empty(n_types, dtype=np.int64)
    nz_d = np.empty(n_types, dtype=np.int64)
    dealer = 0 if same else 1
    for t in range(types.shape[0]):
        n_p = 0
        n_d = 0
        for kappa in range(n_types):
            if types[t, 0, kappa] != 0.0:
                nz_p[n_p] = kappa
                n_p += 1
            if types[t, dealer, kappa] != 0.0:
                nz_d[n_d] = kappa
                n_d += 1
        for i in range(n_p):
            kappa = nz_p[i]
            c = types[t, 0, kappa] * weights[t] * sign
            row = joint[kappa]
            for j in range(n_d):
                lam = nz_d[j]
                row[lam] += c * types[t, dealer, lam]


@numba.njit(cache=True)
def same_hand(reps, weights, masks_pone, masks_dealer, table, known, orders, keeps, drops,
              pair_of, type_of, points, pack_ranks, pack_suits, joint):
    """The sets of six cards, P = D = T: returns the crib's F(T) summed with the weights, and
    adds the keep types' into ``joint``."""
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
            kp = 0
            for i in range(KEPT):
                kp = kp * 13 + hand[keeps[j, i]] // N_SUITS
            kappa = type_of[kp]
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
                weight = float(law_pone[j]) * float(law_dealer[k])
                value += weight * v
                kd = 0
                for i in range(KEPT):
                    kd = kd * 13 + hand[keeps[k, i]] // N_SUITS
                joint[kappa, type_of[kd]] += weights[h] * weight
        total += weights[h] * value
    return total


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


@numba.njit(cache=True)
def dense_value(row, rbar):
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
def fewer(reps, weights, k, pack, pos_of, binom, rep_index, above, rbar, stored):
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
        total += weights[t] * dense_value(row, rbar)
        for i in range(k):
            inside[base[i]] = False
    return total


