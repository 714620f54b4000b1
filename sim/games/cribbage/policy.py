"""Discard policies as data, and the exact values they choose by.

A :class:`DiscardPolicy` tells which cards a player keeps of those dealt to him:

* ``"first"``: the first cards dealt (the deal is random, so this is a random keep: the
  baseline whose whole-deal expectation is known exactly);
* ``"count"``: the keep with the highest pip count (the naive "keep the big cards"; ties to the
  higher ranks, then to the better expected hand);
* ``"hand"``: the keep with the best expected hand, averaged exactly over every starter he
  cannot see (the 52 cards less his own);
* ``"hand-crib"``: the best expected hand plus ``crib_weight`` times the expected crib of his
  discards for the dealer (and his partner), minus it for his opponents.

The expected crib of some discards, :func:`crib_table`, is exact for a crib completed by
random cards (the other discards and the starter drawn from the rest of the pack): the
classical discard tables. It ignores what the discarder keeps and how the other players
choose their discards, which is why it is a table of two cards and not a walk of every deal.
By suit symmetry it depends only on the discards' ranks and on whether they share a suit, so
one representative of each class is enumerated.

The same compiled functions choose on both paths, so the reference and the kernel make the
same choice on the same cards.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numba
import numpy as np

from sim.core import kernel_cache  # noqa: F401  (compiled code cached by digest)
from sim.core.cards import N_SUITS
from sim.core.combinations import next_combination
from sim.games.cribbage.pegging import PLAYS
from sim.games.cribbage.rules import CribbageView
from sim.games.cribbage.score import kernel_show, pips, rank_points_table

KINDS = ("first", "count", "hand", "hand-crib")


@dataclass(frozen=True)
class DiscardPolicy:
    """A discard policy as data (see the module docstring).

    Attributes:
        kind: ``"first"``, ``"count"``, ``"hand"`` or ``"hand-crib"``.
        crib_weight: with ``"hand-crib"``, how much one point of crib counts against one of
            hand (1: points are points).
        play: how the cards are laid in the play, where the rules peg it (one of
            :data:`~sim.games.cribbage.pegging.PLAYS`).
        dealer_play: how the dealer lays them, if not by ``play`` (a head-to-head of two
            play policies); empty: by ``play``.
    """

    kind: str = "hand"
    crib_weight: float = 1.0
    play: str = "greedy"
    dealer_play: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind: expected one of {', '.join(KINDS)}, got {self.kind!r}")
        if not isinstance(self.crib_weight, (int, float)) or isinstance(self.crib_weight, bool):
            raise ValueError(f"crib_weight: expected a number, got {self.crib_weight!r}")
        if self.play not in PLAYS:
            raise ValueError(f"play: expected one of {', '.join(PLAYS)}, got {self.play!r}")
        if self.dealer_play and self.dealer_play not in PLAYS:
            raise ValueError(f"dealer_play: expected one of {', '.join(PLAYS)}, "
                             f"got {self.dealer_play!r}")

    @property
    def code(self) -> int:
        return KINDS.index(self.kind)


@numba.njit(cache=True)
def _crib_mean(discards, pack, table):
    """Mean crib score with ``discards`` and the rest of the crib and the starter drawn from
    ``pack`` (which excludes the discards)."""
    d = discards.shape[0]
    rest = 4 - d
    n = pack.shape[0]
    crib = np.empty(4, dtype=np.int64)
    for i in range(d):
        crib[i] = discards[i]
    scratch = np.empty(5, dtype=np.int64)
    idx = np.arange(rest)
    total = 0
    count = 0
    while True:
        for i in range(rest):
            crib[d + i] = pack[idx[i]]
        j = 0
        for s in range(n):
            if j < rest and idx[j] == s:
                j += 1
                continue
            total += kernel_show(crib, 4, pack[s], True, table, scratch)
            count += 1
        if not next_combination(idx, n):
            break
    return total / count


@functools.cache
def crib_table(discards: int) -> np.ndarray:
    """Expected crib score given one seat's discards, the rest random: a (52,) array for one
    discard, (52, 52) for two (the diagonal unused). Read-only."""
    table = rank_points_table(5)
    full = np.arange(52, dtype=np.int64)
    if discards == 1:
        out = np.empty(52)
        for rank in range(13):
            card = rank * N_SUITS
            value = _crib_mean(np.array([card]), full[full != card], table)
            out[rank * N_SUITS:(rank + 1) * N_SUITS] = value
    elif discards == 2:
        out = np.zeros((52, 52))
        for r1 in range(13):
            for r2 in range(r1, 13):
                for suited in ((False, True) if r1 != r2 else (False,)):
                    a, b = r1 * N_SUITS, r2 * N_SUITS + (0 if suited else 1)
                    rest = full[(full != a) & (full != b)]
                    value = _crib_mean(np.array([a, b]), rest, table)
                    for s1 in range(N_SUITS):
                        for s2 in range(N_SUITS):
                            if (s1 == s2) == suited and (r1 != r2 or s1 != s2):
                                out[r1 * N_SUITS + s1, r2 * N_SUITS + s2] = value
                                out[r2 * N_SUITS + s2, r1 * N_SUITS + s1] = value
    else:
        raise ValueError(f"discards: expected 1 or 2, got {discards}")
    out.setflags(write=False)
    return out


@functools.cache
def keep_indices(cards_dealt: int, hand_size: int) -> tuple[np.ndarray, np.ndarray]:
    """Every keep of ``hand_size`` positions from ``cards_dealt`` (lexicographic, so the first
    is the first cards dealt) and the discarded positions of each."""
    keeps = list(itertools.combinations(range(cards_dealt), hand_size))
    drops = [[i for i in range(cards_dealt) if i not in k] for k in keeps]
    return np.array(keeps, dtype=np.int64), np.array(drops, dtype=np.int64)


@numba.njit(cache=True)
def kernel_unseen(cards, n_dealt, rank_left, suit_left):
    """Count, by rank and by suit, the cards a player holding ``cards[:n_dealt]`` cannot see
    (the rest of the 52); returns how many there are."""
    rank_left[:] = 4
    suit_left[:] = 13
    for i in range(n_dealt):
        rank_left[cards[i] // 4] -= 1
        suit_left[cards[i] % 4] -= 1
    return 52 - n_dealt


@numba.njit(cache=True)
def kernel_expected_hand(hand, k, rank_left, suit_left, n_left, table, scratch):
    """Exact mean show of the ``k`` cards ``hand`` over every starter a player cannot see
    (counted by :func:`kernel_unseen`).

    Grouped by the starter's rank, not walked card by card: fifteens, pairs and runs depend on
    its rank only (one table entry a rank, weighted by the cards of that rank left); the flush
    scores k with any starter and one more with each starter of the hand's suit; his nobs
    scores with each starter of his jack's suit."""
    for i in range(k):
        scratch[i] = hand[i] // 4
    for i in range(1, k):
        x = scratch[i]
        j = i - 1
        while j >= 0 and scratch[j] > x:
            scratch[j + 1] = scratch[j]
            j -= 1
        scratch[j + 1] = x
    total = 0.0
    for r in range(13):
        if rank_left[r] == 0:
            continue
        key = 0
        placed = False
        for i in range(k):
            if not placed and r < scratch[i]:
                key = key * 13 + r
                placed = True
            key = key * 13 + scratch[i]
        if not placed:
            key = key * 13 + r
        total += rank_left[r] * table[key]
    suit = hand[0] % 4
    flush = True
    for i in range(k):
        if hand[i] % 4 != suit:
            flush = False
        if hand[i] // 4 == 10:
            total += suit_left[hand[i] % 4]  # his nobs
    if flush:
        total += k * n_left + suit_left[suit]
    return total / n_left


@numba.njit(cache=True)
def kernel_choose(cards, n_dealt, kind, weight, keeps, drops, table, crib1, crib2,
                  hand, unseen, scratch):
    """The keep (a row of ``keeps``) a policy chooses for ``cards[:n_dealt]``, and its exact
    expected hand over the starters. ``weight`` is the crib's sign and weight for this seat
    (0 unless the kind is hand-crib); ``unseen`` is a work array of 17 (rank and suit
    counts)."""
    rank_left = unseen[:13]
    suit_left = unseen[13:17]
    n_left = kernel_unseen(cards, n_dealt, rank_left, suit_left)
    k = keeps.shape[1]
    best = 0
    best_value = -1e300
    if kind == 0:
        for i in range(k):
            hand[i] = cards[keeps[0, i]]
        return 0, kernel_expected_hand(hand, k, rank_left, suit_left, n_left, table, scratch)
    chosen_ev = -1.0
    for j in range(keeps.shape[0]):
        for i in range(k):
            hand[i] = cards[keeps[j, i]]
        ev = kernel_expected_hand(hand, k, rank_left, suit_left, n_left, table, scratch)
        if kind == 1:
            value = 0.0
            for i in range(k):
                r = hand[i] // 4
                value += min(r + 1, 10) * 100.0 + r
        else:
            value = ev
            if kind == 3:
                if drops.shape[1] == 2:
                    value += weight * crib2[cards[drops[j, 0]], cards[drops[j, 1]]]
                else:
                    value += weight * crib1[cards[drops[j, 0]]]
        # Ties go to the better hand, so the value chosen does not depend on the order the
        # cards were dealt in (the exact whole-deal value enumerates deals sorted).
        if value > best_value + 1e-9 or (value > best_value - 1e-9 and ev > chosen_ev + 1e-12):
            best_value = max(value, best_value)
            best = j
            chosen_ev = ev
    return best, chosen_ev


def crib_weight_of(seat: int, team: bool, policy: DiscardPolicy) -> float:
    """The crib's weight in a seat's choice: + for the dealer (and his partner, with
    ``team``), - for the others; 0 unless the policy weighs the crib."""
    if policy.kind != "hand-crib":
        return 0.0
    own = seat == 0 or (team and seat == 2)
    return policy.crib_weight if own else -policy.crib_weight


def choose(view: CribbageView, policy: DiscardPolicy) -> tuple[int, ...]:
    """The cards a policy lays away from ``view.cards`` (the reference path's call into the
    compiled chooser the kernel uses)."""
    dealt = len(view.cards)
    k = dealt - view.discard
    keeps, drops = keep_indices(dealt, k)
    cards = np.array(view.cards, dtype=np.int64)
    j, _ = kernel_choose(cards, dealt, policy.code,
                         crib_weight_of(view.seat, view.partners, policy), keeps, drops,
                         rank_points_table(k + 1), crib_table(1), crib_table(2),
                         np.empty(k, np.int64), np.empty(17, np.int64), np.empty(6, np.int64))
    return tuple(int(cards[i]) for i in drops[j])


def expected_hand(dealt: Sequence[int], kept: Sequence[int]) -> float:
    """The exact mean show of ``kept`` over every starter not among ``dealt``."""
    cards = np.array(list(dealt), dtype=np.int64)
    hand = np.array(list(kept), dtype=np.int64)
    unseen = np.empty(17, dtype=np.int64)
    n_left = kernel_unseen(cards, cards.size, unseen[:13], unseen[13:])
    return float(kernel_expected_hand(hand, hand.size, unseen[:13], unseen[13:], n_left,
                                      rank_points_table(hand.size + 1),
                                      np.empty(6, np.int64)))


def pip_count(cards: Sequence[int]) -> int:
    """The pip total of some cards."""
    return sum(pips(c // N_SUITS) for c in cards)


@numba.njit(cache=True)
def _policy_hand_sum(dealt, kind, weight, keeps, drops, table, crib1, crib2):
    """The sum over every deal of ``dealt`` cards from the 52 of the exact expected hand of
    the keep a policy makes, and the number of deals."""
    idx = np.arange(dealt)
    cards = np.empty(dealt, dtype=np.int64)
    k = keeps.shape[1]
    hand = np.empty(k, dtype=np.int64)
    unseen = np.empty(17, dtype=np.int64)
    scratch = np.empty(6, dtype=np.int64)
    total = 0.0
    count = 0
    while True:
        for i in range(dealt):
            cards[i] = idx[i]
        _, ev = kernel_choose(cards, dealt, kind, weight, keeps, drops, table, crib1, crib2,
                              hand, unseen, scratch)
        total += ev
        count += 1
        if not next_combination(idx, 52):
            break
    return total, count


@functools.cache
def exact_policy_hand(cards_dealt: int, hand_size: int, kind: str, weight: float) -> float:
    """The exact expected hand of a seat that keeps by a policy, over every deal to it and
    every starter.

    A seat's keep depends on its own cards only (the crib table is fixed), and given its own
    cards the starter is equally likely to be any of the others, whatever the other seats
    hold; so the mean over its deals of the exact expected hand of its keep is the exact
    expected hand. ``weight`` is the crib's weight for the seat (see
    :func:`crib_weight_of`)."""
    if kind == "first":
        raise ValueError("the first cards of a sorted deal are not a random keep")
    keeps, drops = keep_indices(cards_dealt, hand_size)
    total, count = _policy_hand_sum(cards_dealt, KINDS.index(kind), weight, keeps, drops,
                                    rank_points_table(hand_size + 1), crib_table(1),
                                    crib_table(2))
    return total / count
