"""Ctrl-C: a real SIGINT, at different moments, on every path, is one line and exit 130.

Each run is a subprocess in its own process group, interrupted as a terminal would (SIGINT to
the whole group, workers included), after its checkpoint folder appears plus a delay.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from sim.cli import main

ROOT = Path(__file__).parents[1]
FARO = str(ROOT / "experiments" / "faro.toml")
PONTOON = str(ROOT / "experiments" / "pontoon.toml")
SEVEN_UP = """
name = "seven"
game = "faro"
rounds = 2_000_000
seed = 5
chunk_rounds = 2_000
[[strategies]]
use = "{path}:SevenUp"
"""


def _start(args: list[str]) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "sim", *args], cwd=ROOT, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, start_new_session=True,
        # A shell's background job ignores SIGINT; a terminal's foreground job does not.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def _interrupt(proc: subprocess.Popen, ready: Path | None, delay: float) -> tuple[int, str]:
    deadline = time.monotonic() + 120
    while ready is not None and not ready.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.02)
    time.sleep(delay)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    return proc.returncode, err


def _assert_clean(code: int, err: str, expect: str) -> None:
    assert code == 130, err
    assert "Traceback" not in err and "Error" not in err, err
    lines = [line for line in err.strip().splitlines() if line.strip()]
    assert lines[-1].startswith(f"houseedge: interrupted{expect}"), err


@pytest.mark.parametrize("delay", [0.0, 0.15, 0.6, 1.2])
def test_kernel_path_one_job(tmp_path, delay):
    out = tmp_path / "out"
    proc = _start(["run", FARO, "--out", str(out), "--quiet", "--rounds", "3000000"])
    code, err = _interrupt(proc, out / "chunks" / "run.json", delay)
    _assert_clean(code, err, ": ")
    assert "chunks kept in" in err and "--resume" in err
    assert not (out / "report.csv").exists()


def test_reference_path(tmp_path):
    exp = tmp_path / "seven.toml"
    plain = tmp_path / "seven_up.py"  # without its reads declaration: the reference path
    source = (ROOT / "experiments" / "seven_up.py").read_text()
    plain.write_text(source + "\nSevenUp.reads = None\n")
    exp.write_text(SEVEN_UP.format(path=plain))
    out = tmp_path / "out"
    proc = _start(["run", str(exp), "--out", str(out), "--quiet"])
    code, err = _interrupt(proc, out / "chunks" / "run.json", 0.5)
    _assert_clean(code, err, ": ")


def test_two_jobs(tmp_path):
    out = tmp_path / "out"
    proc = _start(["run", FARO, "--out", str(out), "--quiet", "--rounds", "3000000",
                   "--jobs", "2"])
    code, err = _interrupt(proc, out / "chunks" / "run.json", 0.8)
    _assert_clean(code, err, ": ")


@pytest.mark.parametrize("backend", [["--jobs", "2"], ["--backend", "dask", "--jobs", "2"]],
                         ids=["loky", "local-dask"])
def test_parallel_ctrl_c_is_one_line_within_a_second(tmp_path, backend):
    """Tried thrice at different moments: no joblib warning of tasks run unused, no
    traceback or log line of a dask worker or nanny, only the line saying what was kept."""
    for attempt, delay in enumerate((0.3, 1.1, 2.2)):
        out = tmp_path / f"out{attempt}"
        proc = _start(["run", FARO, "--out", str(out), "--quiet", "--rounds", "3000000",
                       *backend])
        deadline = time.monotonic() + 120
        while not (out / "chunks" / "run.json").exists():
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.02)
        time.sleep(delay)
        os.killpg(proc.pid, signal.SIGINT)
        sent = time.monotonic()
        first = proc.stderr.readline()
        seconds = time.monotonic() - sent
        _, rest = proc.communicate(timeout=120)
        assert proc.returncode == 130
        assert first.startswith("houseedge: interrupted: ") and "chunks kept" in first, first
        assert rest == "", first + rest
        assert seconds < 1.0, f"the line came {seconds:.2f} s after Ctrl-C"


def _worker_pid() -> int:
    time.sleep(0.1)  # long enough that every worker takes some of the tasks
    return os.getpid()


def _sigint_disposition() -> object:
    return signal.getsignal(signal.SIGINT)


def test_workers_ignore_sigint_between_tasks_and_are_reused():
    # Ctrl-C reaches every process of the job. A loky worker starts with no signal blocked,
    # whatever the mask of the thread that started it; one interrupted while it waited for a
    # task died (the next call found the executor broken), between two tasks it printed a
    # traceback of its own.
    from joblib import Parallel, delayed

    from sim.engine import workers

    # What this process had (a shell starting the suite in the background ignores SIGINT).
    own = signal.getsignal(signal.SIGINT)
    workers.start(2)
    workers.ready(2)
    with workers.loky():
        booted = set(Parallel(n_jobs=2)(delayed(_worker_pid)() for _ in range(8)))
        for pid in booted:
            os.kill(pid, signal.SIGINT)
        time.sleep(0.3)
        after = set(Parallel(n_jobs=2)(delayed(_worker_pid)() for _ in range(8)))
        dispositions = set(Parallel(n_jobs=2)(delayed(_sigint_disposition)() for _ in range(4)))
    assert len(booted) == 2 and after == booted  # the same workers, alive
    assert dispositions == {signal.SIG_IGN}
    assert signal.getsignal(signal.SIGINT) is own  # this process keeps its own handler


def test_exact_computation_in_progress():
    proc = _start(["exact", PONTOON])
    code, err = _interrupt(proc, None, 3.0)
    _assert_clean(code, err, "")


def test_interrupted_then_resumed_equals_uninterrupted(tmp_path, capsys):
    small = ["--rounds", "300000", "chunk_rounds=5000"]
    assert main(["run", FARO, "--out", str(tmp_path / "full"), "--quiet", "--no-charts",
                 *small]) == 0
    out = tmp_path / "cut"
    proc = _start(["run", FARO, "--out", str(out), "--quiet", *small])
    code, err = _interrupt(proc, out / "chunks" / "run.json", 0.3)
    _assert_clean(code, err, ": ")
    capsys.readouterr()
    assert main(["run", FARO, "--out", str(out), "--quiet", "--resume", "--no-charts",
                 *small]) == 0
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "full" / "report.csv"),
                                  pd.read_csv(out / "report.csv"))
    # The closing line counts what this command played and what it read from saved chunks.
    closing = capsys.readouterr().out.strip().splitlines()[-1]
    played, resumed = re.search(r"in all: ([\d,]+) rounds played in [\d.]+ s \(([\d,]+) more "
                                r"read from saved chunks\)", closing).groups()
    total = int(pd.read_csv(out / "report.csv")["rounds"].sum())
    assert int(played.replace(",", "")) + int(resumed.replace(",", "")) == total
    assert int(resumed.replace(",", "")) > 0


def _frame_of(function: str, filename: str):
    import sys as _sys

    namespace: dict = {}
    exec(compile(f"def {function}():\n    return _sys._getframe()\n", filename, "exec"),
         {"_sys": _sys}, namespace)
    return namespace[function]()


def test_no_interrupt_is_raised_inside_a_callback_from_compiled_code():
    from sim.core.interrupt import _outermost_lossy

    def _in_callback(frame) -> bool:
        return _outermost_lossy(frame) is not None

    site = os.path.join(os.sep, "venv", "site-packages")
    # llvmlite's object cache is called by LLVM while compiled code is loaded: an exception
    # raised there is printed as "Exception ignored" and the interrupt is lost.
    assert _in_callback(_frame_of("_raw_object_cache_notify",
                                  os.path.join(site, "llvmlite", "binding", "executionengine.py")))
    assert _in_callback(_frame_of("_numba_unpickle",
                                  os.path.join(site, "numba", "core", "serialize.py")))
    # elsewhere in the same module (or in a compilation) the interrupt is raised at once
    assert not _in_callback(_frame_of("finalize_object",
                                      os.path.join(site, "llvmlite", "binding",
                                                   "executionengine.py")))
    assert not _in_callback(_frame_of("compile_ir", os.path.join(site, "numba", "core",
                                                                 "compiler.py")))
    # A finalizer drops what it raises too (llvmlite frees its objects in __del__).
    assert _in_callback(_frame_of("__del__", os.path.join(site, "llvmlite", "binding",
                                                          "ffi.py")))


def test_an_interrupt_inside_a_finalizer_is_raised_in_the_code_it_interrupted():
    import gc

    from sim.core.interrupt import clean_interrupts

    class Dropped:
        def __del__(self):
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(10_000):  # the handler runs at one of these bytecodes
                pass

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    reached = []
    try:
        with clean_interrupts(), pytest.raises(KeyboardInterrupt):
            Dropped()  # freed at once: the signal arrives inside its finalizer
            gc.collect()
            reached.append("the line after")
        # Raised at the next line of this frame, not printed as "Exception ignored" and lost.
        assert reached == []
    finally:
        signal.signal(signal.SIGINT, previous)
