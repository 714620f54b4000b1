"""Exact odds of a dealt gin rummy hand by counting hands rank by rank.

The walk of :mod:`.melds` finds one hand's deadwood; here it runs over every hand at once. Up
the ranks, a *configuration* is what the walk knows of the ranks so far: for each run state
reachable (a tuple of suit states), the least deadwood that reaches it; a state whose deadwood
has reached ``cap`` is dropped (it can only grow), and a hand left with no state has deadwood
``cap`` or more. A state is dropped too when another reaches as little deadwood and can do, suit
by suit, all it can (a run that may stop can do all, a run of two all a run of one can): what
follows from it never leaves less, and fewer states make fewer configurations. Hands with the
same configuration and the same number of cards continue alike, so the counting keeps, per
(configuration, cards), the number of hands that led there, and extends each by every subset
of the suits at the next rank. After the last rank
a hand's deadwood is the least over its states that leave no run short. With ``cap = 1`` this
counts gin hands; with ``cap = 11`` it gives the exact distribution of the deadwood from 0 to
10 (the hands that may knock) and the chance of more.

A configuration is a canonical tuple, so the count is exact integer arithmetic. Tests check it
against the deadwood of every hand of stripped packs.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import numpy as np

from sim.cards import N_RANKS, N_SUITS
from sim.games.gin_rummy.melds import step, transitions


def _extend(config: tuple, present: int, pip: int, cap: int, suits: int) -> tuple:
    best: dict[tuple[int, ...], int] = {}
    moves = transitions(present, suits)
    for state, cost in config:
        for run_mask, _, dead in moves:
            nxt = step(state, run_mask)
            if nxt is None:
                continue
            value = cost + dead * pip
            if value < best.get(nxt, cap):  # a state at cap or more can never matter
                best[nxt] = value
    kept: list[tuple[tuple[int, ...], int]] = []
    for state, cost in sorted(best.items(), key=lambda item: item[1]):
        # only a state of as little deadwood, so one kept already, can dominate this one
        if not any(_dominates(other, state) for other, _ in kept):
            kept.append((state, cost))
    return tuple(sorted(kept))


@functools.cache
def _dominates(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    """Run states ``a`` can do all that ``b`` can, suit by suit: a run that may stop (3) can
    do all that any state can, and a run of two all that a run of one can."""
    return all(x == y or x == 3 or (x == 2 and y == 1) for x, y in zip(a, b))


def _final(config: tuple, cap: int) -> int:
    return min((cost for state, cost in config if all(s in (0, 3) for s in state)),
               default=cap)


@functools.cache
def deadwood_counts(hand_size: int = 10, ranks: int = N_RANKS, suits: int = N_SUITS,
                    cap: int = 11) -> tuple[int, ...]:
    """The number of hands of ``hand_size`` cards (from a pack of the lowest ``ranks`` ranks in
    ``suits`` suits) by least deadwood 0, 1, ..., cap - 1, and ``cap`` or more (last entry)."""
    start = ((tuple([0] * suits), 0),)
    layer: dict[tuple, dict[int, int]] = {start: {0: 1}}
    cache: dict[tuple, tuple] = {}
    for r in range(ranks):
        pip = min(r + 1, 10)
        nxt_layer: dict[tuple, dict[int, int]] = {}
        for config, by_cards in layer.items():
            for present in range(1 << suits):
                k = bin(present).count("1")
                key = (config, present, min(pip, cap))
                if key not in cache:
                    cache[key] = _extend(config, present, min(pip, cap), cap, suits)
                new = cache[key]  # () when every state is at cap or more: a sink
                slot = nxt_layer.setdefault(new, {})
                for cards, count in by_cards.items():
                    if cards + k <= hand_size:
                        slot[cards + k] = slot.get(cards + k, 0) + count
        layer = {c: v for c, v in nxt_layer.items() if v}
    counts = [0] * (cap + 1)
    for config, by_cards in layer.items():
        counts[_final(config, cap)] += by_cards.get(hand_size, 0)
    return tuple(counts)


def gin_probability(hand_size: int = 10, ranks: int = N_RANKS, suits: int = N_SUITS
                    ) -> Fraction:
    """The exact chance that ``hand_size`` cards dealt from the pack meld completely."""
    counts = deadwood_counts(hand_size, ranks, suits, cap=1)
    return Fraction(counts[0], math.comb(ranks * suits, hand_size))


def deadwood_distribution(hand_size: int = 10, ranks: int = N_RANKS, suits: int = N_SUITS,
                          cap: int = 11) -> np.ndarray:
    """Probabilities of deadwood 0 .. cap - 1 and of cap or more (float)."""
    counts = np.array(deadwood_counts(hand_size, ranks, suits, cap), dtype=float)
    return counts / math.comb(ranks * suits, hand_size)
