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


@pytest.mark.parametrize("entry, line", [
    ('params = { rank = "K" }', "strategies[0].params.rank: 'flat-rank' takes no parameter "
     "'rank' (did you mean 'ranks'? it takes: ranks, units)"),
    ('params = { ranks = "K" }\nprogression = { name = "martingale", capp = 3 }',
     "strategies[0].progression.capp: 'martingale' takes no parameter 'capp' (did you mean "
     "'cap'? it takes: base, cap)"),
])
def test_a_parameter_typo_names_the_parameters_and_the_closest(tmp_path, capsys, entry, line):
    _bad(tmp_path, capsys, GOOD.replace('params = { ranks = "K" }', entry), expect=[line])


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
                 str(tmp_path / "bets"), "--quiet", "--no-charts", "rounds=2000",
                 "chunk_rounds=1000", "strategies.7.rounds=1000"])
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


FARO = str(ROOT / "experiments" / "faro.toml")


def _refused(capsys, args, *pieces, out: Path | None = None) -> str:
    assert main(args) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    for piece in pieces:
        assert piece in lines[0], lines[0]
    if out is not None:
        assert not out.exists()
    return lines[0]


@pytest.mark.parametrize("override, pieces", [
    ("variants.stus.soda=false", ["unknown variant 'stus'", "did you mean 'stuss'?",
                                  "known: faro, old-pharo, stuss"]),
    ("strategies.9.params.ranks=Q", ["unknown strategy '9'"]),
    ("strategies.flat-king.params.ranks=Q", ["unknown strategy 'flat-king'",
                                             "did you mean 'flat king'?"]),
    ("strategies.0.parms.ranks=Q", ["unknown strategy key 'parms'", "did you mean 'params'?"]),
    ("roundz=5", ["unknown key 'roundz'", "did you mean 'rounds'?"]),
    ("variants.stuss.sodda=false", ["variants.stuss.sodda", "unknown rule 'sodda'",
                                    "did you mean 'soda'?"]),
])
def test_overrides_never_add_what_the_file_does_not_have(tmp_path, capsys, override, pieces):
    out = tmp_path / "out"
    _refused(capsys, ["run", FARO, "--out", str(out), "--quiet", override], "faro.toml",
             *pieces, out=out)


def test_a_strategy_is_named_by_name_in_overrides(tmp_path, capsys):
    assert main(["run", FARO, "--out", str(tmp_path / "o"), "--quiet", "--no-charts",
                 "rounds=1000", "strategies.flat king.params.ranks=Q"]) == 0
    import json

    manifest = json.loads((tmp_path / "o" / "manifest.json").read_text())
    assert manifest["experiment"]["strategies"][0]["params"] == {"ranks": "Q"}


@pytest.mark.parametrize("text, pieces", [
    (GOOD.replace('"faro"\nrounds', '"fargo"\nrounds'), ["did you mean 'faro'?"]),
    (GOOD.replace('preset = "faro"', 'preset = "stus"'), ["did you mean 'stuss'?"]),
    (GOOD.replace('"flat-rank"', '"flat-rnak"'), ["did you mean 'flat-rank'?"]),
    (GOOD.replace('preset = "faro"', 'preset = "faro"\nsodda = false'), ["did you mean 'soda'?"]),
    (GOOD.replace("[[strategies]]", "[[strategies]]\nprogression = \"martingal\""),
     ["did you mean 'martingale'?"]),
    ("seeed = 3\n" + GOOD, ["did you mean 'seed'?"]),
])
def test_did_you_mean_everywhere(tmp_path, capsys, text, pieces):
    _bad(tmp_path, capsys, text, expect=pieces)


def test_every_backend_works_or_is_refused_before_anything_is_written(tmp_path, capsys):
    out = tmp_path / "out"
    _refused(capsys, ["run", FARO, "--out", str(out), "--backend", "bogus"],
             "--backend", "unknown backend 'bogus'", out=out)
    _refused(capsys, ["run", FARO, "--out", str(out), "--backend", "multiprocessing",
                      "--jobs", "2"], "--backend multiprocessing", out=out)
    _refused(capsys, ["run", FARO, "--out", str(out), "--scheduler", "tcp://127.0.0.1:9"],
             "--scheduler", "only used with --backend dask", out=out)
    assert main(["run", FARO, "--out", str(out), "--quiet", "--no-charts", "rounds=1000",
                 "--backend", "threading", "--jobs", "2"]) == 0


def test_unreachable_scheduler_is_one_line_within_ten_seconds(tmp_path, capsys):
    pytest.importorskip("dask.distributed")
    import time

    out = tmp_path / "out"
    started = time.monotonic()
    _refused(capsys, ["run", FARO, "--out", str(out), "--backend", "dask", "--scheduler",
                      "tcp://127.0.0.1:9"], "--scheduler tcp://127.0.0.1:9",
             "cannot reach the dask scheduler", out=out)
    assert time.monotonic() - started < 10


@pytest.mark.parametrize("address", ["nonsense://x", "tcp://", "tcp://host:notaport"])
def test_a_scheduler_address_dask_cannot_parse_is_one_line(tmp_path, capsys, address):
    pytest.importorskip("dask.distributed")
    out = tmp_path / "out"
    _refused(capsys, ["run", FARO, "--out", str(out), "--backend", "dask", "--scheduler",
                      address], f"--scheduler {address}: not a dask scheduler address",
             "tcp://HOST:8786", out=out)


def test_a_subcommands_bad_option_names_the_command_once(tmp_path, capsys):
    assert main(["charts", str(tmp_path), "--format", "bmp"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("houseedge: error: charts: argument --format: invalid choice: 'bmp'")
    assert err.count("houseedge") == 1


def test_dask_uses_the_cluster_at_any_jobs_and_the_manifest_says_so(tmp_path):
    pytest.importorskip("dask.distributed")
    import json

    from sim.engine import runner

    calls = []
    real = runner._backend

    def spy(backend, scheduler, jobs):
        calls.append(backend)
        return real(backend, scheduler, jobs)

    pytest.MonkeyPatch().setattr(runner, "_backend", spy)
    out = tmp_path / "out"
    assert main(["run", FARO, "--out", str(out), "--quiet", "--no-charts", "rounds=1000",
                 "--backend", "dask"]) == 0
    assert calls == ["dask"]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["backend"] == "dask" and manifest["scheduler"] is None


@pytest.mark.parametrize("where", ["/proc/houseedge-out", "/sys/houseedge-out", "a file"])
def test_unwritable_out_is_one_line(tmp_path, capsys, where):
    target = tmp_path / "taken" if where == "a file" else Path(where)
    if where == "a file":
        target.write_text("x")
    _refused(capsys, ["run", FARO, "--out", str(target), "--quiet", "rounds=1000"],
             f"--out {target}")
    _refused(capsys, ["exact", FARO, "--out", str(target / "exact")], "--out")


def test_non_utf8_experiment_file(tmp_path, capsys):
    path = tmp_path / "latin.toml"
    path.write_bytes(GOOD.replace("faro", "f\xe4ro").encode("latin-1"))
    _refused(capsys, ["run", str(path), "--out", str(tmp_path / "o")], "latin.toml",
             "not UTF-8", out=tmp_path / "o")


BOM = b"\xef\xbb\xbf"


def test_a_utf8_byte_order_mark_is_read_as_text(tmp_path, capsys):
    # Windows editors save UTF-8 with a mark; the experiment and the data files it names.
    (tmp_path / "card.toml").write_bytes(
        BOM + (ROOT / "experiments" / "data" / "online_example.toml").read_bytes())
    (tmp_path / "coups.csv").write_bytes(
        BOM + (ROOT / "experiments" / "lansquenet_cunard.csv").read_bytes())
    scratch = tmp_path / "scratch.toml"
    scratch.write_bytes(BOM + b'game = "scratchcard"\nrounds = 2000\n[rules]\n'
                              b'table = "card.toml"\n[[strategies]]\nuse = "buy"\n')
    assert main(["run", str(scratch), "--out", str(tmp_path / "o"), "--quiet",
                 "--no-charts"]) == 0, capsys.readouterr().err
    cheat = (ROOT / "experiments" / "lansquenet_cheat.toml").read_text()
    assert "lansquenet_cunard.csv" in cheat
    (tmp_path / "cheat.toml").write_bytes(
        BOM + cheat.replace("lansquenet_cunard.csv", "coups.csv").encode())
    assert main(["exact", str(tmp_path / "cheat.toml")]) == 0, capsys.readouterr().err


def test_files_named_in_an_experiment_are_found_beside_it(tmp_path, monkeypatch, capsys):
    folder = tmp_path / "study"
    (folder / "data").mkdir(parents=True)
    (folder / "data" / "card.toml").write_text(
        (ROOT / "experiments" / "data" / "online_example.toml").read_text())
    (folder / "exp.toml").write_text(
        'game = "scratchcard"\nrounds = 2000\n[rules]\ntable = "data/card.toml"\n'
        '[[strategies]]\nuse = "buy"\n')
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert main(["run", str(folder / "exp.toml"), "--out", "o", "--quiet", "--no-charts"]) == 0, \
        capsys.readouterr().err
    assert main(["exact", str(ROOT / "experiments" / "lansquenet_cheat.toml")]) == 0


def test_command_line_rounds_win_over_a_strategys_own(tmp_path):
    import pandas as pd

    out = tmp_path / "bets"
    assert main(["run", str(ROOT / "experiments" / "faro_bets.toml"), "--out", str(out),
                 "--quiet", "--no-charts", "--rounds", "1500", "chunk_rounds=500"]) == 0
    rounds = pd.read_csv(out / "report.csv").set_index("strategy")["rounds"]
    assert (rounds == 1500).all() and "seven-up" in rounds.index
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert "`--rounds` on the command line sets every row's count" in readme


def test_help_version_and_list(capsys):
    assert main([]) == 0
    assert "usage: houseedge" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.strip() == "houseedge 0.1.0"
    assert main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert all(len(line) <= 100 for line in lines)
    best = next(line for line in lines if "banker-best-response" in line)
    assert "banker-best-response " in best or best.strip() == "banker-best-response"
    assert any("params: ranks='K', units=1.0" in line for line in lines)
    assert main(["list", "--counts-cards"]) == 0
    assert "card-memory" in capsys.readouterr().out
