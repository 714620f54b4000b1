import numpy as np

from sim.core.memo import by_content, content_key, nbytes, remember, table_cache


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
    from sim.games.bonus.lattice import PolicyTable

    table = PolicyTable(np.zeros((2, 3), np.int32), np.zeros((2, 3), np.int8),
                        np.zeros(4, np.int32), np.zeros(4, np.int8))
    assert nbytes(table) == 24 + 6 + 16 + 4
    assert nbytes("not an array") == 1


def test_a_slow_table_let_go_is_kept_compressed_and_comes_back_equal(monkeypatch):
    import sim.core.memo as memo
    from sim.games.bonus.lattice import PolicyTable

    cache = table_cache(max_bytes=3000)
    builds = []
    monkeypatch.setattr(memo, "COMPRESS_RATE", 1e30)  # every build counts as slow

    def build(key):
        def make():
            builds.append(key)
            stake = np.zeros((2, 500), np.int32)
            stake[:, 100:] = 7
            return PolicyTable(stake, np.ones((2, 500), np.int8), np.arange(4, dtype=np.int32),
                               np.zeros(4, np.int8))
        return make

    first = remember(cache, "slow", build("slow"))
    remember(cache, "other", build("other"))  # "slow" leaves the cache: put away compressed
    assert "slow" not in cache and "slow" in cache.packed
    again = remember(cache, "slow", build("slow"))
    assert builds == ["slow", "other"]  # not built a second time
    for name in ("stake", "game", "rich_stake", "rich_game"):
        a, b = getattr(first, name), getattr(again, name)
        assert a.dtype == b.dtype and np.array_equal(a, b) and b.flags.writeable
    # A quick table is let go as before.
    monkeypatch.setattr(memo, "COMPRESS_RATE", 1e-9)
    remember(cache, "quick", lambda: np.zeros(5000, np.uint8))
    remember(cache, "x", lambda: np.zeros(10, np.uint8))
    assert "quick" not in cache.packed


def test_by_content_computes_equal_inputs_once_and_hands_out_copies():
    calls = []

    @by_content(maxsize=8)
    def kernel(table, scale, flags):
        calls.append(1)
        return table * scale, int(table.sum())

    a = np.arange(6.0).reshape(2, 3)
    frozen = a.copy()
    frozen.flags.writeable = False
    first, total = kernel(a, 2, (1, np.array([True])))
    again, _ = kernel(frozen, 2, (1, np.array([True])))  # equal contents, built apart
    assert len(calls) == 1 and total == 15
    np.testing.assert_array_equal(first, again)
    first[0, 0] = 99.0  # what a caller does with its copy changes nothing kept
    assert kernel(a, 2, (1, np.array([True])))[0][0, 0] == 0.0
    # Any difference in contents, dtype, shape or a plain value is another computation.
    kernel(a.astype(np.float32), 2, (1, np.array([True])))
    kernel(a.reshape(3, 2), 2, (1, np.array([True])))
    kernel(a, 3, (1, np.array([True])))
    kernel(a, 2, (1, np.array([False])))
    assert len(calls) == 5
    kernel.cache_clear()
    kernel(a, 2, (1, np.array([True])))
    assert len(calls) == 6


def test_content_keys_tell_nested_values_apart():
    assert content_key((np.zeros(2), 1)) == content_key((np.zeros(2), 1))
    assert content_key(((1, 2), 3)) != content_key((1, (2, 3)))
    assert content_key((np.zeros(2, dtype=np.int64),)) != content_key((np.zeros(2),))
