"""Simulated lansquenet against exact values: |z| < 4 with fixed seeds, every rule choice.

Banks of a session are independent (a fresh pack each, flat stakes, no carrying on); when the
seats bank differently they are not identically distributed, which makes the i.i.d. standard
errors used here conservative.
"""

import math

import numpy as np
import pytest

from sim.core.progression import MARTINGALE, PAROLI, ProgressionSpec
from sim.core.rng import kernel_state
from sim.core.stats import DEPENDENT_BATCH_ROUNDS, Stats
from sim.games.lansquenet import GAME
from sim.games.lansquenet.coup import RUN_CAP
from sim.games.lansquenet.exact import run_lengths, seats_value
from sim.games.lansquenet.kernel import simulate_table
from sim.games.lansquenet.rules import LansquenetRules
from strategies.lansquenet import (
    CoverBelow,
    CoverShare,
    FollowRun,
    NeverPass,
    PassAfter,
    PassAtTarget,
    Sharper,
)

FLAT = ProgressionSpec()
GRID = [(jumelle, packs, reshuffle) for jumelle in ("half", "whole") for packs in (1, 6)
        for reshuffle in ("bank", "coup")]


def _z_rate(count: float, n: int, p: float) -> float:
    return (count / n - p) / math.sqrt(p * (1 - p) / n) if 0 < p < 1 else (count / n - p) * 1e9


def _simulated_agrees_with_exact(rules, strategy, n, seed, runs):
    """n banks simulated from ``seed``: both edges and the frequencies of the first ``runs``
    run lengths within 4 standard errors of the exact values. The statistics."""
    stats = GAME.simulate(rules, strategy, FLAT, n, seed)
    exact = GAME.exact(rules, strategy, FLAT)
    assert abs((stats.edge_per_initial_bet - exact.edge_per_initial_bet) / stats.stderr) < 4
    assert abs((stats.edge_per_total_wagered - exact.edge_per_total_wagered)
               / stats.stderr_per_total_wagered) < 4
    mean_runs = np.mean([v.runs for v in seats_value(rules, strategy.as_table(rules))], axis=0)
    for k in range(runs):
        assert abs(_z_rate(stats.counters.get(f"run_{k}", 0.0), n, mean_runs[k])) < 4
    return stats


@pytest.mark.parametrize("jumelle, packs, reshuffle", GRID)
def test_edges_and_run_lengths_agree_with_exact(jumelle, packs, reshuffle):
    rules = LansquenetRules(jumelle=jumelle, packs=packs, reshuffle=reshuffle)
    stats = _simulated_agrees_with_exact(rules, PassAfter(2), 300_000, np.random.SeedSequence(
        [packs, reshuffle == "coup", jumelle == "whole"]), 3)
    # Whatever the pack holds, the banker's card is matched first in half the coups that
    # are neither jumelles nor void.
    wins, losses = stats.counters["wins"], stats.counters["losses"]
    assert abs(_z_rate(wins, int(wins + losses), 0.5)) < 4


@pytest.mark.parametrize("jumelle", ["half", "whole"])
@pytest.mark.parametrize("strategy", [PassAfter(3), PassAtTarget(target=4.0, share=0.25)],
                         ids=["pass after 3", "pass at 4x"])
def test_six_packs_three_and_four_coups_deep_agree_with_the_counted_histories(jumelle,
                                                                            strategy):
    # Banks that need the pack after two and three coups of six packs: the tree of coup
    # histories (sim.games.lansquenet.patterns), not the profile chain.
    rules = LansquenetRules(packs=6, jumelle=jumelle)
    _simulated_agrees_with_exact(rules, strategy, 300_000,
                                 np.random.SeedSequence([6, jumelle == "whole", 3]), 4)


@pytest.mark.parametrize("rules", [LansquenetRules(), LansquenetRules(reshuffle="coup"),
                                   LansquenetRules(packs=6, reshuffle="coup"),
                                   LansquenetRules(packs=6)], ids=str)
def test_run_lengths_of_banks_left_to_ride(rules):
    n = 400_000
    stats = GAME.simulate(rules, NeverPass(), FLAT, n, np.random.SeedSequence(11))
    exact = run_lengths(rules)
    known = np.flatnonzero(np.isfinite(exact[:RUN_CAP]))
    assert len(known) >= 2
    for k in known[:8]:
        assert abs(_z_rate(stats.counters.get(f"run_{k}", 0.0), n, exact[k])) < 4
    # Every bank ends losing its whole bank: the table wins exactly the opening stakes.
    assert stats.mean_net == pytest.approx(1.0)


def test_a_mixed_table_agrees_with_exact_seat_by_seat():
    # A sharper at seat 0, punters meeting a share up to a limit; pooled banks. Per-seat
    # standard errors by batch means over independent sessions.
    rules = LansquenetRules(first_card="banker", pool=(0.6, 0.1, 0.1, 0.1, 0.1))
    strategies = [Sharper(share=0.5, others_pass_after=2),
                  CoverBelow(limit=3.0, share=0.6, pass_after=0),
                  FollowRun(after=1, share=0.3, pass_after=3)]
    for strategy in strategies:
        table = strategy.as_table(rules)
        values = seats_value(rules, table)
        exact_seats = np.mean([v.seat_nets for v in values], axis=0)
        batches = [simulate_table(rules, table, FLAT, 10_000,
                                  kernel_state(np.random.SeedSequence([21, b])))
                   for b in range(30)]
        per_batch = np.array([[s.counter_rate(f"seat_{i}") for i in range(rules.seats)]
                              for s in batches])
        se = per_batch.std(axis=0, ddof=1) / math.sqrt(len(batches))
        z = (per_batch.mean(axis=0) - exact_seats) / np.where(se > 0, se, 1.0)
        assert np.all(np.abs(z) < 4), z
        total = Stats.merge_all(batches)
        exact = GAME.exact(rules, strategy, FLAT)
        assert abs((total.edge_per_initial_bet - exact.edge_per_initial_bet) / total.stderr) < 4


MARTINGALE_8 = ProgressionSpec(MARTINGALE, cap=8.0)


@pytest.mark.parametrize("rules, strategy, progression", [
    (LansquenetRules(), PassAfter(3), MARTINGALE_8),
    # Shares that are no binary fractions: the batches still agree to the last bit.
    (LansquenetRules(pool=(0.6, 0.1, 0.1, 0.1, 0.1)), CoverShare(0.6), MARTINGALE_8),
    (LansquenetRules(), CoverBelow(limit=3.0, share=0.6, pass_after=0), ProgressionSpec(PAROLI)),
])
def test_a_progression_makes_a_rows_banks_dependent_and_both_paths_batch_them(
        rules, strategy, progression):
    assert GAME.rounds_dependent(rules, progression)
    assert not GAME.rounds_dependent(rules, FLAT)
    assert GAME.batch_rounds(rules, progression) == DEPENDENT_BATCH_ROUNDS
    seed = np.random.SeedSequence(4)
    kernel = GAME.simulate(rules, strategy, progression, 2500, seed)
    reference = GAME.simulate_reference(rules, strategy, progression, 2500, seed)
    assert kernel.batches == reference.batches == 3  # 1,000, 1,000 and the last 500
    assert kernel.batch_sums == reference.batch_sums
    assert GAME.simulate(rules, strategy, FLAT, 2500, seed).batches == 0


def test_a_progression_rows_error_comes_from_the_means_of_its_batches():
    from sim import api
    from sim.core.rng import Cards, chunk_streams, strategy_generator
    from sim.games.lansquenet.coup import RandomPacks, RoundTable
    from sim.outputs import report
    from tests.conftest import run_in_memory

    experiment = api.load({
        "name": "batches", "game": "lansquenet", "rounds": 20_000, "chunk_rounds": 10_000,
        "seed": 3, "rules": {"preset": "one-pack"},
        "strategies": [{"name": "martingale", "use": "pass-after", "params": {"wins": 3},
                        "progression": {"name": "martingale", "cap": 8}},
                       {"name": "flat", "use": "pass-after", "params": {"wins": 3}}]})
    frame = report.build(run_in_memory(experiment)).set_index("strategy")
    row = frame.loc["martingale"]
    assert row["stderr_source"] == "batch means" and row["stderr_batches"] == 20
    assert frame.loc["flat", "stderr_source"] != "batch means"
    # The row's banks again, played one by one on the reference path from the chunks' cards,
    # and the batch means taken by hand: 1,000 banks a batch, ten to a chunk.
    rules, spec = experiment.variants[0].rules, experiment.strategies[0]
    net, opening = [], []
    for chunk in range(2):
        parts = chunk_streams(experiment.seed, GAME.pack_key(rules), spec.name, chunk)
        table = RoundTable(rules, spec.build("lansquenet"), spec.progression,
                           RandomPacks(rules, Cards(parts.cards).kernel_state()),
                           strategy_generator(parts))
        banks = [table.play_bank() for _ in range(10_000)]
        net += [-bank.result for bank in banks]
        opening += [bank.opening for bank in banks]
    batch_net = np.add.reduceat(net, np.arange(0, 20_000, 1000))
    batch_opening = np.add.reduceat(opening, np.arange(0, 20_000, 1000))
    edge = -batch_net.sum() / batch_opening.sum()
    residuals = batch_net + edge * batch_opening
    se = math.sqrt(20 / 19 * (residuals ** 2).sum()) / batch_opening.sum()
    assert row["edge"] == pytest.approx(edge, rel=1e-12)
    assert row["edge_stderr"] == pytest.approx(se, rel=1e-9)
