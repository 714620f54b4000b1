"""Chunked parallel execution over joblib, with checkpoints and resume.

Every (variant, strategy) pair is cut into chunks of the experiment's fixed size; with a
``[session]`` table its sessions too (:mod:`sim.engine.session_play`), played after the rounds
on the same backend and kept the same way, and then each row's risk model (the exact
programmes over the bankroll, the diffusion). Each row's exact record comes first
(:mod:`sim.engine.row_exact`). A chunk is
played from its own streams (:func:`sim.core.rng.chunk_streams`), returns statistics (never rounds),
and is kept in ``<out>/chunks/`` (:mod:`sim.engine.checkpoints`) the moment it finishes. The results
are merged in chunk order, so the numbers do not depend on the number of jobs, the backend, or
on whether the run was interrupted and resumed. Chunks are planned lazily and kept merged, so
memory and the checkpoints stay bounded whatever the number of rounds.
"""

from __future__ import annotations

import gc
import itertools
import json
import logging
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from joblib import Parallel, delayed, parallel_config
from tqdm import tqdm

from sim import games
from sim.core.errors import InputError, UnknownName
from sim.core.interrupt import children_deaf_to_interrupts
from sim.core.rng import chunk_streams
from sim.core.stats import BatchTotals, Stats
from sim.core.timing import SESSION_PLAY, Phases
from sim.engine import session_play, workers
from sim.engine.checkpoints import CheckpointStore, Chunk, SessionChunk
from sim.engine.experiment import Experiment, StrategySpec
from sim.engine.row_exact import RowExact, row_exact
from sim.engine.run_folder import open_run
from sim.risk.montecarlo import Bins, SessionStats
from sim.risk.spec import SessionSpec
from sim.risk.table import ModelRisk, session_model

BACKENDS = ("loky", "threading", "dask")
SCHEDULER_TIMEOUT_SECONDS = 6  # with start-up, the refusal comes within 10 s


@dataclass
class RunResult:
    """Per (variant, strategy): the merged statistics, the running estimate by chunk count
    and, with a ``[session]`` table, the merged sessions.

    ``execution`` says how the run was executed (jobs, backend, scheduler) for its manifest.
    """

    experiment: Experiment
    stats: dict[tuple[int, int], Stats]
    traces: dict[tuple[int, int], list[dict[str, float]]]
    execution: dict[str, Any] = field(default_factory=dict)
    totals: dict[tuple[int, int], BatchTotals] = field(default_factory=dict)
    stopped: dict[tuple[int, int], bool] = field(default_factory=dict)  # met a target
    resumed_rounds: int = 0  # of the rounds, how many this command read from saved chunks
    sessions: dict[tuple[int, int], SessionStats] = field(default_factory=dict)
    exact: dict[tuple[int, int], RowExact] = field(default_factory=dict)
    risk: dict[tuple[int, int], ModelRisk] = field(default_factory=dict)

    def merged(self, variant: int, strategy: int) -> Stats:
        return self.stats[(variant, strategy)]

    @classmethod
    def from_store(cls, store: CheckpointStore, execution: dict[str, Any] | None = None
                   ) -> RunResult:
        """The result held by a finished run's checkpoints."""
        return cls(store.experiment,
                   {pair: p.stats for pair, p in store.progress.items()},
                   {pair: list(p.trace) for pair, p in store.progress.items()},
                   dict(execution or {}),
                   {pair: p.totals for pair, p in store.progress.items()},
                   {pair: p.stopped for pair, p in store.progress.items()},
                   sessions=store.session_stats(), exact=dict(store.exact),
                   risk=dict(store.risk))


_BUILT: dict[str, Any] = {}


def _strategy(game: str, spec: StrategySpec, files: tuple[tuple[str, str], ...]) -> Any:
    # Built once per worker process: importing a user's file and constructing is not free.
    # The key holds the content of the files the experiment reads: a worker that outlives one
    # run never plays a strategy file as it was before an edit.
    key = json.dumps([game, spec.use, spec.params, spec.base_dir, files], sort_keys=True,
                     default=str)
    if key not in _BUILT:
        _BUILT[key] = spec.build(game)
    return _BUILT[key]


def run_chunk(game_name: str, variant: str, rules: Any, spec: StrategySpec, rounds: int,
              root_seed: int, chunk: Chunk, files: tuple[tuple[str, str], ...] = ()
              ) -> tuple[Chunk, dict[str, Any]]:
    """Play one chunk (in a worker) and return it with its statistics as plain data."""
    game = games.get(game_name)
    # Common random numbers: the cards from the variant's pack, the strategy's own stream apart.
    seed = chunk_streams(root_seed, game.pack_key(rules), spec.name, chunk.index)
    strategy = _strategy(game_name, spec, files)
    stats = game.simulate(rules, strategy, spec.progression, rounds, seed)
    stats.close_batch(dependent=game.rounds_dependent(rules, spec.progression))
    return chunk, stats.to_json()


def run_exact(game_name: str, rules: Any, spec: StrategySpec, with_law: bool,
              pair: tuple[int, int], files: tuple[tuple[str, str], ...] = ()
              ) -> tuple[tuple[int, int], dict[str, Any]]:
    """Make one row's exact record (in a worker) and return it as plain data."""
    record = row_exact(games.get(game_name), rules, _strategy(game_name, spec, files),
                       spec.progression, with_law)
    return pair, record.to_json()


def run_risk(game_name: str, variant: str, spec: StrategySpec, session: SessionSpec,
             record: RowExact, mc: SessionStats, pair: tuple[int, int]
             ) -> tuple[tuple[int, int], ModelRisk]:
    """Make one row's risk model (in a worker): the exact programmes over the bankroll from
    its exact law, and the diffusion, once its sessions are played."""
    return pair, session_model(game_name, variant, spec.name, spec.progression, session,
                               record.session_law(), mc)


def run_session_chunk(game_name: str, rules: Any, spec: StrategySpec, session: SessionSpec,
                      bins: Bins, root_seed: int, chunk: SessionChunk,
                      files: tuple[tuple[str, str], ...] = ()
                      ) -> tuple[SessionChunk, SessionStats]:
    """Play one session chunk (in a worker) and return it with its statistics."""
    stats = session_play.play_chunk(games.get(game_name), rules,
                                    _strategy(game_name, spec, files), spec.name,
                                    spec.progression, session, bins, root_seed, chunk.index,
                                    chunk.sessions)
    return chunk, stats


def check_backend(backend: str, scheduler: str | None) -> None:
    """Refuse a backend this runner cannot use, before anything is written."""
    if backend == "multiprocessing":
        raise InputError("--backend multiprocessing: it cannot hand back chunks as they finish, "
                         "which checkpoints need; loky (the default) runs local processes")
    if backend not in BACKENDS:
        raise InputError(f"--backend: {UnknownName('backend', backend, BACKENDS)}")
    if scheduler is not None and backend != "dask":
        raise InputError(f"--scheduler: only used with --backend dask (got --backend {backend})")


@contextmanager
def _backend(backend: str, scheduler: str | None, jobs: int) -> Iterator[int]:
    """Enter the backend; yields the n_jobs to hand joblib."""
    if backend != "dask":
        with workers.loky() if backend == "loky" else parallel_config(backend=backend):
            yield jobs
        return
    try:
        from dask.distributed import Client
    except ImportError:
        raise InputError("--backend dask: dask.distributed is not installed "
                         "(pip install 'houseedge[cluster]')") from None
    try:
        if scheduler:
            client = Client(scheduler, timeout=SCHEDULER_TIMEOUT_SECONDS)
        else:
            with children_deaf_to_interrupts():
                # Its workers' own log lines (tasks cancelled at Ctrl-C) are not the user's.
                client = Client(processes=True, n_workers=jobs if jobs > 0 else None,
                                silence_logs=logging.CRITICAL)
    except (OSError, TimeoutError) as exc:
        refusal = (f"--scheduler {scheduler}: cannot reach the dask scheduler within "
                   f"{SCHEDULER_TIMEOUT_SECONDS} s ({type(exc).__name__})")
    except ValueError as exc:  # dask.distributed cannot parse the address
        refusal = (f"--scheduler {scheduler}: not a dask scheduler address ({exc}); "
                   "expected one such as tcp://HOST:8786")
    else:
        refusal = None
    if refusal is not None:
        # The client that failed to start is closed by its finalizer: collected here, not
        # inside the start of a later client of this process, where closing it deadlocks
        # distributed's event loop (both wait on the loop's lock).
        gc.collect()
        raise InputError(refusal)
    with client, parallel_config(backend="dask"):
        try:
            # On a cluster every worker takes chunks; joblib's n_jobs=1 would run them here.
            yield jobs if jobs > 1 else -1
        except KeyboardInterrupt:
            if not scheduler:
                _stop_local_workers()
            raise


def _stop_local_workers() -> None:
    """After Ctrl-C, end this process's own dask workers at once: closed gently, each first
    finishes the chunk it holds (a second or more between the Ctrl-C and its line), and the
    chunks it would finish are not kept anyway."""
    import multiprocessing

    # What the cluster then logs of connections closed under it is the teardown, not news.
    logging.getLogger("distributed").setLevel(logging.CRITICAL)
    for child in multiprocessing.active_children():  # the local cluster's worker processes
        child.kill()


class Interrupted(KeyboardInterrupt):
    """Ctrl-C while chunks were being computed, with how many the run keeps: counted from the
    store in memory, since reading the folder again to count them took seconds for a large
    grid, between the Ctrl-C and its line."""

    def __init__(self, kept: int) -> None:
        super().__init__()
        self.kept = kept


def _abandon(results: Any) -> None:
    """Close joblib's generator of results after Ctrl-C, without its warning that some tasks
    ran unused (a package path and a hint to tune the iterator, two lines between the user
    and the one line saying what was kept)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*adjusting the input task iterator",
                                category=UserWarning)
        try:
            results.close()
        except (KeyboardInterrupt, Exception):  # a second Ctrl-C, a worker gone: abandoned
            pass


def _collect(parallel: Parallel, calls: Iterator[Any], keep: Any, bar: tqdm, store: CheckpointStore,
             size: Any) -> None:
    """Run ``calls``, keeping each result as it finishes (whatever the order: merging is by
    index); after Ctrl-C, :class:`Interrupted` with the chunks kept."""
    results = parallel(calls)
    try:
        for chunk, stats in results:
            keep(chunk, stats)
            bar.update(size(chunk))
    except KeyboardInterrupt:
        _abandon(results)
        raise Interrupted(store.done_chunks()) from None


def _fix_bins(experiment: Experiment, store: CheckpointStore,
               files: tuple[tuple[str, str], ...]) -> None:
    """Fix (and keep) the histogram bins of every pair whose sessions have none yet."""
    spec = experiment.session
    assert spec is not None
    game = games.get(experiment.game)
    for pair, progress in store.sessions.items():
        if progress.bins is None:
            variant, strategy = experiment.variants[pair[0]], experiment.strategies[pair[1]]
            store.set_bins(pair, session_play.bins_for(
                game, variant.rules, _strategy(experiment.game, strategy, files),
                strategy.name, strategy.progression, spec, experiment.seed,
                store.exact[pair].session_law()))


def _session_calls(experiment: Experiment, store: CheckpointStore,
                   files: tuple[tuple[str, str], ...]) -> Iterator[Any]:
    """The session chunks still to play, on their pairs' bins."""
    spec = experiment.session
    assert spec is not None
    for c in store.session_todo():
        bins = store.sessions[c.pair].bins
        yield delayed(run_session_chunk)(experiment.game, experiment.variants[c.variant].rules,
                                         experiment.strategies[c.strategy], spec, bins,
                                         experiment.seed, c, files)


def run(experiment: Experiment, out_dir: Path, jobs: int = 1, resume: bool = False,
        backend: str = "loky", scheduler: str | None = None, progress: bool | None = None,
        force: bool = False, phases: Phases | None = None) -> RunResult:
    """Run (or finish) an experiment, checkpointing each chunk under ``out_dir``: its rounds,
    then its sessions (timed as ``phases``' session play, where given).

    Everything that can be refused (the backend, the scheduler, the folder) is refused before
    anything is written.

    Raises:
        InputError: a backend that cannot be used, an unreachable scheduler, an output folder
            that cannot be written or that holds another run (see :mod:`sim.engine.run_folder`).
        KeyboardInterrupt: after Ctrl-C; the finished chunks stay on disk for ``--resume``
            (:class:`Interrupted`, with their count, once chunks are being computed).
    """
    check_backend(backend, scheduler)
    with _backend(backend, scheduler, jobs) as n_jobs:
        store, notes = open_run(out_dir, experiment, resume, force)
        for note in notes:
            tqdm.write(f"houseedge: {note}", file=sys.stderr)
        done_rounds = store.done_rounds()
        session = experiment.session
        total_rounds = len(experiment.variants) * sum(
            (s.rounds or experiment.rounds)
            + (session.sessions * session.rounds if session is not None else 0)
            for s in experiment.strategies)
        bar = tqdm(total=total_rounds, initial=done_rounds + store.done_session_rounds(),
                   unit=" rounds", unit_scale=True, desc=experiment.name, leave=False,
                   disable=(not progress) if progress is not None else None)
        files = tuple(sorted(experiment.files.items()))
        # Each row's exact record first (it overlaps the first chunks), then the rounds.
        exact_calls = (
            delayed(run_exact)(experiment.game, experiment.variants[pair[0]].rules,
                               experiment.strategies[pair[1]], session is not None, pair, files)
            for pair in store.exact_todo())
        calls = (
            delayed(run_chunk)(experiment.game, experiment.variants[c.variant].name,
                               experiment.variants[c.variant].rules,
                               experiment.strategies[c.strategy], c.rounds, experiment.seed, c,
                               files)
            for c in store.todo()
        )
        parallel = Parallel(n_jobs=n_jobs, return_as="generator_unordered",
                            pre_dispatch="2*n_jobs")
        if n_jobs != 1 and backend == "loky":
            # The (reusable) worker processes, deaf to Ctrl-C, perhaps started early by the
            # command line (sim.engine.workers); the run's own calls below reuse them.
            workers.ready(n_jobs)
        def keep(item: Any, data: dict[str, Any]) -> None:
            if isinstance(item, Chunk):
                store.add(item, Stats.from_json(data))
            else:
                store.add_exact(item, RowExact.from_json(data))

        with bar:
            _collect(parallel, itertools.chain(exact_calls, calls), keep, bar, store,
                     lambda item: item.rounds if isinstance(item, Chunk) else 0)
            if session is not None:
                with (phases or Phases()).phase(SESSION_PLAY):
                    _fix_bins(experiment, store, files)
                    _collect(parallel, _session_calls(experiment, store, files),
                             store.add_sessions, bar, store,
                             lambda c: c.sessions * session.rounds)
                    sessions = store.session_stats()
                    risk_calls = (delayed(run_risk)(
                        experiment.game, experiment.variants[pair[0]].name,
                        experiment.strategies[pair[1]], session, store.exact[pair],
                        sessions[pair], pair) for pair in store.risk_todo())
                    _collect(parallel, risk_calls, store.add_risk, bar, store, lambda _: 0)
    execution = {"jobs": jobs, "backend": backend, "scheduler": scheduler}
    result = RunResult.from_store(store, execution)
    result.resumed_rounds = done_rounds
    return result
