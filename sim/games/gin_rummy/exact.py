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
import itertools
import math
from fractions import Fraction

import numpy as np

from sim.core.cards import N_RANKS, N_SUITS
from sim.games.gin_rummy.melds import step, transitions


@functools.cache
def _states(suits: int) -> tuple[tuple[int, ...], ...]:
    """Every run state (a tuple of suit states), indexed by its code: the digits of the code
    in base 4, suit 0 first, so codes sort as the tuples do."""
    return tuple(itertools.product(range(4), repeat=suits))


@functools.cache
def _steps(suits: int) -> tuple[tuple[int, ...], ...]:
    """``_steps(suits)[code][run_mask]``: the code of :func:`.melds.step`'s state, -1 for
    None."""
    code = {state: i for i, state in enumerate(_states(suits))}
    return tuple(tuple(-1 if (nxt := step(state, mask)) is None else code[nxt]
                       for mask in range(1 << suits)) for state in _states(suits))


@functools.cache
def _dominators(suits: int) -> tuple[frozenset[int], ...]:
    """Per state code, the codes of the states that dominate it (:func:`_dominates`)."""
    states = _states(suits)
    return tuple(frozenset(i for i, a in enumerate(states) if _dominates(a, b))
                 for b in states)


@functools.cache
def _moves(present: int, suits: int) -> tuple[tuple[int, int], ...]:
    """:func:`.melds.transitions` as (run mask, dead count) pairs."""
    return tuple((mask, dead) for mask, _, dead in transitions(present, suits))


def _extend(config: tuple, present: int, pip: int, cap: int, suits: int) -> tuple:
    # States by code (:func:`_states`): the walk is the same, and a code is cheaper to hash,
    # step and compare than a tuple (the count of the full pack makes 750,000 extensions).
    steps = _steps(suits)
    moves = _moves(present, suits)
    best: dict[int, int] = {}
    for state, cost in config:
        row = steps[state]
        for run_mask, dead in moves:
            nxt = row[run_mask]
            if nxt < 0:
                continue
            value = cost + dead * pip
            if value < best.get(nxt, cap):  # a state at cap or more can never matter
                best[nxt] = value
    dominators = _dominators(suits)
    kept: list[tuple[int, int]] = []
    held: set[int] = set()
    for state, cost in sorted(best.items(), key=lambda item: item[1]):
        # only a state of as little deadwood, so one kept already, can dominate this one
        if dominators[state].isdisjoint(held):
            kept.append((state, cost))
            held.add(state)
    return tuple(sorted(kept))


def _dominates(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    """Run states ``a`` can do all that ``b`` can, suit by suit: a run that may stop (3) can
    do all that any state can, and a run of two all that a run of one can."""
    return all(x == y or x == 3 or (x == 2 and y == 1) for x, y in zip(a, b))


@functools.cache
def _closed(suits: int) -> tuple[bool, ...]:
    """Per state code: no run is left short."""
    return tuple(all(s in (0, 3) for s in state) for state in _states(suits))


def _final(config: tuple, cap: int, suits: int) -> int:
    closed = _closed(suits)
    return min((cost for state, cost in config if closed[state]), default=cap)


@functools.cache
def deadwood_counts(hand_size: int = 10, ranks: int = N_RANKS, suits: int = N_SUITS,
                    cap: int = 11) -> tuple[int, ...]:
    """The number of hands of ``hand_size`` cards (from a pack of the lowest ``ranks`` ranks in
    ``suits`` suits) by least deadwood 0, 1, ..., cap - 1, and ``cap`` or more (last entry)."""
    start = ((0, 0),)  # no run open: code 0
    layer: dict[tuple, dict[int, int]] = {start: {0: 1}}
    cache: dict[tuple, tuple] = {}
    sizes = [bin(present).count("1") for present in range(1 << suits)]
    for r in range(ranks):
        pip = min(r + 1, 10, cap)
        nxt_layer: dict[tuple, dict[int, int]] = {}
        for config, by_cards in layer.items():
            for present, k in enumerate(sizes):
                key = (config, present, pip)
                new = cache.get(key)  # () when every state is at cap or more: a sink
                if new is None:
                    new = cache[key] = _extend(config, present, pip, cap, suits)
                slot = nxt_layer.setdefault(new, {})
                for cards, count in by_cards.items():
                    if cards + k <= hand_size:
                        slot[cards + k] = slot.get(cards + k, 0) + count
        layer = {c: v for c, v in nxt_layer.items() if v}
    counts = [0] * (cap + 1)
    for config, by_cards in layer.items():
        counts[_final(config, cap, suits)] += by_cards.get(hand_size, 0)
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
