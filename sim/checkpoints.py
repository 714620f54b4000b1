"""A run's checkpoints: every finished chunk kept, in a space that stays bounded.

A run's chunks of one (variant, strategy) pair are merged in chunk order (so the numbers are
the same however chunks are scheduled). The folder ``<out>/chunks/`` therefore keeps, per pair,
the merged *prefix* of its chunks (``v0-s1-prefix.json``: how many chunks, their merged
statistics, and the running estimate at a few chunk counts for the convergence chart) and, beside
it, only the chunks that finished ahead of their turn (``v0-s1-c12.json``). When the missing
chunk arrives the prefix absorbs every chunk that now follows it in order, and their files go.
However many rounds a run has, the folder holds one prefix per pair and no more loose chunks than
there are chunks in flight.

``run.json`` records what the chunks are of (:meth:`sim.experiment.Experiment.identity`): the
resolved experiment, the content of every file it reads and the engine's version. A run is
resumed only by the same identity, and a refusal names what changed.

Every file is plain JSON written atomically: a results folder may come from someone else, and
reading it runs no code. A file that cannot be read (truncated, edited) is named; on resume its
chunks are computed again.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sim.errors import InputError
from sim.experiment import Experiment
from sim.files import write_atomic
from sim.stats import SUM_FIELDS, Stats

CHUNK_DIR = "chunks"
RUN_FILE = "run.json"
FORMAT = 2

# Chunk counts at which the running estimate is kept: every count up to 16, then 16 a decade.
TRACE_COUNTS = frozenset(range(1, 17)) | frozenset(
    round(10 ** (i / 16)) for i in range(16, 16 * 16))


class CorruptCheckpoint(InputError):
    """A checkpoint file that cannot be read or does not hold what its name says."""

    def __init__(self, path: Path, why: str) -> None:
        self.path = path
        super().__init__(f"{path}: unreadable checkpoint ({why})")


@dataclass(frozen=True)
class Chunk:
    """One unit of work: chunk ``index`` of the pair (``variant``, ``strategy``)."""

    variant: int
    strategy: int
    index: int
    rounds: int

    @property
    def pair(self) -> tuple[int, int]:
        return self.variant, self.strategy


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
    return sum(chunk_count(experiment, s) for _, s in pairs(experiment))


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CorruptCheckpoint(path, type(exc).__name__) from None


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

    def absorb(self) -> list[int]:
        """Merge every chunk that now follows the prefix in order; their indices."""
        taken = []
        while self.chunks in self.ahead:
            self.stats = self.stats.merge(self.ahead.pop(self.chunks))
            taken.append(self.chunks)
            self.chunks += 1
            if self.chunks in TRACE_COUNTS:
                self.trace.append(trace_point(self.chunks, self.stats))
        return taken


def trace_point(chunks: int, stats: Stats) -> dict[str, float]:
    """The running estimate after ``chunks`` chunks (for the convergence chart)."""
    return {"chunks": chunks, "rounds": stats.rounds, "edge": stats.edge_per_initial_bet,
            "stderr": stats.stderr, "edge_total": stats.edge_per_total_wagered,
            "stderr_total": stats.stderr_per_total_wagered, "mean_net": stats.mean_net,
            "stderr_mean_net": stats.std_net / math.sqrt(stats.rounds) if stats.rounds else
            math.nan}


class CheckpointStore:
    """The chunks folder of one run: load what it holds, add chunks as they finish."""

    def __init__(self, out_dir: Path, experiment: Experiment) -> None:
        self.folder = Path(out_dir) / CHUNK_DIR
        self.experiment = experiment
        self.progress = {p: PairProgress() for p in pairs(experiment)}

    # --------------------------------------------------------------- naming
    @staticmethod
    def _prefix_name(pair: tuple[int, int]) -> str:
        return f"v{pair[0]}-s{pair[1]}-prefix.json"

    @staticmethod
    def _chunk_name(pair: tuple[int, int], index: int) -> str:
        return f"v{pair[0]}-s{pair[1]}-c{index}.json"

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
        if chunk.index < progress.chunks or chunk.index in progress.ahead:
            return  # already kept (a chunk recomputed after a crash between two writes)
        progress.ahead[chunk.index] = stats
        taken = progress.absorb()
        if not taken:
            write_atomic(self.folder / self._chunk_name(chunk.pair, chunk.index),
                         json.dumps(stats.to_json()))
            return
        write_atomic(self.folder / self._prefix_name(chunk.pair), json.dumps(
            {"chunks": progress.chunks, "stats": progress.stats.to_json(),
             "trace": progress.trace}))
        # Only after the prefix holds them: a crash in between leaves files the next load skips.
        for index in taken:
            (self.folder / self._chunk_name(chunk.pair, index)).unlink(missing_ok=True)

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
        notes = []
        for pair, progress in self.progress.items():
            try:
                self._load_prefix(pair, progress)
            except CorruptCheckpoint as exc:
                if not repair:
                    raise
                exc.path.unlink(missing_ok=True)
                self.progress[pair] = progress = PairProgress()
                notes.append(f"{exc}; its chunks are computed again")
            for path in sorted(self.folder.glob(f"v{pair[0]}-s{pair[1]}-c*.json")):
                try:
                    index = int(path.stem.rpartition("-c")[2])
                    if index >= chunk_count(self.experiment, pair[1]):
                        raise CorruptCheckpoint(path, "no such chunk in this run")
                    if index < progress.chunks:
                        path.unlink()  # merged already; left by a crash between two writes
                        continue
                    rounds = chunk_of(self.experiment, pair, index).rounds
                    progress.ahead[index] = _stats(_read_json(path), path, rounds)
                except (CorruptCheckpoint, ValueError) as exc:
                    if not repair:
                        raise exc if isinstance(exc, CorruptCheckpoint) else \
                            CorruptCheckpoint(path, str(exc)) from None
                    path.unlink(missing_ok=True)
                    notes.append(f"{exc}; that chunk is computed again")
            progress.absorb()
        return notes

    def _load_prefix(self, pair: tuple[int, int], progress: PairProgress) -> None:
        path = self.folder / self._prefix_name(pair)
        if not path.exists():
            return
        data = _read_json(path)
        if not isinstance(data, Mapping) or not isinstance(data.get("chunks"), int):
            raise CorruptCheckpoint(path, "no chunk count")
        chunks = data["chunks"]
        if not 0 < chunks <= chunk_count(self.experiment, pair[1]):
            raise CorruptCheckpoint(path, f"{chunks} chunks where this run has "
                                          f"{chunk_count(self.experiment, pair[1])}")
        rounds = _prefix_rounds(self.experiment, pair, chunks)
        trace = data.get("trace")
        if not isinstance(trace, list) or not all(isinstance(t, Mapping) for t in trace):
            raise CorruptCheckpoint(path, "no running estimate")
        progress.chunks = chunks
        progress.stats = _stats(data.get("stats"), path, rounds)
        progress.trace = [dict(t) for t in trace]

    def done_chunks(self) -> int:
        return sum(p.chunks + len(p.ahead) for p in self.progress.values())

    def done_rounds(self) -> int:
        return sum(p.stats.rounds + sum(s.rounds for s in p.ahead.values())
                   for p in self.progress.values())

    def todo(self) -> Iterator[Chunk]:
        """The chunks still to compute, lazily, pair by pair in chunk order."""
        for pair, progress in self.progress.items():
            for index in range(progress.chunks, chunk_count(self.experiment, pair[1])):
                if index not in progress.ahead:
                    yield chunk_of(self.experiment, pair, index)

    def finished(self) -> bool:
        return all(p.chunks == chunk_count(self.experiment, pair[1]) and not p.ahead
                   for pair, p in self.progress.items())


def _prefix_rounds(experiment: Experiment, pair: tuple[int, int], chunks: int) -> int:
    """Rounds in the first ``chunks`` chunks of a pair (only the last chunk may be short)."""
    return min(chunks * experiment.chunk_rounds, pair_rounds(experiment, pair[1]))
