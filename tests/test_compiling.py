"""The terminal says what is being compiled while it compiles."""

import io

import numba
from numba.core import event

from sim.core.compiling import CompileNotices, announce


def test_each_top_level_compilation_is_announced_with_its_time():
    stream = io.StringIO()
    notices = CompileNotices(stream, prefixes=(__name__,))

    @numba.njit
    def helper(x):
        return x + 1

    @numba.njit
    def outer(x):
        return helper(x) * 2

    event.register("numba:compile", notices)
    try:
        assert outer(3) == 8
        assert outer(4) == 10  # compiled already: nothing more is said
    finally:
        event.unregister("numba:compile", notices)
    lines = stream.getvalue().splitlines()
    assert len(lines) == 1  # the helper is compiled on behalf of outer: one line
    assert lines[0].startswith(f"houseedge: compiling {__name__}.")
    assert "outer" in lines[0] and lines[0].endswith(" s")


def test_no_notices_unless_the_stream_is_a_terminal():
    assert announce(io.StringIO()) is None
