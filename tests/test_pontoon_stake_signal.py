"""The banker "sees the stakes" read two ways: as a multiple of each hand's initial stake (the
default) or as the amount too (``banker_reads = "stake"``), so a stake placed by first card
tells him about that card. Every path follows both readings: the kernel, the reference, the
exact walks, the solver and the tabulation of a plain-Python banker."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from sim.core.estimate import z_score
from sim.core.rng import kernel_state
from sim.core.tabulate import NotTabulable
from sim.games.pontoon import BankerTable, GivenCards, PlayerTable, PontoonRules, Session
from sim.games.pontoon.exact_deal import deal_exact, full_signal_weights, signal_weights
from sim.games.pontoon.exact_infinite import infinite_value
from sim.games.pontoon.hand import (
    N_KEYS,
    NO_LIVE_HAND,
    hand_key,
    key_level,
    key_parts,
    level_key,
    level_offsets,
)
from sim.games.pontoon.kernel import play_ordered_deals, simulate_tables
from sim.games.pontoon.players import TableBanker, TablePlayer
from sim.games.pontoon.solver import best_banker, best_player
from sim.games.pontoon.tabulate import build_banker
from sim.games.pontoon.views import Move
from sim.games.pontoon.walk import walk_deal
from tests.test_pontoon_exact import buying_table, enumerate_deals
from tests.test_pontoon_paths import FIELDS, _orders, reference_rows

STAKE = PontoonRules(banker_reads="stake")
INFINITE = PontoonRules(infinite_deck=True)
ACE_TEN = (4.0,) + (1.0,) * 8 + (4.0,) * 4  # the most on a first ace or ten, else the least


def by_level(rules: PontoonRules) -> BankerTable:
    """A banker who stands on 16 against a hand staked 1, and against one staked 4 stands on
    18 or chases what it shows."""
    return BankerTable.per_level([BankerTable.stand_on(16),
                                  BankerTable.adaptive(rules, stand=18)], (1.0, 4.0))


def stake_table(rules: PontoonRules, split: str = "A8") -> PlayerTable:
    return buying_table(rules, split=split, stakes=ACE_TEN)


def test_the_default_reading_and_the_key_layout():
    assert PontoonRules().banker_reads == "multiple"
    with pytest.raises(ValueError, match="banker_reads"):
        PontoonRules(banker_reads="amount")
    key = hand_key(3, 9, 3, 15)
    assert level_key(0, key) == key and N_KEYS == 162 and NO_LIVE_HAND == 161
    assert key_parts(level_key(2, key)) == key_parts(key) == (3, 15)
    assert key_level(level_key(2, key)) == 2 and level_key(5, NO_LIVE_HAND) == NO_LIVE_HAND
    assert level_offsets(ACE_TEN, (1.0, 4.0)).tolist() == [N_KEYS] + [0] * 8 + [N_KEYS] * 4
    assert not level_offsets(ACE_TEN, ()).any()
    with pytest.raises(ValueError, match="stakes"):
        level_offsets(ACE_TEN, (1.0, 2.0))


def test_a_table_reading_levels_needs_the_stake_reading():
    table = by_level(STAKE)
    assert table.levels == 2 and table.n_keys == 2 * N_KEYS
    with pytest.raises(ValueError, match="banker_reads"):
        deal_exact(PontoonRules(reshuffle="every-deal"), stake_table(STAKE), table)
    with pytest.raises(ValueError, match="stakes"):  # a stake it cannot tell apart
        deal_exact(dataclasses.replace(STAKE, reshuffle="every-deal"),
                   stake_table(STAKE).with_stakes((2.0,) * 13), table)
    # One-level tables keep the fingerprints they always had.
    assert BankerTable(BankerTable.stand_on(17).draw, False).digest == \
        BankerTable.stand_on(17).digest


def test_flat_stakes_give_the_default_numbers():
    rules = PontoonRules(ranks="A2T", suits=2, reshuffle="every-deal")
    stake = dataclasses.replace(rules, banker_reads="stake")
    flat = buying_table(rules, split="A", stakes=(2.0,) * 13)
    adaptive = BankerTable.adaptive(rules)
    assert deal_exact(stake, flat, adaptive).value() == deal_exact(rules, flat, adaptive).value()
    inf = dataclasses.replace(INFINITE, banker_reads="stake")
    assert np.array_equal(signal_weights(inf, flat), signal_weights(INFINITE, flat))
    answer, default = best_banker(inf, flat), best_banker(INFINITE, flat)
    assert answer.banker.levels == 1 and answer.value == default.value
    key = kernel_state(np.random.SeedSequence(3))
    a = simulate_tables(stake, flat, adaptive, 20_000, key)
    b = simulate_tables(rules, flat, adaptive, 20_000, key)
    assert (a.mean_net, a.stderr) == (b.mean_net, b.stderr)


@pytest.mark.parametrize("rules", [
    dataclasses.replace(STAKE, burn_hard_13=True),
    dataclasses.replace(STAKE, reshuffle="every-deal"),
    dataclasses.replace(STAKE, infinite_deck=True),
], ids=["british-home", "every-deal", "infinite"])
def test_kernel_equals_reference_with_a_banker_reading_the_level(rules):
    player, banker = stake_table(rules), by_level(rules)
    orders = _orders(rules, 300, seed=17)
    kernel = play_ordered_deals(rules, player, banker, orders, 300)
    reference = reference_rows(rules, player, banker, orders, 300)
    for k, name in enumerate(FIELDS):
        np.testing.assert_allclose(kernel[:, k], reference[:, k], atol=1e-9, err_msg=name)
    one_level = BankerTable(BankerTable.stand_on(16).draw, keyed=True)
    blind = play_ordered_deals(rules, player, one_level, orders, 300)
    assert not np.array_equal(kernel[:, 0], blind[:, 0])  # the level changed some deals


@pytest.mark.parametrize("rules", [
    PontoonRules(ranks="A56T", suits=2, reshuffle="every-deal", banker_reads="stake"),
    PontoonRules(ranks="A8T", suits=2, reshuffle="every-deal", max_hands=2,
                 banker_reads="stake"),
    PontoonRules(ranks="A5T", infinite_deck=True, max_hands=1, banker_reads="stake"),
], ids=["A56T", "A8T-splits", "infinite"])
def test_exact_matches_enumeration_with_a_banker_reading_the_level(rules):
    # In so small a pack a banker must draw far apart by level for the level to matter.
    banker = BankerTable.per_level([BankerTable.stand_on(12),
                                    BankerTable.adaptive(rules, stand=18)], (1.0, 4.0))
    player = stake_table(rules, split="A8")
    exact = deal_exact(rules, player, banker).value()
    brute = enumerate_deals(rules, TablePlayer(player), TableBanker(banker))
    assert exact.mean_net == pytest.approx(brute[0], abs=1e-12)
    assert exact.mean_total_wagered == pytest.approx(brute[2], abs=1e-12)
    default = dataclasses.replace(rules, banker_reads="multiple")
    blind = BankerTable(BankerTable.stand_on(12).draw, keyed=True)
    assert deal_exact(default, player, blind).value().mean_net != pytest.approx(brute[0])


@pytest.mark.parametrize("rules", [dataclasses.replace(STAKE, infinite_deck=True),
                                   dataclasses.replace(STAKE, reshuffle="every-deal")],
                         ids=["infinite", "one-pack"])
def test_exact_agrees_with_the_kernel_under_the_stake_reading(rules):
    # No splits: against a banker reading the hands, a split makes the one-pack walk long.
    player, banker = stake_table(rules, split=""), by_level(rules)
    exact = deal_exact(rules, player, banker).value()
    stats = simulate_tables(rules, player, banker, 300_000,
                            kernel_state(np.random.SeedSequence(11)))
    z = z_score(stats.edge_per_initial_bet, exact.edge_per_initial_bet, stats.stderr)
    assert abs(z) < 4, z


def test_heads_up_signal_weights_by_level_equal_one_walk_over_every_level():
    stake = dataclasses.replace(INFINITE, banker_reads="stake")
    punter = PlayerTable.threshold(INFINITE, 16, 18, split="A8",
                                   stakes=(1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 2, 2, 2))
    by_levels = signal_weights(stake, punter)
    assert by_levels.shape == (4 * N_KEYS, 24)
    np.testing.assert_allclose(by_levels, full_signal_weights(stake, punter), atol=1e-13)
    # Both walks pass their tables read-only: the walk is compiled once, for one type.
    assert len(walk_deal.signatures) == 1, walk_deal.signatures


def test_the_best_banker_exploits_a_stake_by_first_card_only_when_he_reads_it():
    stake = dataclasses.replace(INFINITE, banker_reads="stake")
    punter = PlayerTable.threshold(INFINITE, 16, 18, split="A8", stakes=ACE_TEN)
    multiple, reads = best_banker(INFINITE, punter), best_banker(stake, punter)
    assert multiple.banker.levels == 1 and reads.banker.stake_levels == (1.0, 4.0)
    # Per initial stake the house gains where the banker reads the amount.
    gain = reads.value.edge_per_initial_bet - multiple.value.edge_per_initial_bet
    assert gain > 1e-4, gain  # exact: 0.018 points of the edge
    # Under the default reading the best one-level response is the best response.
    assert infinite_value(INFINITE, punter, multiple.banker) == multiple.value
    # ... and the stake-level table is played as the solver valued it.
    stats = simulate_tables(stake, punter, reads.banker, 300_000,
                            kernel_state(np.random.SeedSequence(12)))
    z = z_score(stats.edge_per_initial_bet, reads.value.edge_per_initial_bet, stats.stderr)
    assert abs(z) < 4, z


def test_the_best_punter_against_a_banker_reading_levels():
    stake = dataclasses.replace(INFINITE, banker_reads="stake")
    banker = best_banker(stake, PlayerTable.threshold(INFINITE, 16, 18, stakes=ACE_TEN)).banker
    answer = best_player(stake, banker)
    assert set(answer.player.stakes) <= set(banker.stake_levels)
    assert answer.value == infinite_value(stake, answer.player, banker)
    # At least as good as staking one level everywhere, or as the punter he was answered.
    for amount in banker.stake_levels:
        flat = answer.player.with_stakes((amount,) * 13)
        assert answer.value.mean_net >= infinite_value(stake, flat, banker).mean_net - 1e-12
    original = PlayerTable.threshold(INFINITE, 16, 18, stakes=ACE_TEN)
    assert answer.value.mean_net > infinite_value(stake, original, banker).mean_net


class StakeWatcher:
    """A plain-Python banker: stands on 17, but on a hand staked 4 draws to 18."""

    def decide(self, view, rng):
        limit = 18 if view.main_stake() >= 4 else 17
        return Move.TWIST if view.total < limit else Move.STICK


def test_a_plain_python_banker_reading_the_amount_is_tabulated_by_level():
    rules = dataclasses.replace(STAKE, reshuffle="every-deal")
    table = build_banker(rules, StakeWatcher(), ACE_TEN)
    assert table.stake_levels == (1.0, 4.0) and table.keyed
    assert (table.draw[:N_KEYS - 1, :, :, 17] == 0).all()
    live = [key_parts(k)[1] >= rules.stick_min for k in range(N_KEYS - 1)]
    assert (table.draw[N_KEYS:2 * N_KEYS - 1][live][:, :, :, 17] == 1).all()
    with pytest.raises(NotTabulable, match="main_stake"):
        build_banker(dataclasses.replace(rules, banker_reads="multiple"), StakeWatcher(),
                     ACE_TEN)
    # Tabulated, it plays as it does on the reference path.
    player = stake_table(rules)
    orders = _orders(rules, 200, seed=5)
    kernel = play_ordered_deals(rules, player, table, orders, 200)
    session = Session(rules, TablePlayer(player), StakeWatcher(), GivenCards(orders))
    reference = np.array([session.play(np.random.default_rng(0)).kernel_row()
                          for _ in range(200)])
    np.testing.assert_allclose(kernel[:, 0], reference[:, 0], atol=1e-9)


def test_the_banker_chart_shows_a_block_of_rows_per_stake_level():
    import matplotlib

    matplotlib.use("Agg")
    from sim.games.pontoon.charts import banker_chart

    fig = banker_chart(by_level(STAKE))
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert len(labels) == 14 and labels[0] == "staked 1, x1" and labels[7] == "staked 4, x1"
