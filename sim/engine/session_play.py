"""Session play, the work of a ``[session]`` table: Monte Carlo sessions on the game's kernel.

A row's sessions are cut into chunks of ``chunk_sessions`` (fixed by the file, never by the
jobs), run by the runner beside the rounds' chunks and checkpointed like them. A chunk plays
its sessions in blocks of at most ``BLOCK_ROUNDS`` rounds, each session starting afresh (a new
pack, the progression at its base unit), each block from its own streams, named like the
rounds' (:func:`sim.core.rng.named_streams`: the work "sessions", the row's pack and strategy, the
chunk and the block), so the strategies of a pack play their sessions on the same cards and
the rounds' own streams are untouched. The histogram grid of a row is fixed before its first
chunk (:func:`grid`) and kept with its checkpoints.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sim.core.progression import ProgressionSpec
from sim.core.rng import named_streams
from sim.risk.law import ChainLaw, RoundLaw
from sim.risk.montecarlo import Grid, SessionStats
from sim.risk.spec import SessionSpec

BLOCK_ROUNDS = 1 << 18  # rounds per kernel call: 2 MB of results, whatever the sessions
STREAM = "sessions"
PILOT = "pilot"
PILOT_SESSIONS = 256


def _nets(game: Any, rules: Any, strategy: Any, progression: ProgressionSpec, sessions: int,
          rounds: int, seed: Any) -> np.ndarray:
    return np.ascontiguousarray(
        game.session_nets(rules, strategy, progression, sessions, rounds, seed),
        dtype=np.float64)


def round_law(game: Any, rules: Any, strategy: Any, progression: ProgressionSpec
              ) -> RoundLaw | None:
    """The exact law of one round, where the game gives one."""
    pairs = game.round_law(rules, strategy, progression)
    return RoundLaw.from_pairs(*pairs) if pairs is not None else None


def exact_law(game: Any, rules: Any, strategy: Any, progression: ProgressionSpec
              ) -> RoundLaw | ChainLaw | None:
    """The exact law of a session's rounds, where the game gives one: of one round where
    rounds are alike, else of the chain that drives them (a progression's unit)."""
    law = round_law(game, rules, strategy, progression)
    if law is not None:
        return law
    chain = game.round_chain(rules, strategy, progression)
    return ChainLaw.from_chain(chain) if chain is not None else None


def grid(game: Any, rules: Any, strategy: Any, strategy_name: str,
         progression: ProgressionSpec, spec: SessionSpec, root: int,
         law: RoundLaw | ChainLaw | None) -> Grid:
    """The histogram grid of a row's sessions: from the rounds' exact ``law`` (bins of its
    lattice step; :func:`exact_law`), else from a pilot of a few sessions on a stream of
    their own (bins of half a base stake, or the smallest net where that is less)."""
    if law is not None:
        largest = float(np.abs(law.values).max() or law.step)
        return Grid.for_session(spec, law.step, law.mean, law.sd, largest)
    nets = _nets(game, rules, strategy, progression, PILOT_SESSIONS, spec.rounds,
                 named_streams(root, PILOT, game.pack_key(rules), strategy_name))
    largest = float(np.abs(nets).max() or 1.0)
    return Grid.for_session(spec, 0.5 if largest >= 0.5 else largest, float(nets.mean()),
                            float(nets.std()), largest)


def keep_paths(spec: SessionSpec, chunk: int) -> int:
    """How many of chunk ``chunk``'s sessions are kept whole for the fan chart (the first
    ``sample_paths`` sessions of the row)."""
    return max(0, spec.sample_paths - chunk * spec.chunk_sessions)


def play_chunk(game: Any, rules: Any, strategy: Any, strategy_name: str,
               progression: ProgressionSpec, spec: SessionSpec, grid_: Grid, root: int,
               chunk: int, sessions: int) -> SessionStats:
    """Play and track the ``sessions`` sessions of chunk ``chunk`` of a row."""
    stats = SessionStats(grid_, spec.checkpoint_rounds)
    stats.paths = np.zeros((min(keep_paths(spec, chunk), sessions), len(stats.checkpoints)))
    pack = game.pack_key(rules)
    per_block = max(1, BLOCK_ROUNDS // spec.rounds)
    block = 0
    while stats.sessions < sessions:
        n = min(per_block, sessions - stats.sessions)
        stats.track(_nets(game, rules, strategy, progression, n, spec.rounds,
                          named_streams(root, STREAM, pack, strategy_name, chunk, block)),
                    spec)
        block += 1
    return stats


def chunk_sizes(spec: SessionSpec) -> list[int]:
    """The sessions of each chunk of a row (only the last may be short)."""
    return [min(spec.chunk_sessions, spec.sessions - start)
            for start in range(0, spec.sessions, spec.chunk_sessions)]


def play(game: Any, rules: Any, strategy: Any, strategy_name: str,
         progression: ProgressionSpec, spec: SessionSpec, root: int) -> SessionStats:
    """Every session of a row in this process, chunk after chunk: the numbers the runner's
    checkpointed chunks merge to (for a caller holding a game and a strategy, not a run)."""
    grid_ = grid(game, rules, strategy, strategy_name, progression, spec, root,
                 exact_law(game, rules, strategy, progression))
    merged: SessionStats | None = None
    for i, n in enumerate(chunk_sizes(spec)):
        stats = play_chunk(game, rules, strategy, strategy_name, progression, spec, grid_,
                           root, i, n)
        merged = stats if merged is None else merged.merge(stats, spec.sample_paths)
    assert merged is not None
    return merged
