"""Dealt gin rummy hands in a compiled kernel: deal, find the deadwood, count."""

from __future__ import annotations

import numba
import numpy as np

from sim.core import kernel_cache  # noqa: F401  (compiled code cached by digest)
from sim.core.histogram import NetGrid, count
from sim.core.stats import Stats, kernel_add_round
from sim.core.xoshiro import draw_below
from sim.games.gin_rummy.melds import PIPS, kernel_deadwood
from sim.games.gin_rummy.rules import GinRules

HIST = NetGrid(per_unit=1, low=0, high=127)  # deadwood: ten cards never leave 100 or more
HIST_PER_UNIT, HIST_FIRST, HIST_LAST, HIST_SIZE = HIST.constants()


@numba.njit(cache=True)
def _deal_hands(n, state, pack, hand_size, pips):
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    size = pack.shape[0]
    outcomes = np.zeros(3, dtype=np.int64)
    sums = np.zeros(8)
    hist = np.zeros(HIST_SIZE, dtype=np.int64)
    present = np.zeros(13, dtype=np.int64)
    for _ in range(n):
        present[:] = 0
        for i in range(hand_size):  # draw only the cards dealt
            j, s0, s1, s2, s3 = draw_below(size - i, s0, s1, s2, s3)
            j += i
            tmp = pack[i]
            pack[i] = pack[j]
            pack[j] = tmp
            present[pack[i] // 4] |= 1 << (pack[i] % 4)
        dead = kernel_deadwood(present, pips)
        kernel_add_round(outcomes, sums, float(dead), 0.0, 0.0)
        count(hist, float(dead), HIST_PER_UNIT, HIST_FIRST, HIST_LAST)
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3
    return outcomes, sums, hist


def simulate_hands(rules: GinRules, rounds: int, state: np.ndarray) -> Stats:
    """Deal ``rounds`` hands; the net of a round is the hand's deadwood."""
    pack = np.array([r * 4 + s for r in range(rules.rank_count) for s in range(rules.suits)],
                    dtype=np.int64)
    outcomes, sums, hist = _deal_hands(rounds, state, pack, rules.hand_size, PIPS)
    return Stats.from_arrays(rounds, outcomes, sums, HIST.values(),
                             hist)
