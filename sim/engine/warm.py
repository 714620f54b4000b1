"""Compile a game's simulation kernel in a process of its own while the command reads its
experiment.

On an empty numba cache a first run compiles, while it reads the experiment, the exact
recursions its strategies need (pontoon's optimal tables: about 25 s on a 2-core machine of
this kind), and then, at its first chunk, the simulation kernel (6-8 s more, in every worker
at once). The kernel does not depend on the experiment's rules or strategies (one compiled
specialization serves them all), so it can be compiled beside the reading, on another core:
:func:`start` spawns one process that runs the game's :meth:`~sim.games.base.Game.warm_up`,
which leaves the compiled code in numba's cache for the run's own processes to load. A stamp
in the cache folder records that it was done: a warm cache starts no process. The cache
folder is keyed by a digest of the compiled sources (:mod:`sim.core.kernel_cache`), so a change
of them leaves the stamp behind with the code it stood for.
"""

from __future__ import annotations

import multiprocessing
from pathlib import Path

from sim.core.interrupt import children_deaf_to_interrupts


def _stamp(game: str) -> Path:
    from sim.core import kernel_cache

    return kernel_cache.folder() / "warm" / game


def start(game: str) -> multiprocessing.process.BaseProcess | None:
    """Compile ``game``'s kernel in the background unless it is cached already, or the game
    has nothing to warm up; returns the process started, if any.

    The process ignores Ctrl-C (the command's own handling stops; being a daemon, the process
    ends with the command) and prints nothing.
    """
    from sim import games
    from sim.games.base import Game

    if _stamp(game).exists() or type(games.get(game)).warm_up is Game.warm_up:
        return None
    with children_deaf_to_interrupts():
        process = multiprocessing.get_context("spawn").Process(
            target=_warm, args=(game,), daemon=True, name=f"houseedge-warm-{game}")
        process.start()
    return process


def _warm(game: str) -> None:
    """In the background process: compile the kernel, then leave the stamp."""
    from sim import games

    try:
        games.get(game).warm_up()
    except Exception:  # the run itself meets whatever went wrong here, and says it
        return
    stamp = _stamp(game)
    stamp.parent.mkdir(parents=True, exist_ok=True)
    stamp.touch()
