"""Caches bounded by the memory they hold, for large tables built once per process.

A count-bounded cache (``functools.lru_cache(maxsize=16)``) of tables tens of megabytes each can
hold a gigabyte: a bonus policy table over (phase, wagering left, balance) is 40-80 MB, and an
experiment of 21 rows built every one of them and kept them all. Here the bound is in bytes
(``cachetools.LRUCache`` with a size function), so a process keeps the tables it is using and
drops the least recently used first.

A table slower to build than to compress (a bonus's optimal policy: a dynamic programme of up
to seconds) is not dropped but put away compressed: its arrays are mostly runs of one value (40
MB become about 1.4 MB with zlib at level 1, in a tenth of a second), so a run that checks
every row's table first and plays them afterwards builds each once.

A process that builds such tables also has glibc give back every freed block of 1 MB or more
at once (:func:`return_large_frees`, on import).
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import sys
import time
import zlib
from collections.abc import Callable, Hashable
from dataclasses import fields, is_dataclass
from typing import Any, TypeVar

import cachetools
import numpy as np

T = TypeVar("T")


def return_large_frees() -> None:
    """Have glibc give every freed block of 1 MB or more back to the system at once.

    glibc serves a block above its mmap threshold by mmap and returns it on free, but it
    raises that threshold (up to 32 MB) each time such a block is freed, so later tables and
    temporaries of a few megabytes come from the heap and stay resident after they are freed:
    a bonus run of 21 policy tables (16-80 MB each, built and dropped in turn) ended 50 MB
    higher for it. Setting the threshold fixes it and stops the raising.
    """
    if not sys.platform.startswith("linux"):
        return
    try:
        ctypes.CDLL(None).mallopt(-3, 1 << 20)  # M_MMAP_THRESHOLD
    except (OSError, AttributeError):  # not glibc
        pass


return_large_frees()

TABLE_BYTES = 32 * 2**20  # what one process may keep of large tables, beside the one in use
PACKED_BYTES = 64 * 2**20  # what it may keep of slow tables put away compressed
# A table is kept compressed when let go if building it took longer than twice compressing
# it would (zlib at level 1 packs about 250 MB a second of these tables).
COMPRESS_RATE = 250e6


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

    def __init__(self, max_bytes: int = TABLE_BYTES, packed_bytes: int = PACKED_BYTES) -> None:
        super().__init__(maxsize=max_bytes, getsizeof=nbytes)
        self.last: tuple[Hashable, Any] | None = None
        self.slow: set[Hashable] = set()  # keys whose tables are worth keeping compressed
        self.packed: cachetools.LRUCache = cachetools.LRUCache(
            maxsize=packed_bytes, getsizeof=lambda item: item[1])

    def popitem(self) -> tuple[Hashable, Any]:
        key, value = super().popitem()
        self.put_away(key, value)
        return key, value

    def put_away(self, key: Hashable, value: Any) -> None:
        """Keep a slow table compressed as it leaves the cache (a quick one is let go)."""
        if key in self.slow and key not in self.packed:
            packed = _pack(value)
            try:
                self.packed[key] = (packed, sum(len(b) for _, _, b in packed[1].values()) + 1)
            except ValueError:  # larger than the whole store
                pass


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
        if cache.last is not None and cache.last[0] not in cache:
            cache.put_away(*cache.last)  # the last one, too large for the cache itself
        cache.last = None  # let the previous table go before building the next
        kept = cache.packed.pop(key, None)
        if kept is not None:
            value = _unpack(kept[0])
        else:
            started = time.perf_counter()
            value = build()
            if time.perf_counter() - started > 2 * nbytes(value) / COMPRESS_RATE:
                cache.slow.add(key)
        try:
            cache[key] = value
        except ValueError:  # larger than the whole cache: kept as the last one only
            pass
    cache.last = (key, value)
    return value


def content_key(args: tuple) -> bytes:
    """A digest of ``args`` by value: arrays by dtype, shape and contents (not by identity or
    writability), tuples and lists item by item, anything else by its ``repr``."""
    digest = hashlib.blake2b(digest_size=20)
    _digest_into(digest, args)
    return digest.digest()


def _digest_into(digest: Any, value: Any) -> None:
    if isinstance(value, np.ndarray):
        digest.update(f"array{value.dtype.str}{value.shape}".encode())
        digest.update(memoryview(np.ascontiguousarray(value)).cast("B"))
    elif isinstance(value, (tuple, list)):
        digest.update(f"{type(value).__name__}{len(value)}(".encode())
        for item in value:
            _digest_into(digest, item)
        digest.update(b")")
    else:
        digest.update(repr(value).encode())
        digest.update(b"\0")


def by_content(maxsize: int = 256) -> Callable[[Callable[..., T]], Callable[..., T]]:
    """Memoize a function of arrays and plain values (a kernel) by :func:`content_key` of its
    arguments. The arrays of a result (an array or a tuple holding some) are copied in and out,
    so that a caller changing what it was given changes nothing kept.

    Equal inputs built apart (two variants whose rules differ only where this computation
    does not look) are computed once."""

    def decorate(func: Callable[..., T]) -> Callable[..., T]:
        kept: cachetools.LRUCache = cachetools.LRUCache(maxsize=maxsize)

        @functools.wraps(func)
        def memoized(*args: Any) -> T:
            key = content_key(args)
            try:
                value = kept[key]
            except KeyError:
                value = kept[key] = _copied(func(*args))
            return _copied(value)

        memoized.cache_clear = kept.clear  # type: ignore[attr-defined]
        return memoized

    return decorate


def _copied(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, tuple):
        return tuple(_copied(v) for v in value)
    return value


def _pack(value: Any) -> tuple[Any, dict[str, tuple[np.dtype, tuple[int, ...], bytes]]]:
    """An array, or a dataclass's arrays, compressed (what :func:`_unpack` restores)."""
    if isinstance(value, np.ndarray):
        arrays, rest = {"": value}, None
    else:
        arrays = {f.name: getattr(value, f.name) for f in fields(value)
                  if isinstance(getattr(value, f.name), np.ndarray)}
        rest = _without(value, arrays)
    return rest, {name: (a.dtype, a.shape, zlib.compress(memoryview(np.ascontiguousarray(a)), 1))
                  for name, a in arrays.items()}


def _without(value: Any, arrays: dict[str, np.ndarray]) -> dict[str, Any]:
    """The dataclass's other fields and its type: what it is rebuilt from."""
    return {"type": type(value), **{f.name: getattr(value, f.name) for f in fields(value)
                                    if f.name not in arrays}}


def _unpack(packed: tuple[Any, dict[str, tuple[np.dtype, tuple[int, ...], bytes]]]) -> Any:
    rest, arrays = packed
    restored = {name: _inflate(data, dtype, shape) for name, (dtype, shape, data) in arrays.items()}
    if "" in restored:
        return restored[""]
    rest = dict(rest)
    return rest.pop("type")(**rest, **restored)


def _inflate(data: bytes, dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
    """Decompress straight into a new array, a megabyte at a time (no copy of the whole)."""
    out = np.empty(shape, dtype=dtype)
    view = memoryview(out).cast("B")
    inflater, pos = zlib.decompressobj(), 0
    while pos < len(view):
        chunk = inflater.decompress(data, 1 << 20)
        if not chunk:
            raise ValueError("a compressed table ended early")
        data = inflater.unconsumed_tail
        view[pos:pos + len(chunk)] = chunk
        pos += len(chunk)
    return out
