"""The Python API: the same code path as the command line, for notebooks."""

from __future__ import annotations

import pandas as pd
import pytest
from matplotlib.figure import Figure

from sim import api, cli
from sim.core.errors import InputError

EXPERIMENT = {
    "name": "api-faro", "game": "faro", "rounds": 3000, "chunk_rounds": 1000, "seed": 5,
    "variants": {"faro": {"preset": "faro"}, "stuss": {"preset": "stuss"}},
    "strategies": [{"name": "flat king", "use": "flat-rank", "params": {"ranks": "K"}},
                   {"name": "high card", "use": "high-card"}],
}


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    out = tmp_path_factory.mktemp("api") / "out"
    return api.run(EXPERIMENT, ["variants.stuss.split_take=1.0"], rounds=2000, out=out)


def test_run_from_a_dict_with_overrides(result):
    frame = result.frame
    assert len(frame) == 4 and (frame["rounds"] == 2000).all()
    assert set(frame["variant"]) == {"faro", "stuss"}
    assert frame["headline_basis"].iloc[0] == "per amount wagered"
    assert (result.out_dir / "report.html").exists() and result.manifest["seed"] == 5


def test_the_api_gives_the_numbers_of_the_command_line(result, tmp_path, capsys):
    path = tmp_path / "exp.toml"
    path.write_text('name = "api-faro"\ngame = "faro"\nrounds = 3000\nchunk_rounds = 1000\n'
                    'seed = 5\n[variants.faro]\npreset = "faro"\n[variants.stuss]\n'
                    'preset = "stuss"\n[[strategies]]\nname = "flat king"\nuse = "flat-rank"\n'
                    'params = { ranks = "K" }\n[[strategies]]\nname = "high card"\n'
                    'use = "high-card"\n')
    out = tmp_path / "cli"
    assert cli.main(["run", str(path), "--rounds", "2000", "--out", str(out), "--quiet",
                     "--no-charts"]) == 0
    from_cli = pd.read_csv(out / "report.csv")
    from_api = pd.read_csv(result.out_dir / "report.csv")
    pd.testing.assert_frame_equal(from_cli, from_api)
    again = api.run(path, rounds=2000, out=tmp_path / "file", charts=False)
    pd.testing.assert_frame_equal(again.frame, result.frame)


def test_exact_values_figures_and_html(result):
    exact = result.exact
    row = exact[(exact.variant == "faro") & (exact.strategy == "flat king")].iloc[0]
    assert row.edge_fraction == "1/66"
    assert "edge.png" in result.figures
    assert all(isinstance(f, Figure) for f in result.figures.values())
    page = result.to_html()
    assert page.startswith("<!DOCTYPE html>") and "flat king" in page
    assert "<table" in result._repr_html_()
    paired = result.comparisons["paired"]  # each strategy against the first, paired
    assert {"diff", "diff_stderr", "variance_reduction"} <= set(paired.columns)
    assert "Paired comparisons" in page


def test_open_run_reads_a_finished_run_back(result):
    again = api.open_run(result.out_dir)
    pd.testing.assert_frame_equal(again.frame, result.frame)


def test_bad_input_is_the_same_one_line_error():
    with pytest.raises(InputError, match="rounds"):
        api.load({**EXPERIMENT, "rounds": -1})
    assert api.exact(EXPERIMENT)["edge_fraction"].iloc[0] == "1/66"


def test_a_source_of_no_known_kind_is_a_clear_type_error():
    with pytest.raises(TypeError, match="api.load: expected a path to an experiment file, a "
                                        "dict or an Experiment, got int 42"):
        api.load(42)


def test_a_loaded_experiment_takes_overrides_as_its_file_does(tmp_path):
    from pathlib import Path

    path = Path(__file__).parents[1] / "experiments" / "faro_bankroll.toml"
    loaded = api.load(path)  # progressions, a [session] table
    again = api.load(loaded, ["rounds=20000", "session.hours=2"])
    assert again.fingerprint() == api.load(path, ["rounds=20000", "session.hours=2"]
                                           ).fingerprint()
    assert again.rounds == 20000 and again.session.rounds == 60
    swept = api.load({**EXPERIMENT, "strategies": [
        {"use": "flat-rank", "params": {"ranks": {"grid": ["K", "Q"]}}}]})
    assert len(api.load(swept, ["rounds=500"]).strategies) == 2
    result = api.run(swept, rounds=500, out=tmp_path / "o", charts=False)
    assert (result.frame["rounds"] == 500).all()
    with pytest.raises(InputError, match="takes no overrides; load its experiment file"):
        api.load(api.open_run(tmp_path / "o").experiment, ["rounds=10"])
