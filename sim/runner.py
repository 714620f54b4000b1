"""Chunked parallel execution over joblib, with checkpoints and resume.

Every (variant, strategy) pair is cut into chunks of the experiment's fixed size. A chunk is
played from its own seed (:func:`sim.rng.chunk_seed`), returns statistics (never rounds), and is
written to ``<out>/chunks/`` as JSON the moment it finishes. The results are merged in chunk
order, so the numbers do not depend on the number of jobs, the backend, or on whether the run
was interrupted and resumed.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from joblib import Parallel, delayed, parallel_config
from tqdm import tqdm

from sim import games
from sim.errors import InputError
from sim.experiment import Experiment, StrategySpec
from sim.rng import chunk_seed
from sim.stats import Stats

CHUNK_DIR = "chunks"
FINGERPRINT_FILE = "experiment.json"


@dataclass(frozen=True)
class Chunk:
    """One unit of work."""

    variant: int
    strategy: int
    index: int
    rounds: int

    @property
    def filename(self) -> str:
        return f"v{self.variant}-s{self.strategy}-c{self.index}.json"


@dataclass
class RunResult:
    """Per (variant, strategy): the chunk statistics in chunk order."""

    experiment: Experiment
    chunks: dict[tuple[int, int], list[Stats]]

    def merged(self, variant: int, strategy: int) -> Stats:
        return Stats.merge_all(self.chunks[(variant, strategy)])


def plan(experiment: Experiment) -> list[Chunk]:
    """Every chunk of the experiment (the last chunk of a pair may be short)."""
    size = experiment.chunk_rounds
    chunks = []
    for v in range(len(experiment.variants)):
        for s, strategy in enumerate(experiment.strategies):
            rounds = strategy.rounds or experiment.rounds
            chunks += [Chunk(v, s, c, min(size, rounds - c * size))
                       for c in range(-(-rounds // size))]
    return chunks


_BUILT: dict[str, Any] = {}


def _strategy(game: str, spec: StrategySpec) -> Any:
    # Built once per worker process: importing a user's file and constructing is not free.
    key = json.dumps([game, spec.use, spec.params, spec.base_dir], sort_keys=True, default=str)
    if key not in _BUILT:
        _BUILT[key] = spec.build(game)
    return _BUILT[key]


def run_chunk(game_name: str, rules: Any, spec: StrategySpec, rounds: int, root_seed: int,
              chunk: Chunk) -> tuple[Chunk, dict[str, Any]]:
    """Play one chunk (in a worker) and return it with its statistics as plain data."""
    game = games.get(game_name)
    seed = chunk_seed(root_seed, chunk.variant, chunk.strategy, chunk.index)
    stats = game.simulate(rules, _strategy(game_name, spec), spec.progression, rounds, seed)
    return chunk, stats.to_json()


def write_atomic(path: Path, data: bytes | str) -> None:
    """Write a file so that readers see either nothing or all of it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode() if isinstance(data, str) else data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _fingerprint(experiment: Experiment) -> str:
    return hashlib.sha256(experiment.fingerprint().encode()).hexdigest()


def _prepare_checkpoints(experiment: Experiment, out_dir: Path, resume: bool) -> dict[str, Any]:
    """Open the checkpoint folder; on resume, the finished chunks it holds."""
    folder = out_dir / CHUNK_DIR
    marker = folder / FINGERPRINT_FILE
    if resume and marker.exists():
        saved = json.loads(marker.read_text())
        if saved.get("fingerprint") != _fingerprint(experiment):
            raise InputError(
                f"{marker}: fingerprint: the saved chunks come from a different experiment "
                "(rounds, seed, chunk size, variants or strategies changed); run without --resume")
        done = {}
        for path in folder.glob("v*-s*-c*.json"):
            done[path.name] = json.loads(path.read_text())
        return done
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    write_atomic(marker, json.dumps({"fingerprint": _fingerprint(experiment),
                                     "experiment": experiment.resolved}, indent=2, default=str))
    return {}


@contextmanager
def _backend(backend: str, scheduler: str | None) -> Iterator[None]:
    if backend == "dask":
        try:
            from dask.distributed import Client
        except ImportError:
            raise InputError("--backend dask: dask.distributed is not installed "
                             "(pip install 'houseedge[cluster]')") from None
        with Client(scheduler) if scheduler else Client(processes=True) as _client:
            with parallel_config(backend="dask"):
                yield
    elif backend in ("loky", "threading", "multiprocessing"):
        with parallel_config(backend=backend):
            yield
    else:
        raise InputError(f"--backend: expected loky, threading, multiprocessing or dask, "
                         f"got {backend!r}")


def run(experiment: Experiment, out_dir: Path, jobs: int = 1, resume: bool = False,
        backend: str = "loky", scheduler: str | None = None, progress: bool | None = None
        ) -> RunResult:
    """Run (or finish) an experiment, checkpointing each chunk under ``out_dir``.

    Raises:
        KeyboardInterrupt: after Ctrl-C; the finished chunks stay on disk for ``--resume``.
    """
    chunks = plan(experiment)
    done = _prepare_checkpoints(experiment, out_dir, resume)
    todo = [c for c in chunks if c.filename not in done]
    folder = out_dir / CHUNK_DIR
    total_rounds = sum(c.rounds for c in chunks)
    bar = tqdm(total=total_rounds, initial=total_rounds - sum(c.rounds for c in todo),
               unit=" rounds", unit_scale=True, desc=experiment.name,
               disable=(not progress) if progress is not None else None, leave=False)
    calls = (
        delayed(run_chunk)(experiment.game, experiment.variants[c.variant].rules,
                           experiment.strategies[c.strategy], c.rounds, experiment.seed, c)
        for c in todo
    )
    context = _backend(backend, scheduler) if jobs != 1 else nullcontext()
    with bar, context:
        # Chunks are saved as they finish, whatever their order; merging is by chunk index.
        for chunk, stats_json in Parallel(n_jobs=jobs, return_as="generator_unordered")(calls):
            write_atomic(folder / chunk.filename, json.dumps(stats_json))
            done[chunk.filename] = stats_json
            bar.update(chunk.rounds)
    by_pair: dict[tuple[int, int], list[Stats]] = {}
    for c in chunks:
        by_pair.setdefault((c.variant, c.strategy), []).append(Stats.from_json(done[c.filename]))
    return RunResult(experiment, by_pair)
