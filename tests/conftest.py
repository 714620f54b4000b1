"""Shared test helpers."""

from __future__ import annotations

import os

import numpy as np
import pytest

os.environ.setdefault("MPLBACKEND", "Agg")


def distinct_orderings(counts: list[int]) -> np.ndarray:
    """Every distinct ordering of a multiset of ranks (rank r appearing counts[r] times), one
    per row. Each is equally likely under a uniform shuffle of the cards, since each stands
    for the same number of card orderings."""
    total = sum(counts)
    rows: list[list[int]] = []
    left = list(counts)
    current: list[int] = []

    def walk() -> None:
        if len(current) == total:
            rows.append(list(current))
            return
        for r, c in enumerate(left):
            if c:
                left[r] -= 1
                current.append(r)
                walk()
                current.pop()
                left[r] += 1

    walk()
    return np.array(rows, dtype=np.int8)


@pytest.fixture(scope="session")
def orderings_3x2() -> np.ndarray:
    return distinct_orderings([2, 2, 2])


@pytest.fixture(scope="session")
def orderings_4x3() -> np.ndarray:
    return distinct_orderings([3, 3, 3, 3])
