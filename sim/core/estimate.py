"""What a round measures, and the one helper that sets an estimate beside its exact value.

A game declares what its rounds measure (:class:`Measure`): **stakes**, where the report's
headline is a house edge on the basis a player of the game means (per amount wagered where a
round holds many bets, a faro deal or a scratchcard budget; per initial stake where it holds
one, pontoon, lansquenet, a bonus), both bases kept in the report's columns; or **points**,
where it is the mean net result of a round (a score, a deadwood, a count of points), since
nobody stakes anything. Either way one helper (:func:`headline`) gives every game the same
headline columns: the estimate, its standard error, the 95% interval, the exact value and z.

**The standard error.** Where the game gives the exact standard deviation of a round, the
interval, the error bars and z all use it: a sample that has not yet met a rare large prize
understates its own spread, and an interval from it is tight and wrong. Where it is not known,
a row whose sample spread rests on outcomes seen only a few times is flagged as unreliable
rather than shown as if it were precise; where rounds are dependent the error comes from batch
means, and an error resting on few batches is flagged too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from sim.core.stats import MIN_BATCHES, Z95, Stats, t95, z_score

STAKES, POINTS = "stakes", "points"
BASIS_LABELS = {"initial": "per initial stake", "wagered": "per amount wagered"}
ROUND = "round"  # the basis of a points game: the mean net result per round


@dataclass(frozen=True)
class Measure:
    """What a game's round measures, and what its report headlines.

    Attributes:
        kind: :data:`STAKES` (a house edge) or :data:`POINTS` (a mean per round).
        basis: stakes: the basis a player means, ``"initial"`` or ``"wagered"``; points:
            :data:`ROUND`.
        label: how the headline column names the measure (``"per amount wagered"``, ``"mean
            points per deal"``).
        compare_other_basis: stakes only: whether the terminal and the page also show paired
            comparisons on the other basis, where a player asks both (a faro deal's cost per
            deal beside per bet); comparisons.csv holds both always.
    """

    kind: str
    basis: str
    label: str
    compare_other_basis: bool = False

    @classmethod
    def stakes(cls, basis: str = "initial", compare_other_basis: bool = False) -> Measure:
        """A house edge per initial stake (``"initial"``) or per amount wagered."""
        if basis not in BASIS_LABELS:
            raise ValueError(f"basis: expected one of {', '.join(BASIS_LABELS)}, got {basis!r}")
        return cls(STAKES, basis, BASIS_LABELS[basis], compare_other_basis)

    @classmethod
    def points(cls, label: str) -> Measure:
        """A mean net result per round, named ``label`` (``"mean points per deal"``)."""
        return cls(POINTS, ROUND, label)

    @property
    def percent(self) -> bool:
        """Whether the headline reads as a percentage (an edge) or in its own units."""
        return self.kind == STAKES

    @property
    def bases(self) -> tuple[str, ...]:
        """Every basis the report gives: both edges, or the mean per round."""
        return tuple(BASIS_LABELS) if self.kind == STAKES else (ROUND,)


@dataclass(frozen=True)
class Estimate:
    """An estimate beside its exact value, with the error both are compared with.

    Attributes:
        value: the estimate.
        stderr: its standard error (the exact one where ``source`` is ``"exact"``).
        exact: the exact value (NaN: none).
        source: where the error comes from: ``"exact"``, ``"batch means"`` or ``"sample"``.
        dof: the degrees of freedom of the error (``inf``: the normal's).
    """

    value: float
    stderr: float
    exact: float = math.nan
    source: str = "sample"
    dof: float = math.inf

    @property
    def halfwidth(self) -> float:
        """Half the 95% interval: Student's t on :attr:`dof` (the normal's where infinite)."""
        return (Z95 if math.isinf(self.dof) else t95(self.dof)) * self.stderr

    @property
    def z(self) -> float:
        return z_score(self.value, self.exact, self.stderr)


def estimate_of(stats: Stats, basis: str, exact: float | None = None,
                exact_stderr: float | None = None) -> Estimate:
    """A row's estimate on ``basis`` (``"initial"``, ``"wagered"`` or :data:`ROUND`) beside
    its exact value: the error from the exact SD where given (``exact_stderr``), else from
    batch means where rounds are dependent, else from the sample."""
    value, sample_se = stats.estimate(basis)
    exact_value = math.nan if exact is None else float(exact) + 0.0
    if exact_stderr is not None:
        return Estimate(value, exact_stderr, exact_value, "exact")
    if stats.dependent:
        return Estimate(value, sample_se, exact_value, "batch means", stats.stderr_dof)
    return Estimate(value, sample_se, exact_value)


def frequency(hits: float, trials: float, exact: float) -> Estimate:
    """A share of ``trials`` beside its exact probability, with the binomial error at the
    exact probability (a rare event not yet seen still has its error)."""
    if not trials:
        return Estimate(math.nan, math.nan, exact)
    return Estimate(hits / trials, math.sqrt(exact * (1 - exact) / trials), exact, "exact")
RARE_COUNT = 10     # when this many rounds, the most extreme of the sample, carry
RARE_SHARE = 0.25   # more than this share of its spread, the sample SE is unreliable

HEADLINE_COLUMNS = ["headline_basis", "edge", "edge_stderr", "edge_ci95_low", "edge_ci95_high",
                    "edge_exact", "edge_z", "stderr_source", "stderr_batches", "note"]
# How a row's note begins where its own error cannot be trusted (comparisons carry it on).
UNRELIABLE = "sample SE unreliable"
FEW_BATCHES = "error from only"
UNRELIABLE_NOTES = (UNRELIABLE, FEW_BATCHES)


def rare_spread_share(stats: Stats, rounds: int = RARE_COUNT) -> float:
    """The share of the sample's sum of squared deviations of the net result carried by its
    ``rounds`` most extreme rounds (0 when the sample has no spread).

    When a handful of rounds (a top prize, a completed bonus) carry much of the spread, the
    sample SD depends on how many of them happened to come up: it is itself a guess.
    """
    if stats.rounds < 2 or not stats.net_hist:
        return 0.0
    mean = stats.mean_net
    parts = sorted(((value - mean) ** 2, count) for value, count in stats.net_hist.items())
    total = sum(sq * count for sq, count in parts)
    if total <= 0:
        return 0.0
    extreme, left = 0.0, rounds
    for sq, count in reversed(parts):
        take = min(count, left)
        extreme += sq * take
        left -= take
        if not left:
            break
    return extreme / total


def unreliable_reason(stats: Stats) -> str | None:
    """Why the sample's standard error cannot be trusted, or None."""
    share = rare_spread_share(stats)
    if share > RARE_SHARE:
        return (f"{UNRELIABLE}: its {RARE_COUNT} most extreme rounds carry {share:.0%} "
                "of the spread")
    return None


def few_batches_reason(stats: Stats) -> str | None:
    """Why a batch-means error (rounds dependent) rests on too few batches, or None."""
    if not stats.dependent or stats.batches >= MIN_BATCHES:
        return None
    return (f"{FEW_BATCHES} {stats.batches} batches of dependent rounds: it is rough "
            f"(Student's t on {max(stats.batches - 1, 0)} degrees of freedom); play "
            f"{MIN_BATCHES} batches or more")


def headline(measure: Measure, est: Estimate, stats: Stats, not_offered: str | None
             ) -> dict[str, Any]:
    """The headline columns of a report row (:data:`HEADLINE_COLUMNS`): the measure's
    estimate, its error, the 95% interval, the exact value and z; a note where the row has
    nothing to estimate (a bet not offered, none placed) or its own error cannot be trusted.
    """
    out: dict[str, Any] = {"headline_basis": measure.label}
    note = not_offered
    if note is None and measure.kind == STAKES and stats.sums["sum_wagered"] == 0:
        note = "no bet placed in any round"
    if note is not None:
        return {**out, "edge": math.nan, "edge_stderr": math.nan, "edge_ci95_low": math.nan,
                "edge_ci95_high": math.nan, "edge_exact": math.nan, "edge_z": math.nan,
                "stderr_source": "", "stderr_batches": math.nan, "note": note}
    if est.source != "exact":
        note = few_batches_reason(stats) or unreliable_reason(stats)
    half = est.halfwidth
    return {**out, "edge": est.value, "edge_stderr": est.stderr,
            "edge_ci95_low": est.value - half, "edge_ci95_high": est.value + half,
            "edge_exact": est.exact, "edge_z": est.z, "stderr_source": est.source,
            "stderr_batches": stats.batches if est.source == "batch means" else math.nan,
            "note": note or ""}
