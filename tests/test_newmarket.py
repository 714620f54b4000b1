"""Newmarket: the kernel against the reference round on the same packs, zero-sum seats, the
rules of the run, and the stakes."""

import numpy as np
import pytest

from sim.core.progression import ProgressionSpec
from sim.core.rng import kernel_state
from sim.games.newmarket import GAME
from sim.games.newmarket.play import ReferenceRound, simulate_table
from sim.games.newmarket.players import policy_suit
from sim.games.newmarket.report import REPORT
from sim.games.newmarket.rules import NewmarketRules, NewmarketView
from strategies.newmarket import BoodleSuit, LongestSuit, LowestSuit, Random, ShortestSuit


@pytest.mark.parametrize("strategy", [LongestSuit(), ShortestSuit(), BoodleSuit(), LowestSuit(),
                                      LongestSuit(seat0="boodle")])
@pytest.mark.parametrize("preset", ["four", "five", "kings-suit", "three"])
def test_kernel_and_reference_agree_on_the_same_packs(strategy, preset):
    rules = GAME.presets[preset]
    rng = np.random.default_rng(4)
    orders = np.array([rng.permutation(52) for _ in range(4000)])
    player = ReferenceRound(rules, strategy, rng)
    it = iter(orders)
    nets, paid, totals = [0] * rules.players, 0, {}
    rounds = 60
    for _ in range(rounds):
        seat_nets, stake, counters = player.play(it)
        assert sum(seat_nets) == 0  # zero-sum, round by round
        nets = [a + b for a, b in zip(nets, seat_nets)]
        paid += stake
        for k, v in counters.items():
            totals[k] = totals.get(k, 0.0) + v
    used = int(totals["deals"])
    kernel = simulate_table(rules, strategy.as_table(rules), rounds,
                            kernel_state(np.random.SeedSequence(1)), orders[:used])
    assert kernel.sums["sum_net"] == nets[0] and kernel.sums["sum_initial"] == paid
    assert kernel.counters == totals


def test_seats_sum_to_zero_and_stakes_are_counted():
    rules = NewmarketRules(players=5)
    stats = GAME.simulate(rules, BoodleSuit(seat0="shortest"), ProgressionSpec(), 20_000,
                          np.random.SeedSequence(9))
    cols = REPORT.columns(stats)
    assert cols["seats_sum"] == 0
    assert abs(sum(cols[f"seat_{p}_net"] for p in range(5))) < 1e-9
    assert cols["seat_0_net"] == pytest.approx(stats.mean_net)
    # seat 0 stakes the kitty and each boodle card every deal
    assert stats.mean_initial_stake == pytest.approx(rules.stake_per_deal
                                                     * cols["deals_per_round"])
    assert stats.edge_per_initial_bet == pytest.approx(-stats.mean_net
                                                       / stats.mean_initial_stake)
    # every deal has one winner of the kitty
    assert sum(cols[f"seat_{p}_kitty_share"] for p in range(5)) == pytest.approx(1.0)


def test_policies_choose_as_documented():
    # clubs 2 3 4, diamonds 7, hearts 5 6 J, spades J (the live boodle card)
    hand = (0, 1, 2, 13 + 5, 26 + 3, 26 + 4, 26 + 9, 39 + 9)
    view = NewmarketView(0, hand, (0, 1, 2, 3), (3 * 13 + 9,), (8, 8, 8, 8))
    assert policy_suit("longest", view) == 0          # 3 clubs, 3 hearts: the lower suit
    assert policy_suit("shortest", view) == 1
    assert policy_suit("boodle", view) == 3          # holds the jack of spades, live
    assert policy_suit("lowest", view) == 0
    with pytest.raises(ValueError, match="unknown policy"):
        policy_suit("bold", view)


def test_a_random_and_an_illegal_strategy():
    flat = ProgressionSpec()
    stats = GAME.simulate(NewmarketRules(), Random(), flat, 30, np.random.SeedSequence(1))
    assert stats.rounds == 30 and GAME.engine_path(NewmarketRules(), Random()) == "reference"
    with pytest.raises(ValueError, match="chose suit"):
        GAME.simulate(NewmarketRules(), lambda v, r: 7, flat, 3, np.random.SeedSequence(1))
