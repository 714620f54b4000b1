"""Dealt bridge hands: the deal survey and the key-suit contract, as compiled kernels and as
plain reference deals (tests compare the two on the same rules).

Cards are numbered ``suit * 13 + rank`` with rank 0 the two .. 12 the ace (this module's own
numbering: bridge ranks aces high). The survey deals the 52 cards in order to North (0..12),
East (13..25), South (26..38) and West (39..51). The contract deals the 26 cards the declarer
cannot see, numbered 0 the queen of the key suit, 1..k-1 its small cards, the rest others:
West takes the first 13 of a shuffle.
"""

from __future__ import annotations

import numba
import numpy as np

from sim.core import kernel_cache  # noqa: F401  (compiled code cached by digest)
from sim.core.stats import Stats, kernel_add_round
from sim.core.xoshiro import draw_below, shuffle
from sim.games.bridge.play import line_wins, line_wins_compiled

HCP_OF_RANK = np.array([0] * 9 + [1, 2, 3, 4], dtype=np.int64)  # J, Q, K, A
PATTERN_BASE = 14
NORTH, EAST, SOUTH, WEST = 0, 1, 2, 3


def pattern_code(lengths) -> int:
    """A pattern's index: its lengths sorted longest first, in base 14."""
    a, b, c, d = sorted(lengths, reverse=True)
    return ((a * PATTERN_BASE + b) * PATTERN_BASE + c) * PATTERN_BASE + d


def pattern_of_code(code: int) -> tuple[int, ...]:
    out = []
    for _ in range(4):
        out.append(code % PATTERN_BASE)
        code //= PATTERN_BASE
    return tuple(reversed(out))


@numba.njit(cache=True)
def _survey(n, state, outcomes, sums, hcp_hist, pattern_counts, split_counts, given):
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    cards = np.arange(52)
    lengths = np.zeros((4, 4), dtype=np.int64)  # seat x suit
    holder = np.zeros(52, dtype=np.int64)
    for _ in range(n):
        s0, s1, s2, s3 = shuffle(cards, s0, s1, s2, s3)  # position p goes to seat p // 13
        lengths[:, :] = 0
        hcp = 0
        for p in range(52):
            c = cards[p]
            seat = p // 13
            holder[c] = seat
            lengths[seat, c // 13] += 1
            if seat == SOUTH:
                hcp += HCP_OF_RANK[c % 13]
        hcp_hist[hcp] += 1
        # South's pattern: sort four lengths (insertion sort, longest first)
        a = lengths[SOUTH].copy()
        for x in range(1, 4):
            v = a[x]
            y = x - 1
            while y >= 0 and a[y] < v:
                a[y + 1] = a[y]
                y -= 1
            a[y + 1] = v
        pattern_counts[((a[0] * 14 + a[1]) * 14 + a[2]) * 14 + a[3]] += 1
        for s in range(4):
            out = 13 - lengths[NORTH, s] - lengths[SOUTH, s]
            split_counts[out, lengths[WEST, s]] += 1
            king = s * 13 + 11
            queen = s * 13 + 10
            hk, hq = holder[king], holder[queen]
            if (hk == EAST or hk == WEST) and (hq == EAST or hq == WEST):
                given[0] += 1
                given[1] += hk == WEST
                given[2] += (hk == WEST) and (hq == WEST)
                given[3] += (hk == WEST) or (hq == WEST)
        kernel_add_round(outcomes, sums, float(hcp), 0.0, 0.0)
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3


@numba.njit(cache=True)
def _contract(n, state, k, line, sure_tricks, scores, outcomes, sums, tricks_hist):
    """``scores[t]``: the net score when the declarer takes t tricks."""
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    cards = np.arange(26)
    for _ in range(n):
        west = 0
        queen_west = False
        for i in range(13):  # West's 13 cards: a partial Fisher-Yates shuffle
            j, s0, s1, s2, s3 = draw_below(26 - i, s0, s1, s2, s3)
            j += i
            t = cards[i]
            cards[i] = cards[j]
            cards[j] = t
            if cards[i] < k:
                west += 1
                if cards[i] == 0:
                    queen_west = True
        tricks = sure_tricks + (1 if line_wins_compiled(line, k, west, queen_west) else 0)
        tricks_hist[tricks] += 1
        kernel_add_round(outcomes, sums, scores[tricks], 0.0, 0.0)
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3


def survey_stats(n: int, state: np.ndarray) -> Stats:
    """``n`` dealt hands measured (see :func:`survey_counters` for the counters)."""
    outcomes = np.zeros(3, dtype=np.int64)
    sums = np.zeros(8)
    hcp_hist = np.zeros(41, dtype=np.int64)
    patterns = np.zeros(PATTERN_BASE ** 4, dtype=np.int64)
    splits = np.zeros((14, 14), dtype=np.int64)
    given = np.zeros(4, dtype=np.int64)
    _survey(n, state, outcomes, sums, hcp_hist, patterns, splits, given)
    return Stats.from_arrays(n, outcomes, sums, np.arange(41, dtype=np.float64), hcp_hist,
                             survey_counters(patterns, splits, given))


def survey_counters(patterns: np.ndarray, splits: np.ndarray, given) -> dict[str, float]:
    """Counters of the survey: ``pattern_5332`` (South's pattern), ``split_k_w`` (k cards of a
    suit outstanding to South's side, West holding w of them; four per deal), and for the
    king and queen of a suit both unseen by North-South, ``given_unseen`` (such suits),
    ``given_king`` (West holds the king), ``given_both``, ``given_any``."""
    out: dict[str, float] = {}
    for code in np.flatnonzero(patterns):
        out["pattern_" + "".join(map(str, pattern_of_code(int(code))))] = float(patterns[code])
    for k, w in zip(*np.nonzero(splits)):
        out[f"split_{k}_{w}"] = float(splits[k, w])
    for name, value in zip(("given_unseen", "given_king", "given_both", "given_any"), given):
        out[name] = float(value)
    return out


def contract_stats(n: int, state: np.ndarray, k: int, line: str, sure_tricks: int,
                   scores: np.ndarray) -> Stats:
    """``n`` deals of the unseen cards with the declarer playing ``line``."""
    outcomes = np.zeros(3, dtype=np.int64)
    sums = np.zeros(8)
    tricks = np.zeros(14, dtype=np.int64)
    _contract(n, state, k, ("finesse", "drop").index(line), sure_tricks,
              scores.astype(np.float64), outcomes, sums, tricks)
    values = scores.astype(np.float64)
    hist: dict[float, int] = {}
    for t in np.flatnonzero(tricks):
        hist[values[t]] = hist.get(values[t], 0) + int(tricks[t])
    stats = Stats.from_arrays(n, outcomes, sums, np.array(list(hist), dtype=np.float64),
                              np.array(list(hist.values()), dtype=np.int64),
                              {f"tricks_{t}": float(tricks[t]) for t in np.flatnonzero(tricks)})
    stats.counters["line_wins"] = float(tricks[sure_tricks + 1]) if sure_tricks < 13 else 0.0
    return stats


def deal_reference(rng: np.random.Generator) -> np.ndarray:
    """One full deal on the reference path: seat of each card 0..51."""
    order = rng.permutation(52)
    seat = np.empty(52, dtype=np.int64)
    seat[order] = np.arange(52) // 13
    return seat


def survey_reference(n: int, rng: np.random.Generator) -> Stats:
    """The deal survey in plain numpy, one deal at a time (the specification)."""
    stats = Stats()
    for _ in range(n):
        seat = deal_reference(rng)
        suit = np.arange(52) // 13
        rank = np.arange(52) % 13
        south = seat == SOUTH
        hcp = int(HCP_OF_RANK[rank[south]].sum())
        lengths = [int((south & (suit == s)).sum()) for s in range(4)]
        counters = {"pattern_" + "".join(map(str, sorted(lengths, reverse=True))): 1.0}
        for s in range(4):
            mine = seat[suit == s]
            out = int(((mine == EAST) | (mine == WEST)).sum())
            w = int((mine == WEST).sum())
            counters[f"split_{out}_{w}"] = counters.get(f"split_{out}_{w}", 0.0) + 1.0
            hk, hq = seat[s * 13 + 11], seat[s * 13 + 10]
            if hk in (EAST, WEST) and hq in (EAST, WEST):
                for name, hit in (("given_unseen", True), ("given_king", hk == WEST),
                                  ("given_both", hk == WEST and hq == WEST),
                                  ("given_any", hk == WEST or hq == WEST)):
                    counters[name] = counters.get(name, 0.0) + float(hit)
        stats.add_round(float(hcp), 0.0, 0.0, counters)
    return stats


def west_holding(rng: np.random.Generator, k: int) -> tuple[int, bool]:
    """West's cards of the key suit among the 26 unseen (card 0 the queen, 1..k-1 small)."""
    west = rng.permutation(26)[:13]
    return int((west < k).sum()), bool((west == 0).any())


__all__ = ["contract_stats", "deal_reference", "line_wins", "pattern_code", "survey_counters",
           "survey_reference", "survey_stats", "west_holding"]
