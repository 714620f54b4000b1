"""The compiled kernel against the reference path, and the invariants of a deal."""

import dataclasses

import numpy as np
import pytest

from sim.core.errors import IllegalActionError, StrategyFailedError
from sim.core.progression import ProgressionState
from sim.games.faro import GAME, CallTurnBet, FaroView, HighCardBet, RankBet, play_deal
from sim.games.faro.kernel import play_ordered_deals
from sim.games.faro.rules import PRESETS
from strategies.betting import progression_spec
from strategies.faro import CallTurn, CaseBets, Copper, Corner, FlatRank, HighCard

STRATEGIES = [FlatRank("K"), FlatRank("all"), Copper(["A", "7"]), CaseBets(),
              Corner(["5", "6", "7"]), HighCard(), CallTurn()]
PROGRESSIONS = ["flat", {"name": "martingale", "cap": 16}, "paroli", "dalembert"]


def _orders(rules, n, seed=0):
    rng = np.random.default_rng(seed)
    return np.array([rng.permutation(rules.pack_ranks()) for _ in range(n)])


def reference_deals(rules, strategy, spec, orders):
    """Each deal's net, initial stake and amount wagered on the reference path."""
    state = ProgressionState(spec)
    rng = np.random.default_rng(1)
    return np.array([[d.net, d.initial, d.wagered] for d in
                     (play_deal(o, rules, strategy, state, rng) for o in orders)])


@pytest.mark.parametrize("preset", ["faro", "stuss", "old-pharo", "stuss-no-soda"])
@pytest.mark.parametrize("strategy", STRATEGIES, ids=lambda s: s.name)
@pytest.mark.parametrize("progression", PROGRESSIONS, ids=str)
def test_kernel_equals_reference_deal_by_deal(preset, strategy, progression):
    rules = PRESETS[preset]
    spec = progression_spec(progression)
    orders = _orders(rules, 150)
    reference = reference_deals(rules, strategy, spec, orders)
    kernel = play_ordered_deals(rules, strategy.as_table(rules), spec, orders)
    np.testing.assert_allclose(kernel, reference, rtol=0, atol=1e-9)


class Recorder:
    """Bets on every rank with cards left and records what it sees."""

    name = "recorder"

    def __init__(self):
        self.views: list[FaroView] = []

    def decide(self, view, rng):
        self.views.append(view)
        return [RankBet({r}) for r in range(13) if view.remaining[r]]


@pytest.mark.parametrize("preset", ["faro", "old-pharo", "stuss-no-soda"])
def test_every_card_is_dealt_exactly_once(preset):
    rules = dataclasses.replace(PRESETS[preset], packs=2)
    rng = np.random.default_rng(2)
    for order in _orders(rules, 20):
        recorder = Recorder()
        play_deal(order, rules, recorder, ProgressionState(progression_spec(None)), rng)
        views = recorder.views
        assert len(views) == rules.n_turns
        # The soda is the order's last entry, shown first; the turns come from its start.
        soda = list(order[-1:]) if rules.soda else []
        turns = order[:len(order) - len(soda)]
        shown: list = []
        for t, view in enumerate(views):
            # The case keeper shows exactly the cards not yet dealt.
            unseen = np.bincount(turns[len(shown):], minlength=13)
            assert list(view.remaining) == unseen.tolist()
            assert view.cards_left == len(turns) - len(shown)
            shown += list(turns[len(shown):len(shown) + 2])
            if t:
                assert view.last_turn == tuple(turns[len(shown) - 4:len(shown) - 2])
        hock = len(turns) - len(shown)
        assert hock == (1 if rules.has_hock else 0)
        assert sorted(soda + shown + list(turns[len(shown):])) == sorted(order.tolist())


@pytest.mark.parametrize("preset", ["faro", "stuss", "old-pharo"])
@pytest.mark.parametrize("progression", PROGRESSIONS, ids=str)
def test_money_is_conserved_between_player_and_bank(preset, progression):
    rules = PRESETS[preset]
    state = ProgressionState(progression_spec(progression))
    rng = np.random.default_rng(3)
    for strategy in STRATEGIES:
        for order in _orders(rules, 30, seed=4):
            deal = play_deal(order, rules, strategy, state, rng)
            assert deal.net == -deal.bank_net
            assert deal.layout_left == 0.0


def _one(view, rng, bet):
    return [bet]


@pytest.mark.parametrize("bet, why", [
    (RankBet(frozenset()), "non-empty"),
    (RankBet({13}), "ranks 0..12"),
    (RankBet({1}, units=0), "positive"),
    (RankBet({1}, units=float("nan")), "positive"),
    (CallTurnBet((0, 1, 2)), "three cards are left"),
    ("K", "not a faro bet"),
])
def test_illegal_actions_name_strategy_action_and_situation(bet, why):
    class Bad:
        name = "bad-one"

        def decide(self, view, rng):
            return [bet]

    with pytest.raises(IllegalActionError, match=why) as info:
        play_deal(PRESETS["faro"].pack_ranks(), PRESETS["faro"], Bad(),
                  ProgressionState(progression_spec(None)), np.random.default_rng(0))
    message = str(info.value)
    assert "bad-one" in message and "before turn 1" in message and repr(bet)[:8] in message


def test_high_card_on_a_void_turn_is_illegal():
    class Late:
        name = "late"

        def decide(self, view, rng):
            return [HighCardBet()] if view.winner_void else []

    with pytest.raises(IllegalActionError, match="void"):
        GAME.simulate_reference(PRESETS["old-pharo"], Late(), progression_spec(None), 1,
                                np.random.SeedSequence(0))


def test_a_strategy_that_raises_is_reported():
    def broken(view, rng):
        raise ZeroDivisionError("oops")

    from strategies.base import FunctionStrategy

    with pytest.raises(StrategyFailedError, match="ZeroDivisionError: oops"):
        GAME.check(PRESETS["faro"], FunctionStrategy(broken), progression_spec(None))


def test_plain_function_strategy_runs_on_the_reference_path():
    from strategies.base import FunctionStrategy

    strategy = FunctionStrategy(lambda view, rng: [RankBet({12})] if view.remaining[12] else [])
    assert GAME.engine_path(PRESETS["faro"], strategy) == "reference"
    stats = GAME.simulate(PRESETS["faro"], strategy, progression_spec(None), 50,
                          np.random.SeedSequence(1))
    assert stats.rounds == 50


@pytest.mark.parametrize("preset", ["faro", "stuss", "old-pharo", "stuss-no-soda"])
@pytest.mark.parametrize("strategy", [FlatRank("all"), FlatRank("K"), Copper(["A", "7"]),
                                      HighCard(), CallTurn()], ids=lambda s: s.name)
def test_fast_loop_equals_general_loop(preset, strategy):
    """The fast loop (flat stakes on single ranks, shuffle inline) gives the general loop's
    statistics bit for bit, and leaves the generator in the same state."""
    from sim.core.progression import ProgressionSpec
    from sim.core.rng import kernel_state
    from sim.games.faro.kernel import _kernel_args, _simulate, by_rank, simulate_table

    rules = PRESETS[preset]
    table = strategy.as_table(rules)
    assert by_rank(table)
    fast_state = kernel_state(np.random.SeedSequence(5))
    slow_state = fast_state.copy()
    fast = simulate_table(rules, table, ProgressionSpec(), 3000, fast_state)
    outcomes, sums, hist, counters, _ = _simulate(
        3000, slow_state, rules.pack_ranks(), *_kernel_args(rules, table, ProgressionSpec(),
                                                             fast=False), 0)
    assert (fast_state == slow_state).all()
    assert [fast.wins, fast.pushes, fast.losses] == outcomes.tolist()
    assert list(fast.sums.values()) == sums.tolist()
    assert fast.counters == {"splits": counters[0], "decisions": counters[1]}
    values = (np.flatnonzero(hist) - (hist.size // 2)) / 2.0
    assert fast.net_hist == dict(zip(values.tolist(), hist[hist > 0].tolist()))


def test_sessions_on_the_fast_loop_equal_the_general_loop():
    """Session nets of a flat single-rank table, from the fast loop, are the general loop's."""
    from sim.core.progression import ProgressionSpec
    from sim.core.rng import kernel_state
    from sim.games.faro.kernel import _kernel_args, _session_nets, session_nets

    rules = PRESETS["faro"]
    table = FlatRank("all").as_table(rules)
    fast_state = kernel_state(np.random.SeedSequence(9))
    slow_state = fast_state.copy()
    fast = session_nets(rules, table, ProgressionSpec(), 7, 30, fast_state)
    slow = _session_nets(7, 30, slow_state, rules.pack_ranks(),
                         *_kernel_args(rules, table, ProgressionSpec(), fast=False))
    assert (fast_state == slow_state).all()
    assert fast.tolist() == slow.tolist()
