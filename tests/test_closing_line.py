"""The run's closing line: the whole command's time from its process's start, and what it
went on (rounds, a [session]'s session rounds, the outputs, start-up)."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd

from sim.core.timing import Phases, since_process_start

ROOT = Path(__file__).parents[1]
LINE = re.compile(r"^([\d.]+) s in all: ([\d,]+) rounds played in ([\d.]+) s; "
                  r"(?:([\d,]+) session rounds in ([\d.]+) s; )?report, summary, manifest "
                  r"and charts in ([\d.]+) s; ([\d.]+) s starting up and reading the "
                  r"experiment\. Written to (.+)/$")


def test_phases_add_up_the_time_spent_in_each():
    phases = Phases()
    for _ in range(2):
        with phases.phase("a"):
            time.sleep(0.05)
    assert 0.1 <= phases.get("a") < 1.0
    assert phases.get("never") == 0.0


def test_process_time_counts_from_the_process_start():
    code = ("import time; time.sleep(0.5); from sim.core.timing import since_process_start; "
            "print(since_process_start())")
    seconds = float(subprocess.run([sys.executable, "-c", code], capture_output=True,
                                   text=True, check=True, cwd=ROOT).stdout)
    assert 0.5 <= seconds < 10
    assert since_process_start() > 0


def test_closing_line_gives_the_whole_time_and_the_session_rounds(tmp_path):
    out = tmp_path / "out"
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "sim", "run", "experiments/faro_bankroll.toml", "--quiet",
         "--out", str(out), "--rounds", "60000", "chunk_rounds=6000", "session.sessions=4000",
         "session.chunk_sessions=2000"], capture_output=True, text=True, cwd=ROOT)
    wall = time.monotonic() - started
    assert proc.returncode == 0, proc.stderr
    match = LINE.match(proc.stdout.strip().splitlines()[-1])
    assert match, proc.stdout
    total, rounds, sim_s, sessions, session_s, out_s, start_s, folder = match.groups()
    assert int(rounds.replace(",", "")) == 3 * 60_000
    risk = pd.read_csv(out / "risk.csv")
    mc = risk[risk["method"] == "mc"]
    assert int(sessions.replace(",", "")) == round((mc["sessions"]
                                                    * mc["mean_rounds_played"]).sum())
    assert 3 * 4000 <= int(sessions.replace(",", "")) <= 3 * 4000 * 100
    # The parts add up to the whole (to the rounding of each), and the whole is the command's.
    parts = float(sim_s) + float(session_s) + float(out_s) + float(start_s)
    assert abs(parts - float(total)) <= 0.25
    assert float(total) <= wall + 0.1 and float(total) >= 0.7 * wall
    assert Path(folder) == out
