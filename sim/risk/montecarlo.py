"""Monte Carlo sessions: the games' kernels play the rounds, a compiled tracker follows the
bankroll of every session, and only statistics come back.

A chunk is a fixed number of sessions (``chunk_sessions``, from the experiment file, never from
the number of jobs). Its rounds are played by the game's kernel in blocks of at most
``BLOCK_ROUNDS`` rounds, each session starting afresh (a new pack, the progression at its base
unit), each block from its own seed on the stream named "sessions"
(:func:`sim.rng.named_seed`: ``SeedSequence(root, spawn_key=(stream, variant, strategy, chunk,
block))``), so the game's own chunks are untouched. The histograms have bins of the exact
law's lattice step where the game gives one, else of half a base stake. The tracker
turns a block into histograms of fixed size (the end result, the running minimum, the
bankroll at each checkpoint), counts by how the session ended, sums, and the first few paths.
Merging adds them in chunk order, so memory is flat in the number of sessions and the numbers
do not depend on the jobs.

The running minimum is taken over the whole session up to a stop-win, stop-loss or its end
(not cut at ruin), so its histogram gives the chance of ruin for *every* bankroll at once:
a bankroll b is ruined exactly when the minimum reaches -b.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numba
import numpy as np
from joblib import Parallel, delayed

from sim.progression import ProgressionSpec
from sim.risk.exact import RUIN
from sim.risk.law import RoundLaw
from sim.risk.spec import SessionSpec
from sim.rng import named_seed
from sim.workers import loky

BLOCK_ROUNDS = 1 << 18  # rounds per kernel call: 2 MB of results, whatever the sessions
MAX_BINS = 1 << 17
CHECKPOINT_BINS = 1200
STREAM = "sessions"
PILOT_SESSIONS = 256


@dataclass(frozen=True)
class Grid:
    """The fixed histogram grid of a run: bins of width ``width`` centred on ``(low + i) *
    width``; the checkpoint histograms use ``cp_factor`` bins merged into one."""

    width: float
    low: int
    bins: int
    cp_factor: int

    @classmethod
    def for_session(cls, spec: SessionSpec, step: float, mean: float, sd: float,
                    largest: float) -> Grid:
        """A grid that holds every result a session can reach (clipping the far tails of an
        unbounded walk only beyond 12 SDs)."""
        deepest = max((spec.bankroll, *spec.chart_bankrolls))
        spread = 12 * sd * math.sqrt(spec.rounds) + 4 * largest
        # the running minimum: down to the deepest bankroll asked about, or as far as the
        # walk drifts (its result when no bankroll could stop it)
        down = min(spec.rounds * largest, max(0.0, -mean * spec.rounds) + spread)
        low = -max(deepest, down) - 4 * largest
        high = (spec.stop_win + 4 * largest if spec.stop_win is not None
                else min(spec.rounds * largest, max(0.0, mean * spec.rounds) + spread))
        width = step
        while (high - low) / width + 3 > MAX_BINS:
            width *= 2
        first = math.floor(low / width) - 1
        bins = math.ceil(high / width) + 2 - first
        return cls(width, first, bins, max(1, math.ceil(bins / CHECKPOINT_BINS)))

    @property
    def values(self) -> np.ndarray:
        return (self.low + np.arange(self.bins)) * self.width


@dataclass
class SessionStats:
    """Mergeable statistics of Monte Carlo sessions."""

    grid: Grid
    checkpoints: tuple[int, ...]
    sessions: int = 0
    end_hist: np.ndarray = field(default=None)  # type: ignore[assignment]
    min_hist: np.ndarray = field(default=None)  # type: ignore[assignment]
    cp_hist: np.ndarray = field(default=None)  # type: ignore[assignment]
    reasons: np.ndarray = field(default_factory=lambda: np.zeros(4, dtype=np.int64))
    sums: np.ndarray = field(default_factory=lambda: np.zeros(6))
    paths: np.ndarray = field(default=None)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        g = self.grid
        if self.end_hist is None:
            self.end_hist = np.zeros(g.bins, dtype=np.int64)
            self.min_hist = np.zeros(g.bins, dtype=np.int64)
            self.cp_hist = np.zeros((len(self.checkpoints), -(-g.bins // g.cp_factor)),
                                    dtype=np.int64)
        if self.paths is None:
            self.paths = np.zeros((0, len(self.checkpoints)))

    def merge(self, other: SessionStats, keep_paths: int) -> SessionStats:
        """The statistics of both (``self``'s chunk first)."""
        return SessionStats(self.grid, self.checkpoints, self.sessions + other.sessions,
                            self.end_hist + other.end_hist, self.min_hist + other.min_hist,
                            self.cp_hist + other.cp_hist, self.reasons + other.reasons,
                            self.sums + other.sums,
                            np.vstack([self.paths, other.paths])[:keep_paths])

    # ------------------------------------------------------------------ estimates
    def fraction(self, reason: int) -> float:
        return float(self.reasons[reason]) / self.sessions

    @property
    def p_ruin(self) -> float:
        return self.fraction(RUIN)

    @property
    def mean_result(self) -> float:
        return self.sums[0] / self.sessions

    @property
    def sd_result(self) -> float:
        m = self.mean_result
        return math.sqrt(max(0.0, self.sums[1] / self.sessions - m * m))

    @property
    def round_mean(self) -> float:
        """Mean net per round over the rounds the sessions played (to ruin or a stop)."""
        return self.sums[3] / self.sums[5]

    @property
    def round_sd(self) -> float:
        m = self.round_mean
        return math.sqrt(max(0.0, self.sums[4] / self.sums[5] - m * m))

    @property
    def mean_rounds(self) -> float:
        """Rounds a session lasts on average (to its ruin or stop)."""
        return self.sums[2] / self.sessions

    def cdf(self, x: float) -> float:
        """The fraction of sessions whose result is <= x."""
        return float(self.end_hist[self.grid.values <= x + 1e-9 * self.grid.width].sum()
                     ) / self.sessions

    def quantile(self, q: float) -> float:
        cum = np.cumsum(self.end_hist)
        i = int(np.searchsorted(cum, q * self.sessions - 1e-9))
        return float(self.grid.values[min(i, self.grid.bins - 1)])

    @property
    def p_ahead(self) -> float:
        return float(self.end_hist[self.grid.values > 1e-12].sum()) / self.sessions

    def ruin_at(self, bankroll: float) -> float:
        """The fraction of sessions that a bankroll of ``bankroll`` would not have survived
        (the running minimum reaches -bankroll)."""
        return float(self.min_hist[self.grid.values <= -bankroll + 1e-9 * self.grid.width]
                     .sum()) / self.sessions

    def checkpoint_quantiles(self, qs: tuple[float, ...]) -> np.ndarray:
        """Quantiles of the result so far at each checkpoint (rows) for each q (columns)."""
        g = self.grid
        centres = (g.low + np.arange(self.cp_hist.shape[1]) * g.cp_factor
                   + (g.cp_factor - 1) / 2) * g.width
        out = np.zeros((len(self.checkpoints), len(qs)))
        for i, row in enumerate(self.cp_hist):
            cum = np.cumsum(row)
            for j, q in enumerate(qs):
                k = int(np.searchsorted(cum, q * cum[-1] - 1e-9))
                out[i, j] = centres[min(k, centres.size - 1)]
        return out


@numba.njit(cache=True)
def _bin(x, width, low, bins):
    i = int(math.floor(x / width + 0.5)) - low
    return min(max(i, 0), bins - 1)


@numba.njit(cache=True)
def track_block(nets, bankroll, stop_win, stop_loss, width, low, end_hist, min_hist, cp_rounds,
                cp_factor, cp_hist, reasons, sums, paths, path_row):
    """Follow each session (a row of ``nets``) from a bankroll of ``bankroll`` (stop_win /
    stop_loss: +inf for none) and add to the statistics in place."""
    bins = end_hist.shape[0]
    n_cp = cp_rounds.shape[0]
    tol = 1e-9 * width
    for s in range(nets.shape[0]):
        total = 0.0
        lowest = 0.0
        reason = -1
        value = 0.0
        played = nets.shape[1]
        cut = False  # past a stop: the running minimum is complete
        c = 0
        if n_cp > 0 and cp_rounds[0] == 0:
            cp_hist[0, _bin(0.0, width, low, bins) // cp_factor] += 1
            if path_row + s < paths.shape[0]:
                paths[path_row + s, 0] = 0.0
            c = 1
        for r in range(nets.shape[1]):
            x = nets[s, r]
            if reason < 0:  # a round the session plays (not one after it has ended)
                sums[3] += x
                sums[4] += x * x
                sums[5] += 1
            if not cut:
                total += x
                if total < lowest:
                    lowest = total
                if total <= -stop_loss + tol or total >= stop_win - tol:
                    cut = True
                if reason < 0:
                    if total <= -bankroll + tol:
                        reason = 0
                    elif total <= -stop_loss + tol:
                        reason = 2
                    elif total >= stop_win - tol:
                        reason = 1
                    if reason >= 0:
                        value = total
                        played = r + 1
            while c < n_cp and cp_rounds[c] == r + 1:
                here = value if reason >= 0 else total
                cp_hist[c, _bin(here, width, low, bins) // cp_factor] += 1
                if path_row + s < paths.shape[0]:
                    paths[path_row + s, c] = here
                c += 1
        if reason < 0:
            reason = 3
            value = total
        reasons[reason] += 1
        end_hist[_bin(value, width, low, bins)] += 1
        min_hist[_bin(lowest, width, low, bins)] += 1
        sums[0] += value
        sums[1] += value * value
        sums[2] += played


def _play_block(game: Any, rules: Any, strategy: Any, progression: ProgressionSpec,
                sessions: int, rounds: int, seed: np.random.SeedSequence) -> np.ndarray:
    nets = game.session_nets(rules, strategy, progression, sessions, rounds, seed)
    return np.ascontiguousarray(nets, dtype=np.float64)


def run_chunk(game_name: str, rules: Any, strategy: Any, progression: ProgressionSpec,
              spec: SessionSpec, grid: Grid, sessions: int, keep_paths: int, root_seed: int,
              key: tuple[int, ...]) -> SessionStats:
    """Play and track ``sessions`` sessions of one chunk (``key``: variant, strategy, chunk)."""
    from sim import games

    game = games.get(game_name)
    stats = SessionStats(grid, spec.checkpoint_rounds)
    stats.paths = np.zeros((min(keep_paths, sessions), len(stats.checkpoints)))
    per_block = max(1, BLOCK_ROUNDS // spec.rounds)
    inf = math.inf
    done = 0
    block = 0
    cp = np.array(stats.checkpoints, dtype=np.int64)
    while done < sessions:
        n = min(per_block, sessions - done)
        nets = _play_block(game, rules, strategy, progression, n, spec.rounds,
                           named_seed(root_seed, STREAM, *key, block))
        track_block(nets, spec.bankroll, inf if spec.stop_win is None else spec.stop_win,
                    inf if spec.stop_loss is None else spec.stop_loss, grid.width, grid.low,
                    stats.end_hist, stats.min_hist, cp, grid.cp_factor, stats.cp_hist,
                    stats.reasons, stats.sums, stats.paths, done)
        done += n
        block += 1
    stats.sessions = sessions
    return stats


def pilot(game: Any, rules: Any, strategy: Any, progression: ProgressionSpec,
          spec: SessionSpec, root_seed: int, key: tuple[int, ...]) -> tuple[float, float, float]:
    """(mean, sd, largest |net|) per round from a few sessions on their own stream: sizes the
    histogram grid where the game gives no exact law."""
    nets = _play_block(game, rules, strategy, progression, PILOT_SESSIONS, spec.rounds,
                       named_seed(root_seed, "pilot", *key))
    return float(nets.mean()), float(nets.std()), float(np.abs(nets).max() or 1.0)


def simulate_sessions(game_name: str, rules: Any, strategy: Any, progression: ProgressionSpec,
                      spec: SessionSpec, root_seed: int, key: tuple[int, int],
                      law: RoundLaw | None = None, jobs: int = 1) -> SessionStats:
    """Monte Carlo sessions of one (variant, strategy): ``spec.sessions`` sessions in chunks
    of ``spec.chunk_sessions``, merged in chunk order (the same numbers for any ``jobs``)."""
    from sim import games

    game = games.get(game_name)
    if law is not None:
        largest = float(np.abs(law.values).max() or law.step)
        grid = Grid.for_session(spec, law.step, law.mean, law.sd, largest)
    else:
        mean, sd, largest = pilot(game, rules, strategy, progression, spec, root_seed, key)
        grid = Grid.for_session(spec, 0.5 if largest >= 0.5 else largest, mean, sd, largest)
    sizes = [min(spec.chunk_sessions, spec.sessions - start)
             for start in range(0, spec.sessions, spec.chunk_sessions)]
    keep = spec.sample_paths
    calls = (delayed(run_chunk)(game_name, rules, strategy, progression, spec, grid, n,
                                max(0, keep - i * spec.chunk_sessions), root_seed, (*key, i))
             for i, n in enumerate(sizes))
    merged: SessionStats | None = None
    with loky():  # the run's workers, reused
        for stats in Parallel(n_jobs=jobs, return_as="generator")(calls):
            merged = stats if merged is None else merged.merge(stats, keep)
    assert merged is not None
    return merged
