"""Rules read two ways: "a punter may buy or twist while his total is under 21" as no card on
any 21 (the default) or letting a soft 21 draw towards a five card trick. Every path follows
both readings: the kernel, the reference, the exact walks and the solver."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from sim.core.estimate import z_score
from sim.core.rng import kernel_state
from sim.games.pontoon import BankerTable, GivenCards, PlayerTable, PontoonRules, Session
from sim.games.pontoon.exact_deal import deal_exact
from sim.games.pontoon.hand import BUY1, TWIST
from sim.games.pontoon.kernel import play_ordered_deals, simulate_tables
from sim.games.pontoon.players import TableBanker, TablePlayer
from sim.games.pontoon.solver import best_player
from sim.games.pontoon.views import Move
from tests.test_pontoon_exact import buying_table, enumerate_deals
from tests.test_pontoon_paths import FIELDS, _orders, reference_rows
from tests.test_pontoon_reference import Script, order

SOFT21 = PontoonRules(soft_21_draws=True)
STAND17 = BankerTable.stand_on(17)


def soft_21_table(rules, buy=False):
    """A buying table that also twists (or buys once) on a soft 21 of three or four cards."""
    table = buying_table(rules, split="A8")
    actions = table.actions.copy()
    actions[:, :, 1:, :, 1, 21] = TWIST
    if buy:
        actions[0, 0, 1:, :, 1, 21] = BUY1
    return PlayerTable(actions, table.split, table.burn, table.stakes)


def test_the_default_reading_gives_no_card_on_any_21():
    assert not PontoonRules().soft_21_draws
    with pytest.raises(ValueError, match="soft_21_draws"):
        PontoonRules(soft_21_draws="yes")


def test_on_the_reference_a_soft_21_may_twist_or_buy_only_in_the_other_reading():
    # Punter A 5, banker 7 8; the punter twists a 5: A 5 5 is a soft 21.
    for rules, asked in ((SOFT21, True), (PontoonRules(), False)):
        player = Script(Move.TWIST, Move.STICK)
        session = Session(rules, player, player.banker, GivenCards([order("A 7 5 8 5", rules)]))
        session.play(np.random.default_rng(0))
        assert (len(player.views) == 2) == asked
        if asked:
            assert player.views[1].total == 21 and player.views[1].soft
            assert player.views[1].legal == {"twist", "stick"}  # no buying after a twist


@pytest.mark.parametrize("rules", [SOFT21, PontoonRules(), dataclasses.replace(
    SOFT21, reshuffle="every-deal", max_buys=1, buy_fifth_card=False)], ids=range(3))
@pytest.mark.parametrize("buy", [False, True])
def test_kernel_equals_reference_under_both_readings(rules, buy):
    player = soft_21_table(rules, buy)
    banker = BankerTable.adaptive(rules)
    orders = _orders(rules, 300, seed=31)
    kernel = play_ordered_deals(rules, player, banker, orders, 300)
    reference = reference_rows(rules, player, banker, orders, 300)
    for k, name in enumerate(FIELDS):
        np.testing.assert_allclose(kernel[:, k], reference[:, k], atol=1e-9, err_msg=name)


@pytest.mark.parametrize("ranks", ["A5T", "A46T"])
def test_exact_first_deal_matches_enumeration_with_soft_21_draws(ranks):
    rules = PontoonRules(ranks=ranks, suits=2, reshuffle="every-deal", soft_21_draws=True)
    table = soft_21_table(rules, buy=True)
    exact = deal_exact(rules, table, STAND17)
    brute = enumerate_deals(rules, TablePlayer(table), TableBanker(STAND17))
    assert exact.value().mean_net == pytest.approx(brute[0], abs=1e-12)
    assert exact.value().mean_total_wagered == pytest.approx(brute[2], abs=1e-12)
    assert exact.events["fives"] == pytest.approx(brute[4], abs=1e-12)
    default = dataclasses.replace(rules, soft_21_draws=False)
    assert deal_exact(default, table, STAND17).value().mean_net != pytest.approx(brute[0])


def test_infinite_deck_exact_matches_enumeration_with_soft_21_draws():
    rules = PontoonRules(ranks="A5T", infinite_deck=True, max_hands=2, soft_21_draws=True)
    table = soft_21_table(rules, buy=True)
    exact = deal_exact(rules, table, STAND17).value()
    brute = enumerate_deals(rules, TablePlayer(table), TableBanker(STAND17))
    assert exact.mean_net == pytest.approx(brute[0], abs=1e-12)


def test_the_optimal_punter_under_each_reading():
    infinite = PontoonRules(infinite_deck=True)
    no_card = best_player(infinite, STAND17)
    soft = best_player(dataclasses.replace(infinite, soft_21_draws=True), STAND17)
    # The optimal punter's house edge against a banker standing on 17 (exact, infinite deck).
    assert no_card.value.edge_per_initial_bet == pytest.approx(-0.2654845, abs=1e-6)
    assert soft.value.edge_per_initial_bet == pytest.approx(-0.3288059, abs=1e-6)
    # With four cards a soft 21 buys: the fifth card makes a five card trick whatever it is.
    assert (soft.player.actions[0, 0, 2, :, 1, 21] >= BUY1).all()
    stats = simulate_tables(dataclasses.replace(infinite, soft_21_draws=True), soft.player,
                            STAND17, 300_000, kernel_state(np.random.SeedSequence(5)))
    z = z_score(stats.edge_per_initial_bet, soft.value.edge_per_initial_bet, stats.stderr)
    assert abs(z) < 4, z
