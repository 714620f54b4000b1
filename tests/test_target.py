"""A target precision: rows stop at the target, the same for any jobs and after a resume."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from sim.cli import main
from sim.core.stats import Z95
from sim.engine import runner
from tests.conftest import ctrl_c_at

CHUNK = 5_000
EXPERIMENT = f"""
game = "faro"
rounds = 200_000
seed = 7
chunk_rounds = {CHUNK}
[variants.faro]
preset = "faro"
[variants.stuss]
preset = "stuss"
[[strategies]]
name = "flat king"
use = "flat-rank"
params = {{ ranks = "K" }}
[[strategies]]
name = "case bets"
use = "case-bets"
"""


def _run(tmp_path: Path, out: str, *extra: str) -> int:
    path = tmp_path / "target.toml"
    path.write_text(EXPERIMENT)
    # The numbers only: what these tests compare (charts are drawn from the same chunks).
    return main(["run", str(path), "--out", str(tmp_path / out), "--quiet", "--no-charts",
                 *extra])


def _read(tmp_path: Path, out: str, name: str = "report.csv") -> str:
    return (tmp_path / out / name).read_text()


def test_each_row_stops_at_the_first_chunk_that_meets_the_target(tmp_path):
    target = 0.004
    assert _run(tmp_path, "row", "--target-ci", str(target)) == 0
    frame = pd.read_csv(tmp_path / "row" / "report.csv")
    assert frame.target_met.all() and (frame.rounds < 200_000).all()
    assert (Z95 * frame.edge_stderr <= target).all()
    # ... and not one chunk earlier: the running estimate (every chunk count up to 16).
    conv = pd.read_csv(tmp_path / "row" / "convergence.csv")
    for row in frame.itertuples():
        if row.rounds > 2 * CHUNK:
            before = conv[(conv.variant == row.variant) & (conv.strategy == row.strategy)
                          & (conv.rounds == row.rounds - CHUNK)].iloc[0]
            assert Z95 * before.stderr > target
    assert "met the target in" in _read(tmp_path, "row", "summary.md")


def test_a_row_that_cannot_meet_the_target_plays_its_budget(tmp_path):
    assert _run(tmp_path, "tight", "target_ci=0.0001") == 0
    frame = pd.read_csv(tmp_path / "tight" / "report.csv")
    assert (frame.rounds == 200_000).all() and not frame.target_met.any()
    assert "did not meet the target in 200,000 rounds (budget spent)" in _read(
        tmp_path, "tight", "summary.md")


def test_paired_target_is_the_same_for_one_and_two_jobs_and_after_a_resume(tmp_path, capsys):
    target = ["--target-diff-ci", "0.004"]
    assert _run(tmp_path, "one", *target) == 0
    assert _run(tmp_path, "two", *target, "--jobs", "2") == 0
    for name in ("report.csv", "comparisons.csv", "convergence.csv"):
        assert _read(tmp_path, "one", name) == _read(tmp_path, "two", name)
    frame = pd.read_csv(tmp_path / "one" / "report.csv")
    assert frame.rounds.min() < 200_000  # some row stopped early
    paired = pd.read_csv(tmp_path / "one" / "comparisons.csv")
    met = frame.set_index(["variant", "strategy"]).target_met
    for row in paired.itertuples():
        if met[(row.variant, row.strategy)]:
            assert (row.diff_ci95_high - row.diff_ci95_low) / 2 <= 0.004

    with ctrl_c_at(runner, "run_chunk", 9):
        assert _run(tmp_path, "cut", *target) == 130
    assert _run(tmp_path, "cut", *target, "--resume") == 0
    for name in ("report.csv", "comparisons.csv", "convergence.csv"):
        assert _read(tmp_path, "one", name) == _read(tmp_path, "cut", name)


def test_the_terminal_says_which_rows_met_the_target_and_a_bet_not_offered_plays_none(
        tmp_path, capsys):
    path = tmp_path / "pharo.toml"
    path.write_text(EXPERIMENT.replace('[variants.stuss]\npreset = "stuss"',
                                         '[variants.old-pharo]\npreset = "old-pharo"') + """
[[strategies]]
name = "call the turn"
use = "call-turn"
""")
    assert main(["run", str(path), "--out", str(tmp_path / "out"), "--quiet", "--no-charts",
                 "--target-ci", "0.01"]) == 0
    out = capsys.readouterr().out
    frame = pd.read_csv(tmp_path / "out" / "report.csv").set_index(["variant", "strategy"])
    assert frame.loc[("old-pharo", "call the turn"), "rounds"] == 0
    assert "old-pharo / call the turn: not offered: played no rounds" in out
    rounds = frame.loc[("faro", "flat king"), "rounds"]
    assert rounds < 200_000 and f"faro / flat king: met the target in {rounds:,} rounds" in out


def test_a_baseline_of_a_paired_target_is_not_said_to_have_missed_it(tmp_path):
    assert _run(tmp_path, "diff", "--target-diff-ci", "0.004") == 0
    summary = _read(tmp_path, "diff", "summary.md")
    assert "faro / flat king: a baseline: played until every row compared with it stopped" \
        in summary
    assert "faro / flat king: did not meet" not in summary
