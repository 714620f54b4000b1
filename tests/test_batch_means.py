"""Rounds that are not independent (a pontoon pack carried from deal to deal) take their
standard error from the spread between chunks, and that error is honest."""

from __future__ import annotations

import math

import numpy as np

from sim import games
from sim.progression import ProgressionSpec
from sim.stats import Stats
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
    assert all(r.dependent and r.batches == 10 for r in runs)
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
