"""One compiled specialization per argument type, not per constant value or writability.

numba compiles a jitted function called from jitted code afresh for every distinct literal
argument (``f(x, 0)`` and ``f(x, 1)`` are two compilations, typed ``Literal[int](0)`` and
``Literal[int](1)``). The exact recursions call their helpers with many small constants, and
those extra specializations made most of a first run's compile time. :func:`njit` compiles a
helper for the plain types of its arguments only; a call with constants then converts them,
as it would for any int64.

numba also types a read-only array apart from a writable one of the same dtype and layout:
a table that is sometimes frozen (cached, shared) and sometimes fresh compiled a kernel twice
(pontoon's, 5-12 s a time). :func:`read_only` gives a kernel's input tables one type.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from numba.core import types


def njit(**options: Any) -> Callable[[Callable[..., Any]], Any]:
    """``numba.njit(**options)`` whose calls from compiled code ignore literal values."""

    def decorate(func: Callable[..., Any]) -> Any:
        dispatcher = numba.njit(**options)(func)
        template = dispatcher.get_call_template

        def plain_call_template(args: tuple, kws: dict) -> Any:
            return template(tuple(types.unliteral(a) for a in args),
                            {k: types.unliteral(v) for k, v in kws.items()})

        dispatcher.get_call_template = plain_call_template
        return dispatcher

    return decorate


def read_only(array: np.ndarray) -> np.ndarray:
    """A read-only view of ``array`` (no copy), for a table a kernel reads but never writes:
    passed so at every call, it compiles the kernel for one array type."""
    view = array.view()
    view.flags.writeable = False
    return view
