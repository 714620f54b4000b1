"""Exact deal odds of bridge in fractions: splits, given cards, hand patterns, high-card points.

Every count here is a product of binomial coefficients, so every probability is an exact
:class:`~fractions.Fraction`; the functions take the pack's shape as parameters so that tests
can check them against brute-force enumeration of every deal of a stripped pack.

*Splits.* Declarer sees 26 cards (his and dummy's); the other 26 lie in two hands of 13, and
every division of them is equally likely. The opponents hold ``n`` cards of a suit; West holds
``w`` of them with probability ``C(n, w) C(U - n, W - w) / C(U, W)`` (``U`` unseen cards, ``W``
of them West's): choose West's cards of the suit, then his others. A split ``a-b`` (``a >= b``)
is either hand holding ``a``; for ``a != b`` that is twice one hand's term.

*Given cards.* West holds all of ``k`` named unseen cards with probability
``C(U - k, W - k) / C(U, W)`` and none of them with ``C(U - k, W) / C(U, W)``; "at least one" is
the complement of none.

*Patterns and points.* A hand of ``h`` cards from ``s`` suits of ``r`` cards: the hands with
suit lengths ``(l_1, .., l_s)`` number ``prod C(r, l_i)``; a pattern (lengths sorted, suits
unnamed) sums that over the distinct orderings. High-card points depend only on how many aces,
kings, queens and jacks the hand holds: ``prod C(4, c_i) C(others, h - sum c_i)`` hands hold
``c_i`` of each honour rank.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from fractions import Fraction
from math import comb

HAND = 13
UNSEEN = 26
HCP_GROUPS = ((4, 4), (4, 3), (4, 2), (4, 1))  # (cards, points): aces, kings, queens, jacks


def west_holds(n: int, w: int, west: int = HAND, unseen: int = UNSEEN) -> Fraction:
    """P(West holds exactly ``w`` of the ``n`` outstanding cards of a suit).

    Args:
        n: cards of the suit the opponents hold together.
        w: how many of them West holds.
        west: West's unseen cards (13 before a card is played).
        unseen: the cards declarer cannot see (West's and East's).
    """
    if not 0 <= w <= n <= unseen or not 0 <= west <= unseen:
        raise ValueError(f"need 0 <= w <= n <= unseen and 0 <= west <= unseen, got "
                         f"w={w}, n={n}, west={west}, unseen={unseen}")
    return Fraction(comb(n, w) * comb(unseen - n, west - w), comb(unseen, west))


def splits(n: int, west: int = HAND, unseen: int = UNSEEN) -> dict[tuple[int, int], Fraction]:
    """The splits ``(a, b)``, ``a >= b``, of ``n`` outstanding cards between the two opponents
    (either way round), with their exact probabilities (they sum to 1)."""
    east = unseen - west
    out: dict[tuple[int, int], Fraction] = {}
    for w in range(max(0, n - east), min(n, west) + 1):
        key = (max(w, n - w), min(w, n - w))
        out[key] = out.get(key, Fraction(0)) + west_holds(n, w, west, unseen)
    return dict(sorted(out.items(), reverse=True))


def holds_all(k: int, west: int = HAND, unseen: int = UNSEEN) -> Fraction:
    """P(a given opponent holds all ``k`` named unseen cards): 1/2 for one, 6/25 for two."""
    return Fraction(comb(unseen - k, west - k), comb(unseen, west)) if k <= west else Fraction(0)


def holds_none(k: int, west: int = HAND, unseen: int = UNSEEN) -> Fraction:
    """P(a given opponent holds none of ``k`` named unseen cards)."""
    return Fraction(comb(unseen - k, west), comb(unseen, west))


def holds_at_least_one(k: int, west: int = HAND, unseen: int = UNSEEN) -> Fraction:
    """P(a given opponent holds at least one of ``k`` named unseen cards): 19/25 for two."""
    return 1 - holds_none(k, west, unseen)


def pattern_counts(hand: int = HAND, suit_size: int = 13, suits: int = 4) -> dict[tuple, int]:
    """Hands of ``hand`` cards by pattern (suit lengths, longest first): how many of them."""
    out: dict[tuple, int] = {}
    for lengths in itertools.product(range(min(hand, suit_size) + 1), repeat=suits):
        if sum(lengths) != hand:
            continue
        ways = 1
        for length in lengths:
            ways *= comb(suit_size, length)
        key = tuple(sorted(lengths, reverse=True))
        out[key] = out.get(key, 0) + ways
    return dict(sorted(out.items(), key=lambda kv: -kv[1]))


def patterns(hand: int = HAND, suit_size: int = 13, suits: int = 4) -> dict[tuple, Fraction]:
    """Each hand pattern's exact probability, most likely first (4-4-3-2: 216/1001 ...)."""
    total = comb(suit_size * suits, hand)
    return {k: Fraction(v, total) for k, v in pattern_counts(hand, suit_size, suits).items()}


def hcp_counts(hand: int = HAND, groups: Sequence[tuple[int, int]] = HCP_GROUPS,
               pack: int = 52) -> dict[int, int]:
    """Hands by high-card points: points -> number of hands.

    Args:
        hand: cards in a hand.
        groups: ``(cards, points)`` per honour rank (default: 4 aces at 4 ... 4 jacks at 1).
        pack: cards in the pack (the rest carry no points).
    """
    others = pack - sum(c for c, _ in groups)
    if others < 0:
        raise ValueError("the honour groups hold more cards than the pack")
    out: dict[int, int] = {}
    for held in itertools.product(*(range(c + 1) for c, _ in groups)):
        rest = hand - sum(held)
        if rest < 0 or rest > others:
            continue
        ways = comb(others, rest)
        points = 0
        for h, (c, p) in zip(held, groups):
            ways *= comb(c, h)
            points += h * p
        out[points] = out.get(points, 0) + ways
    return dict(sorted(out.items()))


def hcp_distribution(hand: int = HAND, groups: Sequence[tuple[int, int]] = HCP_GROUPS,
                     pack: int = 52) -> dict[int, Fraction]:
    """P(a hand holds exactly k high-card points), for every k that occurs."""
    total = comb(pack, hand)
    return {k: Fraction(v, total) for k, v in hcp_counts(hand, groups, pack).items()}


def hcp_at_least(dist: dict[int, Fraction]) -> dict[int, Fraction]:
    """P(at least k points) for every k of ``dist``."""
    out, tail = {}, Fraction(0)
    for k in sorted(dist, reverse=True):
        tail += dist[k]
        out[k] = tail
    return dict(sorted(out.items()))


def mean_and_variance(dist: dict[int, Fraction]) -> tuple[Fraction, Fraction]:
    """The exact mean and variance of a distribution given as value -> probability."""
    mean = sum((k * p for k, p in dist.items()), Fraction(0))
    second = sum((k * k * p for k, p in dist.items()), Fraction(0))
    return mean, second - mean * mean


def texts_figures() -> list[dict]:
    """The figures the source texts quote, beside the exact values (the texts round them)."""
    rows = [
        ("a given opponent holds one particular card", "50%", holds_all(1)),
        ("a given opponent holds two particular cards", "approximately 25%", holds_all(2)),
        ("a given opponent holds at least one of two particular cards", "approximately 75%",
         holds_at_least_one(2)),
        ("5 outstanding cards divide 3-2", "68%", splits(5)[(3, 2)]),
        ("6 outstanding cards divide 4-2", "48%", splits(6)[(4, 2)]),
        ("6 outstanding cards divide 3-3", "36%", splits(6)[(3, 3)]),
    ]
    return [{"figure": what, "text": text, "exact": str(p), "probability": float(p)}
            for what, text, p in rows]
