"""The play (pegging) of a two-player deal, with play policies as data.

The pone leads; the players lay cards in turn, the count (the pips of the cards of the current
sequence) never passing 31. A player who cannot lay a card says go; the other lays what he can;
the last to lay in a sequence pegs 1 for the go, or 2 for making 31 (and no go). The count
starts again from 0, led by the player after the last to lay. The last card of all pegs 1 for
last (2 if it makes 31). A card laid pegs, from the cards of the current sequence:

* 2 for making the count 15, 2 for making it 31;
* a pair with the card before it 2, a third of the rank in succession (pair royal) 6, a fourth
  (double pair royal) 12;
* a run: the longest k >= 3 such that the last k cards are k consecutive ranks in any order,
  k points.

Policies (``PLAYS``): ``"first"`` lays the first legal card in the order held (a fixed but
arbitrary order: with random dealing it is a random legal card); ``"greedy"`` lays the card
that pegs most now, ties to the higher rank (keeping the small cards for the go, as the texts
advise); ``"cautious"`` pegs most now less a penalty of 2 for leaving the count at 5 or 21 (a
ten-card makes 15 or 31 of it) and of 1 for leading a card of 5 or more. The rules of the play
are those of seed 000 and 003 for six-card cribbage; the five-card game's differences (the play
ending at 31) are not modelled.

:func:`peg` is the reference, plain Python; :func:`kernel_peg` the compiled one; tests check the
two on the same hands.
"""

from __future__ import annotations

from collections.abc import Sequence

import numba
import numpy as np

from sim.core import kernel_cache  # noqa: F401  (compiled code cached by digest)
from sim.games.cribbage.score import pips

PLAYS = ("first", "greedy", "cautious")


def card_points(sequence: Sequence[int]) -> int:
    """What the last rank of ``sequence`` (ranks of the cards of the current count) pegs."""
    count = sum(pips(r) for r in sequence)
    points = 2 if count in (15, 31) else 0
    last = sequence[-1]
    same = 1
    while same < len(sequence) and sequence[-1 - same] == last:
        same += 1
    points += (0, 0, 2, 6, 12)[same]
    for k in range(len(sequence), 2, -1):
        tail = sorted(sequence[-k:])
        if all(tail[i + 1] == tail[i] + 1 for i in range(k - 1)):
            points += k
            break
    return points


def _choose(hand: list[int], sequence: list[int], count: int, play: str) -> int | None:
    legal = [i for i, r in enumerate(hand) if count + pips(r) <= 31]
    if not legal:
        return None
    if play == "first":
        return legal[0]

    def value(i: int) -> tuple[float, int]:
        r = hand[i]
        v = float(card_points(sequence + [r]))
        if play == "cautious":
            if count + pips(r) in (5, 21):
                v -= 2
            if not sequence and pips(r) >= 5:
                v -= 1
        return v, r

    return max(legal, key=value)


def peg(pone: Sequence[int], dealer: Sequence[int], play: str = "greedy",
        dealer_play: str | None = None) -> tuple[int, int]:
    """The points each pegs in the play of two hands (ranks 0..12), the pone laying by
    ``play``, the dealer by ``dealer_play`` (the same if None); returns (pone, dealer)."""
    plays = (play, dealer_play or play)
    hands = [list(pone), list(dealer)]
    points = [0, 0]
    turn = 0
    sequence: list[int] = []
    count = 0
    last = -1
    while hands[0] or hands[1]:
        i = _choose(hands[turn], sequence, count, plays[turn])
        if i is None:
            other = 1 - turn
            if _choose(hands[other], sequence, count, plays[other]) is None:
                # neither can lay: the go goes to the last to lay, the count starts again
                if count != 31:
                    points[last] += 1
                sequence, count = [], 0
                turn = 1 - last
            else:
                turn = other
            continue
        rank = hands[turn].pop(i)
        sequence.append(rank)
        count += pips(rank)
        points[turn] += card_points(sequence)
        last = turn
        if count == 31:
            sequence, count = [], 0
            turn = 1 - last
            continue
        turn = 1 - turn
    if count:  # the last card of all (a 31 has already pegged its 2)
        points[last] += 1
    return points[0], points[1]


@numba.njit(cache=True, inline="always")
def _kernel_card_points(sequence, n, count):
    points = 2 if count == 15 or count == 31 else 0
    last = sequence[n - 1]
    same = 1
    while same < n and sequence[n - 1 - same] == last:
        same += 1
    if same == 2:
        points += 2
    elif same == 3:
        points += 6
    elif same == 4:
        points += 12
    for k in range(n, 2, -1):
        lo = 99
        hi = -1
        seen = 0
        ok = True
        for i in range(n - k, n):
            r = sequence[i]
            if seen >> r & 1:
                ok = False
                break
            seen |= 1 << r
            lo = min(lo, r)
            hi = max(hi, r)
        if ok and hi - lo == k - 1:
            points += k
            break
    return points


@numba.njit(cache=True)
def _kernel_choose(hand, held, sequence, n, count, play):
    best = -1
    best_value = -1e9
    best_rank = -1
    for i in range(hand.shape[0]):
        if not held[i]:
            continue
        r = hand[i]
        p = min(r + 1, 10)
        if count + p > 31:
            continue
        if play == 0:
            return i
        sequence[n] = r
        v = float(_kernel_card_points(sequence, n + 1, count + p))
        if play == 2:
            if count + p == 5 or count + p == 21:
                v -= 2.0
            if n == 0 and p >= 5:
                v -= 1.0
        if v > best_value or (v == best_value and r > best_rank):
            best_value = v
            best_rank = r
            best = i
    return best


@numba.njit(cache=True)
def kernel_peg(pone, dealer, plays, sequence, held):
    """Compiled :func:`peg`: ``pone`` and ``dealer`` rank arrays of equal length, ``plays``
    each one's index in PLAYS; ``sequence`` (at least 13) and ``held`` (2 x length) are work
    arrays."""
    k = pone.shape[0]
    held[:, :] = True
    left0 = k
    left1 = k
    p0 = 0
    p1 = 0
    turn = 0
    n = np.int64(0)  # typed: literal zeros would compile _kernel_choose a second time
    count = np.int64(0)
    last = -1
    while left0 + left1 > 0:
        hand = pone if turn == 0 else dealer
        i = _kernel_choose(hand, held[turn], sequence, n, count, plays[turn])
        if i < 0:
            other = 1 - turn
            if _kernel_choose(dealer if other == 1 else pone, held[other], sequence, n, count,
                              plays[other]) < 0:
                if count != 31:
                    if last == 0:
                        p0 += 1
                    else:
                        p1 += 1
                n = 0
                count = 0
                turn = 1 - last
            else:
                turn = other
            continue
        held[turn, i] = False
        if turn == 0:
            left0 -= 1
        else:
            left1 -= 1
        r = hand[i]
        sequence[n] = r
        n += 1
        count += min(r + 1, 10)
        got = _kernel_card_points(sequence, n, count)
        if turn == 0:
            p0 += got
        else:
            p1 += got
        last = turn
        if count == 31:
            n = 0
            count = 0
            turn = 1 - last
            continue
        turn = 1 - turn
    if count:
        if last == 0:
            p0 += 1
        else:
            p1 += 1
    return p0, p1


def kernel_peg_ranks(pone: Sequence[int], dealer: Sequence[int], play: str,
                     dealer_play: str | None = None) -> tuple[int, int]:
    """:func:`kernel_peg` from Python (tests)."""
    plays = np.array([PLAYS.index(play), PLAYS.index(dealer_play or play)], dtype=np.int64)
    return tuple(int(x) for x in kernel_peg(np.array(pone, dtype=np.int64),
                                             np.array(dealer, dtype=np.int64), plays,
                                             np.empty(16, np.int64),
                                             np.ones((2, len(pone)), np.bool_)))
