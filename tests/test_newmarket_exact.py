"""Newmarket: why no row has an exact value, and the count the reason gives."""

from math import factorial
from pathlib import Path

from sim.engine import experiment
from sim.games.newmarket.exact import deal_count, hand_sizes
from sim.outputs import exact_report

EXPERIMENTS = Path(__file__).resolve().parent.parent / "experiments"


def test_hands_are_dealt_one_card_at_a_time_with_the_dummy_last():
    assert hand_sizes(4) == (11, 11, 10, 10, 10)
    assert hand_sizes(5) == (9, 9, 9, 9, 8, 8)  # the text: the dealer and the dummy get 8
    assert hand_sizes(3) == (13, 13, 13, 13)
    assert all(sum(hand_sizes(p)) == 52 for p in range(3, 9))


def test_a_deal_is_one_of_the_multinomial_ways_to_hold_the_pack():
    assert deal_count(3) == factorial(52) // factorial(13) ** 4
    assert deal_count(4) == 1_059_370_457_107_058_142_206_038_419_340_800


def test_every_shipped_row_says_why_it_has_no_exact_value():
    frame = exact_report.values(experiment.load(EXPERIMENTS / "newmarket.toml"))
    assert len(frame) == 10 and frame["edge"].isna().all()
    for note in frame["note"]:  # the random strategy's rows too: the deal is the obstacle
        assert note.startswith("no exact value: one deal's law sums over 1.06e33 deals")
