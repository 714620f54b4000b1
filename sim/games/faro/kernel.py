"""The fast path: whole faro deals in a compiled kernel, strategies given as tables.

A strategy the kernel can run is a :class:`FaroTable`: bet *slots* (a set of ranks, to win or
coppered) whose stake depends on how many cards of the covered ranks are left, plus a per-turn
high-card stake and a calling-the-turn stake. That covers flat rank bets, case bets, coppered
play, corner bets, high card and calling the turn, under any progression of
:mod:`sim.core.progression`. The kernel plays the same rules as :mod:`sim.games.faro.deal` and tests
compare the two deal by deal.

Flat single-rank tables, the common case, have a loop of their own with the shuffle, the turn
and the statistics inline, every value in a local and the stake table indexed in unsigned
arithmetic; every other table takes the general loop. What each choice buys, with the
figures: ``docs/performance.md``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from sim.core import kernel_cache  # noqa: F401  (compiled code cached by digest)
from sim.core.histogram import NetGrid, count
from sim.core.jit import read_only
from sim.core.progression import FLAT, ProgressionSpec, advance
from sim.core.stats import BATCH_FIELDS, Stats, kernel_add_batch, kernel_add_round
from sim.core.xoshiro import draw_below, shuffle_in_place
from sim.games.faro.rules import FaroRules

HIST = NetGrid(per_unit=2, low=-2048, high=2048)  # net results in half units, +-2048 units
HIST_PER_UNIT, HIST_FIRST, HIST_LAST, HIST_SIZE = HIST.constants()


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
    """The table as the kernel's arrays: slots listed by rank (CSR), stakes by cards left,
    and each slot's covered cards in a full pack."""
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
    totals = rules.rank_totals()
    covered = np.array([sum(int(totals[r]) for r in range(13) if m >> r & 1)
                        for m in table.masks], dtype=np.int64)
    return masks, coppered, stakes, starts, flat, covered


def by_rank(table: FaroTable) -> bool:
    """The table bets single ranks, each in one slot at most: the fast path can play it."""
    return all(m & (m - 1) == 0 for m in table.masks) and len(set(table.masks)) == len(
        table.masks)


@numba.njit(cache=True)
def _high_card(loser, winner, pair_loses_half):
    """Net per unit of a high-card bet (ace low)."""
    if winner > loser:
        return 1.0
    if winner < loser:
        return -1.0
    return -0.5 if pair_loses_half else 0.0


@numba.njit(cache=True)
def _call_turn(a, c, h, call_pays, cat_hop_pays):
    """(offered, net per unit) of calling the last turn in ascending order."""
    if a == c and c == h:
        return False, 0.0
    lo = min(a, min(c, h))
    hi = max(a, max(c, h))
    if a == lo and h == hi and c == a + c + h - lo - hi:
        return True, cat_hop_pays if (a == c or c == h) else call_pays
    return True, -1.0


@numba.njit(cache=True, _nrt=False)
def _play_deal(order, rule_i, rule_f, masks, coppered, stakes, slot_start, slot_flat,
               base_covered, fast, rank_stakes, rank_sign, high, call, prog, unit, streak,
               counts, decided):
    """Play one shuffled deal; return (net, wagered, splits, decisions, unit, streak).

    ``fast``: flat stakes on single ranks, read from ``rank_stakes[rank, cards left]`` and
    ``rank_sign`` (+1 to win, -1 coppered); outcomes computed arithmetically, since they are
    random and branches on them would be mispredicted. Otherwise the slots covering the
    turn's cards are decided in slot order, moving the progression after each decision, as
    the reference path does.
    """
    soda, n_turns, has_hock, last_winner_void, pair_loses_half = (
        rule_i[0], rule_i[1], rule_i[2], rule_i[3], rule_i[4])
    split_take, call_pays, cat_hop_pays = rule_f[0], rule_f[1], rule_f[2]
    pk, pbase, pcap, pwins = prog
    # Per rank on the fast path, per slot otherwise (a loop: a slice assignment costs a
    # third of the deal's time).
    for i in range(base_covered.shape[0]):
        counts[i] = base_covered[i]
    pos = 0
    if soda:  # the soda is the order's last entry (see simulate_table)
        r = order[order.shape[0] - 1]
        if fast:
            counts[r] -= 1
        else:
            for i in range(slot_start[r], slot_start[r + 1]):
                counts[slot_flat[i]] -= 1
    void_turn = n_turns - 1 if last_winner_void != 0 else -1
    net = 0.0
    wagered = 0.0
    splits = 0
    decisions = 0
    for t in range(n_turns):
        loser = order[pos]
        winner = order[pos + 1]
        void = t == void_turn
        turn_unit = unit
        if fast:
            s_lose = rank_stakes[loser, counts[loser]] * turn_unit
            s_win = rank_stakes[winner, counts[winner]] * turn_unit
            if loser == winner and not void:
                net -= split_take * s_lose
                if s_lose > 0.0:
                    wagered += s_lose
                    decisions += 1
                    splits += 1
            else:
                live = 0.0 if void else 1.0
                s_win *= live
                net += rank_sign[winner] * s_win - rank_sign[loser] * s_lose
                wagered += s_lose + s_win
                decisions += (1 if s_lose > 0.0 else 0) + (1 if s_win > 0.0 else 0)
            counts[loser] -= 1
            counts[winner] -= 1
        else:
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
            for i in range(1, n_dec):  # insertion sort: a handful of slots
                x = decided[i]
                j = i - 1
                while j >= 0 and decided[j] > x:
                    decided[j + 1] = decided[j]
                    j -= 1
                decided[j + 1] = x
            for i in range(n_dec):
                b = decided[i]
                stake = stakes[b, counts[b]] * turn_unit
                if stake <= 0.0:
                    continue
                lose_in = (masks[b] >> loser) & 1 == 1
                win_in = (not void) and (masks[b] >> winner) & 1 == 1
                if lose_in and win_in:
                    if loser != winner:
                        continue  # two covered ranks: no action
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
            for i in range(slot_start[loser], slot_start[loser + 1]):
                counts[slot_flat[i]] -= 1
            for i in range(slot_start[winner], slot_start[winner + 1]):
                counts[slot_flat[i]] -= 1
        if high > 0.0 and not void:
            stake = high * turn_unit
            res = _high_card(loser, winner, pair_loses_half) * stake
            net += res
            wagered += stake
            decisions += 1
            unit, streak = advance(pk, pbase, pcap, pwins, unit, streak, res)
        if call > 0.0 and has_hock and t == n_turns - 1:
            offered, per_unit = _call_turn(order[pos], order[pos + 1], order[pos + 2],
                                           call_pays, cat_hop_pays)
            if offered:
                stake = call * turn_unit
                net += per_unit * stake
                wagered += stake
                decisions += 1
                unit, streak = advance(pk, pbase, pcap, pwins, unit, streak, per_unit * stake)
        pos += 2
    return net, wagered, splits, decisions, unit, streak


@numba.njit(cache=True)
def _simulate(n_deals, state, pack, rule_i, rule_f, masks, coppered, stakes, slot_start,
              slot_flat, base_covered, fast, rank_stakes, rank_sign, high, call, prog,
              batch_len):
    """The general loop. With ``batch_len`` > 0 (a progression carries its unit from deal
    to deal) the deals are cut into batches of that many (the last may be shorter) whose
    totals go into ``batch`` (:func:`sim.core.stats.kernel_add_batch`)."""
    outcomes = np.zeros(3, dtype=np.int64)
    sums = np.zeros(8, dtype=np.float64)
    hist = np.zeros(HIST_SIZE, dtype=np.int64)
    counters = np.zeros(2, dtype=np.float64)
    batch = np.zeros(1 + len(BATCH_FIELDS), dtype=np.float64)
    counts = np.zeros(base_covered.shape[0], dtype=np.int64)
    decided = np.zeros(max(1, 2 * masks.shape[0]), dtype=np.int64)
    order = pack.copy()
    unit = prog[1]
    streak = np.int64(0)  # typed: a literal 0 would compile _play_deal a second time
    b_net = b_init = b_w = 0.0
    b_left = batch_len
    for d in range(n_deals):
        shuffle_in_place(order, state)
        initial = unit
        net, wagered, splits, decisions, unit, streak = _play_deal(
            order, rule_i, rule_f, masks, coppered, stakes, slot_start, slot_flat,
            base_covered, fast, rank_stakes, rank_sign, high, call, prog, unit, streak,
            counts, decided)
        kernel_add_round(outcomes, sums, net, initial, wagered)
        count(hist, net, HIST_PER_UNIT, HIST_FIRST, HIST_LAST)
        counters[0] += splits
        counters[1] += decisions
        if batch_len > 0:
            b_net += net
            b_init += initial
            b_w += wagered
            b_left -= 1
            if b_left == 0 or d == n_deals - 1:
                kernel_add_batch(batch, b_net, b_init, b_w)
                b_net = b_init = b_w = 0.0
                b_left = batch_len
    return outcomes, sums, hist, counters, batch


@numba.njit(cache=True)
def _simulate_fast(n_deals, state, pack, rule_i, rule_f, rank_stakes, rank_sign, high, call,
                   unit, nets):
    """The fast path's whole loop in one function: flat stakes on single ranks (see
    :func:`_play_deal`), the shuffle and the statistics inline, everything in locals. Where
    ``nets`` has a row per deal, each deal's net is also written there (sessions)."""
    record = nets.shape[0] > 0
    soda, n_turns, has_hock, last_winner_void, pair_loses_half = (
        rule_i[0], rule_i[1], rule_i[2], rule_i[3], rule_i[4])
    split_take, call_pays, cat_hop_pays = rule_f[0], rule_f[1], rule_f[2]
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    # Ranks as unsigned bytes: an unsigned index needs no negative-index fix-up.
    order = pack.astype(np.uint8)
    n = order.shape[0]
    width = rank_stakes.shape[1]
    stakes = rank_stakes.ravel() * unit  # flat progression: the unit never moves
    base = np.zeros(13, dtype=np.int64)
    for i in range(n):
        base[order[i]] += 1
    counts = np.zeros(13, dtype=np.int64)
    hist = np.zeros(HIST_SIZE, dtype=np.int64)
    void_turn = n_turns - 1 if last_winner_void != 0 else -1
    high_stake = high * unit
    call_stake = call * unit
    # No high card, no calling the turn, no void last turn (the bench line, and every flat
    # rank bet): the turns get a loop of their own with nothing else in it.
    plain = high == 0.0 and call == 0.0 and void_turn < 0
    # The plain loop's stake index in unsigned arithmetic: no negative-index fix-up (in the
    # general loop too, it slowed the plain one: see the module docstring).
    uwidth = np.uint64(width)
    wins = losses = splits_all = decisions_all = 0
    t_net = t_net2 = t_init = t_init2 = t_ni = t_w = t_w2 = t_nw = 0.0
    unit2 = unit * unit
    for d in range(n_deals):
        # The shuffle written out, not sim.core.xoshiro.shuffle: called here it cost 8% of
        # the bench line's rate (docs/performance.md).
        for i in range(n - 1):
            j, s0, s1, s2, s3 = draw_below(n - i, s0, s1, s2, s3)
            j += i
            tmp = order[i]
            order[i] = order[j]
            order[j] = tmp
        for r in range(13):
            counts[r] = base[r]
        pos = 0
        if soda:
            counts[order[n - 1]] -= 1
        net = 0.0
        wagered = 0.0
        splits = 0
        decisions = 0
        if plain:  # the same sums in the same order as the general loop below
            for _ in range(n_turns):
                loser = order[pos]
                winner = order[pos + 1]
                s_lose = stakes[np.uint64(loser) * uwidth + np.uint64(counts[loser])]
                s_win = stakes[np.uint64(winner) * uwidth + np.uint64(counts[winner])]
                if loser == winner:
                    net -= split_take * s_lose
                    if s_lose > 0.0:
                        wagered += s_lose
                        decisions += 1
                        splits += 1
                else:
                    net += rank_sign[winner] * s_win - rank_sign[loser] * s_lose
                    wagered += s_lose + s_win
                    decisions += (1 if s_lose > 0.0 else 0) + (1 if s_win > 0.0 else 0)
                counts[loser] -= 1
                counts[winner] -= 1
                pos += 2
        else:
            for t in range(n_turns):
                loser = order[pos]
                winner = order[pos + 1]
                void = t == void_turn
                s_lose = stakes[loser * width + counts[loser]]
                s_win = stakes[winner * width + counts[winner]]
                if loser == winner and not void:
                    net -= split_take * s_lose
                    if s_lose > 0.0:
                        wagered += s_lose
                        decisions += 1
                        splits += 1
                else:
                    if void:
                        s_win = 0.0
                    net += rank_sign[winner] * s_win - rank_sign[loser] * s_lose
                    wagered += s_lose + s_win
                    decisions += (1 if s_lose > 0.0 else 0) + (1 if s_win > 0.0 else 0)
                counts[loser] -= 1
                counts[winner] -= 1
                if high > 0.0 and not void:
                    net += _high_card(loser, winner, pair_loses_half) * high_stake
                    wagered += high_stake
                    decisions += 1
                if call > 0.0 and has_hock and t == n_turns - 1:
                    offered, per_unit = _call_turn(order[pos], order[pos + 1], order[pos + 2],
                                                   call_pays, cat_hop_pays)
                    if offered:
                        net += per_unit * call_stake
                        wagered += call_stake
                        decisions += 1
                pos += 2
        if net > 0.0:
            wins += 1
        elif net < 0.0:
            losses += 1
        t_net += net
        t_net2 += net * net
        t_init += unit
        t_init2 += unit2
        t_ni += net * unit
        t_w += wagered
        t_w2 += wagered * wagered
        t_nw += net * wagered
        count(hist, net, HIST_PER_UNIT, HIST_FIRST, HIST_LAST)
        if record:
            nets[d] = net
        splits_all += splits
        decisions_all += decisions
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3
    outcomes = np.array([wins, n_deals - wins - losses, losses], dtype=np.int64)
    sums = np.array([t_net, t_net2, t_init, t_init2, t_ni, t_w, t_w2, t_nw])
    counters = np.array([float(splits_all), float(decisions_all)])
    return outcomes, sums, hist, counters


@numba.njit(cache=True)
def _play_orders(orders, rule_i, rule_f, masks, coppered, stakes, slot_start, slot_flat,
                 base_covered, fast, rank_stakes, rank_sign, high, call, prog):
    counts = np.zeros(base_covered.shape[0], dtype=np.int64)
    decided = np.zeros(max(1, 2 * masks.shape[0]), dtype=np.int64)
    out = np.empty((orders.shape[0], 3), dtype=np.float64)
    # Each order is played from a writable copy: the array type the simulation passes, so
    # _play_deal is compiled once for both (read-only orders would compile it again).
    order = np.empty(orders.shape[1], dtype=np.int8)
    unit = prog[1]
    streak = np.int64(0)
    for i in range(orders.shape[0]):
        initial = unit
        order[:] = orders[i]
        net, wagered, _, _, unit, streak = _play_deal(
            order, rule_i, rule_f, masks, coppered, stakes, slot_start, slot_flat,
            base_covered, fast, rank_stakes, rank_sign, high, call, prog, unit, streak,
            counts, decided)
        out[i, 0] = net
        out[i, 1] = initial
        out[i, 2] = wagered
    return out


@numba.njit(cache=True)
def _session_nets(n_sessions, n_rounds, state, pack, rule_i, rule_f, masks, coppered, stakes,
                  slot_start, slot_flat, base_covered, fast, rank_stakes, rank_sign, high, call,
                  prog):
    counts = np.zeros(base_covered.shape[0], dtype=np.int64)
    decided = np.zeros(max(1, 2 * masks.shape[0]), dtype=np.int64)
    order = pack.copy()
    out = np.empty((n_sessions, n_rounds), dtype=np.float64)
    for s in range(n_sessions):
        unit = prog[1]  # every session starts the progression afresh
        streak = np.int64(0)
        for r in range(n_rounds):
            shuffle_in_place(order, state)
            net, _, _, _, unit, streak = _play_deal(
                order, rule_i, rule_f, masks, coppered, stakes, slot_start, slot_flat,
                base_covered, fast, rank_stakes, rank_sign, high, call, prog, unit, streak,
                counts, decided)
            out[s, r] = net
    return out


def _kernel_args(rules: FaroRules, table: FaroTable, progression: ProgressionSpec,
                 fast: bool | None = None) -> tuple:
    """Everything the kernel reads, after the pack or the orders."""
    masks, coppered, stakes, starts, flat, covered = _arrays(table, rules)
    if fast is None:
        fast = progression.kind == FLAT and by_rank(table)
    rank_stakes = np.zeros((13, stakes.shape[1]), dtype=np.float64)
    rank_sign = np.ones(13, dtype=np.float64)
    if fast:
        covered = rules.rank_totals().astype(np.int64)
        for b, mask in enumerate(table.masks):
            r = mask.bit_length() - 1
            rank_stakes[r] = stakes[b]
            rank_sign[r] = -1.0 if coppered[b] else 1.0
    rule_i = np.array([rules.soda, rules.n_turns, rules.has_hock, rules.last_winner_void,
                       rules.high_card_pair == "lose-half"], dtype=np.int64)
    rule_f = np.array([rules.split_take, rules.call_turn_pays, rules.cat_hop_pays],
                      dtype=np.float64)
    prog = (progression.kind, float(progression.base), float(progression.cap),
            progression.wins_to_reset)
    return (rule_i, rule_f, masks, coppered, stakes, starts, flat, covered, fast,
            rank_stakes, rank_sign, float(table.high_card), float(table.call_turn), prog)


def simulate_table(
    rules: FaroRules,
    table: FaroTable,
    progression: ProgressionSpec,
    deals: int,
    state: np.ndarray,
    batch_len: int = 0,
) -> Stats:
    """Play ``deals`` deals on the kernel, advancing the xoshiro ``state`` in place; with
    ``batch_len`` > 0, cut into batches of that many deals (a progression's unit carried from
    deal to deal makes them dependent: the error comes from batch means).

    Common random numbers need no per-deal re-seed here: every deal shuffles the whole pack
    (n - 1 bounded draws, the last deal's order shuffled again), whatever the table bets, so
    deal i of a chunk is the same shuffle for every strategy and every variant dealing the
    same pack (faro or stuss); tests check it. The soda (the top card, shown before the
    first turn) is the order's *last* entry, the turns are dealt from its first: so a deal
    with the soda burn and one without play the same turns, and their difference is measured
    paired (with the soda first, every turn's two cards would change places between the two
    and their nets would be anti-correlated).
    """
    args = _kernel_args(rules, table, progression)
    batch = None
    if args[8]:  # fast: flat stakes on single ranks
        rule_i, rule_f, *_, rank_stakes, rank_sign, high, call, prog = args
        outcomes, sums, hist, counters = _simulate_fast(
            deals, state, rules.pack_ranks(), rule_i, rule_f, rank_stakes, rank_sign, high,
            call, prog[1], np.zeros(0))
    else:
        outcomes, sums, hist, counters, batch = _simulate(deals, state, rules.pack_ranks(),
                                                          *args, batch_len)
    values = HIST.values()
    return Stats.from_arrays(deals, outcomes, sums, values, hist,
                             {"splits": counters[0], "decisions": counters[1]},
                             batch if batch_len > 0 else None)


def session_nets(rules: FaroRules, table: FaroTable, progression: ProgressionSpec,
                 sessions: int, rounds: int, state: np.ndarray) -> np.ndarray:
    """The net of each deal of ``sessions`` sessions of ``rounds`` deals (one row each, the
    progression starting afresh every session), advancing the xoshiro ``state``."""
    args = _kernel_args(rules, table, progression)
    if args[8]:  # flat stakes on single ranks: the fast loop (nothing to start afresh)
        rule_i, rule_f, *_, rank_stakes, rank_sign, high, call, prog = args
        nets = np.empty(sessions * rounds)
        _simulate_fast(sessions * rounds, state, rules.pack_ranks(), rule_i, rule_f,
                       rank_stakes, rank_sign, high, call, prog[1], nets)
        return nets.reshape(sessions, rounds)
    return _session_nets(sessions, rounds, state, rules.pack_ranks(), *args)


def play_ordered_deals(
    rules: FaroRules,
    table: FaroTable,
    progression: ProgressionSpec,
    orders: np.ndarray,
    fast: bool | None = None,
) -> np.ndarray:
    """(net, initial stake, wagered) of each deal of the given rank orders, one per row, the
    progression carried from deal to deal: exact enumeration over all orderings of small
    packs, and tests comparing the kernel with the reference path deal by deal. ``fast``
    forces (False) the general path where the fast one would be taken."""
    return _play_orders(read_only(np.ascontiguousarray(orders, dtype=np.int8)),
                        *_kernel_args(rules, table, progression, fast))
