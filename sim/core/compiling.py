"""Say on the terminal what is being compiled while it compiles.

A first run on an empty numba cache compiles every kernel and exact recursion it needs (tens
of seconds on a slow machine); later runs load the compiled code from the cache. A listener on
numba's compile events prints one line per top-level function of houseedge being compiled,
with the time it took, so that a first run does not look stalled.
"""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

from numba.core import event

_OURS = ("sim.", "strategies.")


class CompileNotices(event.Listener):
    """Print ``compiling <function> ... <seconds> s`` for each top-level compilation."""

    def __init__(self, stream: TextIO, prefixes: tuple[str, ...] = _OURS) -> None:
        self.stream = stream
        self.prefixes = prefixes
        self.depth = 0
        self.started = 0.0

    def on_start(self, ev: Any) -> None:
        self.depth += 1
        if self.depth != 1:
            return  # a helper compiled on behalf of the function already announced
        func = ev.data["dispatcher"].py_func
        name = f"{func.__module__}.{func.__qualname__}"
        if not name.startswith(self.prefixes):
            return
        self.started = time.perf_counter()
        self.stream.write(f"houseedge: compiling {name.removeprefix('sim.')} "
                          "(once: the compiled code is cached) ...")
        self.stream.flush()

    def on_end(self, ev: Any) -> None:
        self.depth -= 1
        if self.depth == 0 and self.started:
            self.stream.write(f" {time.perf_counter() - self.started:.1f} s\n")
            self.stream.flush()
            self.started = 0.0


_installed: CompileNotices | None = None


def announce(stream: TextIO | None = None, only_terminal: bool = True) -> CompileNotices | None:
    """Install the notices (once) on ``stream`` (stderr by default), only where it is a
    terminal unless ``only_terminal`` is False; returns the listener or None."""
    global _installed
    stream = stream if stream is not None else sys.stderr
    if _installed is not None:
        return _installed
    if only_terminal and not (hasattr(stream, "isatty") and stream.isatty()):
        return None
    _installed = CompileNotices(stream)
    event.register("numba:compile", _installed)
    return _installed


def silence() -> None:
    """Remove the notices (tests)."""
    global _installed
    if _installed is not None:
        event.unregister("numba:compile", _installed)
        _installed = None
