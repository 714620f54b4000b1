"""Melds and deadwood of a gin rummy hand, by a walk over the ranks.

A hand melds into *sets* (three or four cards of one rank) and *runs* (three or more cards of
one suit in sequence, ace low: A-2-3 is a run, Q-K-A is not); a card belongs to one meld at
most. Its *deadwood* is the pip total of the cards left unmatched (ace 1, court cards 10) by
the best arrangement; a hand with no deadwood is *gin*.

The walk goes up the ranks, ace first, carrying for each suit the state of the run that suit
may have open: 0 none, 1 or 2 a run of that many cards that must go on, 3 a run long enough
to stop. At each rank every card present is put in a run of its suit, in the rank's set
(which must then hold three or four cards) or in the deadwood; a suit whose card is absent or
goes elsewhere must not leave a run of one or two open. A run of three or more that could stop
and start afresh is never better than one that goes on (the state 3 allows all that state 1
allows), so a run never restarts while it may stop. Every arrangement of the hand into melds
is one path of this walk, and every path that ends with no run left short is one
arrangement, so the least deadwood over the paths is the hand's deadwood. The 4^4 = 256
states a rank make :func:`kernel_deadwood` a few microseconds a hand.
"""

from __future__ import annotations

import functools

import numba
import numpy as np

from sim.core import kernel_cache  # noqa: F401  (compiled code cached by digest)
from sim.core.cards import N_SUITS

_ADVANCE = (1, 2, 3, 3)  # a run's state after one more card


@functools.cache
def transitions(present: int, suits: int = N_SUITS) -> list[tuple[int, tuple[int, ...], int]]:
    """Every way to place the cards of one rank (``present``: a bitmask of suits): a list of
    (required "may stop" mask, the new run state per suit as a function index, dead count).

    Used by the counting walk of :mod:`.exact`; :func:`kernel_deadwood` does the same inline.
    """
    out = []
    cards = [s for s in range(suits) if present >> s & 1]
    for choice in range(3 ** len(cards)):
        roles, c = [], choice
        for _ in cards:
            roles.append(c % 3)  # 0 run, 1 set, 2 dead
            c //= 3
        in_set = roles.count(1)
        if in_set not in (0, 3, 4):
            continue
        run_suits = tuple(s for s, role in zip(cards, roles) if role == 0)
        out.append((sum(1 << s for s in run_suits), run_suits, roles.count(2)))
    return out


@functools.cache
def step(state: tuple[int, ...], run_mask: int) -> tuple[int, ...] | None:
    """The run states after a rank where the suits of ``run_mask`` extend their runs and the
    others stop (None if a run of one or two would be left short)."""
    new = []
    for s, st in enumerate(state):
        if run_mask >> s & 1:
            new.append(_ADVANCE[st])
        elif st in (1, 2):
            return None
        else:
            new.append(0)
    return tuple(new)


@numba.njit(cache=True)
def kernel_deadwood(ranks_present, pips):
    """The least deadwood of a hand given, per rank (0..12), the bitmask of the suits it holds
    there; ``pips`` the pip value of each rank."""
    big = 1 << 30
    cost = np.full(256, big, dtype=np.int64)
    new = np.empty(256, dtype=np.int64)
    cost[0] = 0
    cards = np.empty(4, dtype=np.int64)
    for r in range(13):
        present = ranks_present[r]
        p = 0
        for s in range(4):
            if present >> s & 1:
                cards[p] = s
                p += 1
        new[:] = big
        n_choice = 3 ** p
        for st in range(256):
            c0 = cost[st]
            if c0 >= big:
                continue
            for choice in range(n_choice):
                run_mask = 0
                in_set = 0
                dead = 0
                ch = choice
                for i in range(p):
                    role = ch % 3
                    ch //= 3
                    if role == 0:
                        run_mask |= 1 << cards[i]
                    elif role == 1:
                        in_set += 1
                    else:
                        dead += 1
                if in_set == 1 or in_set == 2:
                    continue
                nxt = 0
                ok = True
                for s in range(4):
                    cur = (st >> (2 * s)) & 3
                    if run_mask >> s & 1:
                        after = cur + 1 if cur < 3 else 3
                    elif cur == 1 or cur == 2:
                        ok = False
                        break
                    else:
                        after = 0
                    nxt |= after << (2 * s)
                if not ok:
                    continue
                value = c0 + dead * pips[r]
                if value < new[nxt]:
                    new[nxt] = value
        cost[:] = new
    best = big
    for st in range(256):
        ok = True
        for s in range(4):
            cur = (st >> (2 * s)) & 3
            if cur == 1 or cur == 2:
                ok = False
        if ok and cost[st] < best:
            best = cost[st]
    return best


PIPS = np.array([min(r + 1, 10) for r in range(13)], dtype=np.int64)


def deadwood(cards) -> int:
    """The least deadwood of a hand of card codes (``rank * 4 + suit``)."""
    present = np.zeros(13, dtype=np.int64)
    for c in cards:
        present[int(c) // N_SUITS] |= 1 << (int(c) % N_SUITS)
    return int(kernel_deadwood(present, PIPS))
