"""xoshiro256** and unbiased bounded integers for the compiled kernels.

``numpy.random.Generator`` is slow to call from numba (tens of ns a draw), so the kernels carry
their own generator: xoshiro256** (Blackman and Vigna), its 256-bit state held in local
variables while a pack is shuffled, and bounded integers by Lemire's multiply-shift with its
rejection step, so every card position is exactly equally likely. The state is seeded from the
chunk's SeedSequence (:func:`sim.core.rng.kernel_state`).

The step and the bounded integer are marked ``forceinline``: LLVM inlines them into the caller
(as if written in place, the state in registers). numba's own ``inline="always"`` gives the
same code but re-types and re-lowers the body at every call site, which made compiling slow
where a kernel draws in many places.
"""

from __future__ import annotations

import numba
import numpy as np

from sim.core import kernel_cache  # noqa: F401  (compiled code cached by digest)

_U32_MASK = np.uint64(0xFFFFFFFF)


@numba.njit(forceinline=True)
def _rotl(x: np.uint64, k: int) -> np.uint64:
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@numba.njit(forceinline=True)
def next_u64(s0, s1, s2, s3):
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
def coin(s0, s1, s2, s3):
    """0 or 1, the same draw as ``draw_below(2, ...)`` (for a bound of 2 Lemire's method never
    rejects and returns the output's top bit) without its multiply."""
    x, s0, s1, s2, s3 = next_u64(s0, s1, s2, s3)
    return np.int64(x >> np.uint64(63)), s0, s1, s2, s3


@numba.njit(forceinline=True)
def draw_below(bound, s0, s1, s2, s3):
    """A uniform integer in [0, bound) for 0 < bound < 2**32 (Lemire, with rejection)."""
    b = np.uint64(bound)
    x, s0, s1, s2, s3 = next_u64(s0, s1, s2, s3)
    m = (x >> np.uint64(32)) * b
    low = m & _U32_MASK
    if low < b:
        threshold = (np.uint64(0x100000000) - b) % b
        while low < threshold:
            x, s0, s1, s2, s3 = next_u64(s0, s1, s2, s3)
            m = (x >> np.uint64(32)) * b
            low = m & _U32_MASK
    return np.int64(m >> np.uint64(32)), s0, s1, s2, s3


@numba.njit(forceinline=True)
def shuffle(cards, s0, s1, s2, s3):
    """Fisher-Yates shuffle of ``cards`` in place, for a kernel that holds the state in
    locals; the next state."""
    n = cards.shape[0]
    for i in range(n - 1):
        j, s0, s1, s2, s3 = draw_below(n - i, s0, s1, s2, s3)
        j += i
        tmp = cards[i]
        cards[i] = cards[j]
        cards[j] = tmp
    return s0, s1, s2, s3


@numba.njit(cache=True)
def shuffle_in_place(cards: np.ndarray, state: np.ndarray) -> None:
    """Fisher-Yates shuffle of ``cards`` in place, advancing the 4-word ``state``."""
    s0, s1, s2, s3 = shuffle(cards, state[0], state[1], state[2], state[3])
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3


@numba.njit(cache=True)
def bounded_integers(bound: int, n: int, state: np.ndarray) -> np.ndarray:
    """``n`` uniform integers in [0, bound), advancing ``state`` (used by tests)."""
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        out[i], s0, s1, s2, s3 = draw_below(bound, s0, s1, s2, s3)
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3
    return out


@numba.njit(cache=True)
def raw_outputs(n: int, state: np.ndarray) -> np.ndarray:
    """``n`` raw 64-bit outputs (used to check the generator against its reference)."""
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    out = np.empty(n, dtype=np.uint64)
    for i in range(n):
        out[i], s0, s1, s2, s3 = next_u64(s0, s1, s2, s3)
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3
    return out


# ------------------------------------------------------------------ keyed by round (CRN)
# Common random numbers where a strategy changes how many numbers a round consumes (a lazy
# draw, a bank that rides longer, a player who spins more): each round (or each fresh pack)
# starts the generator afresh from the chunk's key and its own index, so round i deals the
# same cards to every strategy whatever the rounds before consumed.
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


@numba.njit(forceinline=True)
def _mix64(z):
    """splitmix64's finaliser: a bijection of 64-bit words that scatters every input bit."""
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@numba.njit(forceinline=True)
def round_state(k0, k1, k2, k3, index):
    """The generator state of round (or shuffle) ``index`` of the chunk keyed by (k0..k3).

    Each key word plus a multiple of the golden gamma that differs by word and by index is
    scattered by splitmix64's finaliser (four independent mixes, so the latency is one), and
    each result is offset by the exclusive-or of all four, so every word of the state depends
    on every word of the key (xoshiro's first output reads one state word only). States of
    different indices or keys share nothing a test of the outputs could see. A kernel that
    re-seeds at each round from this gives every strategy the same random numbers in round
    ``index``, however many the rounds before consumed. The all-zero state, which xoshiro
    cannot leave, is replaced.
    """
    base = np.uint64(index) * np.uint64(4) * _GOLDEN
    a = _mix64(k0 + base + _GOLDEN)
    b = _mix64(k1 + base + np.uint64(2) * _GOLDEN)
    c = _mix64(k2 + base + np.uint64(3) * _GOLDEN)
    d = _mix64(k3 + base + np.uint64(4) * _GOLDEN)
    x = a ^ b ^ c ^ d
    s0, s1, s2, s3 = a + x, b + x, c + x, d + x
    if (s0 | s1 | s2 | s3) == np.uint64(0):
        s0 = _GOLDEN
    return s0, s1, s2, s3


@numba.njit(cache=True)
def round_states(key: np.ndarray, index: int) -> np.ndarray:
    """:func:`round_state` from Python: the 4-word state of round ``index`` under ``key``."""
    s0, s1, s2, s3 = round_state(key[0], key[1], key[2], key[3], index)
    out = np.empty(4, dtype=np.uint64)
    out[0], out[1], out[2], out[3] = s0, s1, s2, s3
    return out


@numba.njit(cache=True)
def bounded(bound: int, state: np.ndarray) -> int:
    """One uniform integer in [0, bound), advancing ``state`` (the reference paths' draw)."""
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    j, s0, s1, s2, s3 = draw_below(bound, s0, s1, s2, s3)
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3
    return j


@numba.njit(cache=True)
def lazy_order(pack: np.ndarray, state: np.ndarray) -> np.ndarray:
    """The order in which a lazy dealer deals ``pack`` from ``state``: card k is the one the
    k-th draw of the undealt part takes (a uniform pick among the ``rem`` left, swapped to
    the end), as the kernels draw. Its first k cards are the kernel's first k whatever k, so a
    reference path dealing from this order meets the kernel's cards. Advances ``state``."""
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    arr = pack.copy()
    out = np.empty_like(pack)
    n = arr.shape[0]
    for k in range(n):
        rem = n - k
        j, s0, s1, s2, s3 = draw_below(rem, s0, s1, s2, s3)
        card = arr[j]
        arr[j] = arr[rem - 1]
        arr[rem - 1] = card
        out[k] = card
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3
    return out


@numba.njit(forceinline=True)
def _ticket_word(key, row, col, attempt):
    """A 64-bit word for ticket ``col`` of session ``row`` (``attempt`` > 0: a redraw after a
    rejection): counter-based, so any ticket is found without drawing those before it."""
    session = _mix64(key + (np.uint64(row) + np.uint64(1)) * _GOLDEN)
    word = _mix64(session + (np.uint64(col) + np.uint64(1)) * _GOLDEN)
    if attempt > 0:
        word = _mix64(word + np.uint64(attempt) * _GOLDEN)
    return word


@numba.njit(cache=True)
def ticket_uniforms(key: np.uint64, rows: np.ndarray, col0: int, cols: int) -> np.ndarray:
    """Uniforms in [0, 1) for tickets ``col0 .. col0 + cols - 1`` of each session in ``rows``
    (one row each): the same ticket of the same session gets the same number whoever buys."""
    out = np.empty((rows.shape[0], cols), dtype=np.float64)
    for r in range(rows.shape[0]):
        for c in range(cols):
            x = _ticket_word(key, rows[r], col0 + c, 0)
            out[r, c] = np.float64(x >> np.uint64(11)) * (1.0 / 9007199254740992.0)
    return out


@numba.njit(cache=True)
def ticket_picks(key: np.uint64, rows: np.ndarray, col: int, bounds: np.ndarray) -> np.ndarray:
    """For ticket ``col`` of each session in ``rows``, a uniform integer in [0, bounds[r])
    (bounds < 2**32; Lemire with rejection, a rejected word redrawn from the same counter)."""
    out = np.empty(rows.shape[0], dtype=np.int64)
    for r in range(rows.shape[0]):
        b = np.uint64(bounds[r])
        attempt = 0
        x = _ticket_word(key, rows[r], col, attempt)
        m = (x >> np.uint64(32)) * b
        low = m & _U32_MASK
        if low < b:
            threshold = (np.uint64(0x100000000) - b) % b
            while low < threshold:
                attempt += 1
                x = _ticket_word(key, rows[r], col, attempt)
                m = (x >> np.uint64(32)) * b
                low = m & _U32_MASK
        out[r] = np.int64(m >> np.uint64(32))
    return out


@numba.njit(forceinline=True)
def next_key(k0, k1, k2, k3):
    """The key a kernel leaves for its next call (a session after a session): derived from
    its own key alone, never from how many numbers its rounds drew, so the next call's rounds
    are common to every strategy too."""
    return round_state(k0, k1, k2, k3, np.uint64(0xFFFFFFFFFFFFFFFF))
