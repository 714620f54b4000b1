"""Paired comparisons: the paired standard error is honest, with and without shared cards."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from scipy import stats as scipy_stats

from sim.core.stats import MAX_PAIRED_BATCHES, BatchTotals, Stats
from sim.engine.compare import paired_difference, t95
from sim.games.faro import GAME as FARO
from sim.games.faro.rules import PRESETS
from strategies.betting import progression_spec
from strategies.faro import FlatRank

FLAT = progression_spec(None)
SODA = PRESETS["faro"]
NO_SODA = replace(SODA, soda=False)
STUSS = PRESETS["stuss"]  # faro with the banker taking the whole of a split
KING = FlatRank("K")
CHUNKS, ROUNDS, RUNS = 12, 1500, 200


def _row(rules, seeds) -> BatchTotals:
    totals = BatchTotals()
    for seed in seeds:
        totals.add(FARO.simulate(rules, KING, FLAT, ROUNDS, seed))
    return totals


_RUNS: dict = {}


def _runs(row_rules, base_rules, shared: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per run: the difference (row minus baseline, per amount wagered), its paired SE and
    whether its 95% CI covers the exact difference."""
    key = (row_rules, base_rules, shared)
    if key not in _RUNS:
        _RUNS[key] = _measure(row_rules, base_rules, shared)
    return _RUNS[key]


def _measure(row_rules, base_rules, shared: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    exact = (FARO.exact(row_rules, KING, FLAT).edge_per_total_wagered
             - FARO.exact(base_rules, KING, FLAT).edge_per_total_wagered)
    diffs, ses, covered = [], [], []
    for run in range(RUNS):
        seeds = [np.random.SeedSequence(run, spawn_key=(c,)) for c in range(CHUNKS)]
        # shared: both rows deal chunk c from the same seed (common random numbers);
        # else the baseline's chunks have their own seeds.
        other = seeds if shared else [np.random.SeedSequence(run, spawn_key=(c, 1))
                                      for c in range(CHUNKS)]
        paired = paired_difference(_row(row_rules, seeds), _row(base_rules, other), "wagered")
        assert paired.batches == CHUNKS
        diffs.append(paired.diff)
        ses.append(paired.stderr)
        covered.append(paired.low <= exact <= paired.high)
    return np.array(diffs), np.array(ses), np.array(covered)


# Stuss against faro on the same cards: strongly correlated (only splits differ). No soda
# against soda on the same shuffle: the burnt card shifts every turn, so they are weakly
# (negatively) correlated. And the same on cards of their own: independent.
CASES = {"stuss v faro, shared cards": (STUSS, SODA, True),
         "stuss v faro, independent": (STUSS, SODA, False),
         "no soda v soda, shared cards": (NO_SODA, SODA, True)}


@pytest.mark.parametrize("case", CASES)
def test_paired_se_matches_the_spread_and_the_ci_covers_the_exact_difference(case):
    diffs, ses, covered = _runs(*CASES[case])
    spread = diffs.std(ddof=1)
    reported = math.sqrt(np.mean(ses ** 2))  # the mean of variance estimates is unbiased
    # 200 runs: the spread's own relative error is 1/sqrt(2 * 199) = 5%; 15% is three of those.
    assert abs(reported / spread - 1) < 0.15, (reported, spread)
    # Coverage at its nominal 95%: inside the central 99.98% of Binomial(200, 0.95).
    low, high = scipy_stats.binom.ppf([1e-4, 1 - 1e-4], RUNS, 0.95)
    assert low <= covered.sum() <= high, covered.sum()


def test_shared_cards_cut_the_variance_of_a_difference():
    shared = _runs(STUSS, SODA, True)[1]
    independent = _runs(STUSS, SODA, False)[1]
    assert np.mean(shared ** 2) * 10 < np.mean(independent ** 2)


def _stats(rounds: int, net: float, stake: float) -> Stats:
    stats = Stats(rounds=rounds, wins=rounds)
    stats.sums.update(sum_net=net, sum_initial=stake, sum_wagered=stake)
    return stats


def test_batch_totals_stay_bounded_and_aligned():
    one, other = BatchTotals(), BatchTotals()
    chunks = 3 * MAX_PAIRED_BATCHES + 5
    for c in range(chunks):
        one.add(_stats(10, float(c), 10.0))
    for c in range(MAX_PAIRED_BATCHES + 1):
        other.add(_stats(10, float(c), 10.0))
    assert len(one.batches) <= MAX_PAIRED_BATCHES and one.width == 4
    assert other.width == 2
    # Batch b at width w holds chunks b*w .. b*w + w - 1, whatever the row's length.
    assert one.batches[1][1] == sum(range(4, 8))
    assert other.at_width(4)[1][1] == sum(range(4, 8))
    assert sum(b[0] for b in one.batches) == 10 * chunks
    assert BatchTotals.from_json(one.to_json()) == one


def test_a_difference_of_a_row_with_itself_has_no_error():
    row = BatchTotals()
    for c in range(5):
        row.add(_stats(10, float(c % 3) - 1.0, 10.0))
    paired = paired_difference(row, row, "initial")
    assert paired.diff == 0 and paired.stderr == 0 and paired.batches == 5


@pytest.mark.parametrize("dof", [1, 2, 3, 9, 30, 255, 999])
def test_t95_is_students_two_sided_quantile(dof):
    assert t95(dof) == scipy_stats.t.ppf(0.975, dof)


def test_terminal_comparison_cells_never_run_together():
    from sim.outputs.report import comparison_terminal

    paired = pd.DataFrame({
        "variant": ["no-fifth-card-buy", "b"], "strategy": ["optimal", "s"],
        "baseline_variant": ["british-home", "a"], "baseline_strategy": ["optimal", "s"],
        "diff": [0.02774, -12.3456], "diff_stderr": [0.00136, 0.5],
        "independent_stderr": [0.16335, 0.6], "variance_reduction": [14406.2, 1.4],
        "diff_exact": [math.nan, -12.3], "diff_z": [math.nan, -0.09],
        "headline_basis": ["per initial stake"] * 2, "note": ["", ""]})
    lines = comparison_terminal(paired).splitlines()
    header, first = lines[1].split(), lines[2].split()
    assert header == ["row", "baseline", "diff", "±", "paired", "±", "indep.", "VRF", "exact",
                      "z"]
    # Every number stands apart: the row reads back as its cells.
    assert first == ["no-fifth-card-buy", "/", "optimal", "british-home", "/", "optimal",
                     "2.774", "0.136", "16.335", "14406.2"]
    assert lines[3].split()[6:] == ["-1234.560", "50.000", "60.000", "1.4", "-1230.000",
                                    "-0.09"]


def test_one_batch_gives_the_difference_without_a_paired_error():
    # One chunk each: the difference of the two edges is known, its spread between batches
    # is not. The row shows the difference, no paired error, and says why.
    row, base = BatchTotals(), BatchTotals()
    row.add(_stats(10, -3.0, 10.0))
    base.add(_stats(10, 1.0, 20.0))
    paired = paired_difference(row, base, "initial")
    assert paired.diff == pytest.approx(0.3 - (-0.05)) and paired.batches == 1
    assert math.isnan(paired.stderr) and math.isnan(paired.low) and math.isnan(paired.high)
    assert math.isnan(paired_difference(row, BatchTotals(), "initial").diff)  # no stake


def test_the_terminal_table_gives_every_note_once():
    from sim.outputs.report import comparison_terminal

    notes = ["only 4 paired batches", "one paired batch", "only 4 paired batches", ""]
    paired = pd.DataFrame({
        "variant": list("abcd"), "strategy": "s", "baseline_variant": "z",
        "baseline_strategy": "s", "diff": [0.1, 0.2, 0.3, 0.4],
        "diff_stderr": [0.01, math.nan, 0.01, 0.01], "independent_stderr": 0.02,
        "variance_reduction": [4.0, math.nan, 4.0, 4.0], "diff_exact": math.nan,
        "diff_z": math.nan, "headline_basis": "per initial stake", "note": notes})
    lines = comparison_terminal(paired).splitlines()
    assert [line for line in lines if line.startswith("* ")] == [
        "* only 4 paired batches", "* one paired batch"]
    assert lines[3].split()[-2:] == ["20.000", "2.000"]  # the difference, no paired error


def _noisy_row(seed: int, chunks: int = 12, prize_every: int = 0) -> BatchTotals:
    """A row of batches of 100 rounds of a 1-unit bet losing 5% on average."""
    rng = np.random.default_rng(seed)
    totals = BatchTotals()
    for _ in range(chunks):
        net = float(rng.normal(-5.0, 10.0))
        totals.add(_stats(100, net, 100.0))
    return totals


def test_rows_that_share_no_cards_are_independent():
    from sim.engine.compare import RowError

    a, b = _noisy_row(1), _noisy_row(2)
    errors = (RowError(0.03, exact=True), RowError(0.04, exact=True))
    paired = paired_difference(a, b, "initial", errors, shared=False)
    assert paired.stderr == pytest.approx(0.05) and paired.correlation == pytest.approx(0.0)
    assert paired.high - paired.diff == pytest.approx(1.959963984540054 * 0.05)


def test_a_paired_error_is_never_below_what_the_rows_own_errors_allow():
    from sim.engine.compare import RowError

    # The same batches for both rows: the batches say the difference never varies, but the
    # rows' own errors (say, exact SDs that count a rare prize) differ by 0.02.
    a = _noisy_row(3)
    for exact in (True, False):
        errors = (RowError(0.05, exact=exact), RowError(0.03, exact=exact))
        paired = paired_difference(a, a, "initial", errors)
        assert paired.stderr >= 0.02 * (1 - 1e-12)


def test_exact_sds_count_the_spread_that_the_batches_missed():
    from sim.engine.compare import RowError

    # Batches that saw a spread of 0.01 per row, uncorrelated; exact SDs ten times that.
    a, b = _noisy_row(4), _noisy_row(5)
    batches_only = paired_difference(a, b, "initial")
    exact = paired_difference(a, b, "initial", (RowError(0.1, exact=True),
                                                RowError(0.1, exact=True)))
    assert exact.stderr > 2 * batches_only.stderr
    assert 0.05 < exact.stderr < 0.2  # sqrt(2) x 0.1, give or take the correlation's noise


def _faro(strategies, rounds=60_000, **extra):
    from sim import api
    from sim.engine import compare
    from sim.outputs import report
    from tests.conftest import run_in_memory

    experiment = api.load({"name": "pairing", "game": "faro", "rounds": rounds,
                           "chunk_rounds": rounds // 20, "seed": 7,
                           "strategies": strategies, **extra})
    result = run_in_memory(experiment)
    frame = report.build(result)
    return compare.comparison_frame(experiment, result.totals, frame)


def test_a_pairing_that_makes_a_difference_noisier_says_so():
    # Coppering the king bets against the flat king on the same turns: they move apart.
    paired = _faro([{"name": "flat king", "use": "flat-rank", "params": {"ranks": "K"}},
                    {"name": "copper king", "use": "copper", "params": {"ranks": "K"}}],
                   rounds=400_000)
    row = paired.iloc[0]
    assert row.variance_reduction < 1 and row.variance_reduction_high < 1
    assert "pairing made the difference noisier" in row.note


def test_the_variance_reduction_has_a_range_and_an_inconclusive_one_is_marked():
    from sim.outputs.report import comparison_terminal

    paired = _faro([{"name": "flat king", "use": "flat-rank", "params": {"ranks": "K"}},
                    {"name": "flat queen", "use": "flat-rank", "params": {"ranks": "Q"}}])
    row = paired.iloc[0]
    assert row.variance_reduction_low < row.variance_reduction < row.variance_reduction_high
    text = comparison_terminal(paired)
    if row.variance_reduction_low < 1 < row.variance_reduction_high:
        assert f"{row.variance_reduction:.1f}?" in text and "95% range includes 1" in text


def test_faro_comparisons_are_shown_per_deal_too():
    from sim.outputs.report import comparison_terminal

    paired = _faro([{"name": "flat king", "use": "flat-rank", "params": {"ranks": "K"}},
                    {"name": "case bets", "use": "flat-rank", "params": {"ranks": "all"}}])
    text = comparison_terminal(paired)
    assert "per amount wagered" in text and "the same differences per initial stake" in text


def test_a_baseline_that_never_varies_says_pairing_gains_nothing():
    from sim import api
    from sim.engine import compare
    from sim.outputs import report
    from tests.conftest import run_in_memory

    # Never passing the bank loses all of it every time: -100% +- 0, a constant.
    experiment = api.load({"name": "constant", "game": "lansquenet", "rounds": 20_000,
                           "chunk_rounds": 2_000, "seed": 3, "baseline": "never pass",
                           "strategies": [{"name": "pass after 2", "use": "pass-after",
                                           "params": {"wins": 2}},
                                          {"name": "never pass", "use": "never-pass"}]})
    result = run_in_memory(experiment)
    frame = report.build(result)
    assert frame.set_index("strategy").loc["never pass", "edge_stderr"] == 0
    row = compare.comparison_frame(experiment, result.totals, frame).iloc[0]
    assert row.diff_stderr == pytest.approx(frame.set_index("strategy").loc[
        "pass after 2", "edge_stderr"])
    assert "the baseline does not vary" in row.note


@pytest.mark.parametrize("data", [
    {"game": "bridge", "variants": {"nine-never": {"preset": "nine-never"}},
     "strategies": [{"use": "finesse"}, {"use": "drop"}, {"use": "survey"}]},
    {"game": "cribbage", "variants": {"pone": {"preset": "six-card", "seat": "pone"}},
     "strategies": [{"use": "first-cards"}, {"use": "best-hand"}]},
    {"game": "piquet", "strategies": [{"use": "point"}, {"use": "lowest"}]},
], ids=["bridge", "cribbage", "piquet"])
def test_points_games_compare_their_rows_paired_in_their_own_units(data):
    """A points game's rows are compared like any other's: their means per deal, paired on
    the same cards, with an error, an interval and (where both rows are exact) z."""
    from sim import api
    from sim.engine import compare
    from sim.outputs import report
    from tests.conftest import run_in_memory

    experiment = api.load({"name": "points", "rounds": 6_000, "chunk_rounds": 600,
                           "seed": 5, **data})
    result = run_in_memory(experiment)
    frame = report.build(result)
    assert "edge_per_initial_bet" not in frame and frame["edge"].notna().all()
    paired = compare.comparison_frame(experiment, result.totals, frame)
    assert len(paired) and not any(c.endswith("_per_initial_bet") for c in paired)
    for column in ("diff", "diff_stderr", "diff_ci95_low", "diff_ci95_high",
                   "independent_stderr", "variance_reduction"):
        assert paired[column].notna().all(), column
    means = frame.set_index("strategy")["edge"]
    for row in paired.itertuples():
        assert row.diff == pytest.approx(means[row.strategy] - means[row.baseline_strategy])
    text = report.comparison_terminal(paired)
    assert "points of %" not in text and "the measure's units" in text
