"""The headline figures of a report row: the edge a player of the game means, with an honest
error.

Two things decide what a reader is shown:

* **The basis.** A faro deal holds many bets and a scratchcard budget buys many tickets; their
  edge per initial stake (the first bet of the deal, the first ticket) is not what anyone means
  by the house edge. Each game names its basis (:attr:`sim.games.base.Game.headline_basis`):
  per amount wagered for faro and scratchcards, per initial stake for pontoon, lansquenet and
  bonuses. Both bases stay in the report's columns.
* **The standard error.** Where the game gives the exact standard deviation of a round, the
  interval, the error bars and z all use it: a sample that has not yet met a rare large prize
  understates its own spread, and an interval from it is tight and wrong. Where it is not known,
  a row whose sample spread rests on outcomes seen only a few times is flagged as unreliable
  rather than shown as if it were precise.
"""

from __future__ import annotations

import math
from typing import Any

from sim.core.stats import MIN_BATCHES, Z95, Stats, t95, z_score

BASIS_LABELS = {"initial": "per initial stake", "wagered": "per amount wagered"}
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


def headline(row: dict[str, Any], basis: str, stats: Stats, not_offered: str | None
             ) -> dict[str, Any]:
    """The headline columns of a report row that already holds both bases.

    ``row`` must hold ``edge_per_initial_bet``, ``edge_per_total_wagered``, their exact values
    and the standard errors z was taken with (``se_initial``, ``se_total``, and whether each
    is exact: ``se_initial_exact``, ``se_total_exact``).
    """
    if basis not in BASIS_LABELS:
        raise ValueError(f"headline_basis: expected one of {', '.join(BASIS_LABELS)}, "
                         f"got {basis!r}")
    if basis == "initial":
        edge, exact = row["edge_per_initial_bet"], row["exact_edge"]
        se, se_exact = row["se_initial"], row["se_initial_exact"]
    else:
        edge, exact = row["edge_per_total_wagered"], row["exact_edge_per_total_wagered"]
        se, se_exact = row["se_total"], row["se_total_exact"]
    out: dict[str, Any] = {"headline_basis": BASIS_LABELS[basis]}
    if stats.sums["sum_initial"] == 0 and stats.sums["sum_wagered"] == 0 and stats.rounds:
        # A game where nobody stakes anything (bridge, piquet): no edge on any basis; the
        # report compares the mean net result instead.
        return {**out, "headline_basis": "no stakes", "edge": math.nan,
                "edge_stderr": math.nan, "edge_ci95_low": math.nan, "edge_ci95_high": math.nan,
                "edge_exact": math.nan, "edge_z": math.nan, "stderr_source": "",
                "stderr_batches": math.nan, "note": ""}
    note = not_offered
    if note is None and stats.sums["sum_wagered"] == 0:
        note = "no bet placed in any round"
    if note is not None:
        return {**out, "edge": math.nan, "edge_stderr": math.nan, "edge_ci95_low": math.nan,
                "edge_ci95_high": math.nan, "edge_exact": math.nan, "edge_z": math.nan,
                "stderr_source": "", "stderr_batches": math.nan, "note": note}
    batched = stats.dependent and not se_exact
    if not se_exact:
        note = few_batches_reason(stats) or unreliable_reason(stats)
    half = (t95(stats.stderr_dof) if batched else Z95) * se
    return {**out, "edge": edge, "edge_stderr": se, "edge_ci95_low": edge - half,
            "edge_ci95_high": edge + half, "edge_exact": exact,
            "edge_z": z_score(edge, exact, se), "stderr_source": "exact" if se_exact
            else "batch means" if batched else "sample",
            "stderr_batches": stats.batches if batched else math.nan, "note": note or ""}
