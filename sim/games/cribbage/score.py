"""Scoring a cribbage hand or crib in the show, plainly and in compiled form.

The show counts the hand (three, four or five cards) with the starter as one more card:

* **fifteens**: every set of two or more cards whose pips sum to 15 scores 2 (ace 1, court
  cards 10);
* **pairs**: every pair of cards of one rank scores 2 (so three of a kind, a pair royal, is 6 and
  four, a double pair royal, 12);
* **runs**: every sequence of three or more consecutive ranks (ace low, king high, no wrap)
  scores one a card, counted once for each way of picking one card of each rank from a
  maximal sequence (so 3-3-4-5 is two runs of three, 6), and a run of four or five is never
  also counted as runs of three;
* **flush**: a hand whose cards are all of one suit scores a point a card, one more if the
  starter is of that suit too; a crib scores a flush only when all five cards (crib and
  starter) are of one suit;
* **his nobs**: the jack of the starter's suit in the hand (or crib) scores 1.

His heels (the starter a jack: 2 to the dealer) is scored when the starter is turned, not in
the show; :mod:`sim.games.cribbage.deal` adds it to the dealer.

:func:`show_score` is the reference, readable line by line; :func:`rank_points_table` holds
the part of the score that depends on ranks only (fifteens, pairs, runs) for every multiset of
ranks, and :func:`kernel_show` scores a hand from that table plus the suits; tests check the
two against each other on every hand of stripped packs.
"""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numba
import numpy as np

from sim.core import kernel_cache  # noqa: F401  (compiled code cached by digest)
from sim.core.cards import N_RANKS, N_SUITS, RANK_SYMBOLS, SUIT_SYMBOLS

JACK = 10  # rank code of the jack (ace = 0)


def pips(rank: int) -> int:
    """The counting value of a rank: ace 1, two to nine their number, ten and court cards 10."""
    return min(rank + 1, 10)


@dataclass(frozen=True)
class ShowScore:
    """A show score by its parts (points, not counts)."""

    fifteens: int
    pairs: int
    runs: int
    flush: int
    nobs: int

    @property
    def total(self) -> int:
        return self.fifteens + self.pairs + self.runs + self.flush + self.nobs


def parse_cards(text: str) -> tuple[int, ...]:
    """Card codes from names like ``"5h 5d 5s Jc"`` (rank symbol A23456789TJQK, or 10, then
    suit c, d, h, s).

    Raises:
        ValueError: a name that is not a card.
    """
    cards = []
    for name in text.replace(",", " ").split():
        rank, suit = name[:-1].upper(), name[-1].lower()
        rank = "T" if rank == "10" else rank
        if len(rank) != 1 or rank not in RANK_SYMBOLS or suit not in SUIT_SYMBOLS:
            raise ValueError(f"not a card: {name!r} (expected e.g. 5h, Tc, 10c, Js)")
        cards.append(RANK_SYMBOLS.index(rank) * N_SUITS + SUIT_SYMBOLS.index(suit))
    return tuple(cards)


def _rank_parts(ranks: Sequence[int]) -> tuple[int, int, int]:
    """Fifteens, pairs and runs of some ranks (the suit-free part of a score)."""
    values = [pips(r) for r in ranks]
    fifteens = sum(2 for size in range(2, len(values) + 1)
                   for combo in itertools.combinations(values, size) if sum(combo) == 15)
    counts = Counter(ranks)
    pairs = sum(c * (c - 1) for c in counts.values())
    runs = 0
    r = 0
    while r < N_RANKS:
        if counts[r] == 0:
            r += 1
            continue
        start, ways = r, 1
        while r < N_RANKS and counts[r]:
            ways *= counts[r]
            r += 1
        if r - start >= 3:
            runs += (r - start) * ways
    return fifteens, pairs, runs


def show_breakdown(hand: Sequence[int], starter: int, crib: bool = False) -> ShowScore:
    """The show score of ``hand`` (card codes) with ``starter``, by parts.

    Args:
        hand: the cards of the hand or crib (three to five), without the starter.
        starter: the starter card.
        crib: score as the crib (a flush needs the starter's suit as well).
    """
    cards = [*hand, starter]
    fifteens, pairs, runs = _rank_parts([c // N_SUITS for c in cards])
    suits = {c % N_SUITS for c in hand}
    flush = 0
    if len(suits) == 1:
        same = starter % N_SUITS in suits
        if same:
            flush = len(hand) + 1
        elif not crib:
            flush = len(hand)
    nobs = int(any(c // N_SUITS == JACK and c % N_SUITS == starter % N_SUITS for c in hand))
    return ShowScore(fifteens, pairs, runs, flush, nobs)


def show_score(hand: Sequence[int], starter: int, crib: bool = False) -> int:
    """The show score of ``hand`` with ``starter`` (see :func:`show_breakdown`).

    >>> show_score(parse_cards("5c 5d 5h Js"), parse_cards("5s")[0])
    29
    >>> show_score(parse_cards("As 6s 7s 8s"), parse_cards("6h")[0])
    18
    """
    return show_breakdown(hand, starter, crib).total


# ------------------------------------------------------------------ compiled form
def rank_key(ranks: Sequence[int]) -> int:
    """The table index of a multiset of ranks: its sorted ranks as base-13 digits."""
    key = 0
    for r in sorted(ranks):
        key = key * N_RANKS + r
    return key


@functools.cache
def rank_points_table(n_cards: int) -> np.ndarray:
    """Fifteens + pairs + runs of every multiset of ``n_cards`` ranks (at most four of a
    rank), indexed by :func:`rank_key`; other entries are -1."""
    table = np.full(N_RANKS ** n_cards, -1, dtype=np.int16)
    for ranks in itertools.combinations_with_replacement(range(N_RANKS), n_cards):
        if max(Counter(ranks).values()) <= N_SUITS:
            table[rank_key(ranks)] = sum(_rank_parts(ranks))
    return table


@numba.njit(cache=True, inline="always")
def kernel_show(hand, k, starter, crib, table, scratch):
    """Compiled :func:`show_score` of the first ``k`` codes of ``hand``: ``table`` is the
    :func:`rank_points_table` of ``k + 1`` cards, ``scratch`` an int64 array of ``k + 1``
    (kernels call this in their inner loops, so it allocates nothing)."""
    ranks = scratch
    ranks[k] = starter // 4
    for i in range(k):
        ranks[i] = hand[i] // 4
    for i in range(1, k + 1):  # insertion sort of four to six ranks
        x = ranks[i]
        j = i - 1
        while j >= 0 and ranks[j] > x:
            ranks[j + 1] = ranks[j]
            j -= 1
        ranks[j + 1] = x
    key = 0
    for i in range(k + 1):
        key = key * 13 + ranks[i]
    points = np.int64(table[key])
    suit = hand[0] % 4
    starter_suit = starter % 4
    flush = True
    for i in range(k):
        if hand[i] % 4 != suit:
            flush = False
        if hand[i] // 4 == 10 and hand[i] % 4 == starter_suit:
            points += 1  # his nobs
    if flush:
        if suit == starter_suit:
            points += k + 1
        elif not crib:
            points += k
    return points


def card_names(cards: Sequence[int]) -> str:
    """``"5c 5d 5h Js"`` for some codes."""
    return " ".join(RANK_SYMBOLS[c // N_SUITS] + SUIT_SYMBOLS[c % N_SUITS] for c in cards)
