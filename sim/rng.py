"""Seeding: one root seed, one independent stream per (variant, strategy, chunk).

Every chunk of every (variant, strategy) pair gets its generator from
``SeedSequence(root, spawn_key=(key(variant name), key(strategy name), chunk))``: keyed by the
rows' names, never by their positions in the file, so adding, removing or reordering rows leaves
every other row's numbers as they were. The chunk size is fixed by the experiment and never by
the number of jobs, so any chunk can be recomputed alone and the same seed gives the same report
however the chunks are scheduled.
"""

from __future__ import annotations

import hashlib

import numpy as np


def name_key(name: str) -> int:
    """A stable 128-bit integer standing for a name in a seed's spawn key."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:16], "little")


def chunk_seed(root: int, variant: str, strategy: str, chunk: int) -> np.random.SeedSequence:
    """The seed sequence of chunk ``chunk`` of the row (``variant``, ``strategy``), by name."""
    return np.random.SeedSequence(root, spawn_key=(name_key(variant), name_key(strategy), chunk))


def generator(seed: np.random.SeedSequence) -> np.random.Generator:
    """A numpy generator for the reference (pure Python / numpy) paths."""
    return np.random.Generator(np.random.PCG64(seed))


def kernel_state(seed: np.random.SeedSequence) -> np.ndarray:
    """Four 64-bit words seeding the compiled kernels' xoshiro256** generator.

    The all-zero state is the one state xoshiro cannot leave; SeedSequence makes it
    astronomically unlikely, and it is replaced all the same.
    """
    state = seed.generate_state(4, np.uint64)
    if not state.any():
        state[0] = np.uint64(0x9E3779B97F4A7C15)
    return state


def named_seed(root: int, name: str, *key: int) -> np.random.SeedSequence:
    """The seed sequence of a stream called ``name`` (e.g. "sessions"), keyed by integers
    such as (variant, strategy, chunk): independent of the chunks' own streams and of every
    other name, so adding a stream changes no existing number."""
    digest = int.from_bytes(hashlib.sha256(name.encode()).digest()[:4], "little")
    return np.random.SeedSequence(root, spawn_key=(digest, *key))
