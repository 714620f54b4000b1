"""Ctrl-C that always lands cleanly, whatever the process is doing.

Python raises ``KeyboardInterrupt`` at the next bytecode after SIGINT arrives. When that bytecode
belongs to a Python callback that numba's C dispatcher makes around a compiled call (unboxing
arguments, or boxing a kernel's results: ``numba.core.serialize._numba_unpickle``), the C code
swallows the exception half-way, and it surfaces as ``SystemError: CPUDispatcher(...) returned a
result with an exception set`` with the interrupt lost. :func:`clean_interrupts` installs a SIGINT
handler that raises only where no such callback is on the stack. Inside one it lets the callback
finish and raises at the next line of the Python code that called the kernel, by a trace function
set on that frame alone (a retry by timer would not do: the first bytecode after every kernel call
is the callback again). Compiled kernels run no bytecode, so the delay is at most the rest of one
kernel call. Interrupting numba while it compiles is clean, and is not delayed.

A finalizer is the same kind of place: Python prints and drops what a ``__del__`` method or a
weakref callback raises (llvmlite frees compiled objects in ``__del__``, which the collector
runs at any moment), so there too the interrupt is raised in the code the finalizer interrupted.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

# Modules whose functions numba's C code calls back into, and that must not be unwound: the
# dispatcher's (un)boxing helpers, and llvmlite's object cache that LLVM calls while it loads
# or emits compiled code (only those two callbacks, so that a compilation itself is still
# interrupted at once).
_CALLBACKS = tuple(os.sep + os.path.join("numba", "core", name)
                   for name in ("serialize.py", os.path.join("typing", "typeof.py")))
_CACHE_CALLBACKS = frozenset({"_raw_object_cache_notify", "_raw_object_cache_getbuffer"})
_OBJECT_CACHE = os.sep + os.path.join("llvmlite", "binding", "executionengine.py")
_NUMBA = (f"{os.sep}numba{os.sep}", f"{os.sep}llvmlite{os.sep}")


_WEAKREF = os.sep + "weakref.py"


def _loses_exceptions(frame: FrameType) -> bool:
    """Whether what this frame raises is lost: a numba or llvmlite callback from C, or a
    finalizer (``__del__``, a weakref callback)."""
    code = frame.f_code
    return (code.co_filename.endswith(_CALLBACKS)
            or (code.co_name in _CACHE_CALLBACKS and code.co_filename.endswith(_OBJECT_CACHE))
            or code.co_name == "__del__" or code.co_filename.endswith(_WEAKREF))


def _outermost_lossy(frame: FrameType | None) -> FrameType | None:
    found = None
    while frame is not None:
        if _loses_exceptions(frame):
            found = frame
        frame = frame.f_back
    return found


def _raise_in(frame: FrameType) -> None:
    """Raise KeyboardInterrupt at the next event (line or return) of ``frame``."""

    def local(_frame: FrameType, event: str, _arg: object) -> None:
        sys.settrace(None)
        frame.f_trace = None
        raise KeyboardInterrupt

    frame.f_trace = local
    # Tracing must be on for a frame's own trace function to be called; new frames get none.
    sys.settrace(lambda *_: None)


def _handler(signum: int, frame: FrameType | None) -> None:
    lossy = _outermost_lossy(frame)
    if lossy is None:
        raise KeyboardInterrupt
    caller = lossy.f_back
    # Below a finalizer any Python frame may raise; below numba's callbacks, its own frames
    # around the compiled call may not.
    finalizer = lossy.f_code.co_name == "__del__" or lossy.f_code.co_filename.endswith(_WEAKREF)
    while (caller is not None and not finalizer
           and any(p in caller.f_code.co_filename for p in _NUMBA)):
        caller = caller.f_back
    if caller is None:
        raise KeyboardInterrupt
    _raise_in(caller)


@contextmanager
def clean_interrupts() -> Iterator[None]:
    """Within this block, SIGINT raises ``KeyboardInterrupt`` only where it is safe to.

    A no-op outside the main thread (only it receives signals) and where SIGINT is ignored
    (a process started in the background by a shell keeps ignoring it).
    """
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        yield
        return
    previous = signal.signal(signal.SIGINT, _handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def ignore_in_worker() -> None:
    """A worker process's initializer: SIGINT ignored for the rest of its life (a no-op in the
    parent process and in a thread). The parent handles Ctrl-C and stops its workers.

    A terminal sends Ctrl-C to every process of the job, workers included, and a loky worker
    starts with no signal blocked, whatever the mask of the thread that started it. Caught by
    loky, an interrupt in a task or while a worker waits for one passed in silence; between
    two tasks (loky measuring the worker's memory) it printed a traceback of its own.
    """
    import multiprocessing

    if multiprocessing.parent_process() is not None and \
            threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextmanager
def children_deaf_to_interrupts() -> Iterator[None]:
    """Processes started within this block ignore SIGINT (they inherit it ignored, and Python
    leaves an inherited ignored SIGINT alone): a local dask cluster's nannies and workers, to
    which a terminal's Ctrl-C goes too, would each print a traceback of their own. The parent
    is deaf only while they start, and stops them itself."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
