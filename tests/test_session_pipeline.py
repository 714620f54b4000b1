"""Session play is a job of the runner: its chunks are checkpointed, a run interrupted during
session play (Ctrl-C or kill -9) and resumed equals an uninterrupted one byte for byte, at any
jobs and on a local dask cluster, and ``houseedge report`` rebuilds the bankroll's files from
the saved sessions without playing a round."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sim.cli import main
from sim.engine import runner, session_play
from sim.games.base import Game
from tests.conftest import ctrl_c_at

ROOT = Path(__file__).parents[1]
EXPERIMENT = str(ROOT / "experiments" / "faro_bankroll.toml")
# 3 rows x 8 session chunks of 1,000 sessions of 100 deals.
SMALL = ["rounds=20000", "chunk_rounds=10000", "session.sessions=8000",
         "session.chunk_sessions=1000"]
COMPARED = ("report.csv", "comparisons.csv", "convergence.csv", "risk.csv", "risk_curves.csv",
            "risk.md")
TIMESTAMP = re.compile(rb'"?finished"?[^\n]*\n|<dd>\d{4}-\d\d-\d\dT[^<]*</dd>')


def _run(out: Path, *extra: str) -> int:
    return main(["run", EXPERIMENT, "--out", str(out), "--quiet", "--no-charts", *SMALL,
                 *extra])


@pytest.fixture(scope="module")
def full(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("sessions") / "full"
    assert _run(out) == 0
    return out


def _same_numbers(a: Path, b: Path) -> None:
    for name in COMPARED:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


def _session_chunks_kept(folder: Path) -> int:
    kept = len(list(folder.glob("v*-s*-k*.json")))
    for path in folder.glob("v*-s*-sessions.json"):
        try:
            kept += json.loads(path.read_text())["chunks"]
        except (ValueError, KeyError):
            pass  # being replaced
    return kept


def _start(out: Path, *extra: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "sim", "run", EXPERIMENT, "--out", str(out), "--quiet",
         "--no-charts", *SMALL, *extra], cwd=ROOT, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def _stop_during_session_play(proc: subprocess.Popen, out: Path, sig: int) -> str:
    """Send ``sig`` to the run's process group once it has kept two session chunks."""
    deadline = time.monotonic() + 180
    while _session_chunks_kept(out / "chunks") < 2:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.01)
    os.killpg(proc.pid, sig)
    _, err = proc.communicate(timeout=120)
    return err


def test_ctrl_c_during_session_play_then_resume_equals_uninterrupted(full, tmp_path, capsys):
    out = tmp_path / "cut"
    with ctrl_c_at(runner, "run_session_chunk", 6):
        assert _run(out) == 130
    # every rounds' chunk (3 rows x 2) and five of the 24 session chunks
    assert "11 of 30 chunks kept" in capsys.readouterr().err
    assert not (out / "risk.csv").exists()
    assert _run(out, "--resume") == 0
    _same_numbers(full, out)


@pytest.mark.parametrize("extra", [("--jobs", "2"), ("--jobs", "2", "--backend", "dask")],
                         ids=["loky", "dask"])
def test_sigint_during_parallel_session_play_then_resume_equals_uninterrupted(
        full, tmp_path, extra):
    if "dask" in extra:
        pytest.importorskip("dask.distributed")
    out = tmp_path / "cut"
    err = _stop_during_session_play(_start(out, *extra), out, signal.SIGINT)
    assert "houseedge: interrupted" in err and "Traceback" not in err, err
    assert not (out / "risk.csv").exists()
    assert _run(out, "--resume", *extra) == 0
    _same_numbers(full, out)


def test_kill_9_during_session_play_then_resume_equals_uninterrupted(full, tmp_path):
    out = tmp_path / "cut"
    _stop_during_session_play(_start(out), out, signal.SIGKILL)
    assert _run(out, "--resume") == 0
    _same_numbers(full, out)


def test_report_rebuilds_a_session_run_without_asking_the_game_for_a_number(
        full, tmp_path, monkeypatch, capsys):
    copy = tmp_path / "copy"
    shutil.copytree(full, copy)
    for path in copy.iterdir():  # only what a rebuild reads: the chunks and the manifest
        if path.is_file() and path.name != "manifest.json":
            path.unlink()
    calls = []

    def counted(name):
        def kernel_call(*args, **kwargs):
            calls.append(name)
            raise AssertionError(f"{name} called by a rebuild")
        return kernel_call

    for name in ("simulate", "simulate_table", "simulate_reference", "session_nets", "exact",
                 "round_law", "round_chain", "not_offered", "engine_path"):
        monkeypatch.setattr(Game, name, counted(name))
    monkeypatch.setattr(session_play, "play_chunk", counted("play_chunk"))
    monkeypatch.setattr(session_play, "bins_for", counted("bins_for"))
    assert main(["report", str(copy)]) == 0
    assert calls == []
    for path in full.iterdir():
        if path.is_file():  # the page names its folder (how to draw the charts)
            rebuilt = (copy / path.name).read_bytes().replace(bytes(copy), bytes(full))
            assert TIMESTAMP.sub(b"", rebuilt) == TIMESTAMP.sub(b"", path.read_bytes()), \
                path.name


def test_the_strategies_of_a_pack_play_their_sessions_on_the_same_cards():
    """Session play keys its streams by names like the rounds: the flat king's and the
    martingale's first sessions see the same deals (the same wins and losses on the king,
    scaled by the martingale's stakes), and a row's sessions do not depend on its index."""
    from sim.core.progression import ProgressionSpec
    from sim.core.rng import named_streams
    from sim.games.faro import GAME as FARO
    from sim.games.faro import FaroRules
    from strategies.faro import FlatRank

    rules = FaroRules()
    pack = FARO.pack_key(rules)
    flat = FARO.session_nets(rules, FlatRank("K"), ProgressionSpec(), 40, 30,
                             named_streams(1, session_play.STREAM, pack, "a", 0, 0))
    doubled = FARO.session_nets(rules, FlatRank("K"), ProgressionSpec(base=2.0), 40, 30,
                                named_streams(1, session_play.STREAM, pack, "b", 0, 0))
    assert (doubled == 2 * flat).all() and (flat != 0).any()
