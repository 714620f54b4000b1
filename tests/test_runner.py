"""The runner: same numbers for any number of jobs, and resume after an interruption."""

from pathlib import Path

import pandas as pd
import pytest

from sim.cli import main
from sim.engine import runner
from tests.conftest import ctrl_c_at

SMALL = ["rounds=30000", "chunk_rounds=10000"]
EXPERIMENT = str(Path(__file__).parents[1] / "experiments" / "faro.toml")


def _run(out: Path, *extra: str) -> int:
    return main(["run", EXPERIMENT, "--out", str(out), "--quiet", *SMALL, *extra])


def test_same_report_for_one_and_two_jobs(tmp_path):
    assert _run(tmp_path / "one", "--jobs", "1", "--no-charts") == 0
    assert _run(tmp_path / "two", "--jobs", "2", "--no-charts") == 0
    one = (tmp_path / "one" / "report.csv").read_text()
    two = (tmp_path / "two" / "report.csv").read_text()
    assert one == two
    assert (tmp_path / "one" / "convergence.csv").read_text() == (
        tmp_path / "two" / "convergence.csv").read_text()


def test_dask_backend_gives_the_same_report(tmp_path):
    pytest.importorskip("dask.distributed")
    assert _run(tmp_path / "local", "--jobs", "1", "--no-charts") == 0
    assert _run(tmp_path / "dask", "--jobs", "2", "--backend", "dask", "--no-charts") == 0
    assert (tmp_path / "local" / "report.csv").read_text() == (
        tmp_path / "dask" / "report.csv").read_text()


def test_resume_after_interruption_equals_uninterrupted(tmp_path, capsys):
    assert _run(tmp_path / "full", "--no-charts") == 0
    with ctrl_c_at(runner, "run_chunk", 7):
        assert _run(tmp_path / "cut", "--no-charts") == 130
    assert "6 of 54 chunks kept" in capsys.readouterr().err
    assert not (tmp_path / "cut" / "report.csv").exists()
    assert _run(tmp_path / "cut", "--resume", "--no-charts") == 0
    full = pd.read_csv(tmp_path / "full" / "report.csv")
    resumed = pd.read_csv(tmp_path / "cut" / "report.csv")
    pd.testing.assert_frame_equal(full, resumed)


def test_resume_refuses_chunks_of_another_experiment(tmp_path, capsys):
    assert _run(tmp_path / "a", "--no-charts") == 0
    assert _run(tmp_path / "a", "--resume", "seed=5") == 2
    assert "different experiment" in capsys.readouterr().err


def test_outputs_and_manifest(tmp_path):
    import json

    assert _run(tmp_path / "r") == 0
    out = tmp_path / "r"
    for name in ("report.csv", "summary.md", "manifest.json", "edge.png", "outcomes.png",
                 "convergence.png", "convergence.csv", "outcomes.csv"):
        assert (out / name).stat().st_size > 0, name
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["seed"] == 20261129 and manifest["chunk_rounds"] == 10000
    assert "numpy" in manifest["versions"]
    report = pd.read_csv(out / "report.csv")
    assert list(report.columns[:18]) == [
        "game", "variant", "strategy", "rounds", "mean_initial_stake", "mean_total_wagered",
        "mean_net", "edge_per_initial_bet", "edge_per_total_wagered", "std_net", "stderr",
        "ci95_low", "ci95_high", "win_freq", "push_freq", "loss_freq", "exact_edge",
        "z_vs_exact"]
    assert len(report) == 18 and (report["rounds"] == 30000).all()
    checked = report.dropna(subset=["z_vs_exact"])
    assert len(checked) >= 15 and (checked["z_vs_exact"].abs() < 4).all()
    pytest.importorskip("pyarrow")
    pd.testing.assert_frame_equal(pd.read_parquet(out / "report.parquet"), report,
                                  check_dtype=False)


def test_plan_fixes_chunks_by_experiment_not_jobs(tmp_path):
    from sim.engine import experiment
    from sim.engine.checkpoints import CheckpointStore

    exp = experiment.load(EXPERIMENT, ["rounds=25", "chunk_rounds=10"])
    chunks = list(CheckpointStore(tmp_path, exp).todo())
    assert [c.rounds for c in chunks[:3]] == [10, 10, 5]
    assert len(chunks) == 3 * len(exp.variants) * len(exp.strategies)


def test_rows_keep_their_numbers_when_rows_are_added_removed_or_reordered(tmp_path):
    import tomllib

    data = tomllib.loads(Path(EXPERIMENT).read_text())
    data.update(rounds=20000, chunk_rounds=5000)
    shuffled = {**data, "strategies": data["strategies"][::-1][1:],  # reversed, one dropped
                "variants": dict(reversed(list(data["variants"].items())))}

    def rows(exp: dict, out: Path) -> pd.DataFrame:
        from sim.engine import experiment
        from sim.outputs import report

        result = runner.run(experiment.from_dict(exp, "exp.toml", Path(EXPERIMENT).parent),
                            out, progress=False)
        return report.build(result).set_index(["variant", "strategy"]).sort_index()

    full, other = rows(data, tmp_path / "a"), rows(shuffled, tmp_path / "b")
    assert len(other) == len(full) - 3
    pd.testing.assert_frame_equal(full.loc[other.index], other)
