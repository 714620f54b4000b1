"""The statistics of Monte Carlo sessions: a compiled tracker follows the bankroll of every
session of a block of rounds and keeps only fixed-size statistics.

The tracker turns a block (one row of round nets per session) into histograms on a fixed set of bins
(the end result, the running minimum, the bankroll at each checkpoint), counts by how the
session ended, sums, and the first few paths. Statistics of chunks merge in chunk order, so
memory is flat in the number of sessions and the numbers do not depend on the jobs. Playing
the rounds is the engine's (:mod:`sim.engine.session_play`).

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

from sim.core import kernel_cache  # noqa: F401  (compiled code cached by digest)
from sim.risk.exact import RUIN
from sim.risk.spec import SessionSpec

MAX_BINS = 1 << 17
CHECKPOINT_BINS = 1200


@dataclass(frozen=True)
class Bins:
    """The fixed histogram bins of a run: bins of width ``width`` centred on ``(low + i) *
    width`` (``count`` of them); the checkpoint histograms merge ``cp_factor`` bins into
    one."""

    width: float
    low: int
    count: int
    cp_factor: int

    @classmethod
    def for_session(cls, spec: SessionSpec, step: float, mean: float, sd: float,
                    largest: float) -> Bins:
        """Bins that hold every result a session can reach (clipping the far tails of an
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
        count = math.ceil(high / width) + 2 - first
        return cls(width, first, count, max(1, math.ceil(count / CHECKPOINT_BINS)))

    @property
    def values(self) -> np.ndarray:
        return (self.low + np.arange(self.count)) * self.width

    def to_json(self) -> dict[str, Any]:
        return {"width": self.width, "low": self.low, "count": self.count,
                "cp_factor": self.cp_factor}

    @classmethod
    def from_json(cls, data: Any) -> Bins:
        bins = cls(float(data["width"]), int(data["low"]), int(data["count"]),
                   int(data["cp_factor"]))
        if not (bins.width > 0 and 0 < bins.count <= MAX_BINS + 3 and bins.cp_factor >= 1):
            raise ValueError(f"not a session's bins: {data!r}")
        return bins


@dataclass
class SessionStats:
    """Mergeable statistics of Monte Carlo sessions."""

    bins: Bins
    checkpoints: tuple[int, ...]
    sessions: int = 0
    end_hist: np.ndarray = field(default=None)  # type: ignore[assignment]
    min_hist: np.ndarray = field(default=None)  # type: ignore[assignment]
    cp_hist: np.ndarray = field(default=None)  # type: ignore[assignment]
    reasons: np.ndarray = field(default_factory=lambda: np.zeros(4, dtype=np.int64))
    sums: np.ndarray = field(default_factory=lambda: np.zeros(6))
    paths: np.ndarray = field(default=None)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        g = self.bins
        if self.end_hist is None:
            self.end_hist = np.zeros(g.count, dtype=np.int64)
            self.min_hist = np.zeros(g.count, dtype=np.int64)
            self.cp_hist = np.zeros((len(self.checkpoints), -(-g.count // g.cp_factor)),
                                    dtype=np.int64)
        if self.paths is None:
            self.paths = np.zeros((0, len(self.checkpoints)))

    def merge(self, other: SessionStats, keep_paths: int) -> SessionStats:
        """The statistics of both (``self``'s chunk first)."""
        return SessionStats(self.bins, self.checkpoints, self.sessions + other.sessions,
                            self.end_hist + other.end_hist, self.min_hist + other.min_hist,
                            self.cp_hist + other.cp_hist, self.reasons + other.reasons,
                            self.sums + other.sums,
                            np.vstack([self.paths, other.paths])[:keep_paths])

    def track(self, nets: np.ndarray, spec: SessionSpec) -> None:
        """Add a block of sessions (a row of round nets each) played from ``spec``'s
        bankroll under its stops; the first rows fill the paths still unfilled."""
        g = self.bins
        inf = math.inf
        track_block(np.ascontiguousarray(nets, dtype=np.float64), spec.bankroll,
                    inf if spec.stop_win is None else spec.stop_win,
                    inf if spec.stop_loss is None else spec.stop_loss, g.width, g.low,
                    self.end_hist, self.min_hist, np.array(self.checkpoints, dtype=np.int64),
                    g.cp_factor, self.cp_hist, self.reasons, self.sums, self.paths,
                    self.sessions)
        self.sessions += nets.shape[0]

    # ------------------------------------------------------------------ as data
    def to_json(self) -> dict[str, Any]:
        """Plain data (the histograms sparse: the bins may be 10^5, mostly empty)."""
        return {"bins": self.bins.to_json(), "checkpoints": list(self.checkpoints),
                "sessions": self.sessions, "end_hist": _sparse(self.end_hist),
                "min_hist": _sparse(self.min_hist),
                "cp_hist": [_sparse(row) for row in self.cp_hist],
                "reasons": self.reasons.tolist(), "sums": self.sums.tolist(),
                "paths": self.paths.tolist()}

    @classmethod
    def from_json(cls, data: Any) -> SessionStats:
        """The statistics :meth:`to_json` wrote, checked for shape and count.

        Raises:
            ValueError, KeyError, TypeError: not such statistics.
        """
        bins = Bins.from_json(data["bins"])
        checkpoints = tuple(int(c) for c in data["checkpoints"])
        stats = cls(bins, checkpoints)
        stats.sessions = int(data["sessions"])
        stats.end_hist = _dense(data["end_hist"], bins.count)
        stats.min_hist = _dense(data["min_hist"], bins.count)
        width = stats.cp_hist.shape[1]
        if len(data["cp_hist"]) != len(checkpoints):
            raise ValueError("a checkpoint histogram per checkpoint expected")
        stats.cp_hist = np.array([_dense(row, width) for row in data["cp_hist"]],
                                 dtype=np.int64).reshape(len(checkpoints), width)
        stats.reasons = np.array(data["reasons"], dtype=np.int64)
        stats.sums = np.array(data["sums"], dtype=np.float64)
        paths = np.array(data["paths"], dtype=np.float64)
        stats.paths = paths.reshape(-1, len(checkpoints)) if paths.size else np.zeros(
            (0, len(checkpoints)))
        n = stats.sessions
        if (stats.reasons.shape != (4,) or stats.sums.shape != (6,)
                or int(stats.reasons.sum()) != n or int(stats.end_hist.sum()) != n
                or int(stats.min_hist.sum()) != n
                or not np.all(stats.cp_hist.sum(axis=1) == n)
                or not np.all(np.isfinite(stats.sums))):
            raise ValueError(f"the counts do not hold {n} sessions")
        return stats

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
        return float(self.end_hist[self.bins.values <= x + 1e-9 * self.bins.width].sum()
                     ) / self.sessions

    def quantile(self, q: float) -> float:
        cum = np.cumsum(self.end_hist)
        i = int(np.searchsorted(cum, q * self.sessions - 1e-9))
        return float(self.bins.values[min(i, self.bins.count - 1)])

    @property
    def p_ahead(self) -> float:
        return float(self.end_hist[self.bins.values > 1e-12].sum()) / self.sessions

    def ruin_at(self, bankroll: float) -> float:
        """The fraction of sessions that a bankroll of ``bankroll`` would not have survived
        (the running minimum reaches -bankroll)."""
        return float(self.min_hist[self.bins.values <= -bankroll + 1e-9 * self.bins.width]
                     .sum()) / self.sessions

    def checkpoint_quantiles(self, qs: tuple[float, ...]) -> np.ndarray:
        """Quantiles of the result so far at each checkpoint (rows) for each q (columns)."""
        g = self.bins
        centres = (g.low + np.arange(self.cp_hist.shape[1]) * g.cp_factor
                   + (g.cp_factor - 1) / 2) * g.width
        out = np.zeros((len(self.checkpoints), len(qs)))
        for i, row in enumerate(self.cp_hist):
            cum = np.cumsum(row)
            for j, q in enumerate(qs):
                k = int(np.searchsorted(cum, q * cum[-1] - 1e-9))
                out[i, j] = centres[min(k, centres.size - 1)]
        return out


def _sparse(counts: np.ndarray) -> dict[str, list[int]]:
    at = np.flatnonzero(counts)
    return {"at": at.tolist(), "count": counts[at].tolist()}


def _dense(data: Any, size: int) -> np.ndarray:
    out = np.zeros(size, dtype=np.int64)
    at = np.asarray(data["at"], dtype=np.int64)
    count = np.asarray(data["count"], dtype=np.int64)
    if at.shape != count.shape or (at.size and (at.min() < 0 or at.max() >= size)) or (
            count < 0).any():
        raise ValueError("a histogram outside its bins")
    out[at] = count
    return out


@numba.njit(cache=True)
def _bin(x, width, low, count):
    i = int(math.floor(x / width + 0.5)) - low
    return min(max(i, 0), count - 1)


@numba.njit(cache=True)
def track_block(nets, bankroll, stop_win, stop_loss, width, low, end_hist, min_hist, cp_rounds,
                cp_factor, cp_hist, reasons, sums, paths, path_row):
    """Follow each session (a row of ``nets``) from a bankroll of ``bankroll`` (stop_win /
    stop_loss: +inf for none) and add to the statistics in place."""
    count = end_hist.shape[0]
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
            cp_hist[0, _bin(0.0, width, low, count) // cp_factor] += 1
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
                cp_hist[c, _bin(here, width, low, count) // cp_factor] += 1
                if path_row + s < paths.shape[0]:
                    paths[path_row + s, c] = here
                c += 1
        if reason < 0:
            reason = 3
            value = total
        reasons[reason] += 1
        end_hist[_bin(value, width, low, count)] += 1
        min_hist[_bin(lowest, width, low, count)] += 1
        sums[0] += value
        sums[1] += value * value
        sums[2] += played
