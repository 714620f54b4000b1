"""Mergeable sufficient statistics of a simulation, and the estimates drawn from them.

A chunk of rounds returns a :class:`Stats`: counts, sums, sums of squares and cross products
of the net result, the initial stake and the total amount wagered, outcome frequencies, a
histogram of the net result and game-specific counters. Merging is associative, so chunks can
run anywhere and be merged in chunk order to the same numbers. Nothing per round is kept.

Edges are ratios of means (``-E[net] / E[stake]``); their standard errors come from the delta
method on the same sums, which is exact in the limit and honest when stakes vary by round.

Where rounds are not independent (a pack carried from deal to deal, so one deal's cards tell of
the next), the per-round spread understates the error. A game whose rounds are dependent cuts
each chunk into *batches* of a fixed number of rounds (:data:`DEPENDENT_BATCH_ROUNDS`, far longer
than the rounds' memory, so batches are nearly independent), and a :attr:`Stats.dependent` set
of rounds takes its standard errors from the spread between them (batch means, by the same delta
method over batch totals), with Student's t on ``batches - 1`` degrees of freedom. The batch
length is fixed, never the chunk's, so the batches and the numbers are the same for any jobs,
backend or resume; with fewer than :data:`MIN_BATCHES` batches the error is flagged.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numba
import numpy as np

Z95 = 1.959963984540054

# The sums carried for every chunk; a fast kernel fills a float64 vector in this order.
SUM_FIELDS = (
    "sum_net",
    "sum_net2",
    "sum_initial",
    "sum_initial2",
    "sum_net_initial",
    "sum_wagered",
    "sum_wagered2",
    "sum_net_wagered",
)
# Sums over batches (chunks) of products of batch totals: net N, initial stake I, wagered W.
BATCH_FIELDS = ("nn", "ni", "ii", "nw", "ww")
# Fewer batches than this give a batch-means standard error too rough to rely on.
MIN_BATCHES = 10
# Rounds in a batch where rounds are dependent: a pontoon pack carried between deals forgets
# its past at each shuffle, some ten deals apart, so batches of 1,000 deals barely correlate.
DEPENDENT_BATCH_ROUNDS = 1000


def t95(dof: float) -> float:
    """The two-sided 95% quantile of Student's t (the normal's for many degrees)."""
    if not dof >= 1:
        return math.nan
    if dof >= 1000:
        return Z95
    # scipy.special, not scipy.stats: the same quantile (stats.t.ppf calls it) without the
    # 50 MB and half a second that importing every distribution of scipy.stats costs.
    from scipy.special import stdtrit

    return float(stdtrit(dof, 0.975))


@numba.njit(inline="always")
def kernel_add_batch(batch, net, initial, wagered):
    """A compiled kernel's batch: add one batch's totals to ``batch`` (count, then the
    products of BATCH_FIELDS)."""
    batch[0] += 1.0
    batch[1] += net * net
    batch[2] += net * initial
    batch[3] += initial * initial
    batch[4] += net * wagered
    batch[5] += wagered * wagered


@numba.njit(inline="always")
def kernel_add_round(outcomes, sums, net, initial, wagered):
    """A compiled kernel's :meth:`Stats.add_round`: count the outcome (win, push, loss) and
    add to the sums in SUM_FIELDS order."""
    if net > 0.0:
        outcomes[0] += 1
    elif net < 0.0:
        outcomes[2] += 1
    else:
        outcomes[1] += 1
    sums[0] += net
    sums[1] += net * net
    sums[2] += initial
    sums[3] += initial * initial
    sums[4] += net * initial
    sums[5] += wagered
    sums[6] += wagered * wagered
    sums[7] += net * wagered


@dataclass
class Stats:
    """Sufficient statistics of a set of rounds (money in units of the base stake)."""

    rounds: int = 0
    wins: int = 0
    pushes: int = 0
    losses: int = 0
    sums: dict[str, float] = field(default_factory=lambda: dict.fromkeys(SUM_FIELDS, 0.0))
    net_hist: dict[float, int] = field(default_factory=dict)
    counters: dict[str, float] = field(default_factory=dict)
    batches: int = 0
    batch_sums: dict[str, float] = field(default_factory=lambda: dict.fromkeys(BATCH_FIELDS, 0.0))
    dependent: bool = False  # rounds not independent: errors from the spread between batches

    def close_batch(self, dependent: bool) -> Stats:
        """Close a chunk: ``dependent``, its rounds are not independent and its errors come
        from batch means. A chunk that recorded no batches of its own is one batch."""
        if not self.batches:
            self.add_batch(*(self.sums[k] for k in ("sum_net", "sum_initial", "sum_wagered")))
        self.dependent = dependent
        return self

    def add_batch(self, net: float, initial: float, wagered: float) -> None:
        """Record one batch's totals (its net result, initial stakes and amount wagered)."""
        self.batches += 1
        b = self.batch_sums
        b["nn"] += net * net
        b["ni"] += net * initial
        b["ii"] += initial * initial
        b["nw"] += net * wagered
        b["ww"] += wagered * wagered

    # ----------------------------------------------------------------- building
    def add_round(
        self,
        net: float,
        initial: float,
        wagered: float,
        counters: Mapping[str, float] | None = None,
    ) -> None:
        """Record one round (the reference paths call this; kernels fill sums directly)."""
        self.rounds += 1
        if net > 0:
            self.wins += 1
        elif net < 0:
            self.losses += 1
        else:
            self.pushes += 1
        s = self.sums
        s["sum_net"] += net
        s["sum_net2"] += net * net
        s["sum_initial"] += initial
        s["sum_initial2"] += initial * initial
        s["sum_net_initial"] += net * initial
        s["sum_wagered"] += wagered
        s["sum_wagered2"] += wagered * wagered
        s["sum_net_wagered"] += net * wagered
        key = float(net)
        self.net_hist[key] = self.net_hist.get(key, 0) + 1
        for name, value in (counters or {}).items():
            self.counters[name] = self.counters.get(name, 0.0) + value

    @classmethod
    def from_arrays(
        cls,
        rounds: int,
        outcome_counts: np.ndarray,
        sums: np.ndarray,
        hist_values: np.ndarray,
        hist_counts: np.ndarray,
        counters: Mapping[str, float] | None = None,
        batch: np.ndarray | None = None,
    ) -> Stats:
        """Statistics from a kernel's output: (wins, pushes, losses), sums in SUM_FIELDS order,
        a histogram given as values with their counts (zero counts are dropped) and, where
        the kernel cut its rounds into batches, ``batch`` as :func:`kernel_add_batch` fills it."""
        seen = np.flatnonzero(hist_counts)  # a kernel's histogram is mostly empty bins
        hist = dict(zip(np.asarray(hist_values, dtype=np.float64)[seen].tolist(),
                        np.asarray(hist_counts)[seen].astype(np.int64).tolist()))
        return cls(
            rounds=int(rounds),
            wins=int(outcome_counts[0]),
            pushes=int(outcome_counts[1]),
            losses=int(outcome_counts[2]),
            sums={name: float(x) for name, x in zip(SUM_FIELDS, sums.tolist())},
            net_hist=hist,
            counters={k: float(v) for k, v in (counters or {}).items()},
            batches=0 if batch is None else int(batch[0]),
            batch_sums=(dict.fromkeys(BATCH_FIELDS, 0.0) if batch is None else
                        {k: float(x) for k, x in zip(BATCH_FIELDS, batch[1:].tolist())}),
        )

    def merge(self, other: Stats) -> Stats:
        """A new Stats holding both sets of rounds."""
        hist = dict(self.net_hist)
        for value, count in other.net_hist.items():
            hist[value] = hist.get(value, 0) + count
        counters = dict(self.counters)
        for name, value in other.counters.items():
            counters[name] = counters.get(name, 0.0) + value
        return Stats(
            rounds=self.rounds + other.rounds,
            wins=self.wins + other.wins,
            pushes=self.pushes + other.pushes,
            losses=self.losses + other.losses,
            sums={k: self.sums[k] + other.sums[k] for k in SUM_FIELDS},
            net_hist=hist,
            counters=counters,
            batches=self.batches + other.batches,
            batch_sums={k: self.batch_sums[k] + other.batch_sums[k] for k in BATCH_FIELDS},
            dependent=self.dependent or other.dependent,
        )

    @staticmethod
    def merge_all(parts: Iterable[Stats]) -> Stats:
        """Merge in the order given (chunk order keeps float sums identical across runs)."""
        total = Stats()
        for part in parts:
            total = total.merge(part)
        return total

    # ------------------------------------------------------------- estimates
    def _mean(self, key: str) -> float:
        return self.sums[key] / self.rounds if self.rounds else math.nan

    @property
    def mean_net(self) -> float:
        """Mean net result per round (player's view: positive = player wins)."""
        return self._mean("sum_net")

    @property
    def mean_initial_stake(self) -> float:
        return self._mean("sum_initial")

    @property
    def mean_total_wagered(self) -> float:
        return self._mean("sum_wagered")

    @property
    def std_net(self) -> float:
        """Sample standard deviation of the net result per round."""
        n = self.rounds
        if n < 2:
            return math.nan
        var = (self.sums["sum_net2"] - self.sums["sum_net"] ** 2 / n) / (n - 1)
        return math.sqrt(max(var, 0.0))

    def _ratio_edge(self, stake: str) -> tuple[float, float]:
        """Edge ``-sum(net)/sum(stake)`` and its delta-method standard error."""
        n = self.rounds
        s = self.sums
        total_stake = s[f"sum_{stake}"]
        if n < 2 or total_stake == 0:
            return math.nan, math.nan
        edge = -s["sum_net"] / total_stake + 0.0  # + 0.0: no "-0.0" edge
        if self.dependent:
            return edge, self._batch_stderr(edge, stake[0], total_stake)
        # Residual r = net + edge * stake has mean zero; var(edge) = var(r) / (n * mean_stake^2).
        sum_r2 = (
            s["sum_net2"]
            + 2 * edge * s[f"sum_net_{stake}"]
            + edge * edge * s[f"sum_{stake}2"]
        )
        var_r = max(sum_r2 / n, 0.0) * n / (n - 1)
        mean_stake = total_stake / n
        return edge, math.sqrt(var_r / n) / abs(mean_stake)

    def _batch_stderr(self, edge: float, stake: str, total_stake: float) -> float:
        """Batch means: the residual R_b = N_b + edge * S_b of each batch's totals sums to zero;
        var(edge) = B / (B - 1) * sum(R_b^2) / (sum S_b)^2."""
        b, batch = self.batches, self.batch_sums
        if b < 2:
            return math.nan
        sum_r2 = (batch["nn"] + 2 * edge * batch[f"n{stake}"]
                  + edge * edge * batch[f"{stake}{stake}"])
        return math.sqrt(max(sum_r2, 0.0) * b / (b - 1)) / abs(total_stake)

    @property
    def stderr_reliable(self) -> bool:
        """False where the standard error rests on too few batches to trust."""
        return not self.dependent or self.batches >= MIN_BATCHES

    @property
    def stderr_dof(self) -> float:
        """The degrees of freedom of the standard error: ``batches - 1`` where rounds are
        dependent, else ``rounds - 1``."""
        return float(self.batches - 1 if self.dependent else self.rounds - 1)

    @property
    def edge_per_initial_bet(self) -> float:
        """House edge per unit of initial stake: ``-E[net] / E[initial stake]``."""
        return self._ratio_edge("initial")[0]

    @property
    def stderr(self) -> float:
        """Standard error of :attr:`edge_per_initial_bet`."""
        return self._ratio_edge("initial")[1]

    @property
    def edge_per_total_wagered(self) -> float:
        """House edge per unit of every amount put at risk."""
        return self._ratio_edge("wagered")[0]

    @property
    def stderr_per_total_wagered(self) -> float:
        return self._ratio_edge("wagered")[1]

    def estimate(self, basis: str) -> tuple[float, float]:
        """The row's measure on ``basis`` and its standard error: the house edge per initial
        stake (``"initial"``) or per amount wagered (``"wagered"``), or the mean net result
        per round (``"round"``, a points game's; its error needs independent rounds)."""
        if basis == "round":
            n = self.rounds
            if n < 2 or self.dependent:  # batches keep no round counts to weigh their means
                return self.mean_net, math.nan
            return self.mean_net, self.std_net / math.sqrt(n)
        if basis not in ("initial", "wagered"):
            raise ValueError(f"basis: expected initial, wagered or round, got {basis!r}")
        return self._ratio_edge(basis)

    def ci95(self) -> tuple[float, float]:
        """95% confidence interval of :attr:`edge_per_initial_bet` (Student's t on
        :attr:`stderr_dof`)."""
        edge, se = self._ratio_edge("initial")
        half = t95(self.stderr_dof) * se
        return edge - half, edge + half

    def frequency(self, outcome: str) -> float:
        """Share of rounds won, pushed or lost (``'win'``, ``'push'``, ``'loss'``)."""
        count = {"win": self.wins, "push": self.pushes, "loss": self.losses}[outcome]
        return count / self.rounds if self.rounds else math.nan

    def counter_rate(self, name: str) -> float:
        """A game counter per round (e.g. splits per deal)."""
        return self.counters.get(name, 0.0) / self.rounds if self.rounds else math.nan

    # -------------------------------------------------------------- plain data
    def to_json(self) -> dict[str, Any]:
        """Plain JSON-able data (checkpoints are data, never pickle)."""
        return {
            "rounds": self.rounds,
            "wins": self.wins,
            "pushes": self.pushes,
            "losses": self.losses,
            "sums": self.sums,
            "net_hist": sorted(self.net_hist.items()),
            "counters": self.counters,
            "batches": self.batches,
            "batch_sums": self.batch_sums,
            "dependent": self.dependent,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Stats:
        return cls(
            rounds=int(data["rounds"]),
            wins=int(data["wins"]),
            pushes=int(data["pushes"]),
            losses=int(data["losses"]),
            sums={k: float(data["sums"][k]) for k in SUM_FIELDS},
            net_hist={float(v): int(c) for v, c in data["net_hist"]},
            counters={k: float(v) for k, v in data["counters"].items()},
            batches=int(data.get("batches", 0)),
            batch_sums={k: float(data.get("batch_sums", {}).get(k, 0.0)) for k in BATCH_FIELDS},
            dependent=bool(data.get("dependent", False)),
        )


class RoundBatches:
    """A reference path's rounds, recorded into ``stats`` one at a time and cut into batches of
    ``length`` rounds as a kernel cuts its own (the last of ``rounds`` closing a shorter one);
    ``length`` 0: rounds independent, no batches.

    A batch's totals are taken as the game's kernel takes them, so that both paths give the
    same batches to the last bit: by default the growth of the running sums since the batch
    opened (a kernel then pays one compare a round, and nothing where it cuts no batches);
    with ``summed`` the batch's own sums, added round by round.
    """

    def __init__(self, stats: Stats, length: int, rounds: int, summed: bool = False) -> None:
        self.stats, self.length, self.rounds, self.summed = stats, length, rounds, summed
        self.played = 0
        self.opened = self._totals()  # the running sums where the open batch began
        self.open = [0.0, 0.0, 0.0]  # with ``summed``: the open batch's own sums

    def _totals(self) -> tuple[float, float, float]:
        s = self.stats.sums
        return s["sum_net"], s["sum_initial"], s["sum_wagered"]

    def add_round(self, net: float, initial: float, wagered: float,
                  counters: Mapping[str, float] | None = None) -> None:
        """Record one round (:meth:`Stats.add_round`), closing its batch where it ends one."""
        self.stats.add_round(net, initial, wagered, counters)
        self.played += 1
        if not self.length:
            return
        if self.summed:
            self.open = [self.open[0] + net, self.open[1] + initial, self.open[2] + wagered]
        if self.played % self.length == 0 or self.played == self.rounds:
            if self.summed:
                self.stats.add_batch(*self.open)
                self.open = [0.0, 0.0, 0.0]
            else:
                now = self._totals()
                self.stats.add_batch(*(total - start for total, start in zip(now, self.opened)))
                self.opened = now


def stats_from_arrays(net: np.ndarray, initial: np.ndarray, wagered: np.ndarray,
                      counters: Mapping[str, float]) -> Stats:
    """Statistics of rounds given as arrays, one entry per round (a vectorised path's
    sessions or players): the net result, the initial stake and the amount wagered of each,
    with the game's counters summed over them."""
    values, counts = np.unique(net, return_counts=True)
    sums = np.array([net.sum(), net @ net, initial.sum(), initial @ initial, net @ initial,
                     wagered.sum(), wagered @ wagered, net @ wagered])
    assert len(sums) == len(SUM_FIELDS)
    outcomes = np.array([(net > 0).sum(), (net == 0).sum(), (net < 0).sum()])
    return Stats.from_arrays(len(net), outcomes, sums, values, counts, counters)


def z_score(estimate: float, exact: float, stderr: float) -> float:
    """``(estimate - exact) / stderr``, NaN where undefined."""
    if exact is None or not math.isfinite(exact) or not stderr or not math.isfinite(stderr):
        return math.nan
    return (estimate - exact) / stderr


# Most batches a row keeps for pairing; past it, adjacent batches are merged pairwise.
MAX_PAIRED_BATCHES = 256
TOTAL_FIELDS = ("rounds", "net", "initial", "wagered")


@dataclass
class BatchTotals:
    """A row's per-chunk totals (rounds, net, initial stake, amount wagered), in chunk order,
    for paired comparisons between rows.

    Batch ``b`` holds chunks ``b * width .. (b + 1) * width - 1``. When more than
    :data:`MAX_PAIRED_BATCHES` batches would be kept, adjacent batches are merged pairwise and
    the width doubles: the width depends only on the number of chunks, so every row cut at the
    same chunk count is batched alike and batches of two rows stay aligned chunk for chunk.
    Only the last batch may hold fewer than ``width`` chunks.
    """

    width: int = 1
    chunks: int = 0
    batches: list[list[float]] = field(default_factory=list)

    def add(self, stats: Stats) -> None:
        """Append the next chunk's totals (chunks must come in chunk order)."""
        totals = [float(stats.rounds), stats.sums["sum_net"], stats.sums["sum_initial"],
                  stats.sums["sum_wagered"]]
        if self.chunks % self.width == 0:
            self.batches.append(totals)
        else:
            self.batches[-1] = [a + b for a, b in zip(self.batches[-1], totals)]
        self.chunks += 1
        if len(self.batches) > MAX_PAIRED_BATCHES:
            self.batches = _coarsen(self.batches, 2)
            self.width *= 2

    def at_width(self, width: int) -> list[list[float]]:
        """The batches merged to a coarser ``width`` (a multiple of this one)."""
        if width % self.width:
            raise ValueError(f"width {width} is not a multiple of {self.width}")
        return _coarsen(self.batches, width // self.width)

    def to_json(self) -> dict[str, Any]:
        return {"width": self.width, "chunks": self.chunks, "batches": self.batches}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> BatchTotals:
        batches = [[float(x) for x in b] for b in data["batches"]]
        width, chunks = int(data["width"]), int(data["chunks"])
        if any(len(b) != len(TOTAL_FIELDS) for b in batches) or width < 1 or \
                len(batches) != -(-chunks // width):
            raise ValueError("batch totals do not match their chunk count")
        return cls(width, chunks, batches)


def _coarsen(batches: list[list[float]], factor: int) -> list[list[float]]:
    if factor == 1:
        return [list(b) for b in batches]
    return [[sum(col) for col in zip(*batches[i:i + factor])]
            for i in range(0, len(batches), factor)]
