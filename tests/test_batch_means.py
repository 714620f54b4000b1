"""Rounds that are not independent (a pontoon pack carried from deal to deal) take their
standard error from the spread between batches of a fixed length inside each chunk, and that
error is honest."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sim import games
from sim.core.progression import ProgressionSpec
from sim.core.stats import Stats
from strategies.pontoon import Threshold

PONTOON = games.get("pontoon")


def _run(seed: int, chunks: int, rounds: int, rules) -> Stats:
    strategy = Threshold(stick=16)
    parts = [PONTOON.simulate(rules, strategy, ProgressionSpec(), rounds,
                              np.random.SeedSequence(seed, spawn_key=(c,)))
             .close_batch(dependent=not PONTOON.rounds_independent(rules))
             for c in range(chunks)]
    return Stats.merge_all(parts)


def test_pontoon_without_reshuffle_is_dependent_and_with_is_not():
    rules = PONTOON.presets["british-home"]
    assert not PONTOON.rounds_independent(rules)
    assert PONTOON.rounds_independent(PONTOON.presets["reshuffle-every-deal"])


def test_batch_means_error_matches_the_spread_over_seeds():
    rules = PONTOON.presets["british-home"]
    runs = [_run(seed, 10, 1500, rules) for seed in range(160)]
    # Chunks of 1,500 deals: a batch of 1,000 and one of 500 each.
    assert all(r.dependent and r.batches == 20 for r in runs)
    edges = np.array([r.edge_per_initial_bet for r in runs])
    # The mean of var estimates is unbiased: compare variances, not SDs.
    reported = math.sqrt(np.mean([r.stderr ** 2 for r in runs]))
    spread = edges.std(ddof=1)
    # 160 seeds: the spread's own relative error is about 1/sqrt(2 * 159) = 5.6%; 4 of those.
    assert abs(reported / spread - 1) < 0.23, (reported, spread)


def test_batch_means_equal_the_per_round_error_for_independent_rounds():
    rules = PONTOON.presets["reshuffle-every-deal"]
    merged = _run(1, 40, 2000, rules)
    assert not merged.dependent
    as_batches = Stats.from_json({**merged.to_json(), "dependent": True})
    # For independent rounds both estimate the same error (40 batches: within ~25%).
    assert abs(as_batches.stderr / merged.stderr - 1) < 0.35


def test_too_few_batches_are_flagged():
    merged = _run(2, 3, 500, PONTOON.presets["british-home"])
    assert not merged.stderr_reliable
    assert _run(2, 12, 200, PONTOON.presets["british-home"]).stderr_reliable


def test_the_batches_are_of_a_fixed_length_whatever_the_chunk():
    from sim.core.stats import DEPENDENT_BATCH_ROUNDS

    rules = PONTOON.presets["british-home"]
    assert PONTOON.batch_rounds(rules) == DEPENDENT_BATCH_ROUNDS
    assert PONTOON.batch_rounds(PONTOON.presets["reshuffle-every-deal"]) == 0
    # 50,000 deals as chunks of 30,000 and 20,000, or as one chunk: 50 batches either way.
    assert _run(3, 1, 50_000, rules).batches == 50
    two = Stats.merge_all([PONTOON.simulate(rules, Threshold(stick=16), ProgressionSpec(), n,
                                            np.random.SeedSequence(3, spawn_key=(c,)))
                           .close_batch(dependent=True) for c, n in enumerate((30_000, 20_000))])
    assert two.batches == 50 and two.stderr_reliable and two.stderr_dof == 49


def test_the_kernel_and_the_reference_path_cut_the_same_batches():
    from sim.games.pontoon.players import TableBanker, TablePlayer
    from sim.games.pontoon.tables import BankerTable, PlayerTable

    rules = PONTOON.presets["british-home"]
    player = PlayerTable.threshold(rules, stick=16, soft_stick=18, split="A8")
    banker = BankerTable.stand_on(17)
    seed = np.random.SeedSequence(11)
    kernel = PONTOON.simulate_table(rules, (player, banker), ProgressionSpec(), 2_500, seed)
    reference = PONTOON.simulate_reference(rules, TablePlayer(player, TableBanker(banker)),
                                           ProgressionSpec(), 2_500, seed)
    assert kernel.sums == reference.sums  # the same deals
    assert kernel.batches == reference.batches == 3  # 1,000, 1,000 and 500 deals
    assert kernel.batch_sums == pytest.approx(reference.batch_sums, rel=1e-12)


def test_an_error_from_few_batches_is_flagged_and_widened_in_the_report():
    from sim import api
    from sim.core.stats import t95
    from sim.outputs import report
    from tests.conftest import run_in_memory

    experiment = api.load({"name": "few", "game": "pontoon", "rounds": 4_000,
                           "chunk_rounds": 2_000, "seed": 5,
                           "strategies": [{"name": "stick 16", "use": "threshold",
                                           "params": {"stick": 16}}]})
    row = report.build(run_in_memory(experiment)).iloc[0]
    assert row.stderr_source == "batch means" and row.stderr_batches == 4
    assert row.note.startswith("error from only 4 batches of dependent rounds")
    assert row.edge_ci95_high - row.edge == pytest.approx(t95(3) * row.edge_stderr)
    assert row.ci95_high - row.edge_per_initial_bet == pytest.approx(t95(3) * row.stderr)
