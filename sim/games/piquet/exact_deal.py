"""The exact value of a whole piquet deal under two exchange policies, and why the full pack is
out of its reach.

*The split.* A deal is a uniformly random order of the pack: elder's ``h`` cards ``E``,
younger's ``h`` cards ``Y``, then the talon, whose top ``ke`` cards ``T1`` elder takes and
whose next ``ky`` cards ``T2`` younger takes (``ke`` and ``ky`` are fixed by the policies and
the rules: :func:`~.deal.exchange_sizes`); the ``u`` cards left ``U`` are never seen. So
``(E, Y, T1, T2, U)`` is a uniformly random partition of the pack into blocks of those sizes.
Group it by its *split* ``(C, S, U)`` with ``C = E + T1`` and ``S = Y + T2``: every split is
equally likely, and given the split, ``E`` is a uniform ``h``-subset of ``C`` and ``Y`` an
independent uniform ``h``-subset of ``S`` (each partition with that split is one pair
``(E, Y)``). Elder discards ``D(E)`` and takes in ``C - E``, so his hand after the exchange
is ``C - D(E)``; younger's is ``S - D(Y)``. Carte blanche is read on ``E`` and ``Y``. Hence

    E[net] = mean over splits of  mean over E in C, Y in S of  net(C - D(E), E; S - D(Y), Y),

and likewise ``E[net**2]``. Inside a split the two sides are independent, so each side is
enumerated once (``C(h + ke, h)`` hands, each reduced to its declarations, :func:`~.hand.evaluate`,
and its carte blanche), equal declarations are merged with their counts, and the contest
(:func:`~.hand.contest_evaluated`) is scored once per pair of distinct outcomes, weighted by
the product of their counts.

*The full pack.* The splits number ``32! / ((12 + ke)! (12 + ky)! u!)``: 565,722,720 for
policies that take five and three, each enumerating 6,188 + 455 hands (3.8e12 in all); for
three and one, 1.3e12 splits of 455 + 13 (6.3e14). Enumerating elder's dealt hand instead
(225,792,840 of them, each with 7,054,320 deals of younger's hand and the talon: 1.6e15) is
some four hundred times as long. Suits give no symmetry to divide by: a policy breaks ties of equal
keep value by suit order (of two sevens, the club goes first; of two equal points, the lower
suit is the point suit), so relabelling the suits of a deal can change what is discarded and
so the net. Memory is no limit (a split's sides fit in a megabyte); time is.
:func:`deal_value` therefore serves small packs (the tests check it against every deal), and
:func:`full_pack_estimate` times it on a sample of full-pack splits, which
:func:`unavailable_reason` turns into the reason a report gives.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass
from fractions import Fraction
from math import comb, factorial

import numba
import numpy as np

from sim.core import kernel_cache  # noqa: F401  (compiled code cached by digest)
from sim.core.combinations import next_combination
from sim.games.piquet.deal import PiquetTable, discard_of, exchange_sizes
from sim.games.piquet.hand import FACE_MASK, N_CARDS, contest_evaluated, evaluate, masks_of
from sim.games.piquet.rules import HAND, TALON, PiquetRules

FIELDS = 9  # evaluate's first eight fields (what the contest reads) and carte blanche


@numba.njit(cache=True)
def _key(f):
    """One integer per outcome of a side (its declarations and carte blanche)."""
    key = 0
    for value, size in ((f[0], 16), (f[1], 256), (f[2], 16), (f[3] + 1, 16), (f[4], 128),
                        (f[5], 8), (f[6] + 1, 16), (f[7], 64), (f[8], 2)):
        key = key * size + value
    return key


@numba.njit(cache=True)
def _side(cards, hand, take, point_w, sequence_w, sets_w, sets_from):
    """Every ``hand``-subset of ``cards`` dealt and ``take`` of it discarded by the policy:
    the distinct outcomes (rows of declarations and carte blanche) and how many hands reach
    each."""
    n = cards.shape[0]
    total = 1
    for i in range(hand):
        total = total * (n - i) // (i + 1)
    fields = np.empty((total, FIELDS), dtype=np.int64)
    keys = np.empty(total, dtype=np.int64)
    pool = masks_of(cards)
    idx = np.arange(hand)
    dealt = np.empty(hand, dtype=np.int64)
    k = 0
    while True:
        for i in range(hand):
            dealt[i] = cards[idx[i]]
        final = pool.copy()
        for c in discard_of(dealt, take, point_w, sequence_w, sets_w, sets_from):
            final[c // 8] &= ~(1 << (c % 8))
        e = evaluate(final, sets_from)
        held = masks_of(dealt)
        fields[k, 0], fields[k, 1], fields[k, 2], fields[k, 3] = e[0], e[1], e[2], e[3]
        fields[k, 4], fields[k, 5], fields[k, 6], fields[k, 7] = e[4], e[5], e[6], e[7]
        fields[k, 8] = (held[0] | held[1] | held[2] | held[3]) & FACE_MASK == 0
        keys[k] = _key(fields[k])
        k += 1
        if not next_combination(idx, n):
            break
    order = np.argsort(keys, kind="mergesort")
    rows = np.empty(total, dtype=np.int64)
    counts = np.zeros(total, dtype=np.int64)
    m = -1
    for i in range(total):
        if m < 0 or keys[order[i]] != keys[rows[m]]:
            m += 1
            rows[m] = order[i]
        counts[m] += 1
    return fields[rows[:m + 1]], counts[:m + 1]


@numba.njit(cache=True)
def split_sums(elder_cards, younger_cards, hand, ke, ky, weights, sets_from, blanche_points,
               repique_points):
    """Over every deal of one split (elder's side ``elder_cards`` = C, younger's
    ``younger_cards`` = S): the number of deals, and the sums of the net and of its square."""
    ef, ec = _side(elder_cards, hand, ke, weights[0], weights[1], weights[2], sets_from)
    yf, yc = _side(younger_cards, hand, ky, weights[3], weights[4], weights[5], sets_from)
    s1 = 0
    s2 = 0
    for i in range(ef.shape[0]):
        e = ef[i]
        eb = e[8] == 1
        for j in range(yf.shape[0]):
            y = yf[j]
            ep, yp, _, _, _, _ = contest_evaluated(e, y, eb, y[8] == 1 and not eb,
                                                   blanche_points, repique_points)
            w = ec[i] * yc[j]
            net = ep - yp
            s1 += w * net
            s2 += w * net * net
    return ec.sum() * yc.sum(), s1, s2


def _weights(table: PiquetTable) -> np.ndarray:
    e, y = table.elder, table.younger
    return np.array([e.point, e.sequence, e.sets, y.point, y.sequence, y.sets],
                    dtype=np.float64)


def sizes(rules: PiquetRules, table: PiquetTable, talon: int = TALON) -> tuple[int, int]:
    """How many cards elder and younger exchange (the kernel's own rule)."""
    ke, ky = exchange_sizes(table.elder.elder_take, table.younger.younger_take, rules.elder_max,
                            rules.younger_max, rules.minimum_exchange, talon)
    return int(ke), int(ky)


def split_count(hand: int, ke: int, ky: int, pack: int = N_CARDS) -> int:
    """The number of splits (C, S, U) of the pack: ``pack! / ((h+ke)! (h+ky)! u!)``."""
    u = pack - 2 * hand - ke - ky
    return factorial(pack) // (factorial(hand + ke) * factorial(hand + ky) * factorial(u))


def hands_per_split(hand: int, ke: int, ky: int) -> int:
    """The hands a split's two sides enumerate: ``C(h+ke, h) + C(h+ky, h)``."""
    return comb(hand + ke, hand) + comb(hand + ky, hand)


@dataclass(frozen=True)
class DealValue:
    """The exact law's first two moments of a deal's net, over every deal of a pack."""

    mean: Fraction
    variance: Fraction
    deals: int  # the partitions (E, Y, T1, T2, U) summed over


def deal_value(cards, hand: int, rules: PiquetRules, table: PiquetTable) -> DealValue:
    """The exact mean and variance of a deal's net (elder's points less younger's) when the
    pack is ``cards`` (card codes: any subset of the 32), each player is dealt ``hand`` and
    the rest is the talon; every split is enumerated (see the module's proof). Feasible for
    small packs only: the full pack has 565,722,720 splits (:func:`unavailable_reason`)."""
    cards = sorted(int(c) for c in cards)
    talon = len(cards) - 2 * hand
    if talon < 1:
        raise ValueError(f"{len(cards)} cards leave no talon after two hands of {hand}")
    ke, ky = sizes(rules, table, talon)
    if ke + ky > talon:
        raise ValueError(f"the policies exchange {ke} + {ky} cards from a talon of {talon}")
    weights = _weights(table)
    n = s1 = s2 = 0
    for elder_side in itertools.combinations(cards, hand + ke):
        rest = [c for c in cards if c not in elder_side]
        for younger_side in itertools.combinations(rest, hand + ky):
            k, a, b = split_sums(np.array(elder_side, dtype=np.int64),
                                 np.array(younger_side, dtype=np.int64), hand, ke, ky,
                                 weights, rules.set_rank, rules.carte_blanche, rules.repique)
            n, s1, s2 = n + int(k), s1 + int(a), s2 + int(b)
    mean = Fraction(s1, n)
    return DealValue(mean, Fraction(s2, n) - mean * mean, n)


def random_splits(count: int, hand: int, ke: int, ky: int, seed: int = 1
                  ) -> list[tuple[np.ndarray, np.ndarray]]:
    """``count`` splits of the full pack drawn uniformly (elder's side, younger's side)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        order = rng.permutation(N_CARDS)
        out.append((np.sort(order[:hand + ke]), np.sort(order[hand + ke:2 * hand + ke + ky])))
    return out


def full_pack_estimate(rules: PiquetRules, table: PiquetTable, sample: int = 20
                       ) -> dict[str, float]:
    """Times :func:`split_sums` on ``sample`` random full-pack splits (warm, in CPU time) and
    scales it to every split: the splits, the hands they enumerate, the seconds a split takes
    and the core-days of the whole enumeration."""
    ke, ky = sizes(rules, table)
    weights = _weights(table)
    splits = random_splits(sample, HAND, ke, ky)
    args = (HAND, ke, ky, weights, rules.set_rank, rules.carte_blanche, rules.repique)
    split_sums(*splits[0], *args)  # compile or load before the clock starts
    start = time.process_time()  # CPU time: what a core of its own would take
    for c, s in splits:
        split_sums(c, s, *args)
    per_split = (time.process_time() - start) / sample
    count = split_count(HAND, ke, ky)
    return {"splits": float(count), "hands": float(count * hands_per_split(HAND, ke, ky)),
            "seconds_per_split": per_split, "core_days": count * per_split / 86400}


# What one exchanged hand costs split_sums (a split's time over its hands), as measured by
# full_pack_estimate: CPU time on one core, the same for five-and-three and three-and-one.
SECONDS_PER_HAND = 0.64e-6


def unavailable_reason(rules: PiquetRules, table: PiquetTable) -> str:
    """Why a deal under these policies has no exact value, in one line: the splits to
    enumerate, the hands they hold, and the time that would take at :data:`SECONDS_PER_HAND`."""
    ke, ky = sizes(rules, table)
    count = split_count(HAND, ke, ky)
    hands = count * hands_per_split(HAND, ke, ky)
    days = hands * SECONDS_PER_HAND / 86400
    span = f"~{days:,.0f} core-days" if days < 1000 else f"~{days / 365:,.0f} core-years"
    return (f"no exact value: {count:,} splits of the pack into elder's {HAND + ke} cards and "
            f"younger's {HAND + ky}, no suit symmetry (the policies break ties by suit): "
            f"{hands:.1e} hands to exchange, {span}").replace("e+", "e")


__all__ = ["DealValue", "deal_value", "full_pack_estimate", "hands_per_split",
           "random_splits", "sizes", "split_count", "split_sums", "unavailable_reason"]
