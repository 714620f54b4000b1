"""The fast path: whole faro deals in a compiled kernel, strategies given as tables.

A strategy the kernel can run is a :class:`FaroTable`: bet *slots* (a set of ranks, to win or
coppered) whose stake depends on how many cards of the covered ranks are left, plus a per-turn
high-card stake and a calling-the-turn stake. That covers flat rank bets, case bets, coppered
play, corner bets, high card and calling the turn, under any progression of
:mod:`sim.progression`. The kernel plays the same rules as :mod:`sim.games.faro.deal` and tests
compare the two deal by deal.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from sim.games.faro.rules import FaroRules
from sim.progression import ProgressionSpec, advance
from sim.stats import Stats
from sim.xoshiro import shuffle_in_place

HIST_HALF_UNITS = 4096  # the histogram of net results spans +-2048 units, in half units


@dataclass(frozen=True)
class FaroTable:
    """A faro strategy as data.

    Attributes:
        masks: per slot, the covered ranks as a bitmask (bit r for rank r).
        coppered: per slot, the bet is to lose.
        stakes: per slot, the units staked when k cards of the covered ranks are left
            (index k; k beyond the end uses the last entry).
        high_card: units on high card every turn (0: none).
        call_turn: units on calling the last turn, in ascending rank order (0: none).
    """

    masks: tuple[int, ...] = ()
    coppered: tuple[bool, ...] = ()
    stakes: tuple[tuple[float, ...], ...] = ()
    high_card: float = 0.0
    call_turn: float = 0.0

    def __post_init__(self) -> None:
        if not len(self.masks) == len(self.coppered) == len(self.stakes):
            raise ValueError("masks, coppered and stakes need one entry per slot")
        if any(not 0 < m < (1 << 13) for m in self.masks):
            raise ValueError("each mask must cover at least one of ranks 0..12")
        if any(not s for s in self.stakes):
            raise ValueError("each slot needs at least one stake entry")


def _arrays(table: FaroTable, rules: FaroRules):
    """The table as the kernel's arrays, with slots listed by rank (CSR)."""
    n_slots = len(table.masks)
    most = rules.max_per_rank * 13 + 1
    stakes = np.zeros((n_slots, most), dtype=np.float64)
    for b, row in enumerate(table.stakes):
        row = list(row)[:most]
        stakes[b, : len(row)] = row
        stakes[b, len(row):] = row[-1]
    slot_lists = [[b for b, m in enumerate(table.masks) if m >> r & 1] for r in range(13)]
    starts = np.zeros(14, dtype=np.int64)
    starts[1:] = np.cumsum([len(x) for x in slot_lists])
    flat = np.array([b for x in slot_lists for b in x], dtype=np.int64)
    masks = np.array(table.masks, dtype=np.int64)
    coppered = np.array(table.coppered, dtype=np.bool_)
    return masks, coppered, stakes, starts, flat


@numba.njit(cache=True)
def _play_deal(order, base_counts, soda, n_turns, has_hock, last_winner_void, split_take,
               call_pays, cat_hop_pays, pair_loses_half, masks, coppered, stakes, slot_start,
               slot_flat, high, call, prog, unit, streak, covered, decided):
    """Play one shuffled deal; return (net, wagered, splits, decisions, unit, streak)."""
    pk, pbase, pcap, pwins = prog
    n_slots = masks.shape[0]
    for b in range(n_slots):
        covered[b] = 0
        for r in range(13):
            if masks[b] >> r & 1:
                covered[b] += base_counts[r]
    pos = 0
    if soda:
        r = order[0]
        for i in range(slot_start[r], slot_start[r + 1]):
            covered[slot_flat[i]] -= 1
        pos = 1
    net = 0.0
    wagered = 0.0
    splits = 0
    decisions = 0
    for t in range(n_turns):
        loser = order[pos]
        winner = order[pos + 1]
        void = last_winner_void and t == n_turns - 1
        turn_unit = unit
        # Slots with action this turn: those covering the loser or the winner.
        n_dec = 0
        for i in range(slot_start[loser], slot_start[loser + 1]):
            decided[n_dec] = slot_flat[i]
            n_dec += 1
        if not void:
            for i in range(slot_start[winner], slot_start[winner + 1]):
                b = slot_flat[i]
                if not (masks[b] >> loser & 1):
                    decided[n_dec] = b
                    n_dec += 1
        # Decide in slot order, as the reference path does (it matters for progressions).
        for i in range(1, n_dec):
            x = decided[i]
            j = i - 1
            while j >= 0 and decided[j] > x:
                decided[j + 1] = decided[j]
                j -= 1
            decided[j + 1] = x
        for i in range(n_dec):
            b = decided[i]
            k = covered[b]
            stake = stakes[b, k] * turn_unit
            if stake <= 0.0:
                continue
            lose_in = (masks[b] >> loser) & 1 == 1
            win_in = (not void) and (masks[b] >> winner) & 1 == 1
            if lose_in and win_in:
                if loser != winner:
                    continue
                res = -split_take * stake
                splits += 1
            elif win_in:
                res = -stake if coppered[b] else stake
            else:
                res = stake if coppered[b] else -stake
            net += res
            wagered += stake
            decisions += 1
            unit, streak = advance(pk, pbase, pcap, pwins, unit, streak, res)
        if high > 0.0 and not void:
            stake = high * turn_unit
            if winner > loser:
                res = stake
            elif winner < loser:
                res = -stake
            else:
                res = -0.5 * stake if pair_loses_half else 0.0
            net += res
            wagered += stake
            decisions += 1
            unit, streak = advance(pk, pbase, pcap, pwins, unit, streak, res)
        if call > 0.0 and has_hock and t == n_turns - 1:
            a = order[pos]
            c = order[pos + 1]
            h = order[pos + 2]
            if not (a == c and c == h):
                lo = min(a, min(c, h))
                hi = max(a, max(c, h))
                mid = a + c + h - lo - hi
                stake = call * turn_unit
                if a == lo and c == mid and h == hi:
                    pays = cat_hop_pays if (a == c or c == h) else call_pays
                    res = pays * stake
                else:
                    res = -stake
                net += res
                wagered += stake
                decisions += 1
                unit, streak = advance(pk, pbase, pcap, pwins, unit, streak, res)
        for i in range(slot_start[loser], slot_start[loser + 1]):
            covered[slot_flat[i]] -= 1
        for i in range(slot_start[winner], slot_start[winner + 1]):
            covered[slot_flat[i]] -= 1
        pos += 2
    return net, wagered, splits, decisions, unit, streak


@numba.njit(cache=True)
def _simulate(n_deals, state, pack, base_counts, soda, n_turns, has_hock, last_winner_void,
              split_take, call_pays, cat_hop_pays, pair_loses_half, masks, coppered, stakes,
              slot_start, slot_flat, high, call, prog):
    outcomes = np.zeros(3, dtype=np.int64)
    sums = np.zeros(8, dtype=np.float64)
    hist = np.zeros(2 * HIST_HALF_UNITS + 1, dtype=np.int64)
    counters = np.zeros(2, dtype=np.float64)
    covered = np.zeros(masks.shape[0], dtype=np.int64)
    decided = np.zeros(max(1, 2 * masks.shape[0]), dtype=np.int64)
    order = pack.copy()
    unit = prog[1]
    streak = 0
    for _ in range(n_deals):
        shuffle_in_place(order, state)
        initial = unit
        net, wagered, splits, decisions, unit, streak = _play_deal(
            order, base_counts, soda, n_turns, has_hock, last_winner_void, split_take,
            call_pays, cat_hop_pays, pair_loses_half, masks, coppered, stakes, slot_start,
            slot_flat, high, call, prog, unit, streak, covered, decided)
        if net > 0.0:
            outcomes[0] += 1
        elif net < 0.0:
            outcomes[2] += 1
        else:
            outcomes[1] += 1
        sums[0] += net
        sums[1] += net * net
        sums[2] += initial
        sums[3] += initial * initial
        sums[4] += net * initial
        sums[5] += wagered
        sums[6] += wagered * wagered
        sums[7] += net * wagered
        h = int(round(net * 2.0))
        h = min(max(h, -HIST_HALF_UNITS), HIST_HALF_UNITS)
        hist[h + HIST_HALF_UNITS] += 1
        counters[0] += splits
        counters[1] += decisions
    return outcomes, sums, hist, counters


def _rule_args(rules: FaroRules):
    return (
        rules.soda, rules.n_turns, rules.has_hock, rules.last_winner_void,
        float(rules.split_take), float(rules.call_turn_pays), float(rules.cat_hop_pays),
        rules.high_card_pair == "lose-half",
    )


def _prog_tuple(progression: ProgressionSpec):
    return (progression.kind, float(progression.base), float(progression.cap),
            progression.wins_to_reset)


def simulate_table(
    rules: FaroRules,
    table: FaroTable,
    progression: ProgressionSpec,
    deals: int,
    state: np.ndarray,
) -> Stats:
    """Play ``deals`` deals on the kernel, advancing the xoshiro ``state`` in place."""
    masks, coppered, stakes, starts, flat = _arrays(table, rules)
    pack = rules.pack_ranks()
    outcomes, sums, hist, counters = _simulate(
        deals, state, pack, rules.rank_totals(), *_rule_args(rules), masks, coppered, stakes,
        starts, flat, float(table.high_card), float(table.call_turn), _prog_tuple(progression))
    values = np.arange(-HIST_HALF_UNITS, HIST_HALF_UNITS + 1) / 2.0
    return Stats.from_arrays(deals, outcomes, sums, values, hist,
                             {"splits": counters[0], "decisions": counters[1]})


@numba.njit(cache=True)
def _play_orders(orders, base_counts, soda, n_turns, has_hock, last_winner_void, split_take,
                 call_pays, cat_hop_pays, pair_loses_half, masks, coppered, stakes, slot_start,
                 slot_flat, high, call, prog):
    covered = np.zeros(masks.shape[0], dtype=np.int64)
    decided = np.zeros(max(1, 2 * masks.shape[0]), dtype=np.int64)
    out = np.empty((orders.shape[0], 3), dtype=np.float64)
    unit = prog[1]
    streak = 0
    for i in range(orders.shape[0]):
        initial = unit
        net, wagered, _, _, unit, streak = _play_deal(
            orders[i], base_counts, soda, n_turns, has_hock, last_winner_void, split_take,
            call_pays, cat_hop_pays, pair_loses_half, masks, coppered, stakes, slot_start,
            slot_flat, high, call, prog, unit, streak, covered, decided)
        out[i, 0] = net
        out[i, 1] = initial
        out[i, 2] = wagered
    return out


def play_ordered_deals(
    rules: FaroRules, table: FaroTable, progression: ProgressionSpec, orders: np.ndarray
) -> np.ndarray:
    """(net, initial stake, wagered) of each deal of the given rank orders, one per row, the
    progression carried from deal to deal: exact enumeration over all orderings of small
    packs, and tests comparing the kernel with the reference path deal by deal."""
    masks, coppered, stakes, starts, flat = _arrays(table, rules)
    return _play_orders(
        np.ascontiguousarray(orders, dtype=np.int8), rules.rank_totals(), *_rule_args(rules),
        masks, coppered, stakes, starts, flat, float(table.high_card), float(table.call_turn),
        _prog_tuple(progression))
