"""Faro under a stake progression: the unit's chain from deal to deal against every ordering of
small packs played deal after deal, its long run against the chain's own n-step sums, and the
kernel's simulated edge against the exact value."""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

from sim.core.progression import (
    DALEMBERT,
    MARTINGALE,
    PAROLI,
    ProgressionSpec,
    ProgressionState,
)
from sim.core.rng import kernel_state
from sim.core.stats import DEPENDENT_BATCH_ROUNDS
from sim.games.faro import GAME as FARO
from sim.games.faro import FaroRules, TableBettor, play_deal
from sim.games.faro.kernel import play_ordered_deals, simulate_table
from sim.games.faro.unit_chain import (
    chain_value,
    long_run_of,
    start_excess,
    state_law,
    unit_chain,
)
from strategies.faro import CaseBets, Copper, FlatRank, HighCard
from tests.conftest import distinct_orderings

PROGRESSIONS = {
    "martingale": ProgressionSpec(MARTINGALE),
    "martingale-cap-4": ProgressionSpec(MARTINGALE, cap=4),
    "paroli-2": ProgressionSpec(PAROLI, wins_to_reset=2),
    "paroli-3-cap-2": ProgressionSpec(PAROLI, cap=2, wins_to_reset=3),
    "dalembert": ProgressionSpec(DALEMBERT),
    "dalembert-cap-3": ProgressionSpec(DALEMBERT, cap=3),
}
RULES = {
    "faro-3x2": FaroRules(rank_count=3, suits=2),
    "stuss-2x3": FaroRules(rank_count=2, suits=3, split_take=1.0),
    "pharo-3x2": FaroRules(rank_count=3, suits=2, soda=False, last_winner_void=True),
    "no-split-cost-3x2": FaroRules(rank_count=3, suits=2, split_take=0.0),
}
STRATEGIES = {"ace": FlatRank("A"), "ace-and-two": FlatRank(["A", "2"]),
              "copper-ace": Copper("A"), "case-bets": CaseBets()}
# The states each deal law is checked from: the base, and units a deal may start at.
STARTS = [(Fraction(1), 0), (Fraction(2), 1), (Fraction(4), 0), (Fraction(3), 0)]


def _orders(rules: FaroRules) -> np.ndarray:
    return np.asarray(distinct_orderings([int(c) for c in rules.rank_totals()[:rules.rank_count]]))


def _play(rules, table, progression, order, unit, streak):
    """One deal on the reference path (the specification) from (unit, streak)."""
    state = ProgressionState(progression)
    state.unit, state.streak = unit, streak
    deal = play_deal(np.array(order, dtype=np.int8), rules, TableBettor(table), state,
                     np.random.default_rng(0))
    return deal.net, deal.wagered, (state.unit, state.streak)


@pytest.mark.parametrize("rules", RULES.values(), ids=RULES.keys())
@pytest.mark.parametrize("strategy", STRATEGIES.values(), ids=STRATEGIES.keys())
@pytest.mark.parametrize("progression", PROGRESSIONS.values(), ids=PROGRESSIONS.keys())
def test_a_deals_law_from_each_state_is_every_ordering_played_from_it(rules, strategy,
                                                                      progression):
    table = strategy.as_table(rules)
    base = 2.5  # every rule of a progression scales with its base
    spec = ProgressionSpec(progression.kind, base, progression.cap, progression.wins_to_reset)
    orders = _orders(rules)
    for unit, streak in STARTS:
        if progression.kind != PAROLI and streak:
            continue  # only a paroli keeps a streak
        seen = Counter(_play(rules, table, spec, order, float(unit) * base, streak)
                       for order in orders.tolist())
        law = state_law(rules, table, progression, (unit, streak))
        expected = {(float(net) * base, float(wagered) * base, (float(u) * base, s)): p
                    for (net, wagered, (u, s)), p in law.items()}
        assert set(seen) == set(expected)
        for key, count in seen.items():
            assert expected[key] == Fraction(count, len(orders)), key


@pytest.mark.parametrize("rules", list(RULES.values())[:3], ids=list(RULES)[:3])
@pytest.mark.parametrize("progression",
                         [p for k, p in PROGRESSIONS.items() if k in (
                             "martingale-cap-4", "paroli-2", "dalembert-cap-3")],
                         ids=["martingale-cap-4", "paroli-2", "dalembert-cap-3"])
def test_two_deals_from_the_base_are_every_pair_of_orderings_on_the_kernel(rules, progression):
    """Deal after deal on the kernel, the unit carried: the chain's two-step law of (the
    second deal's initial stake, the two nets, the two amounts wagered)."""
    table = FlatRank(["A", "2"]).as_table(rules)
    orders = _orders(rules)
    seen: Counter = Counter()
    for first in orders:
        pairs = np.stack([np.broadcast_to(first, orders.shape), orders], axis=1)
        for second in pairs:
            rows = play_ordered_deals(rules, table, progression, second)
            seen[tuple(rows[:, 0]) + (rows[1, 1],) + tuple(rows[:, 2])] += 1
    chain = unit_chain(rules, table, progression)
    expected: Counter = Counter()
    for (net1, w1, s1), p1 in chain.laws[0].items():
        for (net2, w2, _), p2 in chain.laws[s1].items():
            key = (float(net1), float(net2), float(chain.states[s1][0]), float(w1), float(w2))
            expected[key] += p1 * p2
    total = len(orders) ** 2
    assert {k: Fraction(v, total) for k, v in seen.items()} == dict(expected)


@pytest.mark.parametrize("progression",
                         [p for k, p in PROGRESSIONS.items() if k not in (
                             "martingale", "dalembert")],
                         ids=[k for k in PROGRESSIONS if k not in ("martingale", "dalembert")])
def test_the_long_run_is_the_limit_of_the_chains_own_sums(progression):
    """n deals from the base: the expected totals are n times the long-run means plus the
    start's excess, up to terms that vanish as n grows."""
    rules = FaroRules(rank_count=4, suits=3)
    chain = unit_chain(rules, FlatRank(["A", "3"]).as_table(rules), progression)
    run = long_run_of(chain)
    p = np.array(chain.matrix(), dtype=float)
    per_state = np.array([[float(x) for x in chain.means(i)] + [float(u)]
                          for i, (u, _) in enumerate(chain.states)])  # net, wagered, initial
    dist = np.zeros(len(chain.states))
    dist[0] = 1.0
    totals = np.zeros(3)
    n = 400
    for _ in range(n):
        totals += dist @ per_state
        dist = dist @ p
    means = np.array([float(run.mean_net), float(run.mean_wagered), float(run.mean_initial)])
    net, initial, wagered = start_excess(chain)
    np.testing.assert_allclose(totals - n * means, [net, wagered, initial], atol=1e-9)
    assert float(sum(run.pi)) == pytest.approx(1.0, abs=1e-15)


def test_the_long_run_variance_is_the_spread_of_a_long_runs_sum():
    """Var(sum of n residuals) grows by n times the long-run variance (the constant from the
    start cancels in the difference of two lengths), the residuals' n-step moments carried
    exactly through the chain from the stationary law."""
    rules = FaroRules(rank_count=3, suits=2)
    chain = unit_chain(rules, FlatRank(["A", "2"]).as_table(rules), PROGRESSIONS["paroli-2"])
    run = long_run_of(chain)
    edge = -run.mean_net / run.mean_initial
    k = len(chain.states)
    # Per state: probability, and the sums of r and r^2 so far weighted by it.
    moments = [np.array([float(x) for x in run.pi]), np.zeros(k), np.zeros(k)]

    def variance_after(n: int) -> float:
        mass, first, second = (m.copy() for m in moments)
        for _ in range(n):
            nxt = [np.zeros(k), np.zeros(k), np.zeros(k)]
            for i, law in enumerate(chain.laws):
                r0 = float(edge * chain.states[i][0])
                for (net, _, j), q in law.items():
                    r, q = float(net) + r0, float(q)
                    nxt[0][j] += q * mass[i]
                    nxt[1][j] += q * (first[i] + r * mass[i])
                    nxt[2][j] += q * (second[i] + 2 * r * first[i] + r * r * mass[i])
            mass, first, second = nxt
        return second.sum() - first.sum() ** 2

    grown = variance_after(300) - variance_after(200)
    assert grown / 100 == pytest.approx(float(run.var_initial), rel=1e-9)


@pytest.mark.parametrize("name,progression,strategy",
                         [("martingale-cap-4", PROGRESSIONS["martingale-cap-4"], FlatRank("A")),
                          ("paroli-2", PROGRESSIONS["paroli-2"], FlatRank(["A", "2"])),
                          ("dalembert-cap-3", PROGRESSIONS["dalembert-cap-3"], Copper("A"))])
def test_the_kernel_under_a_progression_meets_the_exact_long_run(name, progression, strategy):
    rules = FaroRules(rank_count=4, suits=3)
    table = strategy.as_table(rules)
    exact = chain_value(rules, table, progression)
    deals = 200_000
    stats = simulate_table(rules, table, progression, deals, kernel_state(
        np.random.SeedSequence(11)), DEPENDENT_BATCH_ROUNDS).close_batch(dependent=True)
    assert stats.batches == deals // DEPENDENT_BATCH_ROUNDS
    se = exact.sd_net / math.sqrt(deals) / exact.mean_initial_stake
    assert abs(stats.edge_per_initial_bet - exact.edge_per_initial_bet) < 4 * se
    se_total = exact.sd_residual_total / math.sqrt(deals) / exact.mean_total_wagered
    assert abs(stats.edge_per_total_wagered - exact.edge_per_total_wagered) < 4 * se_total
    # The exact long-run error is what the batch means estimate (within four of their own
    # relative errors, 1 / sqrt(2 (batches - 1))).
    assert stats.stderr == pytest.approx(se, rel=4 / math.sqrt(2 * (stats.batches - 1)))


def test_a_chunk_starting_at_the_base_unit_moves_the_edge_far_below_its_error():
    """The shipped rows' chunks (50,000 deals, the first at the base unit): the start's
    excess changes a chunk's expected edge by under a thousandth of the run's error."""
    rules = FaroRules()
    table = FlatRank("K").as_table(rules)
    chunk, deals = 50_000, 500_000
    for progression in (ProgressionSpec(MARTINGALE, cap=64), ProgressionSpec(MARTINGALE, cap=16),
                        ProgressionSpec(PAROLI, wins_to_reset=3)):
        chain = unit_chain(rules, table, progression)
        run = long_run_of(chain)
        net, initial, _ = start_excess(chain)
        mean_net, mean_initial = float(run.mean_net), float(run.mean_initial)
        shifted = -(chunk * mean_net + net) / (chunk * mean_initial + initial)
        exact = chain_value(rules, table, progression)
        se = exact.sd_net / math.sqrt(deals) / exact.mean_initial_stake
        assert abs(shifted - exact.edge_per_initial_bet) < 1e-3 * se


def test_the_full_pack_king_under_the_shipped_progressions():
    rules = FaroRules()
    king = FlatRank("K")
    flat = FARO.exact(rules, king, ProgressionSpec())
    martingale = FARO.exact(rules, king, ProgressionSpec(MARTINGALE, cap=64))
    paroli = FARO.exact(rules, king, ProgressionSpec(PAROLI, wins_to_reset=3))
    dalembert = FARO.exact(rules, king, ProgressionSpec(DALEMBERT))
    assert martingale.edge_per_total_wagered == pytest.approx(0.0150786, abs=1e-7)
    assert martingale.edge_per_initial_bet == pytest.approx(0.055751, abs=1e-6)
    assert paroli.edge_per_total_wagered == pytest.approx(0.0152217, abs=1e-7)
    # A paroli's chain: units 1, 2, 4 at streaks 0, 1, 2.
    chain = unit_chain(rules, king.as_table(rules), ProgressionSpec(PAROLI, wins_to_reset=3))
    assert chain.states == ((1, 0), (2, 1), (4, 2))
    # An uncapped d'Alembert drifts up: its long run is the flat bet's, in fractions.
    assert dalembert.fractions == flat.fractions
    assert dalembert.fractions["edge_per_total_wagered"] == Fraction(1, 66)


def test_no_value_where_the_chain_does_not_reach_says_why():
    rules = FaroRules()
    uncapped = ProgressionSpec(MARTINGALE)
    assert FARO.exact(rules, FlatRank("K"), uncapped) is None
    assert "uncapped martingale" in FARO.exact_unavailable(rules, FlatRank("K"), uncapped)
    assert FARO.exact(rules, HighCard(), ProgressionSpec(PAROLI)) is None
    assert "single ranks" in FARO.exact_unavailable(rules, HighCard(), ProgressionSpec(PAROLI))


def test_a_progression_makes_a_rows_deals_dependent_and_both_paths_batch_them():
    rules = FaroRules(rank_count=4, suits=3)
    martingale = ProgressionSpec(MARTINGALE, cap=8)
    assert FARO.rounds_dependent(rules, martingale)
    assert not FARO.rounds_dependent(rules, ProgressionSpec())
    assert FARO.batch_rounds(rules, martingale) == DEPENDENT_BATCH_ROUNDS
    seed = np.random.SeedSequence(4)
    kernel = FARO.simulate(rules, FlatRank("A"), martingale, 2500, seed)
    reference = FARO.simulate_reference(rules, FlatRank("A"), martingale, 2500, seed)
    assert kernel.batches == reference.batches == 3
    for key, value in kernel.batch_sums.items():
        assert reference.batch_sums[key] == pytest.approx(value, rel=1e-12)
