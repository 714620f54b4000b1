"""Shared test helpers."""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

os.environ.setdefault("MPLBACKEND", "Agg")


@functools.cache
def _orderings(counts: tuple[int, ...]) -> np.ndarray:
    # Rows in lexicographic order: each rank first, before every ordering of the rest.
    if not any(counts):
        return np.zeros((1, 0), dtype=np.int8)
    blocks = []
    for r, c in enumerate(counts):
        if c:
            rest = _orderings(counts[:r] + (c - 1,) + counts[r + 1:])
            blocks.append(np.hstack([np.full((len(rest), 1), r, dtype=np.int8), rest]))
    rows = np.concatenate(blocks)
    rows.flags.writeable = False  # shared by every caller
    return rows


def distinct_orderings(counts: list[int]) -> np.ndarray:
    """Every distinct ordering of a multiset of ranks (rank r appearing counts[r] times), one
    per row, in lexicographic order (read-only: built once and shared). Each is equally
    likely under a uniform shuffle of the cards, since each stands for the same number of
    card orderings."""
    return _orderings(tuple(counts))


@pytest.fixture(scope="session")
def orderings_3x2() -> np.ndarray:
    return distinct_orderings([2, 2, 2])


@pytest.fixture(scope="session")
def orderings_4x3() -> np.ndarray:
    return distinct_orderings([3, 3, 3, 3])


def run_in_memory(experiment):
    """The RunResult the runner gives for an experiment, played in this process with no
    folder: each chunk from the runner's streams (:func:`sim.core.rng.chunk_streams`), closed
    and merged in chunk order, as :func:`sim.engine.runner.run_chunk` and the checkpoints do,
    and each row's exact record as :func:`sim.engine.runner.run_exact` makes it."""
    from sim import games
    from sim.core.rng import chunk_streams
    from sim.core.stats import BatchTotals, Stats
    from sim.engine.row_exact import row_exact
    from sim.engine.runner import RunResult

    game = games.get(experiment.game)
    stats, totals, exact = {}, {}, {}
    for vi, variant in enumerate(experiment.variants):
        for si, spec in enumerate(experiment.strategies):
            strategy = spec.build(experiment.game)
            rounds = spec.rounds or experiment.rounds
            row, merged = BatchTotals(), Stats()
            for c in range(-(-rounds // experiment.chunk_rounds)):
                n = min(experiment.chunk_rounds, rounds - c * experiment.chunk_rounds)
                seed = chunk_streams(experiment.seed, game.pack_key(variant.rules), spec.name, c)
                chunk = game.simulate(variant.rules, strategy, spec.progression, n, seed)
                chunk.close_batch(dependent=game.rounds_dependent(variant.rules, spec.progression))
                row.add(chunk)
                merged = merged.merge(chunk)
            stats[(vi, si)], totals[(vi, si)] = merged, row
            exact[(vi, si)] = row_exact(game, variant.rules, strategy, spec.progression,
                                        experiment.session is not None)
    return RunResult(experiment, stats, {pair: [] for pair in stats}, {}, totals, {},
                     exact=exact)


@contextlib.contextmanager
def ctrl_c_at(module: Any, name: str, call: int) -> Iterator[None]:
    """Inside the block, ``module.name`` is interrupted (KeyboardInterrupt, as by Ctrl-C) at
    its ``call``-th call and every call after; the real function is back after the block."""
    real = getattr(module, name)
    calls = 0

    def flaky(*args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls >= call:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    setattr(module, name, flaky)
    try:
        yield
    finally:
        setattr(module, name, real)
