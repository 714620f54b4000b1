"""copy_into: the compiled kernels' memcpy of one array into another."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from sim.core.memcpy import copy_into


@numba.njit
def _copy(dst, src):
    copy_into(dst, src)


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int64, np.float64])
@pytest.mark.parametrize("size", [0, 1, 7, 52, 312, 1000])
def test_copies_every_element_and_nothing_beyond(dtype, size):
    src = np.arange(size, dtype=np.int64).astype(dtype) + 1
    store = np.zeros(size + 8, dtype=dtype)
    _copy(store[:size], src)  # a C-contiguous view: the bytes after it must stay untouched
    np.testing.assert_array_equal(store[:size], src)
    assert not store[size:].any()


def test_refuses_arrays_of_different_dtypes():
    with pytest.raises(numba.core.errors.TypingError):
        _copy(np.zeros(4, dtype=np.int8), np.zeros(4, dtype=np.int16))
