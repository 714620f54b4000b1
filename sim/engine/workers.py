"""Local worker processes, started while the command does its own start.

A loky worker is a fresh interpreter that imports the engine before its first chunk; started
only when the chunks are ready, every worker would do that while the parent waits. :func:`start`
launches them from a background thread as soon as the command line is read, so that they
import while the parent imports and reads the experiment; :func:`ready` waits for them where
the runner needs them, and starts them there when nothing started them early (the Python API,
other backends). A worker's imports happen in :func:`_boot`. What this saves, measured:
``docs/performance.md``.
"""

from __future__ import annotations

import os
import threading
from typing import TYPE_CHECKING

from sim.core.interrupt import ignore_in_worker

if TYPE_CHECKING:
    from joblib import parallel_config

_STARTING: dict[int, threading.Thread] = {}


def _boot() -> int:
    """In a worker: import what every chunk needs (the runner pulls in the engine), and load
    one compiled function: numba's first load of any compiled code imports the rest of its
    own machinery (scipy's BLAS among it), 0.15 s of CPU."""
    import numpy as np

    import sim.core.stats  # noqa: F401

    # What the runner's chunks need (the runner itself, which imports this module, is
    # unpickled with the first chunk: a small module once these are loaded).
    import sim.engine.checkpoints  # noqa: F401
    import sim.games  # noqa: F401
    from sim.core.xoshiro import raw_outputs

    raw_outputs(1, np.zeros(4, dtype=np.uint64))
    return os.getpid()


def loky() -> parallel_config:
    """joblib's loky backend as houseedge runs it: its workers ignore SIGINT from before their
    first task (:func:`sim.core.interrupt.ignore_in_worker`). Every parallel call of houseedge
    takes this one configuration, so that each reuses the same workers (joblib replaces them
    for another)."""
    from joblib import parallel_config

    return parallel_config(backend="loky", initializer=ignore_in_worker)


def _start_now(n_jobs: int) -> None:
    from joblib import Parallel, delayed

    with loky():
        # More tasks than workers, so that each worker is asked for at least one.
        Parallel(n_jobs=n_jobs)(delayed(_boot)() for _ in range(2 * max(n_jobs, 2)))


def start(n_jobs: int) -> None:
    """Start ``n_jobs`` loky workers in the background (nothing for one job).

    The workers ignore SIGINT (:func:`loky`); Ctrl-C reaches the parent, which stops them.
    """
    if n_jobs == 1 or n_jobs in _STARTING:
        return
    thread = threading.Thread(target=_start_now, args=(n_jobs,), daemon=True,
                              name="houseedge-workers")
    _STARTING[n_jobs] = thread
    thread.start()


def ready(n_jobs: int) -> None:
    """Return once ``n_jobs`` loky workers are up: those :func:`start` launched, or new ones
    (joblib keeps them for the process's later calls with the same ``n_jobs``)."""
    thread = _STARTING.pop(n_jobs, None)
    if thread is not None:
        thread.join()
        return
    _start_now(n_jobs)
