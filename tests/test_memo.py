import numpy as np

from sim.memo import nbytes, remember, table_cache


def test_cache_is_bounded_by_bytes_and_keeps_the_last_table_whatever_its_size():
    cache = table_cache(max_bytes=3000)
    builds = []

    def build(key, size):
        def make():
            builds.append(key)
            return np.zeros(size, dtype=np.uint8)
        return make

    for key in "abcd":
        remember(cache, key, build(key, 1000))
    assert cache.currsize <= 3000 and "a" not in cache  # the least recently used went first
    big = remember(cache, "big", build("big", 10_000))  # larger than the cache itself
    assert "big" not in cache and remember(cache, "big", build("big", 10_000)) is big
    assert builds.count("big") == 1  # asked again at once (a decision per bet): not rebuilt
    remember(cache, "b", build("b", 1000))
    assert cache.last[0] == "b"  # the big table is let go once another is asked for


def test_nbytes_counts_the_arrays_of_a_dataclass():
    from sim.games.bonus.grid import PolicyTable

    table = PolicyTable(np.zeros((2, 3), np.int32), np.zeros((2, 3), np.int8),
                        np.zeros(4, np.int32), np.zeros(4, np.int8))
    assert nbytes(table) == 24 + 6 + 16 + 4
    assert nbytes("not an array") == 1
