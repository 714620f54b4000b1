"""A first run compiles its game's kernel in a process of its own while it reads the
experiment (sim.engine.warm), so that on an empty numba cache the run's first chunk loads it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from sim.core import kernel_cache
from sim.engine import warm

ROOT = Path(__file__).parents[1]

# Counts the kernel's compilations in a fresh process (0: loaded from the cache).
COUNT = """
from numba.core import event
import numpy as np
compiled = []
class Listener(event.Listener):
    def on_start(self, ev):
        compiled.append(ev.data["dispatcher"].py_func.__qualname__)
    def on_end(self, ev):
        pass
event.register("numba:compile", Listener())
from sim import games
games.get("pontoon").warm_up()
print(compiled.count("_simulate"))
"""


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "numba" / kernel_cache.sources_digest()  # as a child names it
    monkeypatch.setattr(kernel_cache, "folder", lambda: folder)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(folder))
    return folder


def test_a_game_with_nothing_to_warm_up_starts_no_process(cache):
    assert warm.start("faro") is None


def test_a_stamp_in_the_cache_starts_no_process(cache):
    (cache / "warm").mkdir(parents=True)
    (cache / "warm" / "pontoon").touch()
    assert warm.start("pontoon") is None


def test_the_stamp_is_left_only_after_the_warm_up_succeeded(cache, monkeypatch):
    from sim import games

    class Broken:
        def warm_up(self) -> None:
            raise RuntimeError("no kernel here")

    monkeypatch.setattr(games, "get", lambda name: Broken())
    warm._warm("pontoon")  # what went wrong is the run's own to meet and say
    assert not (cache / "warm" / "pontoon").exists()

    class Fine:
        def warm_up(self) -> None:
            pass

    monkeypatch.setattr(games, "get", lambda name: Fine())
    warm._warm("pontoon")
    assert (cache / "warm" / "pontoon").exists()


@pytest.mark.slow
def test_the_warm_up_process_leaves_the_kernel_compiled_in_the_cache(cache):
    process = warm.start("pontoon")
    assert process is not None
    process.join(timeout=300)
    assert process.exitcode == 0 and (cache / "warm" / "pontoon").exists()
    assert warm.start("pontoon") is None  # done once
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    out = subprocess.run([sys.executable, "-c", COUNT], capture_output=True, text=True,
                         env=env, cwd=ROOT, check=True).stdout
    assert out.split() == ["0"]  # the run's own process loads the kernel: no compilation


def test_a_command_line_run_warms_its_game_up_in_the_background(monkeypatch, tmp_path):
    from sim import cli
    from sim.core.errors import InputError
    from sim.engine import runner

    started = []
    monkeypatch.setattr(warm, "start", started.append)
    assert cli.main(["run", str(ROOT / "experiments" / "faro.toml"), "--rounds", "2000",
                     "--out", str(tmp_path / "out"), "--quiet", "--no-charts"]) == 0
    assert started == ["faro"]
    started.clear()

    def refuse(*args, **kwargs):
        raise InputError("the run is not the point here")

    monkeypatch.setattr(runner, "run", refuse)
    assert cli.main(["run", str(ROOT / "experiments" / "faro.toml"), "--rounds", "2000",
                     "--out", str(tmp_path / "out"), "--quiet", "--no-charts", "--force",
                     "--backend", "dask", "--scheduler", "tcp://127.0.0.1:8786"]) == 2
    assert started == []  # a cluster's workers compile where they run
