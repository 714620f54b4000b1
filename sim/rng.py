"""Seeding: one root seed, one independent stream per (variant, strategy, chunk).

Every chunk of every (variant, strategy) pair gets its generator from
``SeedSequence(root, spawn_key=(variant, strategy, chunk))``. The chunk size is fixed by the
experiment and never by the number of jobs, so any chunk can be recomputed alone and the same
seed gives the same report however the chunks are scheduled.
"""

from __future__ import annotations

import hashlib

import numpy as np


def chunk_seed(root: int, variant: int, strategy: int, chunk: int) -> np.random.SeedSequence:
    """The seed sequence of one chunk."""
    return np.random.SeedSequence(root, spawn_key=(variant, strategy, chunk))


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
