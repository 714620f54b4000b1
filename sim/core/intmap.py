"""A map of non-negative int64 keys to int64 values for compiled code, faster than numba's Dict.

The exact recursions cache millions of states by an integer code and look them up tens of
millions of times; numba's typed ``Dict`` goes through a generic C lookup (a hash callback and
a byte comparison of the key) for each. This one is open addressing with linear probing over
two arrays, doubled when half full: a lookup is a multiplication, a mask and, mostly, one
comparison. A map is a tuple (keys, values, size), each a one-element typed list holding the
array (so that the arrays can grow in place of the old ones).
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.typed import List

from sim.core import jit, kernel_cache  # noqa: F401  (compiled code cached by digest)

EMPTY = -1  # a free slot (keys are non-negative)
_MIX = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing: spreads nearby codes apart


@jit.njit(cache=True)
def intmap(capacity: int = 1024):
    """An empty map with room for ``capacity`` keys before it grows."""
    size = 16
    while size < 2 * capacity:
        size *= 2
    keys = List.empty_list(types.int64[::1])
    keys.append(np.full(size, EMPTY, dtype=np.int64))
    values = List.empty_list(types.int64[::1])
    values.append(np.empty(size, dtype=np.int64))
    count = np.zeros(1, dtype=np.int64)
    return keys, values, count


@jit.njit(cache=True)
def _slot(keys, key):
    mask = keys.shape[0] - 1
    i = np.int64((np.uint64(key) * _MIX) >> np.uint64(20)) & mask
    while keys[i] != EMPTY and keys[i] != key:
        i = (i + 1) & mask
    return i


@jit.njit(cache=True)
def get(table, key):
    """The value of ``key``, or -1 where it is absent."""
    keys = table[0][0]
    i = _slot(keys, key)
    return table[1][0][i] if keys[i] == key else -1


@jit.njit(cache=True)
def put(table, key, value):
    """Set ``key`` to ``value``."""
    keys, values, count = table[0][0], table[1][0], table[2]
    if 2 * (count[0] + 1) > keys.shape[0]:  # half full: double and put every key back
        bigger = np.full(2 * keys.shape[0], EMPTY, dtype=np.int64)
        more = np.empty(2 * keys.shape[0], dtype=np.int64)
        for j in range(keys.shape[0]):
            if keys[j] != EMPTY:
                i = _slot(bigger, keys[j])
                bigger[i], more[i] = keys[j], values[j]
        table[0][0], table[1][0] = bigger, more
        keys, values = bigger, more
    i = _slot(keys, key)
    if keys[i] != key:
        keys[i] = key
        count[0] += 1
    values[i] = value


@jit.njit(cache=True)
def size(table):
    """How many keys the map holds."""
    return table[2][0]


__all__ = ["EMPTY", "get", "intmap", "put", "size"]
