"""A run's checkpoints: every finished chunk kept, in a space that stays bounded.

A run's chunks of one (variant, strategy) pair are merged in chunk order (so the numbers are
the same however chunks are scheduled). The folder ``<out>/chunks/`` therefore keeps, per pair,
the merged *prefix* of its chunks (``v0-s1-prefix.json``: how many chunks, their merged
statistics, and the running estimate at a few chunk counts for the convergence chart) and, beside
it, only the chunks that finished ahead of their turn (``v0-s1-c12.json``). When the missing
chunk arrives the prefix absorbs every chunk that now follows it in order, and their files go.
However many rounds a run has, the folder holds one prefix per pair and no more loose chunks than
there are chunks in flight. The prefix also keeps the pair's per-chunk totals for paired
comparisons (:class:`sim.core.stats.BatchTotals`, bounded by merging adjacent chunks pairwise).

With a target precision (:class:`sim.engine.compare.TargetRule`) a pair may stop before its last
chunk: the prefix then records ``stopped``, and chunks computed beyond it are dropped. The
rows of a target's group are merged in lockstep, chunk index by chunk index, so the decision
at each chunk count sees the same merged chunks however the chunks were scheduled.

Each row's exact record (:mod:`sim.engine.row_exact`: its exact value or why there is none,
whether its bet is offered, its path) is kept as ``v0-s1-exact.json``; with a ``[session]``
table, its risk model (the exact and diffusion rows and curves, :class:`sim.risk.table.ModelRisk`)
as ``v0-s1-risk.npz``.

A run with a ``[session]`` table also plays its sessions in chunks (:mod:`sim.engine.session_play`),
kept the same way: per pair, ``v0-s1-sessions.json`` holds the histogram bins of the pair's
sessions and the merged prefix of their chunks, and ``v0-s1-k3.json`` a session chunk finished
ahead of its turn.

``run.json`` records what the chunks are of (:meth:`sim.engine.experiment.Experiment.identity`): the
resolved experiment, the content of every file it reads and the engine's version. A run is
resumed only by the same identity, and a refusal names what changed.

Every file is plain JSON written atomically: a results folder may come from someone else, and
reading it runs no code. A file that cannot be read (truncated, edited) is named; on resume its
chunks are computed again.
"""

from __future__ import annotations

import io
import json
import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from sim.core.errors import InputError
from sim.core.files import write_atomic
from sim.core.stats import SUM_FIELDS, BatchTotals, Stats
from sim.engine.experiment import Experiment
from sim.engine.row_exact import RowExact
from sim.risk.montecarlo import Bins, SessionStats
from sim.risk.table import ModelRisk

CHUNK_DIR = "chunks"
RUN_FILE = "run.json"
FORMAT = 5  # 4: session play is checkpointed; 5: each row's exact record too

# Chunk counts at which the running estimate is kept: every count up to 16, then 16 a decade.
TRACE_COUNTS = frozenset(range(1, 17)) | frozenset(
    round(10 ** (i / 16)) for i in range(16, 16 * 16))


class CorruptCheckpoint(InputError):
    """A checkpoint file that cannot be read or does not hold what its name says."""

    def __init__(self, path: Path, why: str) -> None:
        self.path = path
        super().__init__(f"{path}: unreadable checkpoint ({why})")


@dataclass(frozen=True)
class PairChunk:
    """Chunk ``index`` of the work of the pair (``variant``, ``strategy``)."""

    variant: int
    strategy: int
    index: int

    @property
    def pair(self) -> tuple[int, int]:
        return self.variant, self.strategy


@dataclass(frozen=True)
class Chunk(PairChunk):
    """One unit of work: chunk ``index`` of the pair's rounds, of ``rounds`` rounds."""

    rounds: int


@dataclass(frozen=True)
class SessionChunk(PairChunk):
    """One unit of session play: chunk ``index`` of the pair's sessions, of ``sessions``
    sessions."""

    sessions: int


def session_chunk_count(experiment: Experiment) -> int:
    """Session chunks of each pair (none without a ``[session]`` table)."""
    spec = experiment.session
    return 0 if spec is None else -(-spec.sessions // spec.chunk_sessions)


def session_chunk_of(experiment: Experiment, pair: tuple[int, int], index: int
                     ) -> SessionChunk:
    spec = experiment.session
    assert spec is not None
    return SessionChunk(pair[0], pair[1], index,
                        min(spec.chunk_sessions, spec.sessions - index * spec.chunk_sessions))


def pair_rounds(experiment: Experiment, strategy: int) -> int:
    """Rounds of each pair with this strategy (a strategy may set its own count)."""
    spec = experiment.strategies[strategy]
    return spec.rounds or experiment.rounds


def chunk_count(experiment: Experiment, strategy: int) -> int:
    return -(-pair_rounds(experiment, strategy) // experiment.chunk_rounds)


def pairs(experiment: Experiment) -> list[tuple[int, int]]:
    return [(v, s) for v in range(len(experiment.variants))
            for s in range(len(experiment.strategies))]


def chunk_of(experiment: Experiment, pair: tuple[int, int], index: int) -> Chunk:
    size = experiment.chunk_rounds
    rounds = min(size, pair_rounds(experiment, pair[1]) - index * size)
    return Chunk(pair[0], pair[1], index, rounds)


def total_chunks(experiment: Experiment) -> int:
    """Every chunk of the run: its rounds' and its sessions'."""
    return sum(chunk_count(experiment, s) + session_chunk_count(experiment)
               for _, s in pairs(experiment))


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CorruptCheckpoint(path, type(exc).__name__) from None


def _prefix_data(path: Path) -> Mapping[str, Any] | None:
    """What a pair's prefix file holds (None: no prefix yet), with its count of chunks."""
    if not path.exists():
        return None
    data = _read_json(path)
    if not isinstance(data, Mapping) or not isinstance(data.get("chunks"), int):
        raise CorruptCheckpoint(path, "no chunk count")
    return data


def _row_exact(path: Path) -> RowExact:
    data = _read_json(path)
    try:
        return RowExact.from_json(data)
    except (KeyError, TypeError, ValueError) as exc:
        raise CorruptCheckpoint(
            path, f"not an exact record: {type(exc).__name__}: {exc}") from None


def _model_risk(path: Path) -> ModelRisk:
    try:
        with np.load(path, allow_pickle=False) as data:
            return ModelRisk.from_arrays(data)
    except (OSError, KeyError, TypeError, ValueError) as exc:
        raise CorruptCheckpoint(path, f"not a risk model: {type(exc).__name__}") from None


def _stem(pair: tuple[int, int]) -> str:
    """What the names of a pair's files begin with: ``v0-s1``."""
    return f"v{pair[0]}-s{pair[1]}"


def _by_pair(folder: Path, tag: str) -> dict[str, list[Path]]:
    """The loose chunk files of ``folder`` (``v0-s1-<tag>12.json``) by pair (``v0-s1``): one
    listing of the folder for every pair (a glob per pair read the whole folder for each, a
    time quadratic in the rows)."""
    loose: dict[str, list[Path]] = {}
    for path in folder.glob(f"v*-s*-{tag}*.json"):
        loose.setdefault(path.name.rpartition(f"-{tag}")[0], []).append(path)
    return loose


@contextmanager
def _unless_unreadable(path: Path, repair: bool, notes: list[str], then: str
                       ) -> Iterator[None]:
    """Read ``path`` in the block. Where it cannot be (a :class:`CorruptCheckpoint`, or a
    ``ValueError`` about it), raise that, or when repairing delete the file and note it with
    what ``then`` happens instead."""
    try:
        yield
    except (CorruptCheckpoint, ValueError) as exc:
        error = exc if isinstance(exc, CorruptCheckpoint) else CorruptCheckpoint(path, str(exc))
        if not repair:
            raise error from None
        path.unlink(missing_ok=True)
        notes.append(f"{error}; {then}")


def _stats(data: Any, path: Path, rounds: int) -> Stats:
    """Statistics read back from a checkpoint, checked against the rounds they must hold."""
    try:
        stats = Stats.from_json(data)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise CorruptCheckpoint(path, f"bad statistics: {type(exc).__name__}: {exc}") from None
    counted = stats.wins + stats.pushes + stats.losses
    if stats.rounds != rounds or counted != rounds or sum(stats.net_hist.values()) != rounds:
        raise CorruptCheckpoint(path, f"holds {stats.rounds} rounds where {rounds} belong")
    if not all(math.isfinite(stats.sums[k]) for k in SUM_FIELDS):
        raise CorruptCheckpoint(path, "a sum is not a finite number")
    return stats


@dataclass
class PairProgress:
    """The merged prefix of one pair's chunks and the chunks finished beyond it."""

    chunks: int = 0
    stats: Stats = field(default_factory=Stats)
    trace: list[dict[str, float]] = field(default_factory=list)
    ahead: dict[int, Stats] = field(default_factory=dict)
    totals: BatchTotals = field(default_factory=BatchTotals)
    stopped: bool = False  # the target precision was met at ``chunks`` chunks

    def take(self) -> int:
        """Merge the next chunk (which must be ahead) into the prefix; its index."""
        index = self.chunks
        chunk = self.ahead.pop(index)
        self.stats = self.stats.merge(chunk)
        self.totals.add(chunk)
        self.chunks += 1
        if self.chunks in TRACE_COUNTS:
            self.trace.append(trace_point(self.chunks, self.stats))
        return index

    def to_json(self) -> dict[str, Any]:
        return {"chunks": self.chunks, "stats": self.stats.to_json(), "trace": self.trace,
                "totals": self.totals.to_json(), "stopped": self.stopped}


@dataclass
class SessionProgress:
    """The bins of one pair's sessions, the merged prefix of their chunks and the chunks
    finished beyond it."""

    bins: Bins | None = None
    chunks: int = 0
    stats: SessionStats | None = None
    ahead: dict[int, SessionStats] = field(default_factory=dict)

    def take(self, keep_paths: int) -> None:
        """Merge the next chunk (which must be ahead) into the prefix."""
        chunk = self.ahead.pop(self.chunks)
        self.stats = chunk if self.stats is None else self.stats.merge(chunk, keep_paths)
        self.chunks += 1

    def to_json(self) -> dict[str, Any]:
        assert self.bins is not None
        return {"bins": self.bins.to_json(), "chunks": self.chunks,
                "stats": None if self.stats is None else self.stats.to_json()}


class _NoTarget:
    """Every pair runs all its chunks (no target precision)."""

    def __init__(self, pairs_: list[tuple[int, int]]) -> None:
        self.groups = [[p] for p in pairs_]

    def decide(self, *args: Any) -> set[tuple[int, int]]:
        return set()


def trace_point(chunks: int, stats: Stats) -> dict[str, float]:
    """The running estimate after ``chunks`` chunks (for the convergence chart)."""
    return {"chunks": chunks, "rounds": stats.rounds, "edge": stats.edge_per_initial_bet,
            "stderr": stats.stderr, "edge_total": stats.edge_per_total_wagered,
            "stderr_total": stats.stderr_per_total_wagered, "mean_net": stats.mean_net,
            "stderr_mean_net": stats.std_net / math.sqrt(stats.rounds) if stats.rounds else
            math.nan}


class CheckpointStore:
    """The chunks folder of one run: load what it holds, add chunks as they finish."""

    def __init__(self, out_dir: Path, experiment: Experiment, rule: Any = None) -> None:
        self.folder = Path(out_dir) / CHUNK_DIR
        self.experiment = experiment
        self.progress = {p: PairProgress() for p in pairs(experiment)}
        if rule is None:
            from sim.engine.compare import target_rule

            rule = target_rule(experiment) or _NoTarget(pairs(experiment))
        self.rule = rule
        self.group_of = {p: group for group in self.rule.groups for p in group}
        self.sessions = ({p: SessionProgress() for p in pairs(experiment)}
                         if experiment.session is not None else {})
        self.exact: dict[tuple[int, int], RowExact] = {}
        self.risk: dict[tuple[int, int], ModelRisk] = {}
        for pair in getattr(rule, "not_offered", ()):  # nothing to play for
            self.progress[pair].stopped = True

    def done(self, pair: tuple[int, int]) -> bool:
        """The pair has merged its last chunk, or stopped at its target."""
        progress = self.progress[pair]
        return progress.stopped or progress.chunks >= chunk_count(self.experiment, pair[1])

    def _absorb(self, pair: tuple[int, int]) -> tuple[dict[tuple[int, int], list[int]],
                                                      set[tuple[int, int]]]:
        """Merge, in lockstep over the pair's group, every chunk that now follows the merged
        prefixes in order, deciding the target after each chunk count.

        Returns:
            The indices merged per pair, and the pairs that stopped at their target.
        """
        group = self.group_of[pair]
        taken: dict[tuple[int, int], list[int]] = {}
        stopped: set[tuple[int, int]] = set()
        while True:
            active = [p for p in group if not self.done(p)]
            if not active:
                break
            count = min(self.progress[p].chunks for p in active)
            lagging = [p for p in active if self.progress[p].chunks == count]
            if not all(count in self.progress[p].ahead for p in lagging):
                break
            for p in lagging:
                taken.setdefault(p, []).append(self.progress[p].take())
            deciding = [p for p in active if self.progress[p].chunks == count + 1]
            if len(deciding) < len(active):
                continue  # rows merged beyond (a resumed run): decided when the rest catch up
            stopping = self.rule.decide(
                count + 1, {p: self.progress[p].stats for p in group},
                {p: self.progress[p].totals for p in group}, deciding,
                {p: self.progress[p].stopped for p in group})
            for p in stopping:
                self.progress[p].stopped = True
                stopped.add(p)
        return taken, stopped

    # --------------------------------------------------------------- naming
    def _path(self, pair: tuple[int, int], kind: str) -> Path:
        """The pair's file of ``kind``: ``prefix.json``, ``c<index>.json`` (a chunk),
        ``exact.json``, ``risk.npz``, ``sessions.json``, ``k<index>.json`` (a session
        chunk)."""
        return self.folder / f"{_stem(pair)}-{kind}"

    # -------------------------------------------------------------- writing
    def start(self) -> None:
        """Begin an empty run: the folder with its ``run.json`` and nothing else."""
        self.folder.mkdir(parents=True, exist_ok=True)
        write_atomic(self.folder / RUN_FILE, json.dumps(
            {"format": FORMAT, "fingerprint": self.experiment.fingerprint(),
             "name": self.experiment.name, "chunks": total_chunks(self.experiment),
             "identity": self.experiment.identity()}, indent=2, sort_keys=True))

    def add(self, chunk: Chunk, stats: Stats) -> None:
        """Keep a finished chunk: merged into its pair's prefix if it is next, else beside."""
        progress = self.progress[chunk.pair]
        if progress.stopped or chunk.index < progress.chunks or chunk.index in progress.ahead:
            return  # kept already (recomputed after a crash), or beyond a target reached
        progress.ahead[chunk.index] = stats
        taken, stopped = self._absorb(chunk.pair)
        if chunk.index not in taken.get(chunk.pair, ()):
            write_atomic(self._path(chunk.pair, f"c{chunk.index}.json"),
                         json.dumps(stats.to_json()))
        for pair in sorted(set(taken) | stopped):
            write_atomic(self._path(pair, "prefix.json"),
                         json.dumps(self.progress[pair].to_json()))
        # Only after the prefix holds them: a crash in between leaves files the next load skips.
        for pair, indices in taken.items():
            for index in indices:
                self._path(pair, f"c{index}.json").unlink(missing_ok=True)
        for pair in stopped:
            self._drop_ahead(pair)

    def _drop_ahead(self, pair: tuple[int, int]) -> None:
        """Forget the chunks a stopped pair computed beyond its target."""
        for index in self.progress[pair].ahead:
            self._path(pair, f"c{index}.json").unlink(missing_ok=True)
        self.progress[pair].ahead.clear()

    def add_exact(self, pair: tuple[int, int], record: RowExact) -> None:
        """Keep a row's exact record."""
        self.exact[pair] = record
        write_atomic(self._path(pair, "exact.json"), json.dumps(record.to_json()))

    def exact_todo(self) -> list[tuple[int, int]]:
        """The rows whose exact record is still to be made."""
        return [pair for pair in self.progress if pair not in self.exact]

    def add_risk(self, pair: tuple[int, int], model: ModelRisk) -> None:
        """Keep a row's risk model (exact and diffusion: plain arrays, no pickle)."""
        self.risk[pair] = model
        buffer = io.BytesIO()
        np.savez_compressed(buffer, **model.arrays())
        write_atomic(self._path(pair, "risk.npz"), buffer.getvalue())

    def risk_todo(self) -> list[tuple[int, int]]:
        """The rows whose sessions are played and whose risk model is still to be made."""
        return [pair for pair in self.sessions
                if self.sessions_done(pair) and pair not in self.risk]

    def set_bins(self, pair: tuple[int, int], bins: Bins) -> None:
        """Fix the histogram bins of a pair's sessions, before its first session chunk."""
        self.sessions[pair].bins = bins
        self._write_sessions(pair)

    def _write_sessions(self, pair: tuple[int, int]) -> None:
        write_atomic(self._path(pair, "sessions.json"),
                     json.dumps(self.sessions[pair].to_json()))

    def add_sessions(self, chunk: SessionChunk, stats: SessionStats) -> None:
        """Keep a finished session chunk: merged into its pair's prefix if it is next, else
        beside it."""
        progress = self.sessions[chunk.pair]
        if chunk.index < progress.chunks or chunk.index in progress.ahead:
            return  # kept already (recomputed after a crash)
        progress.ahead[chunk.index] = stats
        if chunk.index != progress.chunks:
            write_atomic(self._path(chunk.pair, f"k{chunk.index}.json"),
                         json.dumps(stats.to_json()))
            return
        taken = self._absorb_sessions(chunk.pair)
        self._write_sessions(chunk.pair)
        for index in taken:  # only after the prefix holds them, as for the rounds
            self._path(chunk.pair, f"k{index}.json").unlink(missing_ok=True)

    def _absorb_sessions(self, pair: tuple[int, int]) -> list[int]:
        """Merge every session chunk that now follows the pair's prefix; their indices."""
        progress = self.sessions[pair]
        assert self.experiment.session is not None
        taken = []
        while progress.chunks in progress.ahead:
            taken.append(progress.chunks)
            progress.take(self.experiment.session.sample_paths)
        return taken

    def sessions_done(self, pair: tuple[int, int]) -> bool:
        return self.sessions[pair].chunks >= session_chunk_count(self.experiment)

    def session_todo(self) -> Iterator[SessionChunk]:
        """The session chunks still to play, pair by pair in chunk order."""
        for pair, progress in self.sessions.items():
            for index in range(progress.chunks, session_chunk_count(self.experiment)):
                if index not in progress.ahead:
                    yield session_chunk_of(self.experiment, pair, index)

    def session_stats(self) -> dict[tuple[int, int], SessionStats]:
        """The merged sessions of every pair (a finished run's)."""
        return {pair: p.stats for pair, p in self.sessions.items() if p.stats is not None}

    # -------------------------------------------------------------- reading
    def load(self, repair: bool) -> list[str]:
        """Read the finished chunks.

        Args:
            repair: drop an unreadable file (its chunks are then computed again) instead of
                raising.

        Returns:
            One line per file dropped, naming it.

        Raises:
            CorruptCheckpoint: an unreadable file, when not repairing.
        """
        notes: list[str] = []
        loose = _by_pair(self.folder, "c")
        for pair, progress in self.progress.items():
            with _unless_unreadable(self._path(pair, "prefix.json"), repair, notes,
                                    "its chunks are computed again"):
                self._load_prefix(pair, progress)
            for path in sorted(loose.get(_stem(pair), ())):
                with _unless_unreadable(path, repair, notes, "that chunk is computed again"):
                    index = int(path.stem.rpartition("-c")[2])
                    if index >= chunk_count(self.experiment, pair[1]):
                        raise CorruptCheckpoint(path, "no such chunk in this run")
                    if index < progress.chunks or progress.stopped:
                        path.unlink()  # merged already (left by a crash between two
                        continue       # writes), or beyond the target its pair reached
                    rounds = chunk_of(self.experiment, pair, index).rounds
                    progress.ahead[index] = _stats(_read_json(path), path, rounds)
        for pair in self.progress:
            self._absorb(pair)
        notes += self._load_records(self.progress, "exact.json", _row_exact, self.exact, repair)
        notes += self._load_records(self.sessions, "risk.npz", _model_risk, self.risk, repair)
        notes += self._load_sessions(repair)
        return notes

    def _load_records(self, pairs: Iterable[tuple[int, int]], kind: str,
                      read: Callable[[Path], Any], into: dict[tuple[int, int], Any],
                      repair: bool) -> list[str]:
        """Read each row's record of ``kind`` (its exact record, its risk model) with
        ``read`` into ``into``; an unreadable one is made again when repairing."""
        notes: list[str] = []
        for pair in pairs:
            path = self._path(pair, kind)
            if path.exists():
                with _unless_unreadable(path, repair, notes, "it is made again"):
                    into[pair] = read(path)
        return notes

    def _load_sessions(self, repair: bool) -> list[str]:
        """Read each pair's session bins, prefix and the session chunks beside it."""
        notes: list[str] = []
        loose = _by_pair(self.folder, "k") if self.sessions else {}
        for pair in self.sessions:
            with _unless_unreadable(self._path(pair, "sessions.json"), repair, notes,
                                    "its session chunks are played again"):
                self._load_session_prefix(pair)
            progress = self.sessions[pair]
            for path in sorted(loose.get(_stem(pair), ())):
                with _unless_unreadable(path, repair, notes, "that session chunk is played again"):
                    index = int(path.stem.rpartition("-k")[2])
                    if progress.bins is None or index >= session_chunk_count(self.experiment):
                        raise CorruptCheckpoint(path, "no such session chunk in this run")
                    if index < progress.chunks:
                        path.unlink()  # merged already (a crash between two writes)
                        continue
                    progress.ahead[index] = self._session_stats(
                        _read_json(path), path, progress.bins,
                        session_chunk_of(self.experiment, pair, index).sessions)
            if progress.bins is not None:
                self._absorb_sessions(pair)
        return notes

    def _session_stats(self, data: Any, path: Path, bins: Bins, sessions: int
                       ) -> SessionStats:
        try:
            stats = SessionStats.from_json(data)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise CorruptCheckpoint(path, f"bad session statistics: {type(exc).__name__}: "
                                          f"{exc}") from None
        spec = self.experiment.session
        assert spec is not None
        if stats.bins != bins or stats.checkpoints != spec.checkpoint_rounds:
            raise CorruptCheckpoint(path, "sessions on another bins than their pair's")
        if stats.sessions != sessions:
            raise CorruptCheckpoint(path, f"holds {stats.sessions} sessions where {sessions} "
                                          "belong")
        return stats

    def _load_session_prefix(self, pair: tuple[int, int]) -> None:
        """Read the pair's session bins and prefix (the pair's progress is set only once all
        of it reads)."""
        path = self._path(pair, "sessions.json")
        data = _prefix_data(path)
        if data is None:
            return
        try:
            bins = Bins.from_json(data["bins"])
        except (KeyError, TypeError, ValueError) as exc:
            raise CorruptCheckpoint(path, f"bad bins: {type(exc).__name__}") from None
        chunks = data["chunks"]
        spec = self.experiment.session
        assert spec is not None
        if not 0 <= chunks <= session_chunk_count(self.experiment):
            raise CorruptCheckpoint(path, f"{chunks} session chunks where this run has "
                                          f"{session_chunk_count(self.experiment)}")
        progress = SessionProgress(bins, chunks)
        if chunks:
            progress.stats = self._session_stats(
                data.get("stats"), path, bins, min(chunks * spec.chunk_sessions, spec.sessions))
        self.sessions[pair] = progress

    def _load_prefix(self, pair: tuple[int, int], progress: PairProgress) -> None:
        """Read the pair's prefix into ``progress`` (left as it was unless all of it reads)."""
        path = self._path(pair, "prefix.json")
        data = _prefix_data(path)
        if data is None:
            return
        chunks = data["chunks"]
        if not 0 < chunks <= chunk_count(self.experiment, pair[1]):
            raise CorruptCheckpoint(path, f"{chunks} chunks where this run has "
                                          f"{chunk_count(self.experiment, pair[1])}")
        rounds = _prefix_rounds(self.experiment, pair, chunks)
        trace = data.get("trace")
        if not isinstance(trace, list) or not all(isinstance(t, Mapping) for t in trace):
            raise CorruptCheckpoint(path, "no running estimate")
        try:
            totals = BatchTotals.from_json(data["totals"])
        except (KeyError, TypeError, ValueError) as exc:
            raise CorruptCheckpoint(path, f"bad chunk totals: {type(exc).__name__}") from None
        if totals.chunks != chunks:
            raise CorruptCheckpoint(path, f"chunk totals of {totals.chunks} chunks, not {chunks}")
        stats = _stats(data.get("stats"), path, rounds)
        progress.chunks = chunks
        progress.stats = stats
        progress.trace = [dict(t) for t in trace]
        progress.totals = totals
        progress.stopped = data.get("stopped") is True

    def done_chunks(self) -> int:
        """Chunks kept, of rounds and of sessions."""
        return sum(p.chunks + len(p.ahead)
                   for p in (*self.progress.values(), *self.sessions.values()))

    def done_session_rounds(self) -> int:
        """Rounds of the session chunks kept (every session plays its full length on the
        kernel, whatever its end)."""
        spec = self.experiment.session
        if spec is None:
            return 0
        return spec.rounds * sum((p.stats.sessions if p.stats else 0)
                                 + sum(s.sessions for s in p.ahead.values())
                                 for p in self.sessions.values())

    def done_rounds(self) -> int:
        return sum(p.stats.rounds + sum(s.rounds for s in p.ahead.values())
                   for p in self.progress.values())

    def todo(self) -> Iterator[Chunk]:
        """The chunks still to compute, lazily: pair by pair in chunk order, or, where rows
        advance in lockstep towards a target, chunk index by chunk index across the group (a
        pair that reaches its target meanwhile is skipped from then on)."""
        for group in self.rule.groups:
            longest = max(chunk_count(self.experiment, p[1]) for p in group)
            if len(group) == 1:
                pair = group[0]
                for index in range(self.progress[pair].chunks, longest):
                    if self.done(pair):
                        break
                    if index not in self.progress[pair].ahead:
                        yield chunk_of(self.experiment, pair, index)
                continue
            for index in range(min(self.progress[p].chunks for p in group), longest):
                for pair in group:
                    progress = self.progress[pair]
                    if self.done(pair) or index < progress.chunks or index in progress.ahead \
                            or index >= chunk_count(self.experiment, pair[1]):
                        continue
                    yield chunk_of(self.experiment, pair, index)

    def finished(self) -> bool:
        return (all(self.done(pair) and not p.ahead for pair, p in self.progress.items())
                and all(self.sessions_done(pair) for pair in self.sessions)
                and not self.exact_todo() and not self.risk_todo()
                and len(self.risk) == len(self.sessions))


def _prefix_rounds(experiment: Experiment, pair: tuple[int, int], chunks: int) -> int:
    """Rounds in the first ``chunks`` chunks of a pair (only the last chunk may be short)."""
    return min(chunks * experiment.chunk_rounds, pair_rounds(experiment, pair[1]))
