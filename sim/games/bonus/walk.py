"""Simulated bonus players: a compiled walk for policy tables, a reference path for any strategy.

A player's walk is sequential (each stake depends on the balance the last bet left), and
players differ in length by orders of magnitude, so numpy cannot step a population in lockstep
without wasting most of its work on finished players; the walk is a numba kernel with the
generator in local variables (:mod:`sim.core.xoshiro`). Outcomes are drawn by inverse CDF of one
uniform per bet on both paths, so given the same uniforms the two paths play the same bets.

Common random numbers: player i's spins come from a generator started afresh for that player
from the chunk's key and i (:func:`~sim.core.xoshiro.round_state`), so spin n of player i is
the same for every policy and on both paths, however long the players before played.
"""

from __future__ import annotations

import math
from typing import Any

import numba
import numpy as np

from sim.core import kernel_cache  # noqa: F401  (compiled code cached by digest)
from sim.core.errors import IllegalActionError, StrategyFailedError
from sim.core.stats import Stats, stats_from_arrays
from sim.core.xoshiro import next_key, next_u64, raw_outputs, round_state, round_states
from sim.games.bonus.lattice import (
    BUST,
    COMPLETE,
    END_NAMES,
    TIMEOUT,
    WALK,
    Lattice,
    PolicyTable,
    complete_payoff,
    leave_payoff,
)
from sim.games.bonus.terms import REAL_PHASE, BonusBet, BonusView

_TO_UNIT = 1.0 / 9007199254740992.0  # 2**-53


@numba.njit(inline="always")
def _outcome(cdf, n, g, u):
    j = 0
    while j < n - 1 and u >= cdf[g, j]:
        j += 1
    return j


@numba.njit(cache=True)
def _walk(prm, start_phase, start_balance, returns, cdf, nout, cw, stake, game, rich_stake,
          rich_game, players, state, uniforms):
    """Play ``players`` players; per player (payout, staked, bets, end). ``uniforms`` (one
    row per player) replaces the generator when it has rows."""
    kind, forfeit_all, bonus, cap, min_stake = prm[0], prm[1] == 1, prm[2], prm[3], prm[4]
    W, bmax, max_bets = prm[5], prm[6], prm[8]
    per_bet = stake.shape[0] > 1
    given = uniforms.shape[0] > 0
    k0, k1, k2, k3 = state[0], state[1], state[2], state[3]
    payout = np.empty(players, dtype=np.int64)
    staked = np.empty(players, dtype=np.int64)
    bets = np.empty(players, dtype=np.int64)
    ends = np.empty(players, dtype=np.int8)
    for i in range(players):
        s0, s1, s2, s3 = round_state(k0, k1, k2, k3, i)  # player i's spins, whoever plays
        p, b, w, n, total = start_phase, start_balance, W, 0, 0
        while True:
            if w == 0:
                pay, e = complete_payoff(kind, p, b, bonus, cap), COMPLETE
                break
            if b < min_stake:
                if p == 1:
                    p, b = 0, b + bonus
                    continue
                pay, e = leave_payoff(kind, forfeit_all, 0, b, bonus), BUST
                break
            if max_bets > 0 and n >= max_bets:
                pay, e = leave_payoff(kind, forfeit_all, p, b, bonus), TIMEOUT
                break
            layer = n if per_bet else 0
            if b <= bmax:
                s, g = stake[layer, p, w, b], game[layer, p, w, b]
            else:
                s, g = rich_stake[layer, p, w], rich_game[layer, p, w]
            if s == 0:
                pay, e = leave_payoff(kind, forfeit_all, p, b, bonus), WALK
                break
            if given:
                u = uniforms[i, n]
            else:
                x, s0, s1, s2, s3 = next_u64(s0, s1, s2, s3)
                u = np.float64(x >> np.uint64(11)) * _TO_UNIT
            j = _outcome(cdf, nout[g], g, u)
            b += np.int64(s * returns[g, j] + 0.5) - s
            w = max(w - s * cw[g], 0)
            n += 1
            total += s
        payout[i], staked[i], bets[i], ends[i] = pay, total, n, e
    state[0], state[1], state[2], state[3] = next_key(k0, k1, k2, k3)
    return payout, staked, bets, ends


def walk_table(lattice: Lattice, table: PolicyTable, players: int, state: np.ndarray,
               uniforms: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
    """Per player (payout units, staked units, bets, end) on the compiled path."""
    g = lattice.games
    phase, balance = lattice.start
    given = np.zeros((0, 0)) if uniforms is None else np.ascontiguousarray(uniforms, float)
    return _walk(lattice.params(table.bmax), phase, balance, g["returns"], g["cdf"], g["nout"],
                 g["cw"], table.stake, table.game, table.rich_stake, table.rich_game, players,
                 state, given)


def player_stats(lattice: Lattice, payout: np.ndarray, staked: np.ndarray, bets: np.ndarray,
                 ends: np.ndarray) -> Stats:
    """Statistics of players (money in the rules' currency, net against the deposit)."""
    u = lattice.unit
    net = (payout - lattice.deposit) * u
    counters = {name: float((ends == i).sum()) for i, name in enumerate(END_NAMES)}
    counters.update(bets=float(bets.sum()), payout=float(payout.sum() * u),
                    payout2=float(((payout * u) ** 2).sum()))
    return stats_from_arrays(net, np.full(len(net), lattice.deposit * u), staked * u, counters)


# ----------------------------------------------------------------------- reference path
def _check(action: Any, view: BonusView, lattice: Lattice, strategy: Any, situation: str
           ) -> tuple[int, int]:
    def illegal(why: str) -> IllegalActionError:
        return IllegalActionError(strategy, action, situation, why)

    if not isinstance(action, BonusBet):
        raise illegal("expected a BonusBet(stake, game) or None to walk away")
    games = len(lattice.games["step"])
    if isinstance(action.game, bool) or not isinstance(action.game, (int, np.integer)) or not (
            0 <= action.game < games):
        raise illegal(f"game must be a game number 0..{games - 1}")
    stake = action.stake
    if isinstance(stake, bool) or not isinstance(stake, (int, float, np.number)) or not (
            math.isfinite(stake) and stake > 0):
        raise illegal("the stake must be a positive number")
    units = stake / lattice.unit
    step = int(lattice.games["step"][action.game])
    if abs(units - round(units)) > 1e-9 or round(units) % step:
        raise illegal(f"the stake must be a whole multiple of {step * lattice.unit:g} on "
                      f"{view.rules.games[action.game]}")
    s = int(round(units))
    if s > round(view.balance / lattice.unit):
        raise illegal(f"the stake is above the balance {view.balance:g}")
    if lattice.max_bet and s > lattice.max_bet:
        raise illegal(f"the max bet is {lattice.max_bet * lattice.unit:g}")
    return s, int(action.game)


def play_player(lattice: Lattice, strategy: Any, rng: np.random.Generator,
                uniforms: np.ndarray | None = None) -> tuple[int, int, int, int]:
    """One player on the reference path: (payout units, staked units, bets, end)."""
    rules = lattice.rules
    g = lattice.games
    kind, forfeit_all, bonus, cap = lattice.kind, lattice.forfeit_all, lattice.bonus, lattice.cap
    p, b = lattice.start
    w, n, total = lattice.requirement, 0, 0
    while True:
        if w == 0:
            return complete_payoff(kind, p, b, bonus, cap), total, n, COMPLETE
        if b < lattice.min_stake:
            if p == REAL_PHASE:
                p, b = 0, b + bonus
                continue
            return leave_payoff(kind, forfeit_all, 0, b, bonus), total, n, BUST
        if lattice.max_bets and n >= lattice.max_bets:
            return leave_payoff(kind, forfeit_all, p, b, bonus), total, n, TIMEOUT
        view = BonusView(b * lattice.unit, lattice.wagering_money(w), total * lattice.unit, n,
                         "real" if p == REAL_PHASE else "bonus",
                         lattice.max_bets - n if lattice.max_bets else None, rules)
        situation = f"at balance {view.balance:g}, wagering left {view.wagering_left:g}"
        try:
            action = strategy.decide(view, rng)
        except Exception as exc:
            raise StrategyFailedError(strategy, situation, exc) from exc
        if action is None:
            return leave_payoff(kind, forfeit_all, p, b, bonus), total, n, WALK
        s, game = _check(action, view, lattice, strategy, situation)
        u = uniforms[n] if uniforms is not None else rng.random()
        j = int(_outcome(g["cdf"], int(g["nout"][game]), game, float(u)))
        b += int(s * g["returns"][game, j] + 0.5) - s
        w = max(w - s * int(g["cw"][game]), 0)
        n += 1
        total += s


class Spins:
    """Player ``player``'s uniforms, in order, as the compiled walk draws them from ``key``
    (the kernel's 4-word state): ``spins[n]`` is the n-th."""

    def __init__(self, key: np.ndarray, player: int) -> None:
        self.state = round_states(np.asarray(key, dtype=np.uint64), player)
        self.drawn: list[float] = []

    def __getitem__(self, n: int) -> float:
        while len(self.drawn) <= n:  # the stream's outputs in order, 64 at a time
            x = raw_outputs(64, self.state)
            self.drawn.extend(((x >> np.uint64(11)).astype(np.float64) * _TO_UNIT).tolist())
        return self.drawn[n]


def simulate_reference(lattice: Lattice, strategy: Any, players: int, rng: np.random.Generator,
                       key: np.ndarray | None = None) -> Stats:
    """Statistics of ``players`` players on the reference path (any strategy): the strategy
    draws from ``rng``; the spins come from ``key`` (the kernel's state: the compiled walk's
    spins player by player), by default drawn from ``rng``."""
    if key is None:
        key = rng.integers(0, 2 ** 64, size=4, dtype=np.uint64)
    rows = np.array([play_player(lattice, strategy, rng, Spins(key, i)) for i in range(players)],
                    dtype=np.int64).reshape(-1, 4)
    return player_stats(lattice, rows[:, 0], rows[:, 1], rows[:, 2], rows[:, 3])
