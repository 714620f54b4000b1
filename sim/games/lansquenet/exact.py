"""Exact values of a bank: its run lengths, the banker's and every seat's expected result, and
the value of banker policies, by dynamic programming over the pack's composition.

A bank is walked coup by coup over the pack states of a
:class:`~sim.games.lansquenet.chain.Chain`. Stakes met are shares of the bank that depend on
the run of coups won (punters avoiding or following runs) and, with stake limits or a target,
on the bank itself. So a *walk* gathers the banks with the same run (and the same bank, where a
decision depends on it) and carries two vectors over pack states: the probability, and the
expected bank times it. Everything that follows a coup is linear in the bank, which gives the
expected stakes, the punters' results coup by coup and the bank's final result exactly. A void
coup sends its walk back to a fresh pack with the same money (a fresh pack cannot run out, so
this renewal ends at once).

A bank that never passes and always has its whole stake met ends by losing all it holds: its
result is certain (-1 opening stake), though the stakes it meets on the way have no finite
expectation (they double with each win, faster than the chance of winning halves).

Everything is in units of the opening stake; money is the bank's (the banker's side).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from sim.games.base import ExactValue
from sim.games.lansquenet.chain import (
    PROFILE_LIMIT,
    Chain,
    profile_chain,
    profile_count,
    single_state_chain,
)
from sim.games.lansquenet.coup import RUN_CAP
from sim.games.lansquenet.patterns import (
    DEFAULT_HISTORIES,
    MAX_DECIDED,
    MAX_HISTORY,
    reachable,
    tree_chain,
)
from sim.games.lansquenet.rules import (
    MONEY_EPS,
    BankerPolicy,
    LansquenetRules,
    LansquenetTable,
    PunterPolicy,
    split_coups,
)

MASS_EPS = 1e-18  # probability below which a walk is dropped once its money is negligible
MAX_COUPS = 600  # decided coups a walk may last before the analysis gives up


def rules_chain(rules: LansquenetRules, table: LansquenetTable | None = None) -> Chain:
    """The chain of pack states for these rules: a single fresh-pack state when every coup is
    reshuffled, the profile chain when it is small enough, else the tree of the coup histories
    after which a bank of ``table`` plays on (by default, every history of up to two coups;
    see :mod:`.patterns`). Fair play does not depend on whose card is turned first (see
    :mod:`.chain`), so one chain serves both orders."""
    ranks, per_rank = rules.rank_count, rules.max_per_rank
    if rules.reshuffle == "coup":
        return single_state_chain((per_rank,) * ranks, False)
    if profile_count(ranks, per_rank) <= PROFILE_LIMIT:
        return profile_chain(ranks, per_rank, False)
    return tree_chain(ranks, per_rank, DEFAULT_HISTORIES if table is None
                      else bank_histories(rules, table))


def unavailable_note(rules: LansquenetRules, table: LansquenetTable) -> str:
    """Why a flat-stake table has no exact value, in words."""
    if any(b.carry for b in table.bankers):
        return "no exact value: a seat carries on passed banks (its opening stake varies)"
    profiles = profile_count(rules.rank_count, rules.max_per_rank)
    if rules.reshuffle == "bank" and profiles > PROFILE_LIMIT:
        stacked = any(b.portee for b in table.bankers)
        return ("no exact value: " + ("a stacked pack of several packs is not a history of "
                                      "coups from a fresh pack" if stacked else
                                      f"a bank here plays on past the coup histories counted "
                                      f"exactly (at most {MAX_DECIDED} decided coups, "
                                      f"{MAX_HISTORY} in all); the chain over pack profiles "
                                      f"would have {profiles:,} states"))
    return ("no exact value: the Markov chain over pack compositions runs past its budget for "
            "these rules")


def bank_histories(rules: LansquenetRules, table: LansquenetTable) -> frozenset[str]:
    """The histories of coups (words over J and W, from a fresh pack) after which a bank of some
    seat plays another coup, within the reach of :mod:`.patterns`.

    A bank's stakes and its banker's decisions depend on its run and its money, which a
    history fixes; a void coup or an emptied pack starts the history again with the bank as it
    was, so the histories from a fresh bank are the ones met. A history beyond the counting's
    reach is left out: a bank that gets there has no exact value. A bank sure to lose all it
    holds is settled without its coups (:func:`_settle_lost` follows them only for its counts,
    as far as every history of two coups), and a stacked pack is not a history.
    """
    out: set[str] = set(DEFAULT_HISTORIES)
    take = rules.jumelle_take
    for seat in range(rules.seats):
        acc = _Bank(rules, table, seat, None)
        if acc.policy.portee:
            continue
        stack: list[tuple[str, float, int]] = [("", 1.0, 0)]
        while stack:
            history, bank, run = stack.pop()
            if run and acc.policy.passes(bank, 1.0, run):
                continue
            share = float(acc.fractions(bank if acc.by_bank else None, run).sum())
            if share <= MONEY_EPS or acc.always_lost(run, share) or not reachable(history):
                continue
            out.add(history)
            stack += [(history + "J", bank * (1.0 + take * share), run + 1),
                      (history + "W", bank * (1.0 + share), run + 1)]
    return frozenset(out)


@dataclass
class BankValue:
    """Exact expectations of one bank (per bank, in opening stakes).

    ``result`` is the bank's expected result, ``wagered`` the expected stake met over the
    bank's coups (None where it diverges: a bank riding and doubling on full cover),
    ``seat_nets`` each seat's expected net (banking and punting).
    ``runs[k]`` is P(the bank ends after k coups won running), the last entry k >= RUN_CAP.
    """

    result: float = 0.0
    wagered: float | None = 0.0
    seat_nets: np.ndarray | None = None
    coups: float = 0.0
    voids: float = 0.0
    jumelles: float = 0.0
    wins: float = 0.0
    losses: float = 0.0
    ended_pass: float = 0.0
    ended_forced: float = 0.0
    runs: np.ndarray = field(default_factory=lambda: np.zeros(RUN_CAP + 1))


@dataclass
class _Walk:
    """Banks that have come the same way so far: P(pack state) and E[bank; pack state]."""

    run: int
    bank: float | None  # the bank, where a decision depends on it (else None)
    mass: np.ndarray
    weight: np.ndarray  # the bank times the probability, per pack state
    unknown: float = 0.0  # probability in pack states the chain does not model ...
    unknown_weight: float = 0.0  # ... and the bank's expectation there


class _Bank:
    """The analysis of one bank: its policies and its accumulators."""

    def __init__(self, rules: LansquenetRules, table: LansquenetTable, banker: int,
                 chain: Chain) -> None:
        self.rules, self.table, self.banker, self.chain = rules, table, banker, chain
        self.policy = table.bankers[banker]
        n = rules.seats
        self.owners = np.zeros(n)
        for k, share in enumerate(rules.pool_shares):
            self.owners[(banker + k) % n] += share
        punters = [table.punters[s] for s in range(n) if s != banker]
        # Decisions depend on the bank itself only through targets and stake limits.
        self.by_bank = bool(self.policy.target) or any(p.limit for p in punters)
        self.thresholds = max([p.avoid_after for p in punters] + [p.follow_after
                                                                   for p in punters])
        self.value = BankValue(seat_nets=np.zeros(n))

    def fractions(self, bank: float | None, run: int) -> np.ndarray:
        """Each seat's share of the stake met, as a fraction of the bank."""
        stake = 1.0 if bank is None else bank
        return np.array(self.table.covers(self.banker, stake, run)) / stake

    def end(self, mass: float, weight: float, run: int, how: str) -> None:
        """Banks ending with E[final bank] = ``weight`` over probability ``mass``."""
        v = self.value
        v.result += weight - mass
        v.seat_nets += self.owners * (weight - mass)
        v.runs[min(run, RUN_CAP)] += mass
        v.ended_pass += mass if how == "pass" else 0.0
        v.ended_forced += mass if how == "forced" else 0.0

    def stacked_coups(self) -> list[tuple[tuple[int, ...], str]]:
        """The sharper's stacked coups the bank opens with: his whole series, or its first
        coup alone where every coup is dealt from a fresh pack."""
        coups = split_coups(self.policy.portee, self.rules.banker_first)
        return coups[:1] if self.rules.reshuffle == "coup" else coups

    def state_after_stacked(self) -> int | None:
        """The pack state the bank goes on from after its stacked coups: a fresh pack where
        every coup has one, else the full pack less the series' cards (None where the chain
        does not model that pack)."""
        if self.rules.reshuffle == "coup":
            return self.chain.start
        counts = [int(c) for c in self.rules.rank_totals()]
        for r in self.policy.portee:
            counts[r] -= 1
        return self.chain.state_of(counts, self.rules.rank_count)

    def always_lost(self, run: int, met: float) -> bool:
        """From this run on the banker never passes and every stake is met in full, with the
        same shares (every punter's run threshold is behind): each bank still going will lose
        all it holds."""
        return (not self.by_bank and not self.policy.pass_after and met >= 1 - MONEY_EPS
                and run >= self.thresholds)


def _add(layer: dict, walk: _Walk) -> None:
    key = (walk.run, None if walk.bank is None else round(walk.bank, 10))
    if key in layer:
        old = layer[key]
        old.mass = old.mass + walk.mass
        old.weight = old.weight + walk.weight
        old.unknown += walk.unknown
        old.unknown_weight += walk.unknown_weight
    else:
        layer[key] = walk


def _stacked_start(acc: _Bank) -> list[_Walk] | None:
    """Play a sharper's stacked coups, which are certain; the walks the bank goes on with
    (none if it ended), or None if the series leaves a coup half dealt."""
    rules, policy, chain = acc.rules, acc.policy, acc.chain
    v = acc.value
    bank, run = 1.0, 0
    for _, outcome in acc.stacked_coups():
        met = acc.fractions(bank, run) * bank
        covered = float(met.sum())
        if covered <= MONEY_EPS:
            acc.end(1.0, bank, run, "forced")
            return []
        if not outcome:
            return None
        v.wagered += covered
        v.coups += 1
        gain = {"J": rules.jumelle_take, "W": 1.0, "L": -1.0}[outcome]
        v.seat_nets -= gain * met
        v.jumelles += outcome == "J"
        v.wins += outcome == "W"
        v.losses += outcome == "L"
        if outcome == "L":
            acc.end(1.0, bank - covered, run, "loss")
            return []
        bank += gain * covered
        run += 1
        if policy.passes(bank, 1.0, run):
            acc.end(1.0, bank, run, "pass")
            return []
    state = acc.state_after_stacked()
    if state is None:
        return None
    mass = np.zeros(chain.size)
    mass[state] = 1.0
    return [_Walk(run, bank if acc.by_bank else None, mass, mass * bank)]


def _settle_lost(acc: _Bank, walk: _Walk, met: np.ndarray) -> None:
    """Banks that will lose all they hold: settle their money now; follow their cards on for
    the counts of coups and the run lengths only (NaN from where banks reach pack states the
    chain does not model: those counts are not known)."""
    v, chain = acc.value, acc.chain
    total, weight = float(walk.mass.sum()), float(walk.weight.sum())
    v.result -= total
    v.seat_nets += met * weight - acc.owners * total
    if weight > 1e-12:
        v.wagered = None  # the stakes met grow faster than the chance of reaching them
    mass, run = walk.mass, walk.run
    to_j, to_w = chain.forward
    while mass.sum() > MASS_EPS and run < MAX_COUPS:
        voids = float(mass @ chain.void)
        mass = mass.copy()
        mass[chain.start] += voids
        p_j, p_w, p_l = (float(mass @ x) for x in (chain.jumelle, chain.win, chain.lose))
        v.voids += voids
        v.coups += p_j + p_w + p_l
        v.jumelles += p_j
        v.wins += p_w
        v.losses += p_l
        v.runs[min(run, RUN_CAP)] += p_l
        moved = to_j @ mass + to_w @ mass
        if p_j + p_w - float(moved.sum()) > 1e-14:
            v.coups = v.voids = v.jumelles = v.wins = v.losses = np.nan
            v.runs[min(run + 1, RUN_CAP):] = np.nan
            return
        mass = moved
        run += 1


def bank_value(rules: LansquenetRules, table: LansquenetTable, banker: int,
               chain: Chain | None = None) -> BankValue | None:
    """Exact expectations of a bank opened (at one unit, afresh) by seat ``banker``.

    Returns None where the chain does not model the packs the bank needs (several packs
    without reshuffle, beyond two coups), or the bank's result has no finite expectation or
    does not settle within MAX_COUPS coups.
    """
    chain = chain if chain is not None else rules_chain(rules, table)
    if chain.void[chain.start] > 0:
        raise ValueError("a fresh pack that can run out: the renewal of void coups diverges")
    acc = _Bank(rules, table, banker, chain)
    v = acc.value
    take = rules.jumelle_take
    if acc.policy.portee:
        walks = _stacked_start(acc)
        if walks is None:
            return None
    else:
        mass = np.zeros(chain.size)
        mass[chain.start] = 1.0
        walks = [_Walk(0, 1.0 if acc.by_bank else None, mass, mass.copy())]
    layer: dict = {}
    for w in walks:
        _add(layer, w)
    to_j, to_w = chain.forward
    for _ in range(MAX_COUPS):
        if not layer:
            return v
        nxt: dict = {}
        for w in layer.values():
            total = float(w.mass.sum()) + w.unknown
            weight = float(w.weight.sum()) + w.unknown_weight
            if w.run and acc.policy.passes(w.bank or 0.0, 1.0, w.run):
                acc.end(total, weight, w.run, "pass")
                continue
            met = acc.fractions(w.bank, w.run)
            share = float(met.sum())
            if share <= MONEY_EPS:
                acc.end(total, weight, w.run, "forced")
                continue
            if w.unknown > 1e-14:
                return None
            if acc.always_lost(w.run, share):
                _settle_lost(acc, w, met)
                continue
            mass, weight_vec = w.mass.copy(), w.weight.copy()
            voids = float(mass @ chain.void)  # void coups: stakes back, a fresh pack
            void_weight = float(weight_vec @ chain.void)
            mass[chain.start] += voids
            weight_vec[chain.start] += void_weight
            p_j, p_w, p_l = (float(mass @ x) for x in (chain.jumelle, chain.win, chain.lose))
            u_j, u_w, u_l = (float(weight_vec @ x) for x in (chain.jumelle, chain.win,
                                                              chain.lose))
            v.voids += voids
            v.coups += p_j + p_w + p_l
            v.jumelles += p_j
            v.wins += p_w
            v.losses += p_l
            v.wagered += share * (void_weight + u_j + u_w + u_l)
            v.seat_nets -= met * (take * u_j + u_w - u_l)
            acc.end(p_l, (1.0 - share) * u_l, w.run, "loss")
            for gain, p, u, matrix in ((take, p_j, u_j, to_j), (1.0, p_w, u_w, to_w)):
                grow = 1.0 + gain * share
                nxt_mass, nxt_weight = matrix @ mass, grow * (matrix @ weight_vec)
                _add(nxt, _Walk(w.run + 1, None if w.bank is None else w.bank * grow,
                                nxt_mass, nxt_weight, max(0.0, p - float(nxt_mass.sum())),
                                max(0.0, grow * u - float(nxt_weight.sum()))))
        layer = nxt
        left = sum(float(w.mass.sum()) + w.unknown for w in layer.values())
        money = sum(float(w.weight.sum()) + w.unknown_weight for w in layer.values())
        if left < MASS_EPS:
            return v if money < 1e-12 else None
    return None


def seats_value(rules: LansquenetRules, table: LansquenetTable) -> list[BankValue] | None:
    """One :class:`BankValue` per banker seat (None if any is not exact). Seats that bank and
    face punters alike have the same bank, its seat results turned round the table."""
    chain = rules_chain(rules, table)
    n = rules.seats
    done: dict[tuple, tuple[int, BankValue | None]] = {}
    values = []
    for seat in range(n):
        key = (table.bankers[seat],) + tuple(table.punters[(seat + k) % n] for k in range(n))
        if key not in done:
            done[key] = (seat, bank_value(rules, table, seat, chain))
        first, value = done[key]
        if value is None:
            return None
        values.append(dataclasses.replace(value, seat_nets=np.roll(value.seat_nets,
                                                                   seat - first)))
    return values


def table_value(rules: LansquenetRules, table: LansquenetTable,
                base: float = 1.0) -> ExactValue | None:
    """The expected table's net, opening stake and stake met per bank of a session in which
    the bank goes round the table (every seat banks in turn), at opening stake ``base``.

    None where a seat carries on passed banks (the opening stake then depends on the last
    bank) or a bank is not exact.
    """
    if any(b.carry for b in table.bankers):
        return None
    values = seats_value(rules, table)
    if values is None:
        return None
    result = float(np.mean([v.result for v in values]))
    wagered = None if any(v.wagered is None for v in values) else float(
        np.mean([v.wagered for v in values]))
    return ExactValue(mean_net=-result * base, mean_initial_stake=base,
                      mean_total_wagered=None if wagered is None else wagered * base)


def run_lengths(rules: LansquenetRules, max_run: int = RUN_CAP) -> np.ndarray:
    """P(a fair bank left to ride wins exactly k coups running before it loses), k <
    ``max_run``, then P(k >= max_run). Entries the chain cannot reach are NaN."""
    chain = rules_chain(rules)
    to_jumelle_t, to_win_t = chain.forward
    vec = np.zeros(chain.size)
    vec[chain.start] = 1.0
    out = np.full(max_run + 1, np.nan)
    unknown = 0.0
    for k in range(max_run):
        if unknown > 1e-14:
            return out
        voids = float(vec @ chain.void)
        vec = vec.copy()
        vec[chain.start] += voids
        out[k] = float(vec @ chain.lose)
        nxt = to_jumelle_t @ vec + to_win_t @ vec
        unknown = float(vec @ chain.jumelle + vec @ chain.win) - float(nxt.sum())
        vec = nxt
    out[max_run] = max(0.0, 1.0 - float(np.nansum(out[:max_run])))
    return out


def full_cover_table(rules: LansquenetRules, banker: BankerPolicy) -> LansquenetTable:
    """Every seat banks by ``banker``; the punter nearest the banker meets every stake."""
    return LansquenetTable((banker,) * rules.seats, (PunterPolicy(),) * rules.seats)


def policy_rows(rules: LansquenetRules, max_wins: int = 8) -> list[dict[str, float]]:
    """The banker's expected result per bank under pass-after-k policies and never passing,
    every stake met in full (NaN where not exact)."""
    rows = []
    for k in list(range(1, max_wins + 1)) + [0]:
        value = bank_value(rules, full_cover_table(rules, BankerPolicy(pass_after=k)), 0)
        label = f"pass after {k}" if k else "never pass"
        if value is None:
            rows.append({"policy": label, "banker_result": np.nan, "p_profit": np.nan,
                         "mean_coups": np.nan, "stake_met": np.nan, "edge_per_stake_met": np.nan})
            continue
        wagered = np.nan if value.wagered is None else value.wagered
        rows.append({"policy": label, "banker_result": value.result,
                     "p_profit": value.ended_pass, "mean_coups": value.coups,
                     "stake_met": wagered,
                     "edge_per_stake_met": value.result / wagered if wagered == wagered else
                     np.nan})
    return rows
