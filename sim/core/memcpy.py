"""``copy_into``: one array's contents into another of the same size, as a single memcpy.

A kernel that puts a pack back in its fresh order many times a second (every bank of
lansquenet, every shuffle of pontoon) pays for the copy loop numba writes: a 256-byte vector
loop, then 16 bytes at a time, then card by card, with a check that the arrays do not overlap.
For a pack of 52 or 312 one-byte cards that is mostly the card-by-card tail. LLVM's memcpy
intrinsic moves the same bytes in a few wide loads and stores.
"""

from __future__ import annotations

from typing import Any

from numba.core import cgutils, types
from numba.extending import intrinsic


@intrinsic
def copy_into(typingctx: Any, dst: types.Array, src: types.Array) -> Any:
    """``dst[:] = src`` in compiled code, for C-contiguous arrays of one dtype and size.

    The size is taken from ``dst``; the caller guarantees that ``src`` is as large and that
    the two do not overlap (a kernel's working pack and the fresh pack it came from)."""
    if not (isinstance(dst, types.Array) and isinstance(src, types.Array)
            and dst.dtype == src.dtype and dst.layout == "C" and src.layout == "C"):
        return None
    sig = types.void(dst, src)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        target = context.make_array(signature.args[0])(context, builder, args[0])
        source = context.make_array(signature.args[1])(context, builder, args[1])
        cgutils.raw_memcpy(builder, target.data, source.data, target.nitems, target.itemsize)
        return context.get_dummy_value()

    return sig, codegen
