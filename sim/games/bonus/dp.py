"""The exact programme over (phase, wagering left, balance): values, distributions, the optimum.

Every bet lowers the wagering left, so the states can be ordered by it: without a time limit one
sweep in increasing ``w`` computes every value (backward) and one sweep in decreasing ``w`` carries
the probability mass from the first bet to the end of play (forward). A time limit adds the bets
made as a layer index (one sweep per bet, two layers held at a time).

At every state the order of events is: a met requirement is paid out; a balance below the
smallest stake busts (a parachute's real phase turns to the bonus phase instead); a spent time
limit ends play as a walk-away; otherwise the policy bets or walks away. The simulated players
(:mod:`.walk`) follow the same order.

Balances above ``bmax`` form the rich region: there no bust and no kink of a payoff can be
reached before the end (see :mod:`.lattice`), so the payoff is affine in the final balance,
``alpha * b + beta``, and the rest of play contributes its exact mean, variance, stakes and bets.
The rich recursion runs over ``w`` alone.

Outputs: expected payout (withdrawable balance), its SD and distribution, P(complete), P(bust),
P(walk away), P(time out), expected amount staked and number of bets; and the optimal policy
(the stake and game maximising the expected payout in every state, among candidate stakes).
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from sim.core import kernel_cache  # noqa: F401  (compiled code cached by digest)
from sim.games.bonus.lattice import (
    BUST,
    COMPLETE,
    TIMEOUT,
    WALK,
    Lattice,
    PolicyTable,
    choose_bmax,
    complete_payoff,
    leave_payoff,
)

EPS = 1e-12        # a bet must beat walking away by this much to be preferred
MAX_LAYERED = 20_000_000  # layers x states an optimal policy under a time limit may hold
ALL_IN, TO_FINISH = -1, -2  # candidate stakes resolved per state


@numba.njit(inline="always")
def _payout(s, r):
    return np.int64(s * r + 0.5)  # s * r is a whole number by construction; round it


@numba.njit(inline="always")
def _finishing_stake(g, w, step, cw):
    """The smallest stake on game ``g`` that completes ``w`` wagering units at once."""
    return ((w + cw[g] * step[g] - 1) // (cw[g] * step[g])) * step[g]


@numba.njit(inline="always")
def _resolve(code, g, b, w, step, cw, max_bet):
    """A candidate stake in a state (0: not possible there); b < 0 means a rich state."""
    st = step[g]
    if code > 0:
        s = code
    else:
        need = _finishing_stake(g, w, step, cw)
        if b < 0:  # rich: no balance limit
            s = max_bet if (code == ALL_IN and max_bet > 0) else need
            if max_bet > 0 and s > max_bet:
                s = max_bet // st * st
        else:
            top = b if max_bet == 0 or b < max_bet else max_bet
            top = top // st * st
            s = top if code == ALL_IN or need > top else need
    if s <= 0 or (b >= 0 and s > b) or (max_bet > 0 and s > max_bet):
        return 0
    return s


@numba.njit(cache=True)
def _rich_layer(prm, ends, mean, var_g, cw, step, rs, rg, nxt_a, nxt_b, nxt_v, nxt_st,
                nxt_nb, nxt_end, a, bt, v, st, nb, end, can_bet, choose, cand_s, cand_g):
    """One layer of the rich recursion (in place when the ``nxt_`` arrays are the outputs)."""
    W, P, max_bet = prm[5], prm[7], prm[9]
    for w in range(W + 1):
        for p in range(P):
            if w == 0 or not can_bet:
                e = 0 if w == 0 else 1
                a[p, w] = ends[p, e, 0]
                bt[p, w] = ends[p, e, 1]
                v[p, w] = 0.0
                st[p, w] = 0.0
                nb[p, w] = 0.0
                end[p, w] = COMPLETE if w == 0 else TIMEOUT
                continue
            if choose:  # best (alpha, beta) over the candidates, walking away included
                best_a, best_b = ends[p, 1, 0], float(ends[p, 1, 1])
                best_s, best_g = 0, 0
                for k in range(cand_s.shape[0]):
                    g = cand_g[k]
                    s = _resolve(cand_s[k], g, -1, w, step, cw, max_bet)
                    if s == 0:
                        continue
                    w2 = max(w - s * cw[g], 0)
                    ca = nxt_a[p, w2]
                    cb = ca * s * (mean[g] - 1.0) + nxt_b[p, w2]
                    if ca > best_a or (ca == best_a and cb > best_b + EPS):
                        best_a, best_b, best_s, best_g = ca, cb, s, g
                rs[p, w] = best_s
                rg[p, w] = best_g
            s, g = rs[p, w], rg[p, w]
            if s == 0:
                a[p, w] = ends[p, 1, 0]
                bt[p, w] = ends[p, 1, 1]
                v[p, w] = 0.0
                st[p, w] = 0.0
                nb[p, w] = 0.0
                end[p, w] = WALK
                continue
            w2 = max(w - s * cw[g], 0)
            al = nxt_a[p, w2]
            a[p, w] = al
            bt[p, w] = al * s * (mean[g] - 1.0) + nxt_b[p, w2]
            v[p, w] = al * al * s * s * var_g[g] + nxt_v[p, w2]
            st[p, w] = s + nxt_st[p, w2]
            nb[p, w] = 1.0 + nxt_nb[p, w2]
            end[p, w] = nxt_end[p, w2]


@numba.njit(inline="always")
def _bet_value(V, a, bt, p, w, b, s, g, returns, probs, nout, cw, bmax):
    w2 = w - s * cw[g]
    if w2 < 0:
        w2 = 0
    acc = 0.0
    for j in range(nout[g]):
        q = probs[g, j]
        if q == 0.0:
            continue
        b2 = b - s + _payout(s, returns[g, j])
        if b2 > bmax:
            acc += q * (a[p, w2] * b2 + bt[p, w2])
        else:
            acc += q * V[p, w2, b2]
    return acc


@numba.njit(cache=True)
def _row_stake_values(out, stakes, V, a, bt, p, w, returns, probs, nout, cw, step, cand_s,
                      cand_g, min_stake, max_bet, bmax):
    """The candidates whose stake is the same at every balance of the row (p, w): a listed
    stake, and the stake that finishes the requirement wherever the balance covers it.
    ``stakes[k]`` is that stake (0: none) and ``out[k, b]`` its value at each balance that may
    place it, as :func:`_bet_value` computes it term by term (the same sums in the same order,
    so the same bits). Such a stake lands on one row of the next layer whatever the balance, so
    each outcome adds a shifted slice of that row: loops the compiler vectorises, where one
    state at a time spent most of its time on indexing."""
    for k in range(cand_s.shape[0]):
        g = cand_g[k]
        s = cand_s[k]
        if s == TO_FINISH:
            s = _finishing_stake(g, w, step, cw)
        stakes[k] = 0
        if s <= 0 or (max_bet > 0 and s > max_bet) or s > bmax:
            continue
        stakes[k] = s
        lo = max(s, min_stake)
        w2 = max(w - s * cw[g], 0)
        row, al, be = V[p, w2], a[p, w2], bt[p, w2]
        acc = out[k]
        acc[lo:] = 0.0
        for j in range(nout[g]):
            q = probs[g, j]
            if q == 0.0:
                continue
            shift = _payout(s, returns[g, j]) - s  # b2 = b + shift
            top = min(bmax - shift, bmax)  # the last balance whose b2 is on the lattice
            for b in range(lo, top + 1):
                acc[b] += q * row[b + shift]
            for b in range(max(lo, top + 1), bmax + 1):
                acc[b] += q * (al * (b + shift) + be)


@numba.njit(cache=True)
def _backward_layer(prm, returns, probs, nout, cw, step, nxt_V, nxt_a, nxt_bt, V, stake,
                    game, can_bet, choose, cand_s, cand_g):
    """Values of one layer (in place when ``nxt_V`` is ``V``); with ``choose``, the best
    action of each state is written into ``stake`` and ``game``."""
    kind, forfeit_all, bonus, cap, min_stake = prm[0], prm[1] == 1, prm[2], prm[3], prm[4]
    W, bmax, P, max_bet = prm[5], prm[6], prm[7], prm[9]
    row_values = np.empty((cand_s.shape[0], bmax + 1))  # see _row_stake_values
    row_stakes = np.zeros(cand_s.shape[0], dtype=np.int64)
    for w in range(W + 1):
        for p in range(P):
            if w > 0 and can_bet and choose:
                _row_stake_values(row_values, row_stakes, nxt_V, nxt_a, nxt_bt, p, w, returns,
                                  probs, nout, cw, step, cand_s, cand_g, min_stake, max_bet, bmax)
            for b in range(bmax + 1):
                if w == 0:
                    V[p, 0, b] = complete_payoff(kind, p, b, bonus, cap)
                    continue
                if b < min_stake:
                    if p == 1:
                        V[1, w, b] = V[0, w, b + bonus]
                    else:
                        V[0, w, b] = leave_payoff(kind, forfeit_all, 0, b, bonus)
                    continue
                leave = float(leave_payoff(kind, forfeit_all, p, b, bonus))
                if not can_bet:
                    V[p, w, b] = leave
                    continue
                if not choose:
                    s = stake[p, w, b]
                    if s == 0:
                        V[p, w, b] = leave
                    else:
                        V[p, w, b] = _bet_value(nxt_V, nxt_a, nxt_bt, p, w, b, s, game[p, w, b],
                                                returns, probs, nout, cw, bmax)
                    continue
                best, best_s, best_g = -1.0, 0, 0
                for k in range(cand_s.shape[0]):
                    g = cand_g[k]
                    s = _resolve(cand_s[k], g, b, w, step, cw, max_bet)
                    if s == 0:
                        continue
                    if s == row_stakes[k]:  # the same stake, the same bets: computed above
                        value = row_values[k, b]
                    else:
                        value = _bet_value(nxt_V, nxt_a, nxt_bt, p, w, b, s, g, returns, probs,
                                           nout, cw, bmax)
                    if value > best + EPS:
                        best, best_s, best_g = value, s, g
                if best_s > 0 and best >= leave - EPS:
                    V[p, w, b] = best
                    stake[p, w, b] = best_s
                    game[p, w, b] = best_g
                else:
                    V[p, w, b] = leave
                    stake[p, w, b] = 0
                    game[p, w, b] = 0


@numba.njit(cache=True)
def _forward_layer(prm, returns, probs, nout, cw, M, nxt_M, stake, game, a, bt, v, st, nb,
                   end, hist, tail, out, can_bet):
    """Carry the mass of one layer (in place when ``nxt_M`` is ``M``) and absorb what ends.

    ``out``: P(complete), P(bust), P(walk), P(timeout), E[staked], E[bets] (accumulated);
    ``hist``: payout distribution in units; ``tail``: rich exits with a random payout (mass,
    sum of mass x mean, sum of mass x second moment).
    """
    kind, forfeit_all, bonus, cap, min_stake = prm[0], prm[1] == 1, prm[2], prm[3], prm[4]
    W, bmax, P = prm[5], prm[6], prm[7]
    for w in range(W, -1, -1):
        for p in range(P - 1, -1, -1):  # a parachute's real phase first: it feeds the bonus
            for b in range(bmax + 1):
                m = M[p, w, b]
                if m == 0.0:
                    continue
                M[p, w, b] = 0.0
                if w == 0:
                    hist[complete_payoff(kind, p, b, bonus, cap)] += m
                    out[COMPLETE] += m
                    continue
                if b < min_stake:
                    if p == 1:
                        M[0, w, b + bonus] += m
                    else:
                        hist[leave_payoff(kind, forfeit_all, 0, b, bonus)] += m
                        out[BUST] += m
                    continue
                s = stake[p, w, b] if can_bet else 0
                if s == 0:
                    hist[leave_payoff(kind, forfeit_all, p, b, bonus)] += m
                    out[WALK if can_bet else TIMEOUT] += m
                    continue
                g = game[p, w, b]
                out[4] += m * s
                out[5] += m
                w2 = w - s * cw[g]
                if w2 < 0:
                    w2 = 0
                for j in range(nout[g]):
                    q = probs[g, j]
                    if q == 0.0:
                        continue
                    mm = m * q
                    b2 = b - s + _payout(s, returns[g, j])
                    if b2 <= bmax:
                        nxt_M[p, w2, b2] += mm
                        continue
                    out[end[p, w2]] += mm
                    out[4] += mm * st[p, w2]
                    out[5] += mm * nb[p, w2]
                    mean = a[p, w2] * b2 + bt[p, w2]
                    if a[p, w2] == 0:
                        hist[np.int64(mean + 0.5)] += mm
                    else:
                        tail[0] += mm
                        tail[1] += mm * mean
                        tail[2] += mm * (mean * mean + v[p, w2])


# ----------------------------------------------------------------------------- driving
@dataclass(frozen=True)
class Rich:
    """The rich recursion per layer (bets made): arrays of shape (layers, phases, W + 1)."""

    alpha: np.ndarray
    beta: np.ndarray
    var: np.ndarray
    staked: np.ndarray
    bets: np.ndarray
    end: np.ndarray
    stake: np.ndarray
    game: np.ndarray


def _kernel_games(lattice: Lattice) -> tuple:
    g = lattice.games
    return g["returns"], g["probs"], g["nout"], g["cw"], g["step"]


def rich_recursion(lattice: Lattice, rich_stake: np.ndarray | None, rich_game: np.ndarray | None,
                   candidates: tuple[np.ndarray, np.ndarray] | None = None) -> Rich:
    """The rich closure for a fixed rich policy (layers x phases x W+1 arrays, or one layer
    broadcast), or the best rich actions among ``candidates`` (stake codes, games)."""
    n_layers = lattice.max_bets + 1 if lattice.max_bets else 1
    shape = (n_layers, lattice.phases, lattice.requirement + 1)
    out = Rich(np.zeros(shape), np.zeros(shape), np.zeros(shape), np.zeros(shape),
               np.zeros(shape), np.zeros(shape, dtype=np.int64),
               np.zeros(shape, dtype=np.int64), np.zeros(shape, dtype=np.int64))
    if rich_stake is not None:  # one layer for every bet, or one per bet (the last has none)
        k = n_layers if rich_stake.shape[0] == 1 else rich_stake.shape[0]
        out.stake[:k] = rich_stake
        out.game[:k] = rich_game
    choose = candidates is not None
    cand_s, cand_g = candidates if choose else (np.zeros(0, np.int64), np.zeros(0, np.int64))
    prm = lattice.params(0)
    g = lattice.games
    ends = lattice.affine_ends()
    arrays = (out.alpha, out.beta, out.var, out.staked, out.bets, out.end)
    for n in range(n_layers - 1, -1, -1):
        nxt = n + 1 if lattice.max_bets and n + 1 < n_layers else n
        can_bet = not (lattice.max_bets and n == n_layers - 1)
        _rich_layer(prm, ends, g["mean"], g["var"], g["cw"], g["step"], out.stake[n],
                    out.game[n], *(x[nxt] for x in arrays), *(x[n] for x in arrays),
                    can_bet, choose, cand_s, cand_g)
    return out


@dataclass(frozen=True)
class BonusValue:
    """Exact outcome of one bonus under one policy (money in the rules' currency)."""

    deposit: float
    bonus: float
    mean_payout: float
    sd_payout: float
    p_complete: float
    p_bust: float
    p_walk: float
    p_timeout: float
    mean_wagered: float
    mean_bets: float
    payouts: np.ndarray
    probabilities: np.ndarray
    tail_probability: float
    tail_mean: float

    @property
    def expected_profit(self) -> float:
        """Expected payout less the deposit (the operator's expected cost of the bonus)."""
        return self.mean_payout - self.deposit


def evaluate(lattice: Lattice, table: PolicyTable, rich: Rich | None = None) -> BonusValue:
    """Forward programme: the distribution of the payout and the expectations of play."""
    if rich is None:
        rich = rich_recursion(lattice, table.rich_stake, table.rich_game)
    bmax = table.bmax
    prm = lattice.params(bmax)
    returns, probs, nout, cw, _ = _kernel_games(lattice)
    shape = (lattice.phases, lattice.requirement + 1, bmax + 1)
    mass = np.zeros(shape)
    phase, balance = lattice.start
    mass[phase, lattice.requirement, balance] = 1.0
    hist = np.zeros(bmax + lattice.bonus + lattice.cap + 2)
    tail = np.zeros(3)
    out = np.zeros(6)
    if not lattice.max_bets:
        _forward_layer(prm, returns, probs, nout, cw, mass, mass, table.stake[0], table.game[0],
                       *(x[0] for x in _rich_arrays(rich)), hist, tail, out, True)
    else:
        nxt = np.zeros(shape)
        for n in range(lattice.max_bets + 1):
            layer = min(n, table.stake.shape[0] - 1)
            r = min(n + 1, lattice.max_bets)
            _forward_layer(prm, returns, probs, nout, cw, mass, nxt, table.stake[layer],
                           table.game[layer], *(x[r] for x in _rich_arrays(rich)), hist, tail,
                           out, n < lattice.max_bets)
            mass, nxt = nxt, mass
    values = np.nonzero(hist)[0]
    u = lattice.unit
    mean = float(values @ hist[values] + tail[1])
    second = float((values.astype(float) ** 2) @ hist[values] + tail[2])
    return BonusValue(
        deposit=lattice.deposit * u, bonus=lattice.bonus * u, mean_payout=mean * u,
        sd_payout=float(np.sqrt(max(second - mean * mean, 0.0))) * u,
        p_complete=float(out[COMPLETE]), p_bust=float(out[BUST]), p_walk=float(out[WALK]),
        p_timeout=float(out[TIMEOUT]), mean_wagered=float(out[4]) * u, mean_bets=float(out[5]),
        payouts=values * u, probabilities=hist[values], tail_probability=float(tail[0]),
        tail_mean=float(tail[1] / tail[0]) * u if tail[0] else 0.0)


def _rich_arrays(rich: Rich) -> tuple:
    return rich.alpha, rich.beta, rich.var, rich.staked, rich.bets, rich.end


def backward_values(lattice: Lattice, table: PolicyTable, rich: Rich | None = None) -> np.ndarray:
    """Backward programme: the expected payout (units) from every state of the first layer,
    shape (phases, W + 1, bmax + 1)."""
    if rich is None:
        rich = rich_recursion(lattice, table.rich_stake, table.rich_game)
    return _sweep_back(lattice, table, rich, None)


def _sweep_back(lattice: Lattice, table: PolicyTable, rich: Rich,
                candidates: tuple[np.ndarray, np.ndarray] | None) -> np.ndarray:
    bmax = table.bmax
    prm = lattice.params(bmax)
    returns, probs, nout, cw, step = _kernel_games(lattice)
    choose = candidates is not None
    cand_s, cand_g = candidates if choose else (np.zeros(0, np.int64), np.zeros(0, np.int64))
    shape = (lattice.phases, lattice.requirement + 1, bmax + 1)
    V = np.zeros(shape)
    if not lattice.max_bets:
        _backward_layer(prm, returns, probs, nout, cw, step, V, rich.alpha[0], rich.beta[0], V,
                        table.stake[0], table.game[0], True, choose, cand_s, cand_g)
        return V
    nxt = np.zeros(shape)
    # The last layer: no bet left.
    _backward_layer(prm, returns, probs, nout, cw, step, nxt, rich.alpha[-1], rich.beta[-1],
                    nxt, table.stake[-1], table.game[-1], False, False, cand_s, cand_g)
    for n in range(lattice.max_bets - 1, -1, -1):
        layer = min(n, table.stake.shape[0] - 1)
        _backward_layer(prm, returns, probs, nout, cw, step, nxt, rich.alpha[n + 1],
                        rich.beta[n + 1], V, table.stake[layer], table.game[layer], True,
                        choose, cand_s, cand_g)
        V, nxt = nxt, V
    return nxt


def candidate_actions(lattice: Lattice, stakes: tuple[float, ...], games: tuple[int, ...] | None
                      ) -> tuple[np.ndarray, np.ndarray]:
    """Candidate (stake code, game) pairs: each listed stake (money) that the game allows,
    the largest stake allowed, and the stake that finishes the requirement at once."""
    codes, gs = [], []
    step = lattice.games["step"]
    for g in games if games is not None else range(len(step)):
        for money in stakes:
            s = int(round(money / lattice.unit))
            if s > 0 and s % step[g] == 0 and (not lattice.max_bet or s <= lattice.max_bet):
                codes.append(s)
                gs.append(g)
        codes += [ALL_IN, TO_FINISH]
        gs += [g, g]
    return np.array(codes, dtype=np.int64), np.array(gs, dtype=np.int64)


def optimal_table(lattice: Lattice, stakes: tuple[float, ...], games: tuple[int, ...] | None = None
                  ) -> PolicyTable:
    """The policy that maximises the expected payout in every state, among the candidate
    stakes (:func:`candidate_actions`) and walking away.

    Raises:
        ValueError: under a time limit, when a policy per bet would not fit in memory.
    """
    candidates = candidate_actions(lattice, stakes, games)
    rich = rich_recursion(lattice, None, None, candidates)
    # Above bmax no candidate policy may reach a kink before the end, whichever it follows:
    # the loss before completion is below W / contribution plus one stake, and stakes above
    # the lattice are capped at the max bet (else at what finishes the requirement, or the
    # largest listed stake). The rich closure is then the best continuation there.
    cw = lattice.games["cw"]
    s_cap = lattice.max_bet or max(
        max(int(lattice.need(lattice.requirement, np.int64(g))) for g in range(len(cw))),
        int(candidates[0].max(initial=0)))
    worst = -(-lattice.requirement // int(cw.min())) + s_cap
    bmax = max(choose_bmax(lattice, rich.stake[0], rich.game[0], 0), lattice.kink + worst + 1)
    layers = lattice.max_bets or 1
    size = layers * lattice.phases * (lattice.requirement + 1) * (bmax + 1)
    if lattice.max_bets and size > MAX_LAYERED:
        raise ValueError(f"max_bets: an optimal policy per bet needs {size:,} states (at most "
                         f"{MAX_LAYERED:,}); use a larger unit or a shorter time limit")
    shape = (layers, lattice.phases, lattice.requirement + 1, bmax + 1)
    table = PolicyTable(np.zeros(shape, dtype=np.int32), np.zeros(shape, dtype=np.int8),
                        rich.stake[:layers].astype(np.int32), rich.game[:layers].astype(np.int8))
    _sweep_back(lattice, table, rich, candidates)
    return table
