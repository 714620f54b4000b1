"""Walking every k-subset of n items in compiled code, one index combination at a time.

An exact enumeration over the hands a pack can deal (k cards of n) keeps ``idx``, k increasing
indices below n, starting at ``0, 1, ..., k-1``, and after each hand advances it to the next
combination in lexicographic order: the last index that can still move up moves up by one and
the ones after it follow it in a row. Every k-subset is met exactly once, and the walk ends
after ``n - k, ..., n - 1``.
"""

from __future__ import annotations

import numba

from sim.core import kernel_cache  # noqa: F401  (compiled code cached by digest)


@numba.njit(forceinline=True)
def next_combination(idx, n):
    """Advance ``idx`` (k increasing indices below ``n``) to the next combination in place;
    False (``idx`` unchanged) when it was the last."""
    k = idx.shape[0]
    i = k - 1
    while i >= 0 and idx[i] == n - k + i:
        i -= 1
    if i < 0:
        return False
    idx[i] += 1
    for j in range(i + 1, k):
        idx[j] = idx[j - 1] + 1
    return True
