"""``houseedge bench``: rounds per second of each game beside a baseline from the same run.

The baseline is numpy shuffling 52-card packs (``Generator.permuted`` on a 2-D array). The
machine may be shared and noisy, so each figure is the best of a few timed repeats, and the
ratio to the baseline measured in the same run is the number to trust. Exact computations a
game lists (``Game.bench_timings``) are timed once each, from cold caches, after a warm-up call
that loads their compiled code.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence

import numpy as np

from sim import games
from sim.cards import make_pack, shuffled_packs


def _rate(run: Callable[[int], object], seconds: float, start: int) -> float:
    """Best rate of ``run(n)`` over repeats, with n grown until one call takes ~seconds/3."""
    run(min(start, 1000))  # warm-up: compile kernels, load caches
    n = start
    while True:
        t0 = time.perf_counter()
        run(n)
        elapsed = time.perf_counter() - t0
        if elapsed >= seconds / 3 or n >= 1 << 34:
            break
        n = int(n * min(16.0, max(2.0, seconds / 3 / max(elapsed, 1e-6))))
    best = n / elapsed
    for _ in range(2):
        t0 = time.perf_counter()
        run(n)
        best = max(best, n / (time.perf_counter() - t0))
    return best


def baseline_rate(seconds: float = 1.0) -> float:
    """Packs per second of numpy shuffling 52-card packs in batches."""
    rng = np.random.default_rng(0)
    pack = make_pack()
    batch = 50_000

    def run(n: int) -> object:
        for _ in range(max(1, n // batch)):
            shuffled_packs(rng, pack, batch)
        return None

    return _rate(run, seconds, batch * 4)


def _fmt_rate(rate: float) -> str:
    if rate >= 1e6:
        return f"{rate / 1e6:8.2f} M"
    return f"{rate / 1e3:8.2f} k"


def main(game_names: Sequence[str] | None = None, seconds: float = 1.0,
         reference: bool = True) -> list[dict[str, float | str]]:
    """Print the benchmark lines; return them as data."""
    try:
        load = open("/proc/loadavg").read().split()[:3]
    except OSError:
        load = ["?"]
    print(f"houseedge bench: one core, best of 3 repeats; load average {' '.join(load)}; "
          f"{os.cpu_count()} cores")
    base = baseline_rate(seconds)
    lines: list[dict[str, float | str]] = [{"game": "baseline", "case": "numpy "
                                            "Generator.permuted, 52-card packs",
                                            "rate": base, "unit": "packs", "ratio": 1.0}]
    print(f"{'baseline':<12}{lines[0]['case']:<60}{_fmt_rate(base)} packs/s   1.00x")
    for name in game_names or games.names():
        for case in games.get(name).bench_cases():
            if not reference and "reference" in case.label:
                continue
            start = 200 if "reference" in case.label else 20_000
            rate = _rate(case.run, seconds, start)
            lines.append({"game": name, "case": case.label, "rate": rate, "unit": case.unit,
                          "ratio": rate / base})
            print(f"{name:<12}{case.label:<60}{_fmt_rate(rate)} {case.unit}/s "
                  f"{rate / base:6.2f}x")
        for timing in games.get(name).bench_timings():
            timing.run()  # warm-up: load compiled code (each call starts from cold caches)
            t0 = time.perf_counter()
            note = timing.run()
            elapsed = time.perf_counter() - t0
            lines.append({"game": name, "case": timing.label, "seconds": elapsed,
                          "note": note or "gave up (work budget)"})
            print(f"{name:<12}{timing.label:<60}{elapsed:9.3f} s     "
                  f"{note or 'gave up (work budget)'}")
    return lines
