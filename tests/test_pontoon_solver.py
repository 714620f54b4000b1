"""Best responses: optimality checks, their values confirmed by simulation, and the charts."""

import dataclasses

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.figure import Figure

from sim.core.rng import kernel_state
from sim.core.stats import z_score
from sim.games.pontoon import BankerTable, PlayerTable, PontoonRules
from sim.games.pontoon.charts import banker_chart, player_chart, stake_chart, strategy_figure
from sim.games.pontoon.exact_deal import signal_weights
from sim.games.pontoon.exact_infinite import banker_by_key, infinite_exact, infinite_value
from sim.games.pontoon.hand import BUY1, BUY2, N_SCORES, STICK, TWIST, rule_vectors, settle
from sim.games.pontoon.kernel import simulate_tables
from sim.games.pontoon.solver import best_banker, best_player, iterate

RULES = PontoonRules(infinite_deck=True)
STAND17 = BankerTable.stand_on(17)


@pytest.fixture(scope="module")
def optimal():
    return best_player(RULES, STAND17)


def test_optimal_play_beats_every_threshold_and_the_stand_on_17_banker(optimal):
    value = optimal.value.mean_net
    for stick in range(15, 19):
        assert value > infinite_value(RULES, PlayerTable.threshold(RULES, stick), STAND17).mean_net
    # Optimal buying beats a mechanical banker: the punter has the edge.
    assert optimal.value.edge_per_initial_bet < -0.1


@pytest.mark.parametrize("change", [
    (0, 0, 0, 2, 0, 16, TWIST), (0, 0, 0, 2, 0, 11, BUY1), (0, 0, 0, 2, 0, 11, TWIST),
    (0, 0, 0, 2, 1, 18, STICK), (2, 0, 1, 3, 0, 10, TWIST), (0, 1, 1, 12, 0, 16, TWIST),
])
def test_no_single_change_of_the_optimal_table_gains(optimal, change):
    *state, action = change
    table = optimal.player
    if table.actions[tuple(state)] == action:
        pytest.skip("already the table's action")
    actions = table.actions.copy()
    actions[tuple(state)] = action
    changed = dataclasses.replace(table, actions=actions)
    if changed.problems(RULES):
        pytest.skip("the rules forbid it")
    assert infinite_value(RULES, changed, STAND17).mean_net <= optimal.value.mean_net + 1e-12


def test_stakes_follow_the_sign_of_each_first_card(optimal):
    table = optimal.player
    by_first = infinite_exact(RULES, table.with_stakes((1.0,) * 13), STAND17).first_card_net
    for stake, net in zip(table.stakes, by_first):
        assert stake == (RULES.max_stake if net > 0 else RULES.min_stake)


def test_solver_value_is_confirmed_by_simulating_its_table(optimal):
    stats = simulate_tables(RULES, optimal.player, STAND17, 300_000,
                            kernel_state(np.random.SeedSequence(21)))
    z = z_score(stats.edge_per_initial_bet, optimal.value.edge_per_initial_bet, stats.stderr)
    assert abs(z) < 4, (stats.edge_per_initial_bet, optimal.value.edge_per_initial_bet, z)


def test_best_banker_does_at_least_as_well_as_fixed_and_adaptive_bankers():
    player = PlayerTable.threshold(RULES, 16, 18, split="A8")
    answer = best_banker(RULES, player)
    edge = answer.value.edge_per_initial_bet
    for banker in (STAND17, BankerTable.stand_on(16), BankerTable.adaptive(RULES)):
        assert edge >= infinite_value(RULES, player, banker).edge_per_initial_bet - 1e-12
    stats = simulate_tables(RULES, player, answer.banker, 200_000,
                            kernel_state(np.random.SeedSequence(22)))
    assert abs(z_score(stats.edge_per_initial_bet, edge, stats.stderr)) < 4


def test_signal_weights_reproduce_the_exact_value():
    player = PlayerTable.threshold(RULES, 16, 18, split="A89")
    banker = BankerTable.adaptive(RULES)
    W = signal_weights(RULES, player)
    _, rule_f = rule_vectors(RULES)
    pay = np.array([[settle(s, b, True, rule_f) for b in range(N_SCORES)]
                    for s in range(N_SCORES)])
    no_pontoon = (W @ pay * banker_by_key(RULES, banker)).sum()
    exact = infinite_exact(RULES, player, banker)
    pontoon_part = exact.value().mean_net - no_pontoon
    # What is left is the part where the banker shows a pontoon: -2 per stake (or 0 against
    # a punter's pontoon... collected too, the banker winning ties).
    assert pontoon_part == pytest.approx(-2.0 * exact.banker_pontoon, abs=1e-12)
    assert sum(exact.first_card_net) == pytest.approx(exact.value().mean_net, abs=1e-12)


def test_iterating_best_responses_alternates_the_gains():
    rows = iterate(RULES, STAND17, rounds=2)
    assert [r["moved"] for r in rows] == ["punter", "banker", "punter", "banker"]
    for before, after in zip(rows, rows[1:]):
        if after["moved"] == "banker":
            assert after["edge"] >= before["edge"] - 1e-12
        else:
            assert after["edge"] <= before["edge"] + 1e-12


def test_finite_rules_are_solved_in_the_infinite_deck():
    finite = PontoonRules(reshuffle="every-deal")
    assert best_player(finite, STAND17).player.digest == best_player(RULES, STAND17).player.digest


def test_charts_return_figures_and_accept_axes(optimal):
    fig = strategy_figure(optimal.player, STAND17, RULES, title="optimal")
    assert isinstance(fig, Figure)
    plt.close(fig)
    fig, axes = plt.subplots(1, 3)
    assert player_chart(optimal.player, RULES, axes[0]) is fig
    assert banker_chart(BankerTable.adaptive(RULES), axes[1]) is fig
    assert stake_chart(optimal.player, axes[2]) is fig
    plt.close(fig)
    assert BUY2 in optimal.player.actions  # it buys
