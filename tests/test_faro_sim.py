"""Monte Carlo against exact values: |z| < 4 at fixed seeds, the tolerance from the SE."""

import numpy as np
import pytest

from sim.core.stats import z_score
from sim.games.faro import GAME, RankBet, resolved_odds
from sim.games.faro.rules import PRESETS
from strategies.betting import progression_spec
from strategies.faro import CallTurn, CaseBets, Copper, Corner, FlatRank, HighCard

FLAT = progression_spec(None)


def _check(stats, exact):
    z1 = z_score(stats.edge_per_initial_bet, exact.edge_per_initial_bet, stats.stderr)
    assert abs(z1) < 4, (stats.edge_per_initial_bet, exact.edge_per_initial_bet, z1)
    if exact.edge_per_total_wagered is not None:
        z2 = z_score(stats.edge_per_total_wagered, exact.edge_per_total_wagered,
                     stats.stderr_per_total_wagered)
        assert abs(z2) < 4, (stats.edge_per_total_wagered, exact.edge_per_total_wagered, z2)


@pytest.mark.parametrize("preset", ["faro", "stuss", "old-pharo"])
@pytest.mark.parametrize("strategy", [FlatRank("K"), FlatRank("all"), Copper("Q"), CaseBets(),
                                      Corner(["5", "6"]), HighCard(), CallTurn()],
                         ids=lambda s: s.name)
def test_whole_deal_edges_agree_with_exact(preset, strategy):
    rules = PRESETS[preset]
    exact = GAME.exact(rules, strategy, FLAT)
    stats = GAME.simulate(rules, strategy, FLAT, 400_000, np.random.SeedSequence(11))
    if exact.mean_total_wagered == 0:  # nothing offered (calling the turn without a hock)
        assert stats.mean_total_wagered == 0
        return
    _check(stats, exact)


class OneBetUntilResolved:
    """A single bet on the king from the first turn, left until it is resolved."""

    name = "one-bet"

    def __init__(self, coppered=False):
        self.coppered = coppered

    def decide(self, view, rng):
        if view.turn == 0:
            self.done = False
        elif 12 in view.last_turn:  # a king showed: the bet was decided
            self.done = True
        return [] if self.done or not view.remaining[12] else [RankBet({12}, self.coppered)]


@pytest.mark.parametrize("preset", ["faro", "stuss"])
@pytest.mark.parametrize("coppered", [False, True])
def test_a_bet_left_until_resolved_agrees_with_exact(preset, coppered):
    rules = PRESETS[preset]
    strategy = OneBetUntilResolved(coppered)
    stats = GAME.simulate_reference(rules, strategy, FLAT, 20_000, np.random.SeedSequence(5))
    # The soda may show a king: the exact value averages over it.
    n = rules.n_cards - 1
    exact_ev = (48 / 52) * resolved_odds((4,), n, rules, coppered).ev + (
        4 / 52) * resolved_odds((3,), n, rules, coppered).ev
    z = z_score(-stats.mean_net, -exact_ev, stats.stderr)
    assert abs(z) < 4, (stats.mean_net, exact_ev, z)


def test_progressions_run_on_the_kernel_and_match_reference_in_distribution():
    rules = PRESETS["faro"]
    spec = progression_spec({"name": "martingale", "cap": 32})
    strategy = FlatRank("K")
    assert GAME.engine_path(rules, strategy) == "kernel"
    fast = GAME.simulate(rules, strategy, spec, 200_000, np.random.SeedSequence(2))
    slow = GAME.simulate_reference(rules, strategy, spec, 3_000, np.random.SeedSequence(3))
    diff = fast.edge_per_total_wagered - slow.edge_per_total_wagered
    se = np.hypot(fast.stderr_per_total_wagered, slow.stderr_per_total_wagered)
    assert abs(diff / se) < 4
    # Per amount wagered, a progression does not change the edge of a bet whose edge does not
    # depend on its past (here it does a little, through the cards: the check is statistical).
    exact = GAME.exact(rules, strategy, FLAT)
    assert abs(z_score(fast.edge_per_total_wagered, exact.edge_per_total_wagered,
                       fast.stderr_per_total_wagered)) < 4


def test_same_seed_same_numbers_and_different_seeds_differ():
    rules = PRESETS["faro"]
    a = GAME.simulate(rules, FlatRank("all"), FLAT, 10_000, np.random.SeedSequence(9))
    b = GAME.simulate(rules, FlatRank("all"), FLAT, 10_000, np.random.SeedSequence(9))
    c = GAME.simulate(rules, FlatRank("all"), FLAT, 10_000, np.random.SeedSequence(10))
    assert a.to_json() == b.to_json()
    assert a.to_json() != c.to_json()
