"""Simulated sessions: both paths play the same rule, draws without replacement are exact,
and Monte Carlo agrees with the exact values (|z| < 4 at fixed seeds, exact SE)."""

import math

import numpy as np
import pytest

from sim.core.errors import IllegalActionError, InputError, StrategyFailedError
from sim.core.progression import MARTINGALE, ProgressionSpec
from sim.core.stats import z_score
from sim.games.scratchcard import GAME
from sim.games.scratchcard.exact import plan_grid
from sim.games.scratchcard.play import _draw_online, play_session, settle
from sim.games.scratchcard.report import REPORT
from sim.games.scratchcard.rules import ScratchPlan, ScratchRules
from strategies.base import FunctionStrategy
from strategies.scratchcard import Budget, FixedTickets, PlanPlayer, StopWinLoss

FLAT = ProgressionSpec()
ONLINE = ScratchRules("online-example")
PLANS = [ScratchPlan(first=1, max_tickets=30, stop_win=10, stop_loss=8),
         ScratchPlan(first=3, max_tickets=30, stop_win=4),
         ScratchPlan(first=1, max_tickets=30, budget=6),
         ScratchPlan(first=1, max_tickets=30, budget=5, stop_win=20),
         ScratchPlan(first=5, max_tickets=5)]


class Replay:
    """A ticket source replaying one row of tiers."""

    def __init__(self, row):
        self.row, self.i = list(row), 0

    def tickets_left(self):
        return None

    def draw(self):
        self.i += 1
        return self.row[self.i - 1]


@pytest.mark.parametrize("plan", PLANS, ids=str)
def test_vectorised_and_reference_paths_stop_at_the_same_ticket(plan):
    pool = ONLINE.pool()
    pg = plan_grid(pool, plan)
    tiers = _draw_online(pool, np.random.default_rng(3), 400, plan.max_tickets)
    stopped, last, running = settle(pg.units[tiers] - pg.price, np.zeros(400, np.int64), 0,
                                    plan, pg)
    assert stopped.all()  # the block holds the longest session
    strategy = PlanPlayer(plan)
    for row in range(400):
        net, initial, wagered, tickets, _ = play_session(ONLINE, strategy, None,
                                                         Replay(tiers[row]))
        assert tickets == last[row] + 1
        assert net == running[row, last[row]] * float(pg.step)
        assert initial == plan.first and wagered == tickets


@pytest.mark.parametrize("plan", PLANS[:4], ids=str)
def test_a_session_continued_block_by_block_stops_where_it_would_at_once(plan):
    pool = ONLINE.pool()
    pg = plan_grid(pool, plan)
    gains = pg.units[_draw_online(pool, np.random.default_rng(5), 300, 30)] - pg.price
    whole_stop, whole_last, whole_run = settle(gains, np.zeros(300, np.int64), 0, plan, pg)
    cut = 7
    stop1, last1, run1 = settle(gains[:, :cut], np.zeros(300, np.int64), 0, plan, pg)
    going = ~stop1
    stop2, last2, run2 = settle(gains[going, cut:], run1[going, -1], cut, plan, pg)
    last = last1.copy()
    last[going] = cut + last2
    net = run1[np.arange(300), last1]
    net[going] = run2[np.arange(going.sum()), last2]
    assert (last == whole_last).all()
    assert (net == whole_run[np.arange(300), whole_last]).all()


def test_a_whole_box_bought_pays_exactly_what_it_holds():
    rules = ScratchRules("deal-em")
    stats = GAME.simulate(rules, FixedTickets(1050), FLAT, 50, np.random.SeedSequence(1))
    assert stats.net_hist == {335 - 525: 50}
    ref = GAME.simulate(rules, FunctionStrategy(lambda v, rng: 1050 if v.tickets == 0 else 0),
                        FLAT, 3, np.random.SeedSequence(1))
    assert ref.net_hist == {335 - 525: 3}


def _z_check(rules, strategy, rounds, seed):
    exact = GAME.exact(rules, strategy, FLAT)
    stats = GAME.simulate(rules, strategy, FLAT, rounds, np.random.SeedSequence(seed))
    se = exact.sd_net / math.sqrt(stats.rounds) / exact.mean_initial_stake
    z = z_score(stats.edge_per_initial_bet, exact.edge_per_initial_bet, se)
    assert abs(z) < 4, (stats.edge_per_initial_bet, exact.edge_per_initial_bet, z)
    se_total = exact.sd_residual_total / math.sqrt(stats.rounds) / exact.mean_total_wagered
    z = z_score(stats.edge_per_total_wagered, exact.edge_per_total_wagered, se_total)
    assert abs(z) < 4, (stats.edge_per_total_wagered, exact.edge_per_total_wagered, z)
    return stats, exact


@pytest.mark.parametrize("preset, strategy", [
    ("online-example", FixedTickets(1)), ("online-example", FixedTickets(10)),
    ("online-example", StopWinLoss(40, stop_win=10, stop_loss=10)),
    ("online-example", Budget(10, max_tickets=2000)),
    ("oh-snap", FixedTickets(5)), ("deal-em", FixedTickets(20)), ("oh-snap-now", FixedTickets(3)),
    ("cash-payout", FixedTickets(2)),
], ids=lambda x: getattr(x, "name", x))
def test_sessions_agree_with_exact_values(preset, strategy):
    rules = GAME.presets[preset]
    stats, exact = _z_check(rules, strategy, 100_000, 7)
    assert stats.counter_rate("tickets") == pytest.approx(
        exact.mean_total_wagered / rules.prize_table.price, rel=0.05)


@pytest.mark.parametrize("preset", ["deal-em", "oh-snap", "true-north"])
def test_budget_sessions_on_printed_games_agree_with_exact_values(preset):
    # Drawn without replacement from each session's own print run: deal-em's 1,050 tickets
    # by every drawn multiset, the others by the corrected walk (sim.games.scratchcard.printed).
    rules = GAME.presets[preset]
    strategy = Budget(20, max_tickets=1000)
    exact = GAME.exact(rules, strategy, FLAT)
    stats = GAME.simulate(rules, strategy, FLAT, 40_000, np.random.SeedSequence(8))
    se_total = exact.sd_residual_total / math.sqrt(stats.rounds) / exact.mean_total_wagered
    z = z_score(stats.edge_per_total_wagered, exact.edge_per_total_wagered, se_total)
    assert abs(z) < 4, (stats.edge_per_total_wagered, exact.edge_per_total_wagered, z)
    if exact.sd_net > 1e-9:
        se = exact.sd_net / math.sqrt(stats.rounds) / exact.mean_initial_stake
        assert abs(z_score(stats.edge_per_initial_bet, exact.edge_per_initial_bet, se)) < 4
    else:  # the box is spent to the last 0.5: every session nets -20
        assert stats.net_hist == {-20.0: stats.rounds}


def test_the_reference_path_agrees_with_exact_values():
    rules = GAME.presets["online-example"]
    plan = StopWinLoss(20, stop_win=5, stop_loss=5)
    stats = GAME.simulate(rules, FunctionStrategy(plan.decide), FLAT,
                          4_000, np.random.SeedSequence(2))
    exact = GAME.exact(rules, plan, FLAT)
    se = exact.sd_net / math.sqrt(stats.rounds)
    assert abs(z_score(stats.edge_per_initial_bet, exact.edge_per_initial_bet, se)) < 4
    assert GAME.engine_path(rules, plan) == "numpy"
    assert GAME.exact(rules, FunctionStrategy(lambda v, rng: 0), FLAT) is None


def test_prize_frequency_column_matches_the_odds():
    rules = GAME.presets["deal-em"]
    stats = GAME.simulate(rules, FixedTickets(10), FLAT, 20_000, np.random.SeedSequence(4))
    freq = REPORT.columns(stats)["prize_freq"]
    p = 226 / 1050
    assert abs(freq - p) < 4 * math.sqrt(p * (1 - p) / 200_000)


@pytest.mark.parametrize("answer, why", [
    (-1, "whole number"), (2.5, "whole number"), (True, "whole number"),
    (2_000, "only 1,050 tickets left"),
])
def test_illegal_purchases_are_named(answer, why):
    strategy = FunctionStrategy(lambda view, rng: answer)
    with pytest.raises(IllegalActionError, match=why):
        GAME.simulate(GAME.presets["deal-em"], strategy, FLAT, 2, np.random.SeedSequence(0))


def test_session_limit_failing_strategies_and_progressions():
    rules = ScratchRules("online-example", session_limit=5)
    with pytest.raises(IllegalActionError, match="session limit is 5"):
        GAME.simulate(rules, FunctionStrategy(lambda v, rng: 6), FLAT, 1,
                      np.random.SeedSequence(0))

    def broken(view, rng):
        raise KeyError("oops")

    with pytest.raises(StrategyFailedError, match="KeyError"):
        GAME.simulate(rules, FunctionStrategy(broken), FLAT, 1, np.random.SeedSequence(0))
    with pytest.raises(InputError, match="progression"):
        GAME.check(rules, FixedTickets(1), ProgressionSpec(MARTINGALE))
    with pytest.raises(InputError, match="max_tickets"):
        GAME.check(rules, StopWinLoss(10), FLAT)
    with pytest.raises(InputError, match="budget"):
        GAME.check(GAME.presets["cash-payout"], Budget(5), FLAT)


def test_exact_tables_of_a_game_now():
    tables = REPORT.exact_tables(GAME.presets["oh-snap-now"])
    bets = tables["bets"]
    assert list(bets["pool"]) == ["full print run", "now (lowest-tier)", "now (all-prizes)",
                                  "now (hypergeometric-mle)"]
    assert bets["rtp"].iloc[0] == pytest.approx(0.601151, abs=1e-6)
    assert (tables["claims"]["warning"] != "").any()
    assert set(tables) == {"bets", "tiers", "tickets", "claims"}
    assert tables["tickets"]["p_total_ge_cost"].between(0, 1).all()
