"""xoshiro256** and unbiased bounded integers for the compiled kernels.

``numpy.random.Generator`` is slow to call from numba (tens of ns a draw), so the kernels carry
their own generator: xoshiro256** (Blackman and Vigna), its 256-bit state held in local
variables while a pack is shuffled, and bounded integers by Lemire's multiply-shift with its
rejection step, so every card position is exactly equally likely. The state is seeded from the
chunk's SeedSequence (:func:`sim.rng.kernel_state`).

The step and the bounded integer are marked ``forceinline``: LLVM inlines them into the caller
(as if written in place, the state in registers). numba's own ``inline="always"`` gives the
same code but re-types and re-lowers the body at every call site, which made compiling slow
where a kernel draws in many places.
"""

from __future__ import annotations

import numba
import numpy as np

_U32_MASK = np.uint64(0xFFFFFFFF)


@numba.njit(forceinline=True)
def _rotl(x: np.uint64, k: int) -> np.uint64:
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@numba.njit(forceinline=True)
def _next(s0, s1, s2, s3):
    """One xoshiro256** output and the next state."""
    result = _rotl(s1 * np.uint64(5), 7) * np.uint64(9)
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    return result, s0, s1, s2, s3


@numba.njit(forceinline=True)
def _bounded(bound, s0, s1, s2, s3):
    """A uniform integer in [0, bound) for 0 < bound < 2**32 (Lemire, with rejection)."""
    b = np.uint64(bound)
    x, s0, s1, s2, s3 = _next(s0, s1, s2, s3)
    m = (x >> np.uint64(32)) * b
    low = m & _U32_MASK
    if low < b:
        threshold = (np.uint64(0x100000000) - b) % b
        while low < threshold:
            x, s0, s1, s2, s3 = _next(s0, s1, s2, s3)
            m = (x >> np.uint64(32)) * b
            low = m & _U32_MASK
    return np.int64(m >> np.uint64(32)), s0, s1, s2, s3


@numba.njit(cache=True)
def shuffle_in_place(cards: np.ndarray, state: np.ndarray) -> None:
    """Fisher-Yates shuffle of ``cards`` in place, advancing the 4-word ``state``."""
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    n = cards.shape[0]
    for i in range(n - 1):
        j, s0, s1, s2, s3 = _bounded(n - i, s0, s1, s2, s3)
        j += i
        tmp = cards[i]
        cards[i] = cards[j]
        cards[j] = tmp
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3


@numba.njit(cache=True)
def bounded_integers(bound: int, n: int, state: np.ndarray) -> np.ndarray:
    """``n`` uniform integers in [0, bound), advancing ``state`` (used by tests)."""
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        out[i], s0, s1, s2, s3 = _bounded(bound, s0, s1, s2, s3)
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3
    return out


@numba.njit(cache=True)
def raw_outputs(n: int, state: np.ndarray) -> np.ndarray:
    """``n`` raw 64-bit outputs (used to check the generator against its reference)."""
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    out = np.empty(n, dtype=np.uint64)
    for i in range(n):
        out[i], s0, s1, s2, s3 = _next(s0, s1, s2, s3)
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3
    return out
