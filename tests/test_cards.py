import numpy as np
import pytest

from sim.core.cards import card_name, make_pack, parse_rank, rank_counts, shuffled_packs


def test_full_pack_has_each_card_once():
    pack = make_pack()
    assert sorted(pack.tolist()) == list(range(52))
    assert card_name(int(pack[-1])) == "Ks"


def test_several_and_stripped_packs():
    assert (rank_counts(make_pack(6)) == 24).all()
    small = make_pack(1, ranks=[0, 1, 2], suits=2)
    assert rank_counts(small).tolist()[:4] == [2, 2, 2, 0]
    with pytest.raises(ValueError):
        make_pack(0)
    with pytest.raises(ValueError):
        make_pack(1, suits=5)


@pytest.mark.parametrize("text, rank", [("A", 0), ("10", 9), ("T", 9), ("k", 12), (13, 12)])
def test_parse_rank(text, rank):
    assert parse_rank(text) == rank


@pytest.mark.parametrize("bad", ["X", 0, 14, "", True])
def test_parse_rank_rejects(bad):
    with pytest.raises(ValueError):
        parse_rank(bad)


def test_shuffled_packs_are_permutations_and_uniform():
    rng = np.random.default_rng(5)
    packs = shuffled_packs(rng, make_pack(), 20_000)
    assert (np.sort(packs, axis=1) == np.arange(52)).all()
    # Where the ace of clubs lands: uniform over 52 positions (chi-square, 51 dof).
    counts = np.bincount(np.argmax(packs == 0, axis=1), minlength=52)
    chi2 = ((counts - 20_000 / 52) ** 2 / (20_000 / 52)).sum()
    assert chi2 < 100  # P(chi2_51 > 100) ~ 5e-5
