"""Current odds of a printed game mid-run, from the prizes claimed per tier.

Trackers publish prizes claimed, rarely tickets sold, so the number sold is estimated. Three
estimators are offered side by side (``docs/rules/scratchcards.md``):

* ``lowest-tier``: the lowest prize's claimed share of its tier times the print run (small
  prizes are cashed at once, so their share follows sales closely);
* ``all-prizes``: the claimed share of all winning tickets times the print run;
* ``hypergeometric-mle``: the number sold that makes the claims most likely when the tickets
  sold are a random sample of the print run and every prize sold is claimed. The likelihood
  depends on the claims only through their total, so it lands within a ticket of
  ``all-prizes`` (closed form ``S = C (N + 1) / W - 1``, checked on its integer neighbours).

A ticket bought now is drawn from what is left: the tiers' counts less their claims, among the
tickets not sold. Per-tier z-scores compare each claim count with what random sales of that many
tickets would give (hypergeometric mean and variance); a large |z| says the claims do not behave
like random sales (prizes unclaimed, tickets returned, a wrong print run), and every current
figure inherits that doubt.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import gammaln

from sim.core.errors import InputError
from sim.games.scratchcard.table import Claims, PrizeTable

ESTIMATORS = ("lowest-tier", "all-prizes", "hypergeometric-mle")
Z_WARNING = 3.0


def _log_likelihood(sold: int, claimed_total: int, losers: int, print_run: int) -> float:
    # log C(losers, sold - claimed) - log C(print_run, sold): the terms that depend on sold.
    k = sold - claimed_total
    if k < 0 or k > losers or sold > print_run:
        return -math.inf
    return (gammaln(losers + 1) - gammaln(k + 1) - gammaln(losers - k + 1)
            - gammaln(print_run + 1) + gammaln(sold + 1) + gammaln(print_run - sold + 1))


def sold_bounds(table: PrizeTable, claims: Claims) -> tuple[int, int]:
    """The fewest and most tickets that can have been sold given the claims."""
    claimed = sum(claims.claimed)
    unclaimed_winners = sum(table.counts) - claimed
    return claimed, table.print_run - unclaimed_winners


def estimate_sold(table: PrizeTable, claims: Claims, estimator: str) -> int:
    """Tickets sold by one of :data:`ESTIMATORS`, kept within :func:`sold_bounds`."""
    n = table.print_run
    counts = np.array(table.counts, dtype=float)
    claimed = np.array(claims.claimed, dtype=float)
    low, high = sold_bounds(table, claims)
    if estimator == "lowest-tier":
        i = int(np.argmin(table.prizes))
        guess = claimed[i] / counts[i] * n
    elif estimator == "all-prizes":
        guess = claimed.sum() / counts.sum() * n
    elif estimator == "hypergeometric-mle":
        total, winners = int(claimed.sum()), int(counts.sum())
        centre = math.floor(total * (n + 1) / winners - 1)
        candidates = [s for s in range(centre - 1, centre + 3) if low <= s <= high]
        if not candidates:
            return min(max(centre, low), high)
        losers = n - winners
        return max(candidates, key=lambda s: _log_likelihood(s, total, losers, n))
    else:
        raise ValueError(f"estimator: expected one of {', '.join(ESTIMATORS)}, got {estimator!r}")
    return int(min(max(round(guess), low), high))


def remaining(table: PrizeTable, claims: Claims, sold: int) -> tuple[np.ndarray, int]:
    """Winning tickets left in each tier, and losing tickets left, after ``sold`` sales.

    Raises:
        InputError: ``sold`` is outside :func:`sold_bounds`.
    """
    low, high = sold_bounds(table, claims)
    if not low <= sold <= high:
        raise InputError(f"tickets_sold: {sold:,} is impossible with these claims (between "
                         f"{low:,} claimed and {high:,}, where the unclaimed prizes still fit)")
    left = np.array(table.counts, dtype=np.int64) - np.array(claims.claimed, dtype=np.int64)
    losers = table.print_run - sold - int(left.sum())
    return left, losers


@dataclass(frozen=True)
class CurrentOdds:
    """The next ticket's odds when ``tickets_sold`` tickets are gone."""

    estimator: str
    tickets_sold: int
    tickets_left: int
    ev: float
    rtp: float
    p_any: float
    p_prize_ge_price: float
    top_prizes_left: int

    @property
    def odds_any(self) -> float:
        """Overall odds "1 in X" of the next ticket."""
        return 1.0 / self.p_any if self.p_any else math.inf


def current_odds(table: PrizeTable, claims: Claims, sold: int, estimator: str = "given"
                 ) -> CurrentOdds:
    """EV and odds of the next ticket after ``sold`` sales and these claims."""
    left, losers = remaining(table, claims, sold)
    tickets = int(left.sum()) + losers
    prizes = np.array(table.prizes)
    ev = float(left @ prizes) / tickets
    return CurrentOdds(
        estimator, sold, tickets, ev, ev / table.price, float(left.sum()) / tickets,
        float(left[prizes >= table.price].sum()) / tickets, int(left[np.argmax(prizes)]))


def claims_z(table: PrizeTable, claims: Claims, sold: int) -> np.ndarray:
    """Per tier, (claimed - expected) / SD under random sales of ``sold`` tickets."""
    n = table.print_run
    share = np.array(table.counts, dtype=float) / n
    mean = sold * share
    var = sold * share * (1 - share) * (n - sold) / max(n - 1, 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (np.array(claims.claimed, dtype=float) - mean) / np.sqrt(var)
    return np.where(var > 0, z, 0.0)


def ev_against_sold(table: PrizeTable, claims: Claims, points: int = 200
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The next ticket's EV and P(any prize) over every possible number sold (for charts)."""
    low, high = sold_bounds(table, claims)
    sold = np.unique(np.linspace(low, high - 1, points).round().astype(np.int64))
    left = np.array(table.counts, dtype=float) - np.array(claims.claimed, dtype=float)
    tickets = table.print_run - sold
    ev = float(left @ np.array(table.prizes)) / tickets
    return sold, ev, left.sum() / tickets
