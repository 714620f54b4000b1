"""The fast path: lansquenet sessions in a compiled kernel, strategies given as tables.

A strategy the kernel runs is a :class:`~sim.games.lansquenet.rules.LansquenetTable`: per
seat, a banker policy (pass after k wins, pass at a target bank, carry on a passed bank, a
stacked portee) and a punter policy (a share of the stake met, a stake limit, avoiding or
following a bank on a run), under any progression of :mod:`sim.core.progression` (one per seat,
moving the seat's opening stake with its banks' results).

Cards are drawn lazily: the pack is an array whose first ``rem`` entries are the cards not yet
dealt; a draw picks one of them uniformly (xoshiro256** with its state in local variables) and
swaps it to the end, so a coup costs its few draws and a fresh pack only its copy and a
re-seed (the pack in its fresh order, the generator from :func:`~sim.core.xoshiro.round_state`).
Given packs (tests: the same orders as the reference path) are stored reversed and drawn from
the end. The kernel plays the same rules as :mod:`sim.games.lansquenet.coup`, and tests compare
the two bank by bank.

What each choice buys (seat order by a compare, counters in locals, inlined draws, every
session in one call, the pack put back by one copy) is measured in ``docs/performance.md``.
"""

from __future__ import annotations

import numba
import numpy as np

from sim.core import kernel_cache  # noqa: F401  (compiled code cached by digest)
from sim.core.histogram import NetGrid, count
from sim.core.memcpy import copy_into
from sim.core.progression import ProgressionSpec, advance
from sim.core.stats import BATCH_FIELDS, Stats, kernel_add_batch, kernel_add_round
from sim.core.xoshiro import draw_below, next_key, round_state
from sim.games.lansquenet.coup import PACK_SLOTS, RUN_CAP
from sim.games.lansquenet.rules import MONEY_EPS, LansquenetRules, LansquenetTable

# The histogram of the table's net per bank: steps of 1/8 unit, clipped at +-4096 units.
HIST = NetGrid(per_unit=8, low=-4096, high=4096)
HIST_PER_UNIT, HIST_FIRST, HIST_LAST, HIST_SIZE = HIST.constants()
# Per-bank counters, in the kernel's order; then one net per seat, the run histogram of all
# banks and that of the banks opened on a stacked pack.
COUNTERS = ("coups", "voids", "jumelles", "wins", "losses", "run", "ended_pass",
            "ended_forced", "stacked")
PASS, FORCED, LOSS = 0, 1, 2
# Columns of a recorded bank (play_ordered_banks), then one net per seat.
RECORD = ("banker", "opening", "result", "wagered", "coups", "voids", "jumelles", "wins",
          "losses", "run", "ended")


@numba.njit(forceinline=True)
def _draw(arr, rem, top, s0, s1, s2, s3):
    """Deal one card from the undealt ``arr[:rem]``: the top one (given or stacked packs) or
    one at random; it is swapped to the end, so arr stays a permutation of the pack."""
    if top:
        j = rem - 1
    else:
        j, s0, s1, s2, s3 = draw_below(rem, s0, s1, s2, s3)
    card = arr[j]
    arr[j] = arr[rem - 1]
    arr[rem - 1] = card
    return card, rem - 1, s0, s1, s2, s3


@numba.njit(forceinline=True)
def _coup(arr, rem, top_above, banker_first, s0, s1, s2, s3):
    """One coup's cards: two, then cards until one of their ranks comes again. Returns the
    outcome (0 a jumelle, 1 the banker's rank first, 2 the punters', 3 the pack ran out:
    rem is then 0), the cards left and the generator."""
    if rem < 2:
        return 3, 0, s0, s1, s2, s3
    c1, rem, s0, s1, s2, s3 = _draw(arr, rem, rem > top_above, s0, s1, s2, s3)
    c2, rem, s0, s1, s2, s3 = _draw(arr, rem, rem > top_above, s0, s1, s2, s3)
    if c1 == c2:
        return 0, rem, s0, s1, s2, s3
    bk = c1 if banker_first else c2
    tb = c2 if banker_first else c1
    while rem > 0:
        c, rem, s0, s1, s2, s3 = _draw(arr, rem, rem > top_above, s0, s1, s2, s3)
        if c == bk:
            return 1, rem, s0, s1, s2, s3
        if c == tb:
            return 2, rem, s0, s1, s2, s3
    return 3, rem, s0, s1, s2, s3


@numba.njit(cache=True)
def _fresh(arr, orders, row):
    """A fresh pack: the next given order (stored reversed), or the same cards to be drawn at
    random. Returns the next row index."""
    if orders.shape[0] == 0:
        return row
    if row >= orders.shape[0]:
        raise ValueError("play_ordered_banks: no pack left")
    n = arr.shape[0]
    for i in range(n):
        arr[n - 1 - i] = orders[row, i]
    return row + 1


@numba.njit(cache=True)
def _stack(arr, series, buf):
    """Put ``series`` on top of the pack (taking its cards out of the pack, the rest in order)."""
    n = arr.shape[0]
    need = np.zeros(13, dtype=np.int64)
    for r in series:
        need[r] += 1
    k = 0
    for r in series:
        buf[k] = r
        k += 1
    for i in range(n):
        r = arr[n - 1 - i]
        if need[r] > 0:
            need[r] -= 1
        else:
            buf[k] = r
            k += 1
    for i in range(n):
        arr[n - 1 - i] = buf[i]


@numba.njit(cache=True)
def _session(n_banks, max_coups, state, pack, orders, seats, banker_first, coup_reshuffle,
             take, pool, bk_pass, bk_target, bk_carry, portee, portee_start, pu_share, pu_limit,
             pu_avoid, pu_follow, prog, record, session_banks, nets, batch_len):
    """Play banks until ``n_banks`` banks or ``max_coups`` coups; accumulate statistics.

    Sessions: every ``session_banks`` banks (0: never) the table starts afresh as a new call
    would (seat 0 opens, the pack in its first order, progressions at their base, nothing
    carried), and where ``nets`` has room the net of each bank seat 0 opens is written there.
    With ``batch_len`` > 0 (a progression carries each seat's unit from bank to bank) the banks
    are cut into batches of that many (the last may be shorter) whose totals go into ``batch``
    (:func:`sim.core.stats.kernel_add_batch`).
    """
    pk, pbase, pcap, pwins = prog
    # Common random numbers: each fresh pack starts the generator afresh from the chunk's
    # key and the index PACK_SLOTS x bank + the pack's index within the bank, and from the
    # pack in its fresh order, so bank i deals the same packs to every strategy however many
    # cards the banks before it took.
    key = state.copy()  # read at each fresh pack: four locals fewer for the registers
    s0, s1, s2, s3 = key[0], key[1], key[2], key[3]
    refresh = 0
    n = pack.shape[0]
    arr = pack.copy()
    buf = np.empty(n, dtype=pack.dtype)
    given = orders.shape[0] > 0
    row = np.int64(0)  # typed: a literal 0 would compile _fresh a second time
    outcomes = np.zeros(3, dtype=np.int64)
    sums = np.zeros(8, dtype=np.float64)
    hist = np.zeros(HIST_SIZE, dtype=np.int64)
    counters = np.zeros(len(COUNTERS) + seats + 2 * (RUN_CAP + 1), dtype=np.float64)
    batch = np.zeros(1 + len(BATCH_FIELDS), dtype=np.float64)
    # A batch's totals are the running sums' growth since it opened (as the reference path's
    # sim.core.stats.RoundBatches takes them): a bank pays one compare, so flat rows (the cut
    # never reached) run as fast as without batches.
    b_net = b_init = b_w = 0.0  # the running sums where the open batch began
    cut = batch_len if batch_len > 0 else -1  # the bank count that closes the open batch
    seat_base = len(COUNTERS)
    run_base = seat_base + seats
    units = np.full(seats, pbase)
    streaks = np.zeros(seats, dtype=np.int64)
    cov = np.zeros(seats, dtype=np.float64)
    seat_net = np.zeros(seats, dtype=np.float64)
    runs = np.zeros(2 * (RUN_CAP + 1), dtype=np.int64)
    t_coups = t_voids = t_jumelles = t_wins = t_losses = t_run = t_pass = t_forced = 0
    t_stacked = 0
    banker = 0
    carry = 0.0
    total_coups = 0
    banks = 0
    session_left = session_banks  # banks until the next session starts afresh
    record_nets = nets.shape[0] > 0
    k_net = 0
    while banks < n_banks and total_coups < max_coups:
        if session_left == 0 and session_banks > 0:
            session_left = session_banks
            banker = 0
            carry = 0.0
            for i in range(seats):
                units[i] = pbase
                streaks[i] = 0
        session_left -= 1
        b = banker
        opening = carry if (bk_carry[b] and carry > 0.0) else units[b]
        if given:  # a call per bank costs the reference counts of its arrays
            row = _fresh(arr, orders, row)
        else:
            copy_into(arr, pack)
            refresh = banks * PACK_SLOTS
            s0, s1, s2, s3 = round_state(key[0], key[1], key[2], key[3], refresh)
        rem = n
        stacked = portee_start[b + 1] - portee_start[b]
        # Draws take the top card while more than ``top_above`` are left: every draw from a
        # given pack, the portee's from a stacked one (one number for the draw loop to hold).
        top_above = -1 if given else n - stacked
        if stacked > 0:
            _stack(arr, portee[portee_start[b]:portee_start[b + 1]], buf)
        bank = opening
        wagered = 0.0
        coups = voids = jumelles = wins = losses = run = 0
        ended = FORCED
        first = True
        while True:
            # The punters meet the stake in turn, nearest the banker first, until it is all
            # met: the ``asked`` seats after the banker are the ones with a stake on the coup.
            covered = 0.0
            s = b
            asked = 0
            for _ in range(1, seats):
                left = bank - covered
                if left <= MONEY_EPS:
                    break
                s = s + 1 if s + 1 < seats else 0  # not (b + k) % seats: a division
                asked += 1
                c = 0.0
                if not (pu_limit[s] > 0.0 and bank > pu_limit[s] + MONEY_EPS) \
                        and not (pu_avoid[s] > 0 and run >= pu_avoid[s]):
                    if pu_follow[s] > 0 and run >= pu_follow[s]:
                        c = left
                    else:
                        c = min(left, pu_share[s] * bank)
                cov[s] = c
                covered += c
            if covered <= MONEY_EPS:
                ended = FORCED
                break
            if rem == 0 or (coup_reshuffle and not first):
                if given:
                    row = _fresh(arr, orders, row)
                else:
                    copy_into(arr, pack)
                    refresh += 1
                    s0, s1, s2, s3 = round_state(key[0], key[1], key[2], key[3], refresh)
                rem = n
                top_above = -1 if given else n
            first = False
            total_coups += 1
            wagered += covered
            # The coup: two cards, then cards until one of their ranks comes again.
            outcome, rem, s0, s1, s2, s3 = _coup(arr, rem, top_above, banker_first,
                                                 s0, s1, s2, s3)
            if outcome == 3:  # the pack ran out (rem is 0): stakes back, the coup again
                voids += 1
                continue
            if outcome == 0:
                gain = take * covered
            elif outcome == 1:
                gain = covered
            else:
                gain = -covered
            per_unit = gain / covered
            s = b
            for _ in range(asked):
                s = s + 1 if s + 1 < seats else 0
                seat_net[s] -= per_unit * cov[s]
            bank += gain
            coups += 1
            if outcome == 2:
                losses += 1
                ended = LOSS
                break
            run += 1
            if outcome == 0:
                jumelles += 1
            else:
                wins += 1
            if (bk_pass[b] > 0 and run >= bk_pass[b]) or (
                    bk_target[b] > 0.0 and bank >= bk_target[b] * opening - MONEY_EPS):
                ended = PASS
                break
        result = bank - opening
        s = b
        for k in range(seats):
            seat_net[s] += pool[k] * result
            s = s + 1 if s + 1 < seats else 0
        carry = bank if ended != LOSS else 0.0
        units[b], streaks[b] = advance(pk, pbase, pcap, pwins, units[b], streaks[b], result)
        banker = b + 1 if b + 1 < seats else 0
        # Statistics of the bank, from the table's side: net = -result.
        net = -result
        kernel_add_round(outcomes, sums, net, opening, wagered)
        count(hist, net, HIST_PER_UNIT, HIST_FIRST, HIST_LAST)
        # Counters in locals and integer arrays, written out once at the end.
        t_coups += coups
        t_voids += voids
        t_jumelles += jumelles
        t_wins += wins
        t_losses += losses
        t_run += run
        t_pass += ended == PASS
        t_forced += ended == FORCED
        runs[min(run, RUN_CAP)] += 1
        if portee_start[b + 1] > portee_start[b]:
            t_stacked += 1
            runs[RUN_CAP + 1 + min(run, RUN_CAP)] += 1
        if record_nets and b == 0:
            nets[k_net] = net
            k_net += 1
        if record.shape[0] > 0:
            rec = record[banks]
            rec[0] = b
            rec[1] = opening
            rec[2] = result
            rec[3] = wagered
            rec[4] = coups
            rec[5] = voids
            rec[6] = jumelles
            rec[7] = wins
            rec[8] = losses
            rec[9] = run
            rec[10] = ended
        banks += 1
        if banks == cut:
            kernel_add_batch(batch, sums[0] - b_net, sums[2] - b_init, sums[5] - b_w)
            b_net, b_init, b_w = sums[0], sums[2], sums[5]
            cut += batch_len
    if batch_len > 0 and banks > cut - batch_len:  # the last batch, shorter
        kernel_add_batch(batch, sums[0] - b_net, sums[2] - b_init, sums[5] - b_w)
    state[0], state[1], state[2], state[3] = next_key(key[0], key[1], key[2], key[3])
    totals = (t_coups, t_voids, t_jumelles, t_wins, t_losses, t_run, t_pass, t_forced, t_stacked)
    for k in range(len(totals)):
        counters[k] = totals[k]
    for s in range(seats):
        counters[seat_base + s] = seat_net[s]
    for k in range(2 * (RUN_CAP + 1)):
        counters[run_base + k] = runs[k]
    return banks, total_coups, outcomes, sums, hist, counters, arr, batch


def _kernel_args(rules: LansquenetRules, table: LansquenetTable,
                 progression: ProgressionSpec) -> tuple:
    """Everything the kernel reads after the pack and the orders."""
    if table.seats != rules.seats:
        raise ValueError(f"the table has {table.seats} seats, the rules {rules.seats}")
    portee = [r for b in table.bankers for r in b.portee]
    starts = np.cumsum([0] + [len(b.portee) for b in table.bankers]).astype(np.int64)
    prog = (progression.kind, float(progression.base), float(progression.cap),
            progression.wins_to_reset)
    return (
        rules.seats, rules.banker_first, rules.reshuffle == "coup", rules.jumelle_take,
        np.array(rules.pool_shares, dtype=np.float64),
        np.array([b.pass_after for b in table.bankers], dtype=np.int64),
        np.array([b.target for b in table.bankers], dtype=np.float64),
        np.array([b.carry for b in table.bankers], dtype=np.bool_),
        np.array(portee, dtype=np.int8), starts,
        np.array([p.share for p in table.punters], dtype=np.float64),
        np.array([p.limit for p in table.punters], dtype=np.float64),
        np.array([p.avoid_after for p in table.punters], dtype=np.int64),
        np.array([p.follow_after for p in table.punters], dtype=np.int64),
        prog,
    )


def counter_names(seats: int) -> list[str]:
    """Names of the kernel's counters, in its order (the reference path uses the same)."""
    runs = [f"run_{k}" for k in range(RUN_CAP)] + [f"run_ge_{RUN_CAP}"]
    return (list(COUNTERS) + [f"seat_{s}" for s in range(seats)] + runs
            + [f"stacked_{name}" for name in runs])


_NO_NETS = np.zeros(0)  # sessions not kept apart: no nets to write


def _no_orders(rules: LansquenetRules) -> np.ndarray:
    return np.zeros((0, rules.n_cards), dtype=np.int8)


def simulate_table(rules: LansquenetRules, table: LansquenetTable, progression: ProgressionSpec,
                   banks: int, state: np.ndarray, batch_len: int = 0) -> Stats:
    """Play a session of ``banks`` banks (seat 0 opens), advancing the xoshiro ``state``;
    with ``batch_len`` > 0, cut into batches of that many banks (a progression's units carried
    from bank to bank make them dependent: the error comes from batch means)."""
    _, _, outcomes, sums, hist, counters, _, batch = _session(
        banks, np.iinfo(np.int64).max, state, rules.pack_ranks(), _no_orders(rules),
        *_kernel_args(rules, table, progression), np.zeros((0, len(RECORD)), dtype=np.float64),
        0, _NO_NETS, batch_len)
    values = HIST.values()
    names = counter_names(rules.seats)
    return Stats.from_arrays(banks, outcomes, sums, values, hist,
                             {k: v for k, v in zip(names, counters.tolist()) if v},
                             batch if batch_len > 0 else None)


def play_coups(rules: LansquenetRules, table: LansquenetTable, progression: ProgressionSpec,
               coups: int, state: np.ndarray) -> tuple[int, int]:
    """Play until ``coups`` coups have been dealt (the bench); returns (banks, coups)."""
    banks, dealt, *_ = _session(
        np.iinfo(np.int64).max, coups, state, rules.pack_ranks(), _no_orders(rules),
        *_kernel_args(rules, table, progression), np.zeros((0, len(RECORD)), dtype=np.float64),
        0, _NO_NETS, 0)
    return banks, dealt


def play_ordered_banks(rules: LansquenetRules, table: LansquenetTable,
                       progression: ProgressionSpec, orders: np.ndarray, banks: int
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Play ``banks`` banks from the given pack orders (one row per fresh pack, taken in
    turn): tests compare this bank by bank with the reference path.

    Returns the records (one row per bank, columns :data:`RECORD`), the counters and the
    kernel's pack array at the end (still a permutation of the pack).
    """
    record = np.zeros((banks, len(RECORD)), dtype=np.float64)
    orders = np.ascontiguousarray(orders, dtype=np.int8)
    _, _, _, _, _, counters, arr, _ = _session(
        banks, np.iinfo(np.int64).max, np.zeros(4, dtype=np.uint64), rules.pack_ranks(),
        orders, *_kernel_args(rules, table, progression), record, 0, _NO_NETS, 0)
    return record, counters, arr


def session_nets(rules: LansquenetRules, table: LansquenetTable, progression: ProgressionSpec,
                 sessions: int, rounds: int, state: np.ndarray) -> np.ndarray:
    """The punters' net against each bank seat 0 opens, ``rounds`` of them per session (one
    row each; the bank goes round the table in between), advancing the xoshiro ``state``.
    Each session starts afresh: seat 0 opens, a fresh pack, progressions at their base."""
    banks = rounds * rules.seats  # the bank goes round in order: seat 0 opens every seats-th
    nets = np.empty(sessions * rounds)
    # One call for all the sessions: a call per session cost a third of the time (its
    # arrays, the histogram's half megabyte among them, allocated and cleared each time).
    _session(sessions * banks, np.iinfo(np.int64).max, state, rules.pack_ranks(),
             _no_orders(rules), *_kernel_args(rules, table, progression),
             np.zeros((0, len(RECORD)), dtype=np.float64), banks, nets, 0)
    return nets.reshape(sessions, rounds)
