"""The bonus programme against an exact-fraction solver written from the rules, the optional-
stopping identity, its optimum against every built-in policy, and its speed."""

import dataclasses
import time
from fractions import Fraction
from functools import cache

import numpy as np
import pytest

from sim.games.bonus import players as bonus_strategies
from sim.games.bonus.dp import (
    _bet_value,
    _resolve,
    _row_stake_values,
    backward_values,
    candidate_actions,
    evaluate,
    rich_recursion,
)
from sim.games.bonus.lattice import lattice_for
from sim.games.bonus.operator import claims_cost, term_effects, value_row
from sim.games.bonus.terms import PRESETS, BonusRules, BonusView, played_game
from sim.games.bonus.value import policy_value
from strategies.bonus import Bold, FlatStake, OptimalStakes, SwitchGame, TwoTier


@pytest.fixture(scope="module")
def tiny_card(tmp_path_factory) -> str:
    """A three-prize online card with a 10x prize (so big wins leave the programme's grid)."""
    path = tmp_path_factory.mktemp("cards") / "tiny.toml"
    path.write_text("price = 1\n" + "".join(
        f"[[tiers]]\nprize = {p}\nprobability = {q}\n"
        for p, q in ((10, 0.04), (2, 0.15), (1, 0.2))))
    return f"scratch:{path}"


def fraction_solver(rules: BonusRules, policy, choose=None):
    """Expected payout, P(complete), P(bust), E[staked], E[bets] from the start, in exact
    fractions of the (binary) probabilities, straight from the rules page's model.

    ``choose(state) -> list of (stake, game)`` makes it maximise over those actions and
    walking away instead of following ``policy``.
    """
    games = [played_game(g) for g in rules.games]
    probs = [[Fraction(p) for p in g.probabilities] for g in games]
    deposit, bonus = int(rules.deposit), int(rules.bonus)
    cap = int(rules.max_cashout)
    kind, limit = rules.kind, rules.max_bets
    shares = [Fraction(c).limit_denominator(1000) for c in rules.contributions]
    wq = int(np.lcm.reduce([c.denominator for c in shares]))  # wagering counted in 1/wq

    def capped(x):
        return min(x, cap) if cap else x

    def complete(real, b):
        if kind == "sticky":
            return capped(max(b - bonus, 0))
        if kind == "parachute" and real:
            return b + capped(bonus)
        return capped(b)

    def leave(real, b):
        if kind == "parachute":
            return b if real else 0
        return 0 if rules.forfeit == "all" else max(b - bonus, 0)

    def after_bet(real, w, b, n, stake, game):
        total = [Fraction(0)] * 5
        for r, q in zip(games[game].returns, probs[game]):
            b2 = b - stake + int(stake * r)
            w2 = max(w - int(stake * shares[game] * wq), 0)
            sub = value(real, w2, b2, n + 1)
            for i in range(5):
                total[i] += q * sub[i]
        return total[0], total[1], total[2], total[3] + stake, total[4] + 1

    @cache
    def value(real, w, b, n):
        if w == 0:
            return Fraction(complete(real, b)), Fraction(1), Fraction(0), Fraction(0), 0
        if b < 1:
            if real:
                return value(False, w, b + bonus, n)
            return Fraction(leave(False, b)), Fraction(0), Fraction(1), Fraction(0), 0
        if limit and n >= limit:
            return Fraction(leave(real, b)), Fraction(0), Fraction(0), Fraction(0), 0
        walk = (Fraction(leave(real, b)), Fraction(0), Fraction(0), Fraction(0), 0)
        if choose is not None:
            best = None
            for stake, game in choose(w, b):
                candidate = after_bet(real, w, b, n, stake, game)
                if best is None or candidate[0] > best[0]:
                    best = candidate
            return best if best is not None and best[0] >= walk[0] else walk
        view = BonusView(float(b), w / wq, 0.0, n, "real" if real else "bonus",
                         limit - n if limit else None, rules)
        action = policy.decide(view, None)
        if action is None:
            return walk
        return after_bet(real, w, b, n, int(round(action.stake)), action.game)

    real = kind == "parachute"
    return value(real, int(rules.requirement * wq), deposit if real else deposit + bonus, 0)


def _assert_matches(rules, policy):
    grid = lattice_for(rules)
    table = policy.as_table(rules)
    exact = evaluate(grid, table)
    payout, p_complete, p_bust, staked, bets = (float(x) for x in fraction_solver(rules, policy))
    assert exact.mean_payout == pytest.approx(payout, abs=1e-11)
    assert exact.p_complete == pytest.approx(p_complete, abs=1e-12)
    assert exact.p_bust == pytest.approx(p_bust, abs=1e-12)
    assert exact.mean_wagered == pytest.approx(staked, abs=1e-10)
    assert exact.mean_bets == pytest.approx(bets, abs=1e-10)
    phase, balance = grid.start
    back = backward_values(grid, table)[phase, grid.requirement, balance]
    assert back == pytest.approx(payout, abs=1e-11)
    total = exact.probabilities.sum() + exact.tail_probability
    assert total == pytest.approx(1.0, abs=1e-12)
    return exact


TERMS = [
    {},
    {"kind": "sticky"},
    {"kind": "parachute"},
    {"max_cashout": 10.0},
    {"kind": "sticky", "max_cashout": 9.0, "forfeit": "all"},
    {"max_bets": 9},
    {"kind": "parachute", "max_bets": 8, "max_cashout": 12.0},
    {"max_bet": 2.0},
]
POLICIES = [FlatStake(1.0), FlatStake(2.0), Bold(), TwoTier(big=3.0, small=1.0, target=10.0),
            FlatStake(1.0, stop_at=12.0)]


@pytest.mark.parametrize("terms", TERMS, ids=str)
@pytest.mark.parametrize("policy", POLICIES, ids=lambda p: f"{p.name}{sorted(vars(p).items())}")
def test_programme_equals_exact_fractions(tiny_card, terms, policy):
    rules = BonusRules(deposit=4.0, cap=4.0, wagering=3.0, games=(tiny_card,), **terms)
    exact = _assert_matches(rules, policy)
    assert exact.p_complete + exact.p_bust + exact.p_walk + exact.p_timeout == pytest.approx(1)


def test_two_games_with_contributions_equal_exact_fractions(tiny_card):
    rules = BonusRules(deposit=4.0, cap=4.0, wagering=2.0, games=(tiny_card, "even-money:0.45"),
                       contributions=(1.0, 0.5))
    _assert_matches(rules, SwitchGame(stake=1.0, game=1, then_game=0, switch_at=3.0))
    _assert_matches(rules, FlatStake(2.0, game=1))


@pytest.mark.parametrize("terms", [{"max_bet": 3.0}, {"max_bet": 2.0, "kind": "sticky"},
                                   {"max_bet": 3.0, "max_cashout": 10.0},
                                   {"max_bet": 2.0, "kind": "parachute"},
                                   {"max_bet": 2.0, "max_bets": 7}], ids=str)
def test_optimal_policy_equals_the_exact_fraction_optimum(tiny_card, terms):
    rules = BonusRules(deposit=4.0, cap=4.0, wagering=3.0, games=(tiny_card,), **terms)
    grid = lattice_for(rules)
    policy = OptimalStakes(stakes=(1.0, 2.0))

    def choose(w, b):  # the candidates: listed stakes, all-in, what finishes (w in units)
        top = min(b, int(rules.max_bet))
        need = w
        return {(s, 0) for s in (1, 2, top, min(need, top)) if 0 < s <= top}

    best = float(fraction_solver(rules, None, choose)[0])
    exact = evaluate(grid, policy.as_table(rules))
    assert exact.mean_payout == pytest.approx(best, abs=1e-11)
    # The optimum is at least as good as every built-in policy.
    for other in POLICIES:
        assert policy_value(rules, other).mean_payout <= exact.mean_payout + 1e-9


@pytest.mark.parametrize("terms", [{}, {"max_bet": 2.0}, {"kind": "parachute"}], ids=str)
def test_a_row_of_values_equals_the_states_one_by_one(tiny_card, terms):
    # The optimum values a stake fixed along a row (listed, or what finishes the requirement)
    # a row at a time: bit for bit what valuing each state on its own gives.
    rules = BonusRules(deposit=4.0, cap=4.0, wagering=3.0, games=(tiny_card,), **terms)
    grid = lattice_for(rules)
    cands = candidate_actions(grid, (1.0, 2.0, 3.0), None)
    rich = rich_recursion(grid, None, None, cands)
    prm = grid.params(40)
    bmax, min_stake, max_bet = int(prm[6]), int(prm[4]), int(prm[9])
    g = grid.games
    rng = np.random.default_rng(3)
    V = rng.random((grid.phases, grid.requirement + 1, bmax + 1))
    values, stakes = np.empty((len(cands[0]), bmax + 1)), np.zeros(len(cands[0]), np.int64)
    matched = 0
    for p in range(grid.phases):
        for w in range(1, grid.requirement + 1):
            _row_stake_values(values, stakes, V, rich.alpha[0], rich.beta[0], p, w, g["returns"],
                              g["probs"], g["nout"], g["cw"], g["step"], *cands, min_stake,
                              max_bet, bmax)
            for k, (code, game) in enumerate(zip(*cands)):
                for b in range(min_stake, bmax + 1):
                    s = _resolve(code, game, b, w, g["step"], g["cw"], max_bet)
                    if s and s == stakes[k]:
                        one = _bet_value(V, rich.alpha[0], rich.beta[0], p, w, b, s, game,
                                         g["returns"], g["probs"], g["nout"], g["cw"], bmax)
                        assert values[k, b] == one, (p, w, k, b)
                        matched += 1
    assert matched > 100


@pytest.mark.parametrize("policy", [FlatStake(1.0), FlatStake(5.0), FlatStake(40.0), Bold(),
                                    TwoTier(big=25.0, small=1.0, target=400.0)],
                         ids=lambda p: p.name)
def test_optional_stopping_identity(policy):
    """Cashable, no cap, one game: E[profit] = bonus - edge x E[amount wagered], exactly."""
    rules = PRESETS["seed"]
    value = policy_value(rules, policy)
    edge = played_game(rules.games[0]).edge
    assert value.expected_profit == pytest.approx(rules.bonus - edge * value.mean_wagered,
                                                  abs=1e-8)
    row = value_row(rules, policy.name, value)
    assert row["final_balance_profit"] == pytest.approx(row["expected_profit"], abs=1e-8)
    assert row["taken_back_by_terms"] == pytest.approx(0, abs=1e-8)
    sticky = dataclasses.replace(rules, kind="sticky")  # the bonus taken back at cash-out
    row = value_row(sticky, policy.name, policy_value(sticky, policy))
    # Up to 100 per completion (less when the balance at completion is below 100).
    assert 0 < row["taken_back_by_terms"] <= 100 * row["p_complete"] + 1e-9


def test_where_the_naive_value_fails():
    snap = PRESETS["seed-oh-snap"]  # a 40% edge: the naive value loses 7 deposits
    row = value_row(snap, "flat 1", policy_value(snap, FlatStake(1.0)))
    assert row["naive_profit"] == pytest.approx(100 - 2000 * played_game(snap.games[0]).edge)
    assert row["naive_impossible"] and row["expected_profit"] >= -snap.deposit
    seed = PRESETS["seed"]  # naive 0, but every policy here is worth money to the player
    assert seed.naive_profit() == 0.0
    assert policy_value(seed, FlatStake(1.0)).expected_profit > 10


def test_the_optimum_beats_the_policies_on_the_seed_terms():
    for name in ("seed", "seed-sticky", "seed-max-bet-5"):
        rules = dataclasses.replace(PRESETS[name], unit=5.0)
        best = policy_value(rules, OptimalStakes()).mean_payout
        for policy in (FlatStake(5.0), FlatStake(25.0), Bold(), TwoTier(big=25.0, small=5.0,
                                                                target=400.0)):
            assert policy_value(rules, policy).mean_payout <= best + 1e-9, (name, policy.name)


def test_the_seed_programme_runs_in_under_a_second():
    rules = PRESETS["seed"]
    grid = lattice_for(rules)
    evaluate(grid, FlatStake(1.0).as_table(rules))  # compiled kernels loaded
    bonus_strategies._TABLES.clear()  # the table is built again, inside the timing
    started = time.perf_counter()
    table = FlatStake(1.0).as_table(rules)
    value = evaluate(grid, table)
    elapsed = time.perf_counter() - started
    assert grid.start == (0, 200) and grid.requirement == 2000 and table.bmax > 2000
    assert value.p_complete > 0.5
    assert elapsed < 1.0, elapsed


def test_operator_costs():
    rules = PRESETS["seed"]
    value = policy_value(rules, FlatStake(5.0))
    one = claims_cost(value, 1)
    assert one["expected_cost"] == pytest.approx(value.expected_profit)
    ahead = value.probabilities[value.payouts > rules.deposit].sum()
    assert one["p_player_ahead"] == pytest.approx(ahead + value.tail_probability, abs=1e-9)
    two = claims_cost(value, 2)
    assert two["expected_cost"] == pytest.approx(2 * value.expected_profit)
    assert two["sd_cost"] == pytest.approx(np.sqrt(2) * value.sd_payout)
    payouts = np.append(value.payouts, value.tail_mean)  # the tail enters at its mean
    probs = np.append(value.probabilities, value.tail_probability)
    pairs = np.add.outer(payouts, payouts)
    weights = np.multiply.outer(probs, probs)
    assert two["p_player_ahead"] == pytest.approx(weights[pairs > 200].sum(), abs=1e-9)
    effects = term_effects(dataclasses.replace(rules, unit=5.0), [("flat 5", FlatStake(5.0))],
                           {"wagering": [10.0, 30.0], "max_cashout": [0.0, 300.0]})
    assert list(effects["term"]) == ["wagering", "wagering", "max_cashout", "max_cashout"]
    assert effects["cost"].iloc[0] > effects["cost"].iloc[1]  # a lower requirement costs more
    assert effects["cost"].iloc[3] < effects["cost"].iloc[2]  # a cap on cash-out saves


def test_charts_draw_on_a_given_axes_and_return_the_figure():
    import matplotlib.pyplot as plt

    from sim.games.bonus.charts import cashout_chart, cost_chart, stake_chart

    rules = dataclasses.replace(PRESETS["seed"], unit=5.0)
    fig, (a, b, c) = plt.subplots(1, 3)
    assert stake_chart(rules, (5, 25, 100), ax=a) is fig
    assert len(a.lines) == 3  # profit, naive, the deposit line
    assert cost_chart(rules, "wagering", [10.0, 20.0], [("flat 5", FlatStake(5.0))], ax=b) is fig
    assert cashout_chart([("flat 5", policy_value(rules, FlatStake(5.0)))], ax=c) is fig
    plt.close(fig)
