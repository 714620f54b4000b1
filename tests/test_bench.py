"""houseedge bench: figures as JSON, compared with an earlier run."""

import json

import pytest

from sim.core.errors import InputError
from sim.outputs import bench


def test_json_holds_rates_ratios_load_and_versions_and_compares(tmp_path, capsys):
    out = tmp_path / "bench.json"
    bench.main(["faro"], seconds=0.05, reference=False, json_path=str(out))
    data = json.loads(out.read_text())
    assert {"load_before", "load_after", "environment", "lines", "timing"} <= set(data)
    assert {"numba", "numpy", "python", "houseedge", "cores"} <= set(data["environment"])
    games = [line["game"] for line in data["lines"]]
    assert games[0] == "baseline" and "faro" in games
    assert all(line["rate"] > 0 and line["ratio"] > 0 for line in data["lines"])
    capsys.readouterr()
    bench.main(["faro"], seconds=0.05, reference=False, compare=str(out))
    assert "x earlier ratio" in capsys.readouterr().out


def test_bad_json_paths_are_one_line_errors(tmp_path):
    with pytest.raises(InputError, match="no-such-folder"):
        bench.main(["faro"], json_path=str(tmp_path / "no-such-folder" / "b.json"))
    (tmp_path / "junk.json").write_text("not json")
    with pytest.raises(InputError, match="junk.json: not a bench JSON file"):
        bench.main(["faro"], compare=str(tmp_path / "junk.json"))
