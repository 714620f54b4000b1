"""Where a command's time went: seconds by phase, and the whole command's time from the
moment its process started (imports and start-up included), for the run's closing line."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

_IMPORTED = time.perf_counter()

# A run's phases: its rounds (the runner), its outputs (report, charts, page) and, inside the
# outputs, the session play of a [session] table.
ROUNDS, OUTPUTS, SESSION_PLAY = "rounds", "outputs", "session play"


def since_process_start() -> float:
    """Seconds since this process started. On Linux from ``/proc`` (so Python's own start-up
    and the imports count); elsewhere since this module was first imported."""
    try:
        with open("/proc/self/stat") as f:
            # Field 22 is the start time in clock ticks since boot; the name in field 2 may
            # hold spaces, so count from its closing parenthesis.
            started = int(f.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/uptime") as f:
            uptime = float(f.read().split()[0])
        return max(0.0, uptime - started / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError, AttributeError):
        return time.perf_counter() - _IMPORTED


@dataclass
class Phases:
    """Seconds spent in each named phase, in the order the phases first ran."""

    seconds: dict[str, float] = field(default_factory=dict)

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        """Add the time spent inside the ``with`` block to ``name``."""
        started = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - started

    def get(self, name: str) -> float:
        return self.seconds.get(name, 0.0)
