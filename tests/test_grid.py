"""Grids: sweeps in experiment files and overrides, named rows, the tidy report."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from sim import api
from sim.core.errors import InputError
from sim.engine.experiment import load

FILE = """
game = "faro"
rounds = 20_000
seed = 3
chunk_rounds = 10_000
[rules]
soda = { grid = [true, false] }
[[strategies]]
name = "flat"
use = "flat-rank"
params = { ranks = { grid = ["K", "Q"] } }
[[strategies]]
name = "case bets"
use = "case-bets"
"""


def _file(tmp_path: Path, text: str = FILE) -> Path:
    path = tmp_path / "grid.toml"
    path.write_text(text)
    return path


def test_sweeps_expand_into_a_product_of_named_rows(tmp_path):
    exp = load(_file(tmp_path))
    assert [v.name for v in exp.variants] == ["soda=true", "soda=false"]
    assert [v.rules.soda for v in exp.variants] == [True, False]
    assert [s.name for s in exp.strategies] == ["flat ranks=K", "flat ranks=Q", "case bets"]
    assert exp.strategies[1].params == {"ranks": "Q"}
    assert exp.resolved["grid"]["columns"] == ["soda", "ranks"]


def test_named_variants_ranges_nested_params_and_labels(tmp_path):
    text = """
game = "pontoon"
rounds = 1000
[variants.home]
preset = "british-home"
[variants.deal]
preset = "reshuffle-every-deal"
stick_min = { grid = { from = 15, to = 16 } }
[[strategies]]
use = "threshold"
[strategies.params]
stick = 16
banker.use = "banker-stand-on"
banker.params.total = { grid = [16, 17], name = "banker_stands" }
"""
    exp = load(_file(tmp_path, text))
    assert [v.name for v in exp.variants] == ["home", "deal stick_min=15", "deal stick_min=16"]
    assert [s.name for s in exp.strategies] == ["threshold banker_stands=16",
                                                "threshold banker_stands=17"]
    assert exp.strategies[1].params["banker"]["params"] == {"total": 17}


def test_an_override_a_b_c_is_a_sweep(tmp_path):
    exp = load(_file(tmp_path), ["rules.split_take=0.5,1.0", "strategies.flat.params.ranks=A,2,3"])
    assert len(exp.variants) == 4 and len(exp.strategies) == 4
    assert exp.variants[1].name == "soda=true split_take=1"
    assert exp.strategies[2].name == "flat ranks=3"


@pytest.mark.parametrize("override, message", [
    ("rules.soda={grid=[]}", "rules.soda.grid: expected at least one value"),
    ("rules.soda={grid=[true,true]}", "rules.soda.grid: a value is listed twice"),
    ("rules.split_take={grid={from=2,to=1}}", "rules.split_take.grid: expected from <= to"),
    ("rules.soda={grid=[true],name=3}", "rules.soda.name: expected a non-empty string"),
    ("rules.split_take=0.5,0.7", "split_take: expected 0, 0.5 or 1, got 0.7"),
])
def test_bad_sweeps_name_the_file_and_the_key(tmp_path, override, message):
    with pytest.raises(InputError) as err:
        load(_file(tmp_path), [override])
    assert str(err.value).startswith(str(tmp_path / "grid.toml")) and message in str(err.value)


def test_the_report_is_tidy_and_rows_keep_their_numbers_when_the_grid_grows(tmp_path):
    small = api.run(_file(tmp_path), out=tmp_path / "small", progress=False).frame
    bigger = api.run(_file(tmp_path), ["strategies.flat.params.ranks=K,Q,J"],
                     out=tmp_path / "big", progress=False).frame
    assert list(small.columns[:5]) == ["game", "variant", "strategy", "soda", "ranks"]
    table = small.pivot_table(index="ranks", columns="soda", values="edge")
    assert table.shape == (2, 2)
    keep = ["variant", "strategy", "edge", "edge_stderr", "rounds"]
    merged = small[keep].merge(bigger[keep], on=["variant", "strategy"])
    assert len(merged) == len(small)  # every row of the small grid is in the big one
    assert (merged.edge_x == merged.edge_y).all()
    assert (tmp_path / "small" / "grid-ranks.png").exists()
    assert (tmp_path / "small" / "grid-soda.png").exists()
    paired = pd.read_csv(tmp_path / "small" / "comparisons.csv")
    assert {"soda", "ranks"} <= set(paired.columns)


BIG = """
game = "faro"
rounds = 2_000
chunk_rounds = 1_000
[[strategies]]
name = "flat"
use = "flat-rank"
params = { ranks = "K", units = { grid = { from = 1, to = 10_000 } } }
"""


def test_a_grid_past_the_row_limit_is_refused_in_one_line_and_nothing_is_written(
        tmp_path, capsys):
    from sim.cli import main

    out = tmp_path / "out"
    assert main(["run", str(_file(tmp_path, BIG)), "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (f"houseedge: error: {tmp_path / 'grid.toml'}: max_rows: 10,000 rows (1 variant"
                   " x 10,000 strategies; swept: units) is more than the limit of 1,000; if that "
                   "is meant, set max_rows = 10000 at the top of the file or pass --max-rows 10000")
    assert not out.exists()
    assert main(["exact", str(_file(tmp_path, BIG))]) == 2  # refused before any value is worked
    assert "more than the limit of 1,000" in capsys.readouterr().err


def test_max_rows_in_the_file_allows_a_larger_grid_and_decides_no_number(tmp_path):
    three = BIG.replace("10_000", "3")
    with pytest.raises(InputError, match=r"max_rows: 3 rows .* more than the limit of 2;"):
        load(_file(tmp_path, "max_rows = 2\n" + three))
    allowed = load(_file(tmp_path, "max_rows = 3\n" + three))
    assert len(allowed.strategies) == 3 and allowed.resolved["max_rows"] == 3
    assert allowed.fingerprint() == load(_file(tmp_path, three)).fingerprint()
    with pytest.raises(InputError, match=r"max_rows: expected an integer >= 1, got 0"):
        load(_file(tmp_path, "max_rows = 0\n" + three))


def test_the_max_rows_flag_and_the_api_allow_a_larger_grid(tmp_path, capsys):
    from sim.cli import main

    path = _file(tmp_path, "max_rows = 2\n" + BIG.replace("10_000", "3"))
    out = tmp_path / "out"
    assert main(["run", str(path), "--out", str(out), "--quiet", "--no-charts"]) == 2
    assert "pass --max-rows 3" in capsys.readouterr().err
    assert main(["run", str(path), "--out", str(out), "--quiet", "--no-charts",
                 "--max-rows", "3"]) == 0
    assert len(pd.read_csv(out / "report.csv")) == 3
    assert main(["report", str(out)]) == 0  # a rebuild reads the limit the run was given
    assert len(api.load(path, max_rows=3).strategies) == 3
    with pytest.raises(InputError, match="more than the limit of 2"):
        api.load(path)


def test_the_report_of_a_grid_of_a_hundred_rows_is_written_in_bounded_time(tmp_path):
    # 200 rows took 65 s to report, all but 3 s drawing a panel or a labelled line per row.
    # Processor time, not the clock's: the same on a busy machine.
    import time

    from PIL import Image

    from sim.engine import rundir
    from sim.outputs import report

    path = _file(tmp_path, BIG.replace("10_000", "100").replace("2_000", "20").replace(
        "1_000", "10"))
    out = tmp_path / "out"
    api.run(path, out=out, charts=False)
    result, info = rundir.load(out)
    started = time.process_time()
    report.write_outputs(result, out, {**info, "charts": True})
    assert time.process_time() - started < 20
    for name in ("edge.png", "outcomes.png", "convergence.png", "grid-units.png"):
        width, height = Image.open(out / name).size
        assert width <= 1700 and height <= 1500, name
