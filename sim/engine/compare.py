"""Paired comparisons between rows, and the target-precision stopping rule.

**Pairing is by chunk.** Every row of an experiment plays the same chunk indices, and with
common random numbers chunk ``c`` of two rows meets the same cards; so the chunk totals of two
rows are paired observations, and the difference of their edges is measured with the error of
the per-chunk *differences*, which is far smaller than the two errors combined when the rows
are correlated and no larger (on average) when they are not.

**The paired standard error.** A row's edge is a ratio ``e = -N / S`` of its total net result
and total stake. Linearised (the delta method), ``e - E[e] ~ -(1/S) * sum_b R_b`` with the
batch residual ``R_b = N_b + e * S_b``; for two rows A and B over the same batches,
``D = e_A - e_B`` varies as ``sum_b d_b`` with ``d_b = R_Ab / S_A - R_Bb / S_B``. The batches
(chunks, or runs of adjacent chunks: :class:`sim.core.stats.BatchTotals`) are independent of one
another, and ``sum_b d_b = 0`` by construction, so ``var(D) ~ B / (B - 1) * sum_b d_b^2``:
batch means, exactly the estimator rows with dependent rounds already use for themselves. The
95% interval takes Student's t with ``B - 1`` degrees of freedom, honest with few batches.

**The baseline.** Each row is compared with the baseline strategy of its variant (the first,
or the file's ``baseline = "name"``), and each variant's row with the same strategy in the
baseline variant (the first, or ``baseline_variant = "name"``).

**A target precision.** With ``target_ci`` a row plays chunk after chunk until the 95%
half-width of its headline edge is at most the target; with ``target_diff_ci``, until that of
each of its paired differences is (a baseline plays on while any row compared with it does).
Both stop at the rounds budget at the latest. Stopping is decided on the merged prefix of
chunks in chunk order only (:class:`TargetRule`), so the report is the same for any number of
jobs, any backend, and after an interrupted run is resumed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import pandas as pd

from sim import games
from sim.core.errors import UnknownName
from sim.core.estimate import ROUND, STAKES, UNRELIABLE_NOTES
from sim.core.stats import MIN_BATCHES, Z95, BatchTotals, Stats, t95, z_score

Pair = tuple[int, int]
# Of a batch's totals (rounds, net, initial, wagered): what a basis divides the net by, and
# the sign of the measure (an edge is the house's, minus the player's net; points are as won).
STAKE_COLUMN = {"initial": 2, "wagered": 3, ROUND: 0}
SIGN = {"initial": -1.0, "wagered": -1.0, ROUND: 1.0}
# A target is never judged met on fewer chunks than this: before, the error is itself a guess.
MIN_TARGET_CHUNKS = 2


@dataclass(frozen=True)
class PairedDifference:
    """The difference of two rows' edges on one basis (row minus baseline).

    Attributes:
        diff: ``edge(row) - edge(baseline)`` (positive: the row gives the house more).
        stderr: its paired standard error (batch means over the paired chunk totals).
        batches: how many paired batches it rests on.
        low: lower end of the 95% interval (Student's t with ``batches - 1`` degrees).
        high: upper end.
        batch_var_a: the row's own variance (for the correlation): its error squared, or
            from the same batches where no error was given.
        batch_var_b: the baseline's.
        dof: the degrees of freedom of the interval's Student's t (``inf``: the normal's).
        batch_correlation: the correlation of the two rows' paired batches (NaN where there
            are fewer than two, or where the rows share no cards).
    """

    diff: float
    stderr: float
    batches: int
    low: float
    high: float
    batch_var_a: float
    batch_var_b: float
    dof: float = math.nan
    batch_correlation: float = math.nan

    @property
    def halfwidth(self) -> float:
        return (self.high - self.low) / 2

    @property
    def correlation(self) -> float:
        """The correlation between the two rows' edges, as the batches show it."""
        if not (self.batch_var_a > 0 and self.batch_var_b > 0):
            return math.nan
        cov = (self.batch_var_a + self.batch_var_b - self.stderr ** 2) / 2
        # Clamped: a batch-means error beside per-round row errors may imply beyond -1.
        return max(-1.0, min(1.0, cov / math.sqrt(self.batch_var_a * self.batch_var_b)))


@dataclass(frozen=True)
class RowError:
    """A row's own standard error on one basis, as its report gives it.

    Attributes:
        se: the standard error of the row's edge (the exact SD's where the game gives it).
        dof: the degrees of freedom it rests on (``inf`` where exact or from every round).
        unreliable: why the row's own error cannot be trusted ("" where it can).
    """

    se: float
    dof: float = math.inf
    unreliable: str = ""
    exact: bool = False


def paired_difference(row: BatchTotals, base: BatchTotals, basis: str,
                      errors: tuple[RowError, RowError] | None = None, shared: bool = True
                      ) -> PairedDifference:
    """The paired difference of two rows' measures on ``basis``: their edges per initial stake
    (``"initial"``) or per amount wagered (``"wagered"``), or a points game's means per round
    (``"round"``: the same algebra with the rounds for the stake and the sign reversed).

    Both rows' batches are merged to the coarser of their widths; a row with fewer chunks
    than the other contributes nothing to the batches it did not play (those count with the
    other row's own spread).

    With ``errors`` (each row's own error as its report gives it) the error is never below
    ``|se_A - se_B|``, what the rows' own errors allow whatever their correlation; rows that
    share no cards (``shared`` False) are independent, ``sqrt(se_A^2 + se_B^2)``; and where
    both errors are exact, the variance is ``se_A^2 + se_B^2 - 2 rho se_A se_B``
    with only the correlation ``rho`` taken from the batches: a handful of batches that
    missed a rare large prize understate each row's spread, but not their correlation.
    Without ``errors`` the batches alone give it (batch means on the per-batch differences).
    """
    column, sign = STAKE_COLUMN[basis], SIGN[basis]
    width = max(row.width, base.width)
    a, b = row.at_width(width), base.at_width(width)
    n = max(len(a), len(b))
    nan = PairedDifference(math.nan, math.nan, n, math.nan, math.nan, math.nan, math.nan)
    stake_a = sum(x[column] for x in a)
    stake_b = sum(x[column] for x in b)
    if stake_a == 0 or stake_b == 0:
        return nan
    edge_a = sign * sum(x[1] for x in a) / stake_a
    edge_b = sign * sum(x[1] for x in b) / stake_b
    diff = edge_a - edge_b + 0.0
    if errors is not None and not shared:  # independent rows: the rows' errors alone
        se_a, se_b = errors[0].se, errors[1].se
        se = math.hypot(se_a, se_b)
        dof = _satterthwaite((se_a ** 2, errors[0].dof), (se_b ** 2, errors[1].dof))
        half = t95(dof) * se
        return PairedDifference(diff, se, n, diff - half, diff + half, se_a ** 2, se_b ** 2, dof)
    if n < 2:  # the difference is known; its spread between batches is not
        return replace(nan, diff=diff)
    zero = [0.0] * 4
    a += [zero] * (n - len(a))
    b += [zero] * (n - len(b))
    scale = n / (n - 1)
    # The residual N_b - (N / S) S_b of each batch, over S (its sign is the same for both).
    ra = [(x[1] - sign * edge_a * x[column]) / stake_a for x in a]
    rb = [(x[1] - sign * edge_b * x[column]) / stake_b for x in b]
    var_a = scale * sum(p * p for p in ra)
    var_b = scale * sum(q * q for q in rb)
    # Batch means on the per-batch differences: honest where each row's batches show its
    # spread (light tails), and the most precise when the rows are close to one another.
    batch = scale * sum((p - q) ** 2 for p, q in zip(ra, rb))
    rho = (max(-1.0, min(1.0, scale * sum(p * q for p, q in zip(ra, rb))
                         / math.sqrt(var_a * var_b))) if var_a > 0 and var_b > 0 else math.nan)
    if errors is None:
        se = math.sqrt(max(batch, 0.0))
        half = t95(n - 1) * se
        return PairedDifference(diff, se, n, diff - half, diff + half, var_a, var_b, n - 1,
                                rho)
    se_a, se_b = errors[0].se, errors[1].se
    # Within what the rows' own errors allow whatever their correlation, |se_A -+ se_B|
    # (above only where both are to be trusted: a row's unreliable error may be too small).
    var, dof = max(batch, (se_a - se_b) ** 2), float(n - 1)
    if not (errors[0].unreliable or errors[1].unreliable):
        var = min(var, (se_a + se_b) ** 2)
    if errors[0].exact and errors[1].exact and n >= MIN_BATCHES and math.isfinite(rho):
        # Exact SDs: the batches may have missed a rare large outcome that the SDs count,
        # so the variance is taken from them, with the correlation alone from the batches
        # (two batches always correlate perfectly: not below MIN_BATCHES). Not the larger
        # of this and the batches' own: that would count the batches' luck twice and cover
        # more than 95% (97.6% over 400 seeds of bonus rows, 95.6% with this alone).
        cross = 2 * rho * se_a * se_b
        var = max(se_a ** 2 + se_b ** 2 - cross, (se_a - se_b) ** 2)
        # Satterthwaite, with var(rho-hat) ~ (1 - rho^2)^2 / (n - 1).
        spread = 4 * (se_a * se_b) ** 2 * (1 - rho * rho) ** 2 / (n - 1)
        dof = max(n - 1.0, 2 * var * var / spread if spread > 0 else math.inf)
    se = math.sqrt(var)
    half = t95(dof) * se
    return PairedDifference(diff, se, n, diff - half, diff + half, se_a ** 2, se_b ** 2, dof,
                            rho)


def _satterthwaite(*parts: tuple[float, float]) -> float:
    """The degrees of freedom of a sum of variance estimates, each (value, its dof)."""
    total = sum(v for v, _ in parts)
    denominator = sum(v * v / d for v, d in parts if v > 0 and math.isfinite(d))
    if total <= 0 or denominator == 0:
        return math.inf
    return total * total / denominator


# ------------------------------------------------------------------- who against whom
@dataclass(frozen=True)
class Comparison:
    """Row ``row`` against its baseline row ``base``; ``kind``: "strategy" or "variant"."""

    row: Pair
    base: Pair
    kind: str


def baselines(resolved: Mapping[str, Any], variants: Sequence[str], strategies: Sequence[str]
              ) -> tuple[int, int]:
    """The indices of the baseline variant and strategy (``baseline_variant``, ``baseline``).

    Raises:
        UnknownName: a baseline naming no variant or strategy of the experiment.
    """
    strategy = resolved.get("baseline") or strategies[0]
    variant = resolved.get("baseline_variant") or variants[0]
    if strategy not in strategies:
        raise UnknownName("strategy", strategy, strategies)
    if variant not in variants:
        raise UnknownName("variant", variant, variants)
    return variants.index(variant), strategies.index(strategy)


def comparisons(experiment: Any) -> list[Comparison]:
    """Every row against its baseline: strategies within each variant, then each variant's
    rows against the same strategy in the baseline variant."""
    variants = [v.name for v in experiment.variants]
    strategies = [s.name for s in experiment.strategies]
    base_v, base_s = baselines(experiment.resolved, variants, strategies)
    out = [Comparison((v, s), (v, base_s), "strategy") for v in range(len(variants))
           for s in range(len(strategies)) if s != base_s]
    out += [Comparison((v, s), (base_v, s), "variant") for v in range(len(variants))
            if v != base_v for s in range(len(strategies))]
    return out


# ----------------------------------------------------------------------- the table
COMPARISON_COLUMNS = [
    "kind", "game", "variant", "strategy", "baseline_variant", "baseline_strategy", "rounds",
    "baseline_rounds", "headline_basis", "diff", "diff_stderr", "diff_ci95_low",
    "diff_ci95_high", "independent_stderr", "variance_reduction", "variance_reduction_low",
    "variance_reduction_high", "correlation", "diff_exact", "diff_z", "batches", "dof",
    "shared_cards", "diff_per_initial_bet", "diff_stderr_per_initial_bet",
    "exact_diff_per_initial_bet", "diff_z_per_initial_bet", "diff_per_total_wagered",
    "diff_stderr_per_total_wagered", "exact_diff_per_total_wagered",
    "diff_z_per_total_wagered", "note",
]
# Where a report row keeps the exact value of each basis.
EXACT_COLUMN = {"initial": "exact_edge", "wagered": "exact_edge_per_total_wagered",
                ROUND: "edge_exact"}
SUMMARY_COMPARISON_COLUMNS = ["variant", "strategy", "baseline_variant", "baseline_strategy",
                              "diff", "diff_stderr", "diff_ci95_low", "diff_ci95_high",
                              "independent_stderr", "variance_reduction", "diff_exact",
                              "diff_z", "note"]


def row_error(row: Mapping[str, Any], basis: str) -> RowError:
    """A report row's own standard error on a basis, as its report gives it: the exact SD's
    where the game has it, else the sample's (from every round, or from its batches where
    rounds are dependent), with the degrees of freedom it rests on and, where the report
    flags it, why it cannot be trusted."""
    if basis == ROUND:  # a points game's only basis: its headline
        if row.get("stderr_source") == "exact":
            return RowError(_number(row.get("edge_stderr")), exact=True)
        column = "edge_stderr"
    else:
        exact_column, column = (("stderr_exact", "stderr") if basis == "initial" else
                                ("stderr_exact_per_total_wagered", "stderr_per_total_wagered"))
        exact = _number(row.get(exact_column))
        if math.isfinite(exact):
            return RowError(exact, exact=True)
    batches = _number(row.get("stderr_batches"))
    dof = batches - 1 if math.isfinite(batches) else max(float(row["rounds"]) - 1, 1.0)
    note = row.get("note") if isinstance(row.get("note"), str) else ""
    unreliable = "; ".join(part for part in note.split("; ")
                           if part.startswith(UNRELIABLE_NOTES))
    return RowError(_number(row.get(column)), dof, unreliable)


def _number(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def comparison_frame(experiment: Any, totals: Mapping[Pair, BatchTotals],
                     frame: pd.DataFrame, grid_columns: Sequence[str] = ()) -> pd.DataFrame:
    """``comparisons.csv``: each row against its baseline, on both bases, headline first.

    The paired error takes each row's own error as the report gives it and the correlation
    from the paired batches (:func:`paired_difference`); rows of variants that deal different
    packs share no cards and are independent. The independent standard error is what two
    independent runs of the same rounds would have had (``sqrt(se_A^2 + se_B^2)``); the
    variance reduction factor is its square over the paired one's, with a 95% range from the
    correlation's (Fisher's z on the paired batches).
    """
    game = games.get(experiment.game)
    measure = game.measure
    index = {(r["variant"], r["strategy"]): r for r in frame.to_dict("records")}
    names = ([v.name for v in experiment.variants], [s.name for s in experiment.strategies])
    packs = [game.pack_key(v.rules) for v in experiment.variants]
    rows = []
    for comp in comparisons(experiment):
        a = index[(names[0][comp.row[0]], names[1][comp.row[1]])]
        b = index[(names[0][comp.base[0]], names[1][comp.base[1]])]
        shared = packs[comp.row[0]] == packs[comp.base[0]]
        out: dict[str, Any] = {
            "kind": comp.kind, "game": experiment.game, "variant": a["variant"],
            "strategy": a["strategy"], "baseline_variant": b["variant"],
            "baseline_strategy": b["strategy"],
            **{c: a.get(c) for c in grid_columns},
            "rounds": a["rounds"], "baseline_rounds": b["rounds"],
            "headline_basis": a["headline_basis"], "shared_cards": shared}
        not_offered = any(isinstance(r.get("note"), str) and r["note"].startswith(
            "not offered") for r in (a, b))
        for side in measure.bases:
            exact_column = EXACT_COLUMN[side]
            errors = (row_error(a, side), row_error(b, side))
            paired = paired_difference(totals[comp.row], totals[comp.base], side, errors,
                                       shared)
            if not_offered:
                paired = PairedDifference(math.nan, math.nan, paired.batches, math.nan,
                                          math.nan, math.nan, math.nan)
            exact = a[exact_column] - b[exact_column]
            if abs(exact) < 1e-12:  # two exact values equal but for float rounding
                exact = 0.0
            if measure.kind == STAKES:  # both bases, each in its own columns
                suffix = "per_initial_bet" if side == "initial" else "per_total_wagered"
                out[f"diff_{suffix}"] = paired.diff
                out[f"diff_stderr_{suffix}"] = paired.stderr
                out[f"exact_diff_{suffix}"] = exact
                out[f"diff_z_{suffix}"] = z_score(paired.diff, exact, paired.stderr)
            if side != measure.basis:
                continue
            independent = math.hypot(errors[0].se, errors[1].se)
            reduction = (independent / paired.stderr) ** 2 if paired.stderr > 0 else math.nan
            low, high = _reduction_range(paired, errors, shared)
            out.update({
                "diff": paired.diff, "diff_stderr": paired.stderr,
                "diff_ci95_low": paired.low, "diff_ci95_high": paired.high,
                "independent_stderr": independent, "variance_reduction": reduction,
                "variance_reduction_low": low, "variance_reduction_high": high,
                "correlation": paired.correlation, "diff_exact": exact,
                "diff_z": z_score(paired.diff, exact, paired.stderr),
                "batches": paired.batches, "dof": paired.dof,
                "note": "; ".join(_comparison_notes(paired, errors, shared, (a, b),
                                                    reduction, (low, high)))})
        rows.append(out)
    every = COMPARISON_COLUMNS if measure.kind == STAKES else [
        c for c in COMPARISON_COLUMNS if not c.endswith(("_per_initial_bet", "_per_total_wagered"))]
    columns = every[:6] + list(grid_columns) + every[6:]
    return pd.DataFrame(rows, columns=columns)


def _reduction_range(paired: PairedDifference, errors: tuple[RowError, RowError],
                     shared: bool) -> tuple[float, float]:
    """The 95% range of the variance reduction factor: the correlation's 95% interval by
    Fisher's z over the paired batches, through ``(a^2 + b^2) / (a^2 + b^2 - 2 rho a b)``."""
    if not shared:
        return 1.0, 1.0  # no cards in common: exactly no gain
    rho = paired.batch_correlation
    se_a, se_b = errors[0].se, errors[1].se
    if paired.batches < 4 or not math.isfinite(rho) or not (se_a > 0 and se_b > 0):
        return math.nan, math.nan
    centre = math.atanh(max(-0.999999, min(0.999999, rho)))
    half = Z95 / math.sqrt(paired.batches - 3)
    total = se_a ** 2 + se_b ** 2

    def factor(r: float) -> float:
        return total / min(max(total - 2 * r * se_a * se_b, (se_a - se_b) ** 2, 1e-300),
                           (se_a + se_b) ** 2)

    return factor(math.tanh(centre - half)), factor(math.tanh(centre + half))


def _comparison_notes(paired: PairedDifference, errors: tuple[RowError, RowError],
                      shared: bool, rows: tuple[Mapping[str, Any], Mapping[str, Any]],
                      reduction: float, reduction_range: tuple[float, float]) -> list[str]:
    """What a comparison's note says: of the batches its correlation rests on, of a row's own
    error that cannot be trusted, of a baseline that does not vary, and of what pairing did."""
    notes = []
    if shared and paired.batches < MIN_BATCHES:
        notes.append(_batches_note(paired.batches))
    for error, row in zip(errors, rows):
        if error.unreliable:
            notes.append(f"{row['variant']} / {row['strategy']}: {error.unreliable}")
    if not math.isfinite(paired.stderr):
        return notes
    if shared and errors[1].se == 0 and errors[0].se > 0:
        notes.append("the baseline does not vary (its edge is exact every round): the "
                     "difference has the row's own error, and pairing gains nothing; set "
                     "baseline = \"name\" to compare with another strategy")
    elif shared and math.isfinite(reduction) and reduction_range[1] < 1:
        notes.append(f"pairing made the difference noisier (variance reduction "
                     f"{reduction:.2f}): the two rows move against each other (correlation "
                     f"{paired.correlation:+.2f})")
    return notes


def reduction_uncertain(low: float, high: float) -> bool:
    """Whether a variance reduction's 95% range leaves open if pairing helped at all."""
    return math.isfinite(low) and math.isfinite(high) and low < 1 < high


def _batches_note(batches: int) -> str:
    """What a comparison's note says of the batches its paired error rests on."""
    if batches < 2:
        return (f"one paired batch (chunk): no paired error, only the independent one; use "
                f"{MIN_BATCHES} chunks or more")
    return (f"only {batches} paired batches (chunks): the correlation is rough; use "
            f"{MIN_BATCHES} chunks or more")


# ------------------------------------------------------------------ target precision
@dataclass(frozen=True)
class Targets:
    """The precision a run is asked for (None: not asked)."""

    ci: float | None = None
    diff_ci: float | None = None

    @property
    def any(self) -> bool:
        return self.ci is not None or self.diff_ci is not None


def targets_of(resolved: Mapping[str, Any]) -> Targets:
    return Targets(resolved.get("target_ci"), resolved.get("target_diff_ci"))


class TargetRule:
    """Decides, chunk count by chunk count, which rows have reached the target precision.

    Rows of one *group* advance in lockstep: a group's chunk ``k`` is merged only when every
    row of it still playing has chunk ``k``, and the decision at ``k`` looks at nothing but the
    merged first ``k`` chunks of those rows. With a per-row target each row is its own group;
    with a target on the paired differences all rows form one group (a difference needs both
    its rows at the same chunk count).
    """

    def __init__(self, experiment: Any, targets: Targets) -> None:
        self.targets = targets
        game = games.get(experiment.game)
        self.basis = game.measure.basis
        pairs = [(v, s) for v in range(len(experiment.variants))
                 for s in range(len(experiment.strategies))]
        self.comparisons = comparisons(experiment) if targets.diff_ci is not None else []
        self.exact_sd = self._exact_sd(experiment, game) if targets.ci is not None else {}
        # A bet the variant does not offer has no edge to make precise: it plays no rounds.
        self.not_offered = {
            (vi, si) for vi, variant in enumerate(experiment.variants)
            for si, spec in enumerate(experiment.strategies)
            if game.not_offered(variant.rules, spec.build(experiment.game)) is not None}
        if targets.diff_ci is not None:
            self.groups = [pairs]
        else:
            self.groups = [[p] for p in pairs]

    def _exact_sd(self, experiment: Any, game: Any) -> dict[Pair, tuple[float, float]]:
        """Per row: the exact SD of the residual and the mean stake on the headline basis,
        where the game gives them (the report's error then uses them, and so does the rule)."""
        out = {}
        for vi, variant in enumerate(experiment.variants):
            for si, spec in enumerate(experiment.strategies):
                exact = game.exact(variant.rules, spec.build(experiment.game), spec.progression)
                if exact is None:
                    continue
                sd, stake = {"initial": (exact.sd_net, exact.mean_initial_stake),
                             "wagered": (exact.sd_residual_total, exact.mean_total_wagered),
                             ROUND: (exact.sd_net, 1.0)}[self.basis]
                if sd is not None and stake:
                    out[(vi, si)] = (float(sd), float(stake))
        return out

    def row_halfwidth(self, pair: Pair, stats: Stats) -> float:
        """The 95% half-width of a row's headline edge, as the report will give it."""
        if pair in self.exact_sd and stats.rounds:
            sd, stake = self.exact_sd[pair]
            return Z95 * sd / math.sqrt(stats.rounds) / stake
        se = stats.estimate(self.basis)[1]
        return Z95 * se if stats.stderr_reliable else math.nan

    def decide(self, chunks: int, stats: Mapping[Pair, Stats],
               totals: Mapping[Pair, BatchTotals], deciding: Sequence[Pair],
               met: Mapping[Pair, bool]) -> set[Pair]:
        """The rows of ``deciding`` (all at ``chunks`` chunks) that meet their target here.

        A row meets it when each target asked of it is met: its own half-width (``ci``), the
        half-width of its differences from its baselines (``diff_ci``), and, where it is itself
        a baseline, when every row compared with it has met its own (at this count or before;
        ``met`` says which rows met theirs earlier). A baseline of a row that never meets its
        target plays its whole budget.
        """
        if chunks < MIN_TARGET_CHUNKS:
            return set()
        own = set()
        for pair in deciding:
            ok = True
            if self.targets.ci is not None:
                half = self.row_halfwidth(pair, stats[pair])
                ok = math.isfinite(half) and half <= self.targets.ci
            if ok and self.targets.diff_ci is not None:
                mine = [c for c in self.comparisons if c.row == pair]
                related = mine or [c for c in self.comparisons if c.base == pair]
                ok = bool(related) and chunks >= MIN_BATCHES and all(
                    self._diff_met(totals[c.row], totals[c.base]) for c in mine)
            if ok:
                own.add(pair)
        stopping = set(own)
        changed = True
        while changed:  # a baseline waits for every row compared with it
            changed = False
            for pair in sorted(stopping):
                waits = [c.row for c in self.comparisons if c.base == pair]
                if any(not met.get(r) and r not in stopping for r in waits):
                    stopping.discard(pair)
                    changed = True
        return stopping

    def _diff_met(self, row: BatchTotals, base: BatchTotals) -> bool:
        paired = paired_difference(row, base, self.basis)
        return math.isfinite(paired.halfwidth) and paired.halfwidth <= self.targets.diff_ci


def target_rule(experiment: Any) -> TargetRule | None:
    """The stopping rule of an experiment with a target precision, else None."""
    targets = targets_of(experiment.resolved)
    return TargetRule(experiment, targets) if targets.any else None


def compare_settings(data: Mapping[str, Any], error: Any, variants: Sequence[str],
                     strategies: Sequence[str]) -> dict[str, Any]:
    """The experiment file's comparison keys, checked: ``baseline`` (a strategy's name),
    ``baseline_variant`` (a variant's), ``target_ci`` and ``target_diff_ci`` (positive
    half-widths, as fractions: 0.001 is 0.1 percentage point).

    Raises:
        The ``error`` built for a key naming no row or a target that is not a positive number.
    """
    out: dict[str, Any] = {}
    for key, known, what in (("baseline", strategies, "strategy"),
                             ("baseline_variant", variants, "variant")):
        if key not in data:
            continue
        value = data[key]
        if not isinstance(value, str) or value not in known:
            raise error(key, str(UnknownName(what, str(value), known)))
        out[key] = value
    for key in ("target_ci", "target_diff_ci"):
        if key not in data:
            continue
        value = data[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or \
                not math.isfinite(value) or value <= 0:
            raise error(key, f"expected a positive half-width (0.001 is 0.1 point), "
                             f"got {value!r}")
        out[key] = float(value)
    return out


# ------------------------------------------------------------- the report's own columns
def grid_columns(experiment: Any) -> list[str]:
    """The swept parameters of a grid experiment, in the order they were written."""
    return list((experiment.resolved.get("grid") or {}).get("columns", []))


def row_columns(result: Any, pair: Pair) -> dict[str, Any]:
    """A report row's grid point (one column per swept parameter: NaN where the row does not
    sweep it) and, with a target precision, the targets and whether the row met them."""
    exp = result.experiment
    swept = exp.resolved.get("grid") or {}
    point = {**swept.get("variants", {}).get(exp.variants[pair[0]].name, {}),
             **swept.get("strategies", {}).get(exp.strategies[pair[1]].name, {})}
    out: dict[str, Any] = {c: point.get(c, math.nan) for c in swept.get("columns", [])}
    targets = targets_of(exp.resolved)
    if targets.any:
        out["target_ci"] = math.nan if targets.ci is None else targets.ci
        out["target_diff_ci"] = math.nan if targets.diff_ci is None else targets.diff_ci
        out["target_met"] = bool(result.stopped.get(pair, False))
    return out


def target_lines(frame: pd.DataFrame, experiment: Any) -> list[str]:
    """Markdown lines saying, per row, whether it met its target and in how many rounds: a
    bet not offered played none, and a baseline with no target of its own (``target_diff_ci``)
    played until every row compared with it had stopped."""
    if "target_met" not in frame:
        return []
    asked = [f"95% CI half-width of the headline edge <= {100 * t:.4g} points"
             for t in frame["target_ci"].dropna().unique()]
    asked += [f"95% CI half-width of each paired difference <= {100 * t:.4g} points"
              for t in frame["target_diff_ci"].dropna().unique()]
    names = ([v.name for v in experiment.variants], [s.name for s in experiment.strategies])
    own_target = not frame["target_ci"].isna().all()
    compared = {(names[0][c.row[0]], names[1][c.row[1]]) for c in comparisons(experiment)}
    lines = [f"Target precision: {'; '.join(asked)} (the rounds budget at most).", ""]
    for row in frame.itertuples(index=False):
        note = row.note if isinstance(row.note, str) else ""
        if note.startswith("not offered") and not row.rounds:
            outcome = "not offered: played no rounds"
        elif not own_target and (row.variant, row.strategy) not in compared:
            outcome = (f"a baseline: played until every row compared with it stopped, "
                       f"{row.rounds:,} rounds")
        elif row.target_met:
            outcome = f"met the target in {row.rounds:,} rounds"
        else:
            outcome = f"did not meet the target in {row.rounds:,} rounds (budget spent)"
        lines.append(f"- {row.variant} / {row.strategy}: {outcome}")
    return [*lines, ""]
