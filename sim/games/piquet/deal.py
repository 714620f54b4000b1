"""A piquet deal: the exchange policy of :class:`~.rules.ExchangePolicy`, the reference deal
(any Python strategy) and the compiled kernel (policies as data). Both play a deal from the
order of a shuffled pack: elder takes cards 0..11, younger 12..23, the talon is 24..31 with its
top at 24."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numba
import numpy as np

from sim.core import kernel_cache  # noqa: F401  (compiled code cached by digest)
from sim.core.histogram import NetGrid, count
from sim.core.stats import Stats, kernel_add_round
from sim.core.xoshiro import shuffle
from sim.games.piquet.hand import FACE_MASK, contest, masks_of, suit_runs, unopposed
from sim.games.piquet.rules import HAND, TALON, ExchangePolicy, PiquetRules, PiquetView

COUNTERS = ("elder_points", "younger_points", "elder_repique", "younger_repique",
            "point_equal", "sequence_equal", "blanche_elder", "blanche_younger",
            "dealt_score", "dealt_score2", "elder_after", "younger_after", "elder_took",
            "younger_took", "dealt_quatorze")
HIST = NetGrid(per_unit=1, low=-200, high=200)  # the elder's net points in a deal
HIST_PER_UNIT, HIST_FIRST, HIST_LAST, HIST_SIZE = HIST.constants()


@numba.njit(cache=True)
def discard_of(hand, take, point_w, sequence_w, sets_w, sets_from):
    """The ``take`` cards of the hand (an array of codes) with the lowest keep value."""
    masks = masks_of(hand)
    best_suit = 0
    best_len = -1
    best_value = -1
    for s in range(4):
        length = 0
        value = 0
        for r in range(8):
            if (masks[s] >> r) & 1:
                length += 1
                value += (7, 8, 9, 10, 10, 10, 10, 11)[r]
        if length > best_len or (length == best_len and value > best_value):
            best_suit, best_len, best_value = s, length, value
    n = hand.shape[0]
    keep = np.empty(n)
    for i in range(n):
        c = hand[i]
        s, r = c // 8, c % 8
        v = float(r)
        if s == best_suit:
            v += point_w
        m = masks[s]
        if (r > 0 and (m >> (r - 1)) & 1) or (r < 7 and (m >> (r + 1)) & 1):
            v += sequence_w
        if r >= sets_from:
            count = 0
            for t in range(4):
                count += (masks[t] >> r) & 1
            if count >= 2:
                v += sets_w
        keep[i] = v * 64.0 + (c % 8) * 4.0 + c // 8  # ties: the lower card goes first
    order = np.argsort(keep)
    return hand[order[:take]]


@numba.njit(cache=True)
def exchange_sizes(elder_take, younger_take, elder_max, younger_max, minimum, talon):
    """How many cards elder and younger exchange under the policies' ``elder_take`` and
    ``younger_take`` (0: every card he may) and the rules' limits, from a talon of ``talon``."""
    ke = min(max(elder_take, minimum), elder_max)
    room = min(talon - ke, younger_max)
    ky = room if younger_take == 0 else min(younger_take, room)
    return ke, max(ky, min(minimum, room))


@numba.njit(forceinline=True)
def _exchanged(hand, drop, talon, start, take):
    """The hand after an exchange: its cards but the discards ``drop``, then ``take`` cards of
    the talon from ``start``."""
    kept = np.empty(HAND, dtype=np.int64)
    j = 0
    for c in hand:
        hit = False
        for d in drop:
            hit = hit or c == d
        if not hit:
            kept[j] = c
            j += 1
    for i in range(take):
        kept[j + i] = talon[start + i]
    return kept


@numba.njit(cache=True)
def _play(order, elder_take, younger_take, weights, sets_from, elder_max, younger_max, minimum,
          blanche_points, repique_points, out):
    """One deal from a pack order; the counters are added into ``out`` (COUNTERS order);
    returns the net (elder's points less younger's)."""
    elder = order[:HAND].copy()
    younger = order[HAND:2 * HAND].copy()
    talon = order[2 * HAND:]
    em = masks_of(elder)
    ym = masks_of(younger)
    dealt = unopposed(em, sets_from)
    eb = (em[0] | em[1] | em[2] | em[3]) & FACE_MASK == 0
    yb = (ym[0] | ym[1] | ym[2] | ym[3]) & FACE_MASK == 0
    quatorze = 0
    for r in range(sets_from, 8):
        if (em[0] >> r) & (em[1] >> r) & (em[2] >> r) & (em[3] >> r) & 1:
            quatorze = 1
    ke, ky = exchange_sizes(elder_take, younger_take, elder_max, younger_max, minimum, TALON)
    drop = discard_of(elder, ke, weights[0], weights[1], weights[2], sets_from)
    kept = _exchanged(elder, drop, talon, 0, ke)
    drop = discard_of(younger, ky, weights[3], weights[4], weights[5], sets_from)
    ykept = _exchanged(younger, drop, talon, ke, ky)
    em2 = masks_of(kept)
    ym2 = masks_of(ykept)
    ep, yp, er, yr, pe, se = contest(em2, ym2, eb, yb and not eb, sets_from, blanche_points,
                                     repique_points)
    out[0] += ep
    out[1] += yp
    out[2] += er
    out[3] += yr
    out[4] += pe
    out[5] += se
    out[6] += eb
    out[7] += yb and not eb
    out[8] += dealt
    out[9] += dealt * dealt
    out[10] += unopposed(em2, sets_from)
    out[11] += unopposed(ym2, sets_from)
    out[12] += ke
    out[13] += ky
    out[14] += quatorze
    return float(ep - yp)


@numba.njit(cache=True)
def _deals(n, state, orders, elder_take, younger_take, weights, sets_from, elder_max,
           younger_max, minimum,
           blanche_points, repique_points, outcomes, sums, out, hist):
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    pack = np.arange(32)
    for k in range(n):
        if orders.shape[0]:
            order = orders[k]
        else:
            s0, s1, s2, s3 = shuffle(pack, s0, s1, s2, s3)
            order = pack
        net = _play(order, elder_take, younger_take, weights, sets_from, elder_max,
                    younger_max, minimum,
                    blanche_points, repique_points, out)
        count(hist, net, HIST_PER_UNIT, HIST_FIRST, HIST_LAST)
        kernel_add_round(outcomes, sums, net, 0.0, 0.0)
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3


def _weights(elder: ExchangePolicy, younger: ExchangePolicy) -> np.ndarray:
    return np.array([elder.point, elder.sequence, elder.sets,
                     younger.point, younger.sequence, younger.sets], dtype=np.float64)


@dataclass(frozen=True)
class PiquetTable:
    """A piquet strategy as data: elder's and younger's exchange policies."""

    elder: ExchangePolicy
    younger: ExchangePolicy


def simulate_table(rules: PiquetRules, table: PiquetTable, n: int, state: np.ndarray,
                   orders: np.ndarray | None = None) -> Stats:
    """``n`` deals in the kernel (or the given pack orders, one per row)."""
    outcomes = np.zeros(3, dtype=np.int64)
    sums = np.zeros(8)
    out = np.zeros(len(COUNTERS), dtype=np.int64)
    hist = np.zeros(HIST_SIZE, dtype=np.int64)
    given = np.zeros((0, 32), dtype=np.int64) if orders is None else np.asarray(
        orders, dtype=np.int64)
    _deals(n, state, given, table.elder.elder_take, table.younger.younger_take,
           _weights(table.elder, table.younger), rules.set_rank, rules.elder_max,
           rules.younger_max,
           rules.minimum_exchange, rules.carte_blanche, rules.repique, outcomes, sums, out,
           hist)
    return Stats.from_arrays(n, outcomes, sums, HIST.values(), hist,
                             dict(zip(COUNTERS, map(float, out))))


def _legal(discard: Any, hand: tuple[int, ...], low: int, high: int, who: str) -> list[int]:
    cards = [int(c) for c in discard]
    if len(set(cards)) != len(cards) or not set(cards) <= set(hand) \
            or not low <= len(cards) <= high:
        raise ValueError(f"strategy {who!r} discarded {sorted(cards)} from {list(hand)}: "
                         f"expected {low}..{high} different cards of the hand")
    return cards


def play_reference(order: np.ndarray, rules: PiquetRules, strategy: Any, rng) -> tuple:
    """One deal on the reference path: ``strategy.decide(view, rng)`` names each player's
    discards. Returns (net, counters)."""
    decide = getattr(strategy, "decide", strategy)
    who = getattr(strategy, "name", type(strategy).__name__)
    order = np.asarray(order, dtype=np.int64)
    elder, younger, talon = list(order[:HAND]), list(order[HAND:2 * HAND]), list(order[24:])
    em, ym = masks_of(order[:HAND]), masks_of(order[HAND:2 * HAND])
    sets_from = rules.set_rank
    eb = int(em[0] | em[1] | em[2] | em[3]) & FACE_MASK == 0
    yb = int(ym[0] | ym[1] | ym[2] | ym[3]) & FACE_MASK == 0 and not eb
    dealt = int(unopposed(em, sets_from))
    quatorze = any(all((int(em[s]) >> r) & 1 for s in range(4)) for r in range(sets_from, 8))
    low = rules.minimum_exchange
    view = PiquetView(tuple(sorted(int(c) for c in elder)), "elder", low, rules.elder_max, rules,
                      eb)
    drop = _legal(decide(view, rng), view.hand, low, rules.elder_max, who)
    ke = len(drop)
    kept = [c for c in elder if c not in drop] + talon[:ke]
    room = min(TALON - ke, rules.younger_max)
    view = PiquetView(tuple(sorted(int(c) for c in younger)), "younger", min(low, room), room,
                      rules, eb)
    drop = _legal(decide(view, rng), view.hand, min(low, room), room, who)
    ky = len(drop)
    ykept = [c for c in younger if c not in drop] + talon[ke:ke + ky]
    em2, ym2 = masks_of(np.array(kept)), masks_of(np.array(ykept))
    ep, yp, er, yr, pe, se = contest(em2, ym2, eb, yb, sets_from, rules.carte_blanche,
                                     rules.repique)
    values = (ep, yp, er, yr, pe, se, eb, yb, dealt, dealt * dealt,
              unopposed(em2, sets_from), unopposed(ym2, sets_from), ke, ky, quatorze)
    return float(ep - yp), {k: float(v) for k, v in zip(COUNTERS, values)}


def policy_discard(policy: ExchangePolicy, view: PiquetView) -> list[int]:
    """What an :class:`ExchangePolicy` discards in this view (the kernel's own rule, sets
    counted from the rules' set rank)."""
    want = policy.elder_take if view.seat == "elder" else (policy.younger_take or view.high)
    take = max(view.low, min(want, view.high))
    return [int(c) for c in discard_of(np.array(view.hand, dtype=np.int64), take,
                                       policy.point, policy.sequence, policy.sets,
                                       view.rules.set_rank)]


__all__ = ["COUNTERS", "PiquetTable", "discard_of", "exchange_sizes", "play_reference",
           "policy_discard", "simulate_table", "suit_runs"]
