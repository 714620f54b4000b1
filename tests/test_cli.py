"""The command line, and bad input: one clear line, exit code 2, nothing written."""

from pathlib import Path

import pytest

from sim.cli import main

ROOT = Path(__file__).parents[1]
GOOD = """
game = "faro"
rounds = 1000
seed = 1
[variants.faro]
preset = "faro"
[[strategies]]
use = "flat-rank"
params = { ranks = "K" }
"""


def _write(tmp_path: Path, text: str, name: str = "exp.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def _bad(tmp_path, capsys, text, *args, expect):
    path = _write(tmp_path, text)
    out = tmp_path / "out"
    code = main(["run", str(path), "--out", str(out), "--quiet", *args])
    err = capsys.readouterr().err
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    for piece in expect:
        assert piece in lines[0], lines[0]
    assert not out.exists()
    return lines[0]


@pytest.mark.parametrize("text, args, expect", [
    (GOOD.replace('"faro"\nrounds', '"fargo"\nrounds'), [], ["game", "unknown game 'fargo'"]),
    (GOOD.replace('preset = "faro"', 'preset = "vegas"'), [],
     ["variants.faro.preset", "unknown preset 'vegas'"]),
    (GOOD.replace('"flat-rank"', '"lucky"'), [], ["strategies[0].use", "unknown faro strategy"]),
    (GOOD + "colour = 3\n", [], ["colour", "unknown key"]),
    (GOOD.replace('preset = "faro"', 'preset = "faro"\nsplit_tak = 1'), [],
     ["variants.faro.split_tak", "unknown rule"]),
    (GOOD.replace('preset = "faro"', 'preset = "faro"\nsplit_take = "half"'), [],
     ["variants.faro.split_take", "expected 0, 0.5 or 1"]),
    (GOOD.replace("rounds = 1000", 'rounds = "many"'), [], ["rounds", "expected an integer"]),
    (GOOD, ["--rounds", "-5"], ["rounds", "expected an integer >= 1, got -5"]),
    (GOOD.replace("seed = 1", "seed = -1"), [], ["seed", "expected an integer"]),
    (GOOD.replace('{ ranks = "K" }', '{ ranks = "Z" }'), [], ["strategies[0]", "'Z'"]),
    (GOOD.replace('{ ranks = "K" }', '{ colour = "red" }'), [],
     ["strategies[0].params", "colour"]),
    (GOOD + "[[strategies]]\nuse = \"gone.py:decide\"\n", [],
     ["strategies[1].use", "'gone.py' does not exist"]),
    (GOOD + "[[strategies]]\nuse = \"no_such_module_xyz:decide\"\n", [],
     ["strategies[1].use", "module 'no_such_module_xyz' not found"]),
    (GOOD.replace("[[strategies]]", "[[strategies]]\nprogression = \"labouchere\""), [],
     ["strategies[0].progression", "unknown progression"]),
    ("game = [", [], ["not valid TOML"]),
    (GOOD, ["rounds"], ["expected key=value"]),
    (GOOD, ["--jobs", "0"], ["--jobs"]),
])
def test_bad_input(tmp_path, capsys, text, args, expect):
    line = _bad(tmp_path, capsys, text, *args, expect=expect)
    if "TOML" in line or "rounds" in line or "game" in line:
        assert "exp.toml" in line or "--jobs" in line


def test_strategy_file_that_raises_on_import(tmp_path, capsys):
    _write(tmp_path, "raise RuntimeError('broken on purpose')\n", "boom.py")
    _bad(tmp_path, capsys, GOOD.replace('"flat-rank"', '"boom.py:Strategy"'),
         expect=["strategies[0].use", "RuntimeError: broken on purpose"])


def test_strategy_that_raises_while_playing(tmp_path, capsys):
    _write(tmp_path, "def decide(view, rng):\n    return 1 / 0\n", "zero.py")
    _bad(tmp_path, capsys, GOOD.replace('"flat-rank"', '"zero.py:decide"').replace(
        'params = { ranks = "K" }', ""), expect=["strategies[0]", "ZeroDivisionError"])


def test_strategy_with_an_illegal_action(tmp_path, capsys):
    _write(tmp_path, "from sim.games.faro import RankBet\n"
                     "def decide(view, rng):\n    return [RankBet({20})]\n", "illegal.py")
    _bad(tmp_path, capsys, GOOD.replace('"flat-rank"', '"illegal.py:decide"').replace(
        'params = { ranks = "K" }', ""), expect=["strategies[0]", "'decide'", "RankBet",
                                                 "before turn 1"])


def test_missing_experiment_file(tmp_path, capsys):
    assert main(["run", str(tmp_path / "nope.toml")]) == 2
    assert "nope.toml: file not found" in capsys.readouterr().err


def test_unknown_command(capsys):
    assert main(["fly"]) == 2


def test_user_strategy_file_from_the_readme(tmp_path, capsys):
    code = main(["run", str(ROOT / "experiments" / "faro_bets.toml"), "--out",
                 str(tmp_path / "bets"), "--quiet", "rounds=2000", "chunk_rounds=1000",
                 "strategies.7.rounds=1000"])
    assert code == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert "seven-up" in out and "martingale" in out


def test_overrides_reach_lists_and_tables(tmp_path, capsys):
    path = _write(tmp_path, GOOD)
    code = main(["run", str(path), "--out", str(tmp_path / "o"), "--quiet",
                 "strategies.0.params.ranks=Q", "variants.faro.split_take=1"])
    assert code == 0
    report = (tmp_path / "o" / "report.csv").read_text()
    assert "flat-rank" in report
    import json

    manifest = json.loads((tmp_path / "o" / "manifest.json").read_text())
    assert manifest["experiment"]["strategies"][0]["params"] == {"ranks": "Q"}
    assert manifest["experiment"]["variants"]["faro"]["split_take"] == 1


def test_list_and_exact(capsys, tmp_path):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "faro" in out and "case-bets" in out and "martingale" in out
    assert main(["exact", str(ROOT / "experiments" / "faro.toml"), "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "call the turn" in out and "0.194969" in out
    assert (tmp_path / "old-pharo-rank-bet-edge.png").stat().st_size > 0
    table = (tmp_path / "faro-rank_bet_by_state.csv").read_text()
    assert table.count("\n") == 1 + sum(min(4, 51 - 2 * t) for t in range(25))
