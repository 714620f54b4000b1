import numpy as np
from scipy import stats as sps

from sim.core.rng import chunk_seed, kernel_state
from sim.core.xoshiro import bounded_integers, raw_outputs, shuffle_in_place

MASK = (1 << 64) - 1


def reference_xoshiro(state: list[int], n: int) -> list[int]:
    """xoshiro256** as published, in plain Python integers."""

    def rotl(x: int, k: int) -> int:
        return ((x << k) | (x >> (64 - k))) & MASK

    s = list(state)
    out = []
    for _ in range(n):
        out.append(rotl((s[1] * 5) & MASK, 7) * 9 & MASK)
        t = (s[1] << 17) & MASK
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 45)
    return out


def test_matches_reference_generator():
    seed = kernel_state(chunk_seed(7, "faro", "flat king", 2))
    expected = reference_xoshiro([int(x) for x in seed], 1000)
    assert raw_outputs(1000, seed.copy()).tolist() == expected


def test_bounded_integers_are_uniform():
    state = kernel_state(np.random.SeedSequence(3))
    for bound in (2, 7, 52, 1_000_003):
        draws = bounded_integers(bound, 200_000, state)
        assert draws.min() >= 0 and draws.max() < bound
        if bound <= 52:
            counts = np.bincount(draws, minlength=bound)
            assert sps.chisquare(counts).pvalue > 1e-4


def test_shuffle_is_a_uniform_permutation():
    state = kernel_state(np.random.SeedSequence(4))
    cards = np.arange(52, dtype=np.int8)
    first = np.zeros(52, dtype=np.int64)
    for _ in range(20_000):
        shuffle_in_place(cards, state)
        first[cards[0]] += 1
    assert sorted(cards.tolist()) == list(range(52))
    assert sps.chisquare(first).pvalue > 1e-4


def test_streams_differ_by_chunk():
    a = raw_outputs(4, kernel_state(chunk_seed(1, "faro", "flat king", 0)))
    b = raw_outputs(4, kernel_state(chunk_seed(1, "faro", "flat king", 1)))
    assert a.tolist() != b.tolist()


def test_a_coin_is_the_bounded_draw_of_two():
    from numba import njit

    from sim.core.xoshiro import coin, draw_below

    @njit
    def both(n, s0, s1, s2, s3):
        out = np.zeros((n, 2), dtype=np.int64)
        a = (s0, s1, s2, s3)
        b = (s0, s1, s2, s3)
        for i in range(n):
            x, a0, a1, a2, a3 = coin(a[0], a[1], a[2], a[3])
            y, b0, b1, b2, b3 = draw_below(2, b[0], b[1], b[2], b[3])
            a = (a0, a1, a2, a3)
            b = (b0, b1, b2, b3)
            out[i, 0], out[i, 1] = x, y
        return out, a == b

    out, same_state = both(100_000, *[np.uint64(v) for v in (1, 2, 3, 4)])
    assert (out[:, 0] == out[:, 1]).all() and same_state
    assert 0.49 < out[:, 0].mean() < 0.51
