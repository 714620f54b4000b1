"""``houseedge bench``: rounds per second of each game beside a baseline from the same run.

The baseline is numpy shuffling 52-card packs (``Generator.permuted`` on a 2-D array). The
machine may be shared and noisy, so every rate is measured in the CPU time of the measuring
thread (time spent waiting for a core is not counted; on an idle machine it equals the wall
time), each figure is the median of five timed repeats, and the ratio to the baseline measured
in the same run is the number to trust. The load average before and after is reported beside
them. A game lists its cases as data (:class:`sim.games.base.BenchCase`: rules, a
table, a path), played through its own entry points; the exact computations it lists
(``bench_timings``) are timed once each, from cold caches, after a warm-up call that loads
their compiled code.

``--json FILE`` writes the figures with the load, the machine and the versions, so that a run
can be compared with an earlier one (``--compare FILE``).
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import statistics
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from sim import games
from sim.core.cards import make_pack
from sim.games.base import ENGINE, KERNEL, REFERENCE, SESSIONS, BenchCase, Game

REPEATS = 5


def _rate(run: Callable[[int], object], seconds: float, start: int) -> float:
    """Median rate of ``run(n)`` over repeats (CPU time), n grown until a call takes about
    seconds/REPEATS."""
    run(min(start, 1000))  # warm-up: compile kernels, load caches
    target = seconds / REPEATS
    n = start
    while True:
        t0 = time.thread_time()
        run(n)
        elapsed = time.thread_time() - t0
        if elapsed >= target or n >= 1 << 34:
            break
        n = int(n * min(16.0, max(2.0, 1.2 * target / max(elapsed, 1e-6))))
    rates = [n / max(elapsed, 1e-9)]
    for _ in range(REPEATS - 1):
        t0 = time.thread_time()
        run(n)
        rates.append(n / max(time.thread_time() - t0, 1e-9))
    return statistics.median(rates)


def case_runner(game: Game, case: BenchCase) -> Callable[[int], object]:
    """``run(n)``: ``n`` units of a bench case, through the game's own entry point for its
    path (a kernel of tables, sessions of the kernel, the reference path, or the engine's
    choice for a plain strategy), from one seed at every call."""
    seed = np.random.SeedSequence(1)

    def rounds(n: int) -> int:
        return max(1, n // case.per_round)

    if case.path == KERNEL:
        return lambda n: game.simulate_table(case.rules, case.strategy, case.progression,
                                             rounds(n), seed)
    if case.path == SESSIONS:
        return lambda n: game.session_nets_table(
            case.rules, case.strategy, case.progression,
            max(1, rounds(n) // case.session_rounds), case.session_rounds, seed)
    if case.path == REFERENCE:
        return lambda n: game.simulate_reference(case.rules, case.strategy, case.progression,
                                                 rounds(n), seed)
    if case.path == ENGINE:
        return lambda n: game.simulate(case.rules, case.strategy, case.progression, rounds(n),
                                       seed)
    raise ValueError(f"bench case {case.label!r}: no path {case.path!r}")


def baseline_rate(seconds: float = 1.0) -> float:
    """Packs per second of numpy shuffling 52-card packs in batches."""
    rng = np.random.default_rng(0)
    pack = make_pack()
    batch = 50_000
    # One output buffer for every batch: a fresh 20 MB array each time would measure the
    # allocator (mapped and faulted in anew under sim's malloc settings), not the shuffle.
    packs = np.broadcast_to(pack, (batch, pack.size))
    out = np.empty(packs.shape, dtype=pack.dtype)

    def run(n: int) -> object:
        for _ in range(max(1, n // batch)):
            rng.permuted(packs, axis=1, out=out)
        return None

    return _rate(run, seconds, batch * 4)


def _fmt_rate(rate: float) -> str:
    if rate >= 1e6:
        return f"{rate / 1e6:8.2f} M"
    return f"{rate / 1e3:8.2f} k"


def _load() -> list[float]:
    try:
        return [float(x) for x in Path("/proc/loadavg").read_text().split()[:3]]
    except OSError:
        return []


def environment() -> dict[str, Any]:
    """What a benchmark run depends on: versions, machine, revision and time."""
    import numba

    import sim

    try:
        revision = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                  text=True, cwd=Path(__file__).parent, timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        revision = ""
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"houseedge": sim.__version__, "git_revision": revision,
            "python": platform.python_version(), "numpy": np.__version__,
            "numba": numba.__version__, "machine": platform.machine(), "cpu": cpu,
            "cores": os.cpu_count(),
            "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")}


def _key(line: dict[str, Any]) -> tuple[str, str]:
    return str(line["game"]), str(line["case"])


def main(game_names: Sequence[str] | None = None, seconds: float = 1.0,
         reference: bool = True, json_path: str | None = None,
         compare: str | None = None) -> list[dict[str, Any]]:
    """Print the benchmark lines; return them as data; optionally write them as JSON and
    show each rate against the same line of an earlier JSON file."""
    earlier: dict[tuple[str, str], dict[str, Any]] = {}
    if compare:
        from sim.core.errors import InputError

        try:
            earlier = {_key(x): x for x in json.loads(Path(compare).read_text())["lines"]}
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise InputError(f"{compare}: not a bench JSON file ({exc})") from None
    if json_path:
        from sim.core.errors import InputError

        target = Path(json_path)
        if target.is_dir() or not target.parent.resolve().is_dir():
            raise InputError(f"{json_path}: --json needs a file in an existing folder")
    load_before = _load()
    print(f"houseedge bench: one core, CPU time, median of {REPEATS} repeats; load average "
          f"{' '.join(f'{x:.2f}' for x in load_before) or '?'}; {os.cpu_count()} cores")

    def against(line: dict[str, Any]) -> str:
        old = earlier.get(_key(line))
        if not old:
            return ""
        if "ratio" in line and old.get("ratio"):
            return f"   {line['ratio'] / old['ratio']:5.2f}x earlier ratio"
        if "seconds" in line and old.get("seconds"):
            return f"   {line['seconds'] / old['seconds']:5.2f}x earlier time"
        return ""

    base = baseline_rate(seconds)
    lines: list[dict[str, Any]] = [{"game": "baseline", "case": "numpy "
                                    "Generator.permuted, 52-card packs",
                                    "rate": base, "unit": "packs", "ratio": 1.0}]
    print(f"{'baseline':<12}{lines[0]['case']:<60}{_fmt_rate(base)} packs/s   1.00x")
    for name in game_names or games.names():
        game, shows = games.get(name), games.presentation(name)
        for case in shows.bench_cases():
            if not reference and case.reference:
                continue
            start = 200 if case.reference else 20_000
            rate = _rate(case.run or case_runner(game, case), seconds, start)
            lines.append({"game": name, "case": case.label, "rate": rate, "unit": case.unit,
                          "ratio": rate / base})
            print(f"{name:<12}{case.label:<60}{_fmt_rate(rate)} {case.unit}/s "
                  f"{rate / base:6.2f}x{against(lines[-1])}")
        for timing in shows.bench_timings():
            timing.run()  # warm-up: load compiled code (each call starts from cold caches)
            t0 = time.thread_time()
            note = timing.run()
            elapsed = time.thread_time() - t0
            lines.append({"game": name, "case": timing.label, "seconds": elapsed,
                          "note": note or "gave up (work budget)"})
            print(f"{name:<12}{timing.label:<60}{elapsed:9.3f} s     "
                  f"{note or 'gave up (work budget)'}{against(lines[-1])}")
    load_after = _load()
    print(f"load average after: {' '.join(f'{x:.2f}' for x in load_after) or '?'}")
    if json_path:
        from sim.core.errors import InputError
        from sim.core.files import write_atomic

        try:
            write_atomic(Path(json_path), json.dumps(
                {"timing": f"CPU time of the measuring thread, median of {REPEATS} repeats",
                 "load_before": load_before, "load_after": load_after,
                 "environment": environment(), "lines": lines}, indent=1) + "\n")
        except OSError as exc:
            raise InputError(f"{json_path}: cannot write the bench figures "
                             f"({exc.strerror or exc})") from None
    return lines
