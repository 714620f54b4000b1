"""How the used hands are gathered under the pack, and the cycles a fixed gathering allows:
detected on both paths, counted, and flagged in the report."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from sim import api
from sim.core.progression import ProgressionSpec
from sim.core.rng import kernel_state
from sim.games.pontoon import GAME, BankerTable, GivenCards, PlayerTable, PontoonRules, Session
from sim.games.pontoon.kernel import D_LOCKED, D_NET, D_SHUFFLE, deal_rows, simulate_tables
from sim.games.pontoon.players import TableBanker, TablePlayer
from sim.games.pontoon.report import REPORT
from sim.games.pontoon.views import Move
from strategies.pontoon import StandOn
from tests.test_pontoon_reference import Script, order, ranks

FIXED = PontoonRules(gathering="fixed")
VARIED = PontoonRules()
LOCKING_SEED = 939  # chunk of 100,000 deals that locks under a fixed gathering (found by search)


def _tables(rules):
    return PlayerTable.threshold(rules, stick=16, soft_stick=18), BankerTable.stand_on(17)


def test_gathering_is_a_rule_with_a_varied_default():
    assert VARIED.gathering == "varied"
    with pytest.raises(ValueError, match="gathering: expected 'varied' or 'fixed'"):
        PontoonRules(gathering="sorted")


def test_a_varied_gathering_draws_the_order_of_the_piles_from_the_card_stream():
    # The punter busts on K: two piles, his (T 5 K) and the banker's (7 8), in either order.
    firsts = []
    for k in range(400):
        session = Session(VARIED, Script(Move.TWIST), StandOn(),
                          GivenCards([order("T 7 5 8 K")], key=(k, 1, 2, 3)))
        session.play(np.random.default_rng(0))
        firsts.append(tuple(session.pack.ranks()[-5:]) == tuple(ranks("T5K78")))
    z = (np.mean(firsts) - 0.5) / np.sqrt(0.25 / len(firsts))
    assert abs(z) < 4, z


def test_a_fixed_gathering_locks_into_a_cycle_detected_counted_and_flagged():
    player, banker = _tables(FIXED)
    key = kernel_state(np.random.SeedSequence(LOCKING_SEED))
    rows = deal_rows(FIXED, player, banker, 100_000, key)
    locked = np.flatnonzero(rows[:, D_LOCKED])
    last_shuffle = np.flatnonzero(rows[:, D_SHUFFLE]).max()
    assert locked.size == 92_093 and locked[0] == 7_907 and last_shuffle == 7_662
    assert (np.diff(locked) == 1).all()  # locked from the detection to the end of the chunk
    nets = rows[locked[0]:, D_NET]
    assert (nets[108:] == nets[:-108]).all()  # the deals repeat with a period of 108
    stats = simulate_tables(FIXED, player, banker, 100_000, key)
    assert stats.counters["cycle_locks"] == 1
    assert stats.counters["cycle_locked_deals"] == 92_093
    assert REPORT.columns(stats)["cycle_locked_freq"] == pytest.approx(0.92093)
    (warning,) = REPORT.notes(stats)
    assert "92093 of 100000 deals" in warning and "locked cycle" in warning


def test_the_reference_path_finds_the_same_lock_at_the_same_deal():
    seed = np.random.SeedSequence(LOCKING_SEED)
    strategy = TablePlayer(_tables(FIXED)[0], TableBanker(BankerTable.stand_on(17)))
    stats = GAME.simulate_reference(FIXED, strategy, ProgressionSpec(), 8_000, seed)
    assert stats.counters["cycle_locks"] == 1
    assert stats.counters["cycle_locked_deals"] == 8_000 - 7_907


def test_a_varied_gathering_never_locks():
    player, banker = _tables(VARIED)
    for seed in [LOCKING_SEED, *range(40)]:
        rows = deal_rows(VARIED, player, banker, 100_000,
                         kernel_state(np.random.SeedSequence(seed)))
        shuffles = np.flatnonzero(rows[:, D_SHUFFLE])
        assert rows[:, D_LOCKED].sum() == 0
        # A shuffle keeps coming (a pontoon about one deal in ten): no stretch runs on.
        assert np.diff(shuffles).max() < 400 and shuffles.max() > 100_000 - 400


def test_the_report_flags_a_locked_row_and_takes_batch_means(tmp_path):
    # Without aces there is no pontoon, so no shuffle after the first: a fixed gathering must
    # fall into a cycle; a varied one keeps the deals random.
    rules = {"ranks": "23456789TJQK", "suits": 1, "gathering": "fixed"}
    exp = api.load({"name": "locks", "game": "pontoon", "rounds": 40_000, "seed": 5,
                    "chunk_rounds": 10_000,
                    "variants": {"fixed": rules, "varied": {**rules, "gathering": "varied"}},
                    "strategies": [{"use": "threshold", "params": {"stick": 16}}]})
    frame = api.run(exp, out=tmp_path / "locks", charts=False).frame.set_index("variant")
    assert frame.loc["fixed", "cycle_locks"] == 4  # every chunk locks
    assert "locked cycle" in frame.loc["fixed", "note"]
    assert frame.loc["varied", "cycle_locked_freq"] == 0
    assert "locked cycle" not in frame.loc["varied", "note"]
    assert not GAME.rounds_independent(dataclasses.replace(FIXED))
    assert not GAME.rounds_independent(VARIED)
