"""Precision lent by exact rows: a row without an exact value, estimated with the rows that
have one on the same cards as control variates.

**The estimator.** Rows of an experiment that deal the same pack meet the same cards chunk by
chunk (common random numbers), so their chunk totals are paired observations. A row's
headline ``v = s N / S`` (an edge: ``s = -1`` and ``S`` the stakes; a points game's mean:
``s = 1`` and ``S`` the rounds) is linearised batch by batch as in :mod:`sim.engine.compare`:
the pseudo-value ``y_b = v + B s (N_b - (N / S) S_b) / S`` has mean ``v`` exactly, and ``v``
varies as the mean of the ``y_b``. A control row with exact value ``mu`` gives pseudo-values
``x_b`` the same way, with mean ``x`` whose expectation is ``mu``. The regression of ``y_b``
on ``x_b - mu`` (one column per control) with an intercept estimates the intercept
``alpha = v - beta (x - mu)``: the raw estimate corrected by how far the controls, on the same
cards, landed from their exact values. Its standard error is the intercept's from ordinary
least squares, ``s^2 [(X'X)^-1]_00`` with ``s^2`` the residual variance on ``B - k - 1``
degrees of freedom, so the error counts the coefficients' own estimation (the intercept's
variance carries ``(x - mu)' (X_c' X_c)^-1 (x - mu)``), and the 95% interval takes Student's
t on those degrees of freedom (one fewer where the controls were chosen among more): exact
where the batches are normal, as chunk totals nearly are.

**The controls.** Candidates are the rows with an exact value on the headline's basis that
deal the same pack and played as many chunks; at most :func:`max_controls` of them are used
(the most correlated with the row, each saying something the others do not), so that the
degrees of freedom stay ample. Heavy tails are refused (:func:`columns`): batches that have
missed a rare large outcome mislead the regression, and no sample can tell how much.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from sim import games
from sim.core.estimate import unreliable_reason
from sim.core.stats import BatchTotals, t95

# Of a batch's totals (rounds, net, initial, wagered): what each basis divides the net by,
# and the measure's sign (an edge is the house's: minus the player's net).
STAKE_COLUMN = {"initial": 2, "wagered": 3, "round": 0}
SIGN = {"initial": -1.0, "wagered": -1.0, "round": 1.0}
MAX_CONTROLS = 3
SPREAD_SEEN = 0.8  # a control's sample SE at least this share of its exact SE


@dataclass(frozen=True)
class ControlEstimate:
    """A row's headline estimated with control variates.

    Attributes:
        value: the estimate; ``stderr`` its standard error; ``dof`` the degrees of freedom
            of the interval's Student's t (``batches - controls - 1``).
        low, high: the 95% interval.
        controls: the indices (into the candidates given) of the controls used.
        coefficients: the fitted coefficient of each control.
    """

    value: float
    stderr: float
    dof: int
    low: float
    high: float
    controls: tuple[int, ...]
    coefficients: tuple[float, ...]


def pseudo_values(totals: BatchTotals, basis: str, width: int) -> np.ndarray | None:
    """The row's pseudo-values batch by batch at ``width`` (their mean is its estimate), or
    None where its stakes (or rounds) sum to zero."""
    batches = np.array(totals.at_width(width), dtype=np.float64)
    column, sign = STAKE_COLUMN[basis], SIGN[basis]
    stake, net = batches[:, column], batches[:, 1]
    total = stake.sum()
    if total == 0:
        return None
    ratio = net.sum() / total
    return sign * ratio + len(batches) * sign * (net - ratio * stake) / total


def max_controls(batches: int) -> int:
    """The most controls a row of ``batches`` batches takes: each costs a degree of freedom
    and widens the interval's t, so at least four batches per control and six degrees of
    freedom are kept (none below ten batches)."""
    return max(0, min(MAX_CONTROLS, (batches - 7) // 4 + 1 if batches >= 10 else 0))


def control_estimate(target: BatchTotals, candidates: Sequence[tuple[BatchTotals, float]],
                     basis: str) -> ControlEstimate | None:
    """The row ``target`` estimated with the best of ``candidates`` (batch totals and exact
    value on ``basis`` of each row on the same cards) as control variates; None where no
    candidate can serve (none, or too few batches)."""
    usable = [i for i, (totals, exact) in enumerate(candidates)
              if totals.chunks == target.chunks and math.isfinite(exact)]
    if not usable:
        return None
    width = max([target.width] + [candidates[i][0].width for i in usable])
    y = pseudo_values(target, basis, width)
    if y is None:
        return None
    batches = len(y)
    limit = max_controls(batches)
    if limit == 0:
        return None
    if np.ptp(y) == 0:
        return None
    found = []  # (|correlation|, candidate, centred pseudo-values)
    for i in usable:
        x = pseudo_values(candidates[i][0], basis, width)
        # A row that is the target itself on the same cards (the same bet under rules that do
        # not touch it) tells nothing the target does not.
        if x is None or len(x) != batches or np.ptp(x) == 0 or np.array_equal(x, y):
            continue
        found.append((abs(float(np.corrcoef(y, x)[0, 1])), i, x - candidates[i][1]))
    chosen = [np.ones(batches)]
    order: list[int] = []
    for _, i, column in sorted(found, key=lambda f: -f[0]):
        if len(order) == limit:
            break
        trial = np.column_stack([*chosen, column])
        if np.linalg.matrix_rank(trial) == trial.shape[1]:  # says something the rest do not
            chosen.append(column)
            order.append(i)
    if not order:
        return None
    design = np.column_stack(chosen)
    fit = np.linalg.lstsq(design, y, rcond=None)[0]
    # The residual's degrees of freedom; one more is spent where the controls were chosen
    # among more candidates by their correlation with the row (the choice flatters the fit).
    dof = batches - design.shape[1] - (1 if len(found) > len(order) else 0)
    residual = y - design @ fit
    variance = float(residual @ residual) / dof
    stderr = math.sqrt(variance * np.linalg.inv(design.T @ design)[0, 0])
    half = t95(dof) * stderr
    value = float(fit[0])
    return ControlEstimate(value, stderr, dof, value - half, value + half, tuple(order),
                           tuple(float(b) for b in fit[1:]))


CONTROL_COLUMNS = ["edge_cv", "edge_cv_stderr", "edge_cv_ci95_low", "edge_cv_ci95_high",
                   "edge_cv_dof", "cv_controls", "cv_variance_reduction"]


def columns(result: Any, frame: pd.DataFrame, pretend: bool = False) -> pd.DataFrame | None:
    """The report's control-variate columns (:data:`CONTROL_COLUMNS`), one row per report
    row, filled for the rows of a run (``result``: its experiment, merged statistics and
    batch totals) without an exact value that some exact row on the same cards can serve;
    with ``pretend``, for every row, each as if it had none (how the estimator is tested).
    None where no row is served.

    Heavy tails are refused, not lent to: a row whose own sample error is unreliable (a
    handful of extreme rounds carry its spread), and a control whose sample shows less than
    :data:`SPREAD_SEEN` of the spread its exact SD says it has (its batches have missed rare
    outcomes, and so, on the same cards, may the row's), take no part.

    A row is lent the estimate only where its error is smaller than the row's own;
    ``cv_variance_reduction`` is the row's own squared error over the estimate's (above 1)."""
    experiment = result.experiment
    game = games.get(experiment.game)
    basis = game.measure.basis
    pairs = [(vi, si) for vi in range(len(experiment.variants))
             for si in range(len(experiment.strategies))]
    packs = {pair: game.pack_key(experiment.variants[pair[0]].rules) for pair in pairs}
    exact = dict(zip(pairs, frame["edge_exact"].astype(float)))
    notes = dict(zip(pairs, frame["note"].fillna("").astype(str)))
    exact_se = {pair: float(se) if source == "exact" else math.nan for pair, se, source in
                zip(pairs, frame["edge_stderr"], frame["stderr_source"])}
    sample_se = {pair: result.merged(*pair).estimate(basis)[1] for pair in pairs}

    def serves(pair: tuple[int, int]) -> bool:
        return (math.isfinite(exact[pair]) and not notes[pair].startswith("not offered")
                and unreliable_reason(result.merged(*pair)) is None
                and not sample_se[pair] < SPREAD_SEEN * exact_se[pair])

    out = [{**dict.fromkeys(CONTROL_COLUMNS, math.nan), "cv_controls": ""} for _ in pairs]
    served = False
    for row, pair in enumerate(pairs):
        if (math.isfinite(exact[pair]) and not pretend) or notes[pair].startswith(
                ("not offered", "no bet")) or unreliable_reason(result.merged(*pair)):
            continue
        peers = [p for p in pairs if p != pair and packs[p] == packs[pair] and serves(p)]
        found = control_estimate(result.totals[pair],
                                 [(result.totals[p], exact[p]) for p in peers], basis)
        # Lent only where it helps: controls that correlate weakly with the row (a carried
        # pack against the pack shuffled every deal) cost their degrees of freedom and give
        # an error larger than the row's own.
        if found is None or not found.stderr < sample_se[pair]:
            continue
        served = True
        names = [f"{experiment.variants[peers[i][0]].name} / "
                 f"{experiment.strategies[peers[i][1]].name}" for i in found.controls]
        out[row] = {"edge_cv": found.value, "edge_cv_stderr": found.stderr,
                    "edge_cv_ci95_low": found.low, "edge_cv_ci95_high": found.high,
                    "edge_cv_dof": found.dof, "cv_controls": "; ".join(names),
                    "cv_variance_reduction": (sample_se[pair] / found.stderr) ** 2
                    if found.stderr > 0 else math.nan}
    return pd.DataFrame(out, columns=CONTROL_COLUMNS, index=frame.index) if served else None
