"""The fast path: cribbage deals in a compiled kernel, discard policies given as data.

Each deal draws only the cards it uses from a kept pack (a partial Fisher-Yates shuffle with
the engine's xoshiro256** generator), in the layout of :mod:`sim.games.cribbage.deal`; every
seat chooses its keep with :func:`~sim.games.cribbage.policy.kernel_choose`; the hands and the
crib are scored with the starter from the rank-points table. Statistics are accumulated in the
kernel: the engine's sums and outcome counts of the followed seat's points, a histogram of
those points and of the seat's own hand, and the counters of :func:`simulate_policy`.
"""

from __future__ import annotations

import numba
import numpy as np

from sim.core import kernel_cache  # noqa: F401  (compiled code cached by digest)
from sim.core.histogram import NetGrid, count
from sim.core.stats import Stats, kernel_add_round
from sim.core.xoshiro import draw_below
from sim.games.cribbage.pegging import PLAYS, kernel_peg
from sim.games.cribbage.policy import (
    DiscardPolicy,
    crib_table,
    crib_weight_of,
    keep_indices,
    kernel_choose,
)
from sim.games.cribbage.rules import CribbageRules
from sim.games.cribbage.score import kernel_show, rank_points_table

POINTS = NetGrid(per_unit=1, low=0, high=159)  # a side's points in one deal stay below 160
POINTS_PER_UNIT, POINTS_FIRST, POINTS_LAST, POINTS_SIZE = POINTS.constants()
HAND_BINS = 64


@numba.njit(cache=True)
def _score_deal(deal, players, dealt, hand_size, from_pack, kind, weights, keeps, drops,
                table, crib_rank_table, crib1, crib2, hands_out, ev_out, work_hand, unseen,
                scratch, kept_all, crib):
    """Score one deal laid out in ``deal``: each seat's show into ``hands_out``, its exact
    expected hand into ``ev_out``, its kept cards into the row ``kept_all[seat]``; returns
    (crib show, heels)."""
    n_crib = 0
    for block in range(players):
        seat = (block + 1) % players
        cards = deal[block * dealt:(block + 1) * dealt]
        j, ev = kernel_choose(cards, dealt, kind, weights[seat], keeps, drops, table, crib1,
                              crib2, work_hand, unseen, scratch)
        kept = kept_all[seat]
        for i in range(hand_size):
            kept[i] = cards[keeps[j, i]]
        for i in range(drops.shape[1]):
            crib[n_crib] = cards[drops[j, i]]
            n_crib += 1
        ev_out[seat] = ev
        hands_out[seat] = kernel_show(kept, hand_size, deal[players * dealt + from_pack],
                                      False, table, scratch)
    for i in range(from_pack):
        crib[n_crib] = deal[players * dealt + i]
        n_crib += 1
    starter = deal[players * dealt + from_pack]
    crib_points = kernel_show(crib, 4, starter, True, crib_rank_table, scratch)
    heels = 2 if starter // 4 == 10 else 0
    return crib_points, heels


@numba.njit(cache=True)
def _work(players, hand_size):
    """A deal's scratch arrays: the hand being chosen, the unseen ranks, a show of up to six
    cards, every seat's keep, the crib, and the play's sequence and cards still held."""
    return (np.empty(hand_size, dtype=np.int64), np.empty(17, dtype=np.int64),
            np.empty(6, dtype=np.int64), np.empty((players, hand_size), dtype=np.int64),
            np.empty(4, dtype=np.int64), np.empty(16, dtype=np.int64),
            np.empty((2, hand_size), dtype=np.bool_))


@numba.njit(cache=True)
def score_deals(deals, players, dealt, hand_size, from_pack, kind, weights, keeps, drops,
                table, crib_rank_table, crib1, crib2, pegging, plays):
    """Per deal (rows of ``deals``): every seat's show and expected hand, the crib, the heels
    and (two players, ``pegging``) the pone's and the dealer's pegging. Tests feed the
    reference path the same rows."""
    n = deals.shape[0]
    hands = np.zeros((n, players), dtype=np.int64)
    evs = np.zeros((n, players))
    cribs = np.zeros(n, dtype=np.int64)
    heels = np.zeros(n, dtype=np.int64)
    pegs = np.zeros((n, 2), dtype=np.int64)
    work_hand, unseen, scratch, kept, crib, sequence, held = _work(players, hand_size)
    for r in range(n):
        cribs[r], heels[r] = _score_deal(deals[r], players, dealt, hand_size, from_pack, kind,
                                         weights, keeps, drops, table, crib_rank_table, crib1,
                                         crib2, hands[r], evs[r], work_hand, unseen, scratch,
                                         kept, crib)
        if pegging:
            pegs[r, 0], pegs[r, 1] = kernel_peg(kept[1] // 4, kept[0] // 4, plays, sequence,
                                                held)
    return hands, evs, cribs, heels, pegs


@numba.njit(cache=True)
def _simulate(n, state, players, dealt, hand_size, from_pack, kind, weights, keeps, drops,
              table, crib_rank_table, crib1, crib2, pegging, plays, dealer_side, team):
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    used = players * dealt + from_pack + 1
    pack = np.arange(52, dtype=np.int64)
    outcomes = np.zeros(3, dtype=np.int64)
    sums = np.zeros(8)
    points_hist = np.zeros(POINTS_SIZE, dtype=np.int64)
    hand_hist = np.zeros(HAND_BINS, dtype=np.int64)
    # ev, crib, heels, dealer side, pone side, (dealer - pone)^2, dealer's pegging, pone's
    # pegging, deals the dealer pegs nothing
    extra = np.zeros(9)
    hands = np.zeros(players, dtype=np.int64)
    evs = np.zeros(players)
    work_hand, unseen, scratch, kept, crib, sequence, held = _work(players, hand_size)
    own = 0 if dealer_side else 1
    for _ in range(n):
        for i in range(used):  # draw only the cards the deal uses
            j, s0, s1, s2, s3 = draw_below(52 - i, s0, s1, s2, s3)
            j += i
            tmp = pack[i]
            pack[i] = pack[j]
            pack[j] = tmp
        crib_points, heels = _score_deal(pack, players, dealt, hand_size, from_pack, kind,
                                         weights, keeps, drops, table, crib_rank_table, crib1,
                                         crib2, hands, evs, work_hand, unseen, scratch, kept,
                                         crib)
        dealer_points = hands[0] + crib_points + heels
        pone_points = hands[1]
        if pegging:
            peg_pone, peg_dealer = kernel_peg(kept[1] // 4, kept[0] // 4, plays, sequence, held)
            dealer_points += peg_dealer
            pone_points += peg_pone
            extra[6] += peg_dealer
            extra[7] += peg_pone
            if peg_dealer == 0:
                extra[8] += 1
        if team:
            dealer_points += hands[2]
            pone_points += hands[3]
        net = dealer_points if dealer_side else pone_points
        kernel_add_round(outcomes, sums, float(net), 0.0, 0.0)
        count(points_hist, float(net), POINTS_PER_UNIT, POINTS_FIRST, POINTS_LAST)
        hand_hist[hands[own]] += 1
        extra[0] += evs[own]
        extra[1] += crib_points
        extra[2] += heels
        extra[3] += dealer_points
        extra[4] += pone_points
        extra[5] += (dealer_points - pone_points) ** 2
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3
    return outcomes, sums, points_hist, hand_hist, extra


def policy_arrays(rules: CribbageRules, policy: DiscardPolicy) -> tuple:
    """The policy and the rules as the kernel's arguments (after the deal count and state)."""
    keeps, drops = keep_indices(rules.cards_dealt, rules.hand_size)
    weights = np.array([crib_weight_of(s, rules.team, policy) for s in range(rules.players)])
    return (rules.players, rules.cards_dealt, rules.hand_size, rules.crib_from_pack,
            policy.code, weights, keeps, drops, rank_points_table(rules.hand_size + 1),
            rank_points_table(5), crib_table(1), crib_table(2), rules.pegging,
            np.array([PLAYS.index(policy.play),
                      PLAYS.index(policy.dealer_play or policy.play)], dtype=np.int64))


def counters_of(points_hist: np.ndarray, hand_hist: np.ndarray, extra: np.ndarray
                ) -> dict[str, float]:
    """The game counters of a chunk (sums over its deals)."""
    out = {f"points_{s}": float(c) for s, c in enumerate(points_hist.tolist()) if c}
    out.update({f"hand_{s}": float(c) for s, c in enumerate(hand_hist.tolist()) if c})
    for name, value in zip(("hand_ev", "crib", "heels", "dealer_points", "pone_points",
                            "difference2", "peg_dealer", "peg_pone", "dealer_pegs_nothing"),
                           extra.tolist()):
        out[name] = float(value)
    return out


def simulate_policy(rules: CribbageRules, policy: DiscardPolicy, rounds: int,
                    state: np.ndarray) -> Stats:
    """Play ``rounds`` deals with every seat on ``policy``; ``state`` advances.

    Counters: ``hand_<s>`` deals whose followed seat's own hand showed s; ``hand_ev`` the sum
    of its exact expected hands; ``crib``, ``heels``, ``dealer_points``, ``pone_points`` sums;
    ``difference2`` the sum of squares of the dealer's side's lead; with pegging,
    ``peg_dealer`` and ``peg_pone`` sums and ``dealer_pegs_nothing`` deals.
    """
    outcomes, sums, points_hist, hand_hist, extra = _simulate(
        rounds, state, *policy_arrays(rules, policy), rules.seat == "dealer", rules.team)
    values = POINTS.values()
    counters = counters_of(np.zeros(0), hand_hist, extra)
    if not rules.pegging:
        for name in ("peg_dealer", "peg_pone", "dealer_pegs_nothing"):
            del counters[name]
    return Stats.from_arrays(rounds, outcomes, sums, values, points_hist, counters)
