"""Caches bounded by the memory they hold, for large tables built once per process.

A count-bounded cache (``functools.lru_cache(maxsize=16)``) of tables tens of megabytes each can
hold a gigabyte: a bonus policy table over (phase, wagering left, balance) is 40-80 MB, and an
experiment of 21 rows built every one of them and kept them all. Here the bound is in bytes
(``cachetools.LRUCache`` with a size function), so a process keeps the tables it is using and
drops the least recently used first.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import fields, is_dataclass
from typing import Any, TypeVar

import cachetools
import numpy as np

T = TypeVar("T")

TABLE_BYTES = 64 * 2**20  # what one process may keep of large tables


def nbytes(value: Any) -> int:
    """The bytes held by the numpy arrays of ``value`` (an array, or a dataclass of arrays);
    at least 1, so that every entry counts."""
    if isinstance(value, np.ndarray):
        return max(1, value.nbytes)
    if is_dataclass(value):
        return max(1, sum(getattr(value, f.name).nbytes for f in fields(value)
                          if isinstance(getattr(value, f.name), np.ndarray)))
    return 1


class TableCache(cachetools.LRUCache):
    """An LRU cache holding at most ``max_bytes`` of arrays (see :func:`nbytes`), which also
    keeps the table last asked for whatever its size: a strategy that looks up its table at
    every decision (on the reference path) must not rebuild it each time."""

    def __init__(self, max_bytes: int = TABLE_BYTES) -> None:
        super().__init__(maxsize=max_bytes, getsizeof=nbytes)
        self.last: tuple[Hashable, Any] | None = None


def table_cache(max_bytes: int = TABLE_BYTES) -> TableCache:
    """A :class:`TableCache` of at most ``max_bytes``."""
    return TableCache(max_bytes)


def remember(cache: TableCache, key: Hashable, build: Callable[[], T]) -> T:
    """The value cached under ``key``, built by ``build()`` and kept on a miss."""
    if cache.last is not None and cache.last[0] == key:
        return cache.last[1]
    try:
        value = cache[key]
    except KeyError:
        cache.last = None  # let the previous table go before building the next
        value = build()
        try:
            cache[key] = value
        except ValueError:  # larger than the whole cache: kept as the last one only
            pass
    cache.last = (key, value)
    return value
