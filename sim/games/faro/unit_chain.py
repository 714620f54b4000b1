"""Faro under a stake progression, exactly: the unit as a Markov chain from deal to deal.

How a progression is applied (the kernel's :func:`~sim.games.faro.kernel._play_deal` and the
reference :func:`~sim.games.faro.deal.play_deal` alike): every stake of a turn is the table's
entry (by the cards of its rank left) times the unit at the start of the turn; the slots the
turn decides are settled in slot order, and after each decided bet the unit and win streak
move (:func:`sim.core.progression.advance`; a push, such as a split that costs nothing, leaves
them). The state is carried from deal to deal and starts at the base unit with no streak at
the start of each chunk of a run and of each session.

**A Markov chain.** Each deal is a fresh shuffle, independent of the deals before, and the
progression's state at the start of a deal together with the deal's cards decides the deal's
net, its amount wagered and the state at its end. So the states at deal starts form a Markov
chain, and (net, wagered, next state) given the state at the start is the deal's transition
law.

**What the progression reads.** Only the deal's *decisions*: for each turn in which a bet is
decided, the table's entry and the outcome (win, lose, split) of each decided slot, in slot
order. The law of this sequence does not depend on the progression. It is found once by
walking the deal turn by turn over the counts of the bet ranks, as
:func:`~sim.games.faro.deal_law.deal_law` does (by exchangeability the soda is a random card
removed first; each turn draws the losing card and then the winning card without replacement,
by category), carrying the sequence so far, in exact fractions. Playing each sequence from
each state (by :func:`~sim.core.progression.advance` itself, in units of the base: every rule
of a progression scales with its base) gives the transition law exactly.

**The long run.** A capped martingale, a paroli and a capped d'Alembert reach finitely many
states from the base; the chain's stationary law pi gives the long-run means per deal (net,
initial stake = the unit at the deal's start, amount wagered) by the ergodic theorem, the
edges as their ratios, and the long-run variance of the residual ``net + edge x stake``
(:func:`sim.core.markov.long_run`), from which a long run's standard error follows. A chunk
that starts at the base unit has expected totals ``n pi f + (delta - pi) Z f`` up to terms
that decay geometrically in n (Z the fundamental matrix): :func:`start_excess` gives that
constant excess, which moves a chunk's edge by its ratio to n times the mean stake.

An uncapped martingale has no long run: each loss doubles the unit and in faro losses (a
split counts as one) come at least as often as wins, so the unit's stationary mean is
infinite. An uncapped d'Alembert rises one base per loss and falls one per win: its drift is
the chance of a split or a void winner (never negative), so the unit grows without bound (or,
with no drift, is null-recurrent), and the long run is the limit of large units. Above
``1 + decisions`` bases no deal reaches the floor, so a deal from unit U has E[net] = a U + c
and E[wagered] = b U + d exactly, with a and b the flat table's per unit; the time below any
level is negligible beside the sum of the units, so the long-run edges are the flat table's.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

import numpy as np

from sim.core.markov import RoundChain, long_run, stationary
from sim.core.progression import DALEMBERT, FLAT, MARTINGALE, ProgressionSpec, advance
from sim.games.base import ExactValue
from sim.games.faro.deal_walk import OTHER, walk_deal
from sim.games.faro.exact import deal_value
from sim.games.faro.kernel import FaroTable, by_rank
from sim.games.faro.rules import FaroRules

WIN, LOSE, SPLIT = 0, 1, 2
MAX_RANKS = 4
MAX_SEQUENCES = 50_000  # distinct decision sequences of a deal the exact chain walks
MAX_STATES = 256  # progression states reached from the base
EXACT_STATES = 24  # up to this many states the long run is solved in fractions
FRACTION_DIGITS = 24  # an edge's fraction is shown where it is at most this long

# A deal's decisions: per turn with a decision, ((entry, outcome), ...) in slot order.
Sequence_ = tuple[tuple[tuple[Fraction, int], ...], ...]
State = tuple[Fraction, int]  # (unit in bases, win streak)


@dataclass(frozen=True)
class UnitChain:
    """The progression's states at deal starts and each state's deal law.

    Attributes:
        states: (unit in bases, win streak) of each state; state 0 is the base.
        laws: per state, (net, wagered, next state) -> probability, money in bases.
    """

    states: tuple[State, ...]
    laws: tuple[dict[tuple[Fraction, Fraction, int], Fraction], ...]

    def matrix(self) -> list[list[Fraction]]:
        n = len(self.states)
        p = [[Fraction(0)] * n for _ in range(n)]
        for i, law in enumerate(self.laws):
            for (_, _, j), q in law.items():
                p[i][j] += q
        return p

    def means(self, i: int) -> tuple[Fraction, Fraction]:
        """E[net], E[wagered] of a deal from state i (in bases)."""
        law = self.laws[i]
        return (sum((q * net for (net, _, _), q in law.items()), Fraction(0)),
                sum((q * w for (_, w, _), q in law.items()), Fraction(0)))


def _unbounded(progression: ProgressionSpec) -> bool:
    """The progression's unit has no bound (an uncapped martingale or d'Alembert)."""
    return progression.kind in (MARTINGALE, DALEMBERT) and not progression.cap


def _live_slots(rules: FaroRules, table: FaroTable) -> list[int]:
    """The slots whose rank the pack holds (a slot on a rank the pack lacks never decides),
    in slot order."""
    totals = rules.rank_totals()
    return [b for b, m in enumerate(table.masks) if totals[m.bit_length() - 1] > 0]


def _reason_unsupported(rules: FaroRules, table: FaroTable) -> str | None:
    if not by_rank(table) or table.high_card or table.call_turn:
        return ("no exact value under a progression: the exact chain reads flat bets on "
                "single ranks only (no corner, high-card or calling-the-turn bet)")
    if not 0 < len(_live_slots(rules, table)) <= MAX_RANKS:
        return (f"no exact value under a progression: the exact chain follows at most "
                f"{MAX_RANKS} ranks at once")
    return None


@cache
def decision_sequences(rules: FaroRules, table: FaroTable) -> dict[Sequence_, Fraction] | None:
    """The law of a deal's sequence of decisions (see the module's docstring), or None
    where it has more than MAX_SEQUENCES sequences."""
    slots = _live_slots(rules, table)
    ranks = [table.masks[b].bit_length() - 1 for b in slots]
    coppered = [table.coppered[b] for b in slots]
    entries = [[Fraction(x) for x in table.stakes[b]] for b in slots]
    totals = rules.rank_totals()
    start = tuple(int(totals[r]) for r in ranks)

    def turn(counts: tuple[int, ...], lose: int, win: int, void: bool):
        """The decisions of the turn, appended to the deal's sequence."""
        decided = sorted(({lose} | ({win} if not void else set())) - {OTHER})
        events = []
        for slot in decided:
            row = entries[slot]
            entry = row[min(counts[slot], len(row) - 1)]
            if entry <= 0:
                continue
            if slot == lose and slot == win and not void:
                outcome = SPLIT
            elif slot == lose:
                outcome = WIN if coppered[slot] else LOSE
            else:
                outcome = LOSE if coppered[slot] else WIN
            events.append((entry, outcome))
        if not events:
            return lambda seq: seq
        added = (tuple(events),)
        return lambda seq: seq + added

    return walk_deal(rules, start, (), Fraction, turn, MAX_SEQUENCES)


def _step(spec: ProgressionSpec, state: State, result: Fraction) -> State:
    """The progression's rule, in units of the base (exact: every unit reached is a
    power-of-two or whole multiple of the base, or the cap). The rule's own Python source
    (``py_func``): the same code the kernels compile, without loading the compiled one for a
    few thousand steps."""
    unit, streak = advance.py_func(spec.kind, 1.0, float(spec.cap), spec.wins_to_reset,
                                   float(state[0]), state[1], float(result))
    return Fraction(unit), int(streak)


def play_sequence(spec: ProgressionSpec, state: State, seq: Sequence_,
                  split_take: Fraction) -> tuple[Fraction, Fraction, State]:
    """(net, wagered, end state) of a deal's decisions played from ``state``, in bases."""
    per_unit = {WIN: Fraction(1), LOSE: Fraction(-1), SPLIT: -split_take}
    net = wagered = Fraction(0)
    for turn in seq:
        turn_unit = state[0]
        for entry, outcome in turn:
            stake = entry * turn_unit
            result = stake * per_unit[outcome]
            net += result
            wagered += stake
            state = _step(spec, state, result)
    return net, wagered, state


def unit_chain(rules: FaroRules, table: FaroTable, progression: ProgressionSpec,
               max_states: int = MAX_STATES) -> UnitChain | None:
    """The states reached from the base and each one's deal law; None where the table is
    beyond the exact chain, or more than ``max_states`` states are reached."""
    if _reason_unsupported(rules, table) is not None:
        return None
    sequences = decision_sequences(rules, table)
    if sequences is None:
        return None
    states: list[State] = [(Fraction(1), 0)]
    index = {states[0]: 0}
    laws = []
    while len(laws) < len(states):
        law: dict[tuple[Fraction, Fraction, int], Fraction] = {}
        for (net, wagered, end), p in state_law(rules, table, progression,
                                                 states[len(laws)]).items():
            if end not in index:
                if len(states) >= max_states:
                    return None
                index[end] = len(states)
                states.append(end)
            law[(net, wagered, index[end])] = p
        laws.append(law)
    return UnitChain(tuple(states), tuple(laws))


def state_law(rules: FaroRules, table: FaroTable, progression: ProgressionSpec, state: State
              ) -> dict[tuple[Fraction, Fraction, State], Fraction]:
    """A deal's law from the progression's ``state`` (unit in bases, win streak): (net,
    wagered, end state) -> probability, money in bases; empty where the table is beyond the
    exact chain."""
    sequences = (decision_sequences(rules, table)
                 if _reason_unsupported(rules, table) is None else None)
    law: dict[tuple[Fraction, Fraction, State], Fraction] = defaultdict(Fraction)
    split_take = Fraction(rules.split_take)
    for seq, p in (sequences or {}).items():
        law[play_sequence(progression, state, seq, split_take)] += p
    return dict(law)


def unavailable(rules: FaroRules, table: FaroTable, progression: ProgressionSpec) -> str:
    """Why :func:`chain_value` gives no value, in a reader's words."""
    reason = _reason_unsupported(rules, table)
    if reason is not None:
        return reason
    if progression.kind == MARTINGALE and not progression.cap:
        return ("no exact value: an uncapped martingale's stake has no long-run mean (it "
                "doubles on each loss, and a split counts as one, so losses come at least "
                "as often as wins)")
    if decision_sequences(rules, table) is None:
        return (f"no exact value under a progression: a deal has more than "
                f"{MAX_SEQUENCES:,} sequences of decisions")
    return (f"no exact value under a progression: it reaches more than {MAX_STATES} stake "
            "states")


@dataclass(frozen=True)
class LongRun:
    """A chain's long run per deal, in bases: means, the edges, and the long-run variances
    of the residuals ``net + edge x initial`` and ``net + edge x wagered``."""

    mean_net: Fraction | float
    mean_initial: Fraction | float
    mean_wagered: Fraction | float
    var_initial: Fraction | float
    var_total: Fraction | float
    pi: list


def long_run_of(chain: UnitChain) -> LongRun:
    """The stationary law and the long-run moments (fractions up to EXACT_STATES states,
    floats beyond: rounding there is ~1e-15 relative)."""
    exact = len(chain.states) <= EXACT_STATES
    num = (lambda x: x) if exact else float  # noqa: E731
    n = len(chain.states)
    p = [[num(x) for x in row] for row in chain.matrix()]
    pi = stationary(p)
    units = [num(u) for u, _ in chain.states]
    nets, wags = zip(*(chain.means(i) for i in range(n)))
    nets, wags = [num(x) for x in nets], [num(x) for x in wags]
    mean_net = sum(a * b for a, b in zip(pi, nets))
    mean_initial = sum(a * b for a, b in zip(pi, units))
    mean_wagered = sum(a * b for a, b in zip(pi, wags))

    def residual_variance(edge, stake_of) -> Fraction | float:
        """Long-run variance of net + edge x stake, stake_of(i, wagered) the round's stake."""
        r1, r2 = [], []
        g = [[num(0)] * n for _ in range(n)]
        for i, law in enumerate(chain.laws):
            m1 = m2 = num(0)
            for (net, wagered, j), q in law.items():
                r = num(net) + edge * stake_of(i, num(wagered))
                q = num(q)
                m1 += q * r
                m2 += q * r * r
                g[i][j] += q * r
            r1.append(m1)
            r2.append(m2)
        return long_run(p, r1, r2, g, pi)[1]

    edge_initial = -mean_net / mean_initial
    var_initial = residual_variance(edge_initial, lambda i, w: units[i])
    if mean_wagered:
        var_total = residual_variance(-mean_net / mean_wagered, lambda i, w: w)
    else:
        var_total = num(0)
    return LongRun(mean_net, mean_initial, mean_wagered, var_initial, var_total, pi)


def start_excess(chain: UnitChain) -> tuple[float, float, float]:
    """What a run that starts at the base adds to n deals' expected totals of (net, initial
    stake, wagered) beyond n times the long-run means, as n grows: ``(delta - pi) Z f``, in
    bases (see the module's docstring)."""
    n = len(chain.states)
    p = np.array(chain.matrix(), dtype=float)
    pi = np.array(stationary(p.tolist()), dtype=float)
    z = np.linalg.inv(np.eye(n) - p + np.outer(np.ones(n), pi))
    delta = np.zeros(n)
    delta[0] = 1.0
    f = np.array([[float(x) for x in chain.means(i)] for i in range(n)])
    units = np.array([float(u) for u, _ in chain.states])
    columns = np.column_stack([f[:, 0], units, f[:, 1]])
    return tuple(float(x) for x in (delta - pi) @ z @ columns)  # type: ignore[return-value]


def _short(x: Fraction) -> bool:
    return len(f"{x.numerator}/{x.denominator}") <= FRACTION_DIGITS


def chain_value(rules: FaroRules, table: FaroTable,
                progression: ProgressionSpec) -> ExactValue | None:
    """The long-run expectations per deal of a table under a progression (see the module's
    docstring); None where the exact chain does not reach (:func:`unavailable` says why)."""
    if progression.kind == FLAT or _reason_unsupported(rules, table) is not None:
        return None
    base = float(progression.base)
    if progression.kind == DALEMBERT and not progression.cap:
        flat = deal_value(rules, table, ProgressionSpec(base=progression.base))
        # The limit of large units: the flat table's edges; its means per unit of the stake.
        return None if flat is None else ExactValue(flat.mean_net, flat.mean_initial_stake,
                                                    flat.mean_total_wagered,
                                                    fractions=flat.fractions)
    if _unbounded(progression):
        return None
    chain = unit_chain(rules, table, progression)
    if chain is None:
        return None
    run = long_run_of(chain)
    fractions = {}
    if isinstance(run.mean_net, Fraction):
        fractions["edge_per_initial_bet"] = -run.mean_net / run.mean_initial
        if run.mean_wagered:
            fractions["edge_per_total_wagered"] = -run.mean_net / run.mean_wagered
        if not all(_short(v) for v in fractions.values()):
            fractions = {}  # both bases or neither: a long fraction tells a reader nothing
    return ExactValue(mean_net=float(run.mean_net) * base,
                      mean_initial_stake=float(run.mean_initial) * base,
                      mean_total_wagered=float(run.mean_wagered) * base,
                      sd_net=float(run.var_initial) ** 0.5 * base,
                      sd_residual_total=float(run.var_total) ** 0.5 * base,
                      fractions=fractions or None)


def round_chain(rules: FaroRules, table: FaroTable,
                progression: ProgressionSpec) -> RoundChain | None:
    """The deals of a session as a :class:`~sim.core.markov.RoundChain` over the
    progression's states (a session starts at the base), or None where the exact chain does
    not reach (flat stakes: the deals are alike, see ``deal_law``)."""
    if progression.kind == FLAT or _unbounded(progression):
        return None
    chain = unit_chain(rules, table, progression)
    if chain is None:
        return None
    base = Fraction(progression.base)
    merged: dict[tuple[int, int, Fraction], Fraction] = defaultdict(Fraction)
    for i, law in enumerate(chain.laws):
        for (net, _, j), q in law.items():
            merged[(i, j, net * base)] += q
    keys = sorted(merged)
    return RoundChain(np.array([k[0] for k in keys]), np.array([k[1] for k in keys]),
                      np.array([float(k[2]) for k in keys]),
                      np.array([float(merged[k]) for k in keys]), 0,
                      tuple(f"unit {float(u * base):g}" + (f", {s} won" if s else "")
                            for u, s in chain.states))

