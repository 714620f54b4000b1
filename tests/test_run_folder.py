"""Output folders and checkpoints: nothing lost, nothing mixed, nothing stale, bounded."""

from __future__ import annotations

import json
import os
import stat
import tracemalloc
from pathlib import Path

import pandas as pd
import pytest

from sim.cli import main
from sim.engine import experiment, runner
from sim.engine.checkpoints import CheckpointStore, CorruptCheckpoint
from tests.conftest import ctrl_c_at

ROOT = Path(__file__).parents[1]
FARO = str(ROOT / "experiments" / "faro.toml")
FARO_SODA = str(ROOT / "experiments" / "faro_soda.toml")
LANSQUENET_CHEAT = str(ROOT / "experiments" / "lansquenet_cheat.toml")
SMALL = ["rounds=30000", "chunk_rounds=10000"]


def _run(exp: str, out: Path, *extra: str, charts: bool = False) -> int:
    """A small run; without its charts unless they are what the test looks at."""
    return main(["run", exp, "--out", str(out), "--quiet", *SMALL, *extra,
                 *([] if charts else ["--no-charts"])])


def _interrupted(exp: str, out: Path, after: int = 6, *extra: str) -> None:
    """A run stopped by Ctrl-C after ``after`` chunks."""
    with ctrl_c_at(runner, "run_chunk", after + 1):
        assert _run(exp, out, *extra) == 130


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


def _one_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


def test_unfinished_run_is_never_overwritten(tmp_path, capsys):
    out = tmp_path / "out"
    _interrupted(FARO, out)
    capsys.readouterr()
    before = _snapshot(out)
    assert _run(FARO, out) == 2
    line = _one_line(capsys)
    assert "holds an unfinished run of experiment 'faro' (6 of 54 chunks done)" in line
    assert "--resume finishes it, --force starts over" in line
    assert _snapshot(out) == before
    assert _run(FARO, out, "--force") == 0
    assert (out / "report.csv").exists()


def test_resume_refuses_an_edited_strategy_file_and_names_it(tmp_path, capsys):
    strategy = tmp_path / "mine.py"
    strategy.write_text((ROOT / "experiments" / "seven_up.py").read_text())
    exp = tmp_path / "exp.toml"
    exp.write_text('game = "faro"\nrounds = 4000\nchunk_rounds = 1000\nseed = 3\n'
                   '[[strategies]]\nuse = "mine.py:SevenUp"\n')
    out = tmp_path / "out"
    _interrupted(str(exp), out, 2)
    strategy.write_text(strategy.read_text().replace("sevens >= 2", "sevens >= 3"))
    capsys.readouterr()
    assert main(["run", str(exp), "--out", str(out), "--quiet", "--resume"]) == 2
    line = _one_line(capsys)
    assert f"the file {strategy} changed" in line and "--force starts it over" in line


def test_resume_refuses_a_changed_key_and_another_version(tmp_path, monkeypatch, capsys):
    out = tmp_path / "out"
    _interrupted(FARO, out)
    capsys.readouterr()
    assert _run(FARO, out, "--resume", "variants.stuss.split_take=0.5") == 2
    assert "different experiment: variants.stuss.split_take added" in _one_line(capsys)
    assert _run(FARO, out, "--resume", "--rounds", "20000") == 2
    assert "rounds changed (was 30000, now 20000)" in _one_line(capsys)
    monkeypatch.setattr(experiment, "engine_identity",
                        lambda: {"version": "9.9.9", "source": "x"})
    assert _run(FARO, out, "--resume") == 2
    assert "houseedge 0.1.0 -> 9.9.9" in _one_line(capsys)


@pytest.mark.parametrize("record, problem", [
    ("", "chunks/run.json is empty"),
    ('{"format": 3', "chunks/run.json is not valid JSON (Expecting ',' delimiter, line 1)"),
    ("[]", "chunks/run.json is not a JSON object (got list)"),
    ('{"format": 2}', "chunks/run.json was written by an older houseedge (checkpoint format 2; "
                      "this one reads 5)"),
    (None, "chunks/run.json is missing"),
])
def test_a_damaged_run_record_is_named_as_it_is(tmp_path, capsys, record, problem):
    out = tmp_path / "out"
    _interrupted(FARO, out)
    capsys.readouterr()
    if record is None:
        (out / "chunks" / "run.json").unlink()
    else:
        (out / "chunks" / "run.json").write_text(record)
    before = _snapshot(out)
    assert _run(FARO, out, "--resume") == 2
    line = _one_line(capsys)
    assert f"--resume: {out}/{problem}, so the chunks beside it cannot be resumed; --force " \
           "starts the run over" in line, line
    assert _run(FARO, out) == 2
    assert f"{out} holds chunks of an unfinished run, and its {problem}; --force starts it " \
           "over" in _one_line(capsys)
    assert _snapshot(out) == before
    assert _run(FARO, out, "--force") == 0


@pytest.mark.parametrize("damage", ["truncate", "garbage", "wrong rounds"])
def test_corrupt_chunk_is_named_and_computed_again(tmp_path, capsys, damage):
    assert _run(FARO, tmp_path / "full") == 0
    out = tmp_path / "cut"
    _interrupted(FARO, out, 8)
    victim = out / "chunks" / "v0-s2-prefix.json"
    text = victim.read_text()
    victim.write_text({"truncate": text[: len(text) // 2], "garbage": "\x00\x01",
                       "wrong rounds": text.replace('"rounds": 20000', '"rounds": 20001')
                       }[damage])
    exp = experiment.load(FARO, SMALL)
    with pytest.raises(CorruptCheckpoint, match=str(victim)):
        CheckpointStore(out, exp).load(repair=False)
    capsys.readouterr()
    assert _run(FARO, out, "--resume") == 0
    err = capsys.readouterr().err
    assert f"{victim}: unreadable checkpoint" in err and "computed again" in err
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "full" / "report.csv"),
                                  pd.read_csv(out / "report.csv"))


def test_another_experiments_report_is_refused_then_replaced_without_stale_files(
        tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["run", LANSQUENET_CHEAT, "--out", str(out), "--quiet", "rounds=2000",
                 "chunk_rounds=1000"]) == 0
    assert (out / "run_lengths.png").exists()
    before = _snapshot(out)
    capsys.readouterr()
    assert _run(FARO, out) == 2
    line = _one_line(capsys)
    assert "holds the report of another experiment ('lansquenet_cheat')" in line
    assert "--force replaces it" in line
    assert _snapshot(out) == before
    (out / "my notes.txt").write_text("mine")
    assert _run(FARO, out, "--force") == 0
    manifest = json.loads((out / "manifest.json").read_text())
    on_disk = {p.name for p in out.iterdir() if p.is_file()}
    assert set(manifest["files"]) == on_disk - {"my notes.txt"}
    assert "run_lengths.png" not in on_disk and "my notes.txt" in on_disk
    assert manifest["experiment"]["name"] == "faro"


def test_same_experiment_replaces_its_own_report(tmp_path):
    out = tmp_path / "out"
    assert _run(FARO, out) == 0
    (out / "stale.png").write_text("left by hand")  # not listed: not the run's to remove
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["files"].append("old-chart.png")
    (out / "old-chart.png").write_text("written by the earlier run")
    (out / "manifest.json").write_text(json.dumps(manifest))
    assert _run(FARO, out, "rounds=20000") == 0
    assert not (out / "old-chart.png").exists() and (out / "stale.png").exists()
    assert (pd.read_csv(out / "report.csv")["rounds"] == 20000).all()


def test_a_folder_of_other_files_is_refused(tmp_path, capsys):
    (tmp_path / "thesis.tex").write_text("mine")
    assert _run(FARO, tmp_path) == 2
    assert "holds files that are not a houseedge run" in _one_line(capsys)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["thesis.tex"]


@pytest.mark.parametrize("mask", [0o022, 0o027])
def test_output_files_follow_the_umask(tmp_path, mask):
    old = os.umask(mask)
    try:
        assert _run(FARO_SODA, tmp_path / "out", charts=True) == 0  # every kind of file
    finally:
        os.umask(old)
    files = [p for p in (tmp_path / "out").rglob("*") if p.is_file()]
    assert files and all(stat.S_IMODE(p.stat().st_mode) == 0o666 & ~mask for p in files)


def test_planning_and_checkpoints_stay_bounded(tmp_path):
    exp = experiment.load(FARO, ["rounds=1_000_000_000_000_000", "chunk_rounds=100000"])
    tracemalloc.start()
    store = CheckpointStore(tmp_path, exp)
    todo = store.todo()
    first = [next(todo) for _ in range(1000)]
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 5_000_000 and first[-1].index == 999
    # A run keeps one merged prefix per pair and only the chunks that finished early.
    out = tmp_path / "out"
    assert main(["run", FARO, "--out", str(out), "--quiet", "--no-charts", "rounds=60000",
                 "chunk_rounds=1000", "--jobs", "2"]) == 0
    names = [p.name for p in (out / "chunks").iterdir()]
    assert sorted(names) == sorted(["run.json", *(f"v{v}-s{s}-{kind}.json" for v in range(3)
                                                  for s in range(6)
                                                  for kind in ("prefix", "exact"))])
    prefix = json.loads((out / "chunks" / "v0-s0-prefix.json").read_text())
    assert prefix["chunks"] == 60 and len(prefix["trace"]) < 60


def test_no_charts_writes_the_numbers_only_and_a_rebuild_draws_them(tmp_path):
    assert _run(FARO, tmp_path / "full", charts=True) == 0
    out = tmp_path / "numbers"
    assert _run(FARO, out) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    on_disk = {p.name for p in out.iterdir() if p.is_file()}
    assert not any(name.endswith(".png") for name in on_disk)
    assert set(manifest["files"]) == on_disk and manifest["charts"] is False
    assert "Charts not drawn (run with --no-charts)" in (out / "report.html").read_text()
    assert (out / "report.csv").read_bytes() == (tmp_path / "full" / "report.csv").read_bytes()
    # The rebuild keeps the run's choice unless told otherwise; with --charts it draws them.
    assert main(["report", str(out)]) == 0
    assert not list(out.glob("*.png"))
    assert main(["report", str(out), "--charts"]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["charts"] is True and "edge.png" in manifest["files"]
    assert {p.name for p in out.glob("*.png")} == {
        p.name for p in (tmp_path / "full").glob("*.png")}


def test_an_interrupted_run_counts_its_chunks_without_reading_the_folder_again(
        tmp_path, monkeypatch, capsys):
    # Reading 10,000 rows' checkpoints again, to count them, took 2.6 s after the Ctrl-C.
    def no_reading(*args, **kwargs):
        raise AssertionError("the folder was read again")

    calls = {"n": 0}
    real = runner.run_chunk

    def flaky(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] > 4:
            monkeypatch.setattr(CheckpointStore, "load", no_reading)
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(runner, "run_chunk", flaky)
    assert _run(FARO, tmp_path / "out") == 130
    assert _one_line(capsys).startswith("houseedge: interrupted: 4 of 54 chunks kept in ")


def test_a_store_lists_its_chunks_folder_once_whatever_its_rows(tmp_path, monkeypatch):
    out = tmp_path / "out"
    _interrupted(FARO, out, 6)
    listings = {"n": 0}
    real = Path.glob

    def counted(self, pattern):
        listings["n"] += 1
        return real(self, pattern)

    monkeypatch.setattr(Path, "glob", counted)
    store = CheckpointStore(out, experiment.load(FARO, SMALL))
    store.load(repair=False)
    assert listings["n"] == 1 and store.done_chunks() == 6


def test_a_damaged_exact_record_is_named_and_made_again(tmp_path, capsys):
    assert _run(FARO, tmp_path / "full") == 0
    out = tmp_path / "cut"
    _interrupted(FARO, out, 8)
    victim = out / "chunks" / "v0-s0-exact.json"
    victim.write_text(victim.read_text().replace('"value"', '"worth"'))
    with pytest.raises(CorruptCheckpoint, match=str(victim)):
        CheckpointStore(out, experiment.load(FARO, SMALL)).load(repair=False)
    capsys.readouterr()
    assert _run(FARO, out, "--resume") == 0
    err = capsys.readouterr().err
    assert f"{victim}: unreadable checkpoint (not an exact record" in err and "made again" in err
    for name in ("report.csv", "comparisons.csv"):
        assert (tmp_path / "full" / name).read_bytes() == (out / name).read_bytes()
