"""Simulated bonus players: the kernel plays the reference path's bets, Monte Carlo agrees
with the programme (|z| < 4 at fixed seeds, exact SE, rare completions included), and bad
terms or actions are clear errors."""

import dataclasses
import math

import numpy as np
import pytest

from sim.cli import main
from sim.core.errors import IllegalActionError, InputError, StrategyFailedError
from sim.core.progression import PAROLI, ProgressionSpec
from sim.core.rng import kernel_state
from sim.core.stats import z_score
from sim.games.bonus import GAME
from sim.games.bonus.lattice import lattice_for
from sim.games.bonus.report import REPORT
from sim.games.bonus.terms import PRESETS, BonusBet, BonusRules
from sim.games.bonus.value import policy_value
from sim.games.bonus.walk import play_player, walk_table
from strategies.base import FunctionStrategy
from strategies.bonus import Bold, FlatStake, OptimalStakes, SwitchGame, TwoTier

FLAT = ProgressionSpec()
CASES = [
    ("seed", FlatStake(1.0)), ("seed", TwoTier(big=25.0, small=1.0, target=400.0)),
    ("seed-sticky", FlatStake(5.0, stop_at=260.0)), ("seed-parachute", Bold()),
    ("seed-parachute", FlatStake(2.0, stop_at=150.0)), ("seed-max-cashout-300", FlatStake(10.0)),
    ("seed-two-games", SwitchGame(stake=5.0, then_stake=2.0, switch_at=600.0)),
]


def _rules(name: str, **changes) -> BonusRules:
    return dataclasses.replace(PRESETS[name], **changes)


@pytest.mark.parametrize("name, policy", CASES + [
    ("seed", OptimalStakes()), ("time", FlatStake(5.0)),
    ("time", OptimalStakes(stakes=(5.0, 25.0)))],
    ids=lambda x: getattr(x, "name", x))
def test_kernel_and_reference_play_the_same_bets(name, policy):
    rules = (_rules("seed", unit=5.0, max_bets=90, max_bet=25.0) if name == "time"
             else PRESETS[name])
    grid = lattice_for(rules)
    table = policy.as_table(rules)
    uniforms = np.random.default_rng(8).random((25, 4000))
    kernel = walk_table(grid, table, 25, kernel_state(np.random.SeedSequence(0)), uniforms)
    for i in range(25):
        reference = play_player(grid, policy, None, uniforms[i])
        assert reference == tuple(int(x[i]) for x in kernel), (i, reference)


def _check_against_exact(rules, policy, players, seed):
    value = policy_value(rules, policy)
    stats = GAME.simulate(rules, policy, FLAT, players, np.random.SeedSequence(seed))
    se = value.sd_payout / math.sqrt(players)
    assert abs(z_score(stats.mean_net, value.expected_profit, se)) < 4
    for name, p in (("complete", value.p_complete), ("bust", value.p_bust),
                    ("walk", value.p_walk), ("timeout", value.p_timeout)):
        observed = stats.counter_rate(name)
        if 0 < p < 1:
            assert abs(observed - p) < 4 * math.sqrt(p * (1 - p) / players), name
        else:
            assert observed == p, name
    wagered_se = math.sqrt(value.mean_wagered * 4000 / players)  # a generous bound
    assert abs(stats.mean_total_wagered - value.mean_wagered) < 4 * wagered_se
    return stats, value


@pytest.mark.parametrize("name, policy", CASES, ids=lambda x: getattr(x, "name", x))
def test_players_agree_with_the_programme(name, policy):
    _check_against_exact(PRESETS[name], policy, 6_000, 3)


def test_players_under_a_time_limit_agree_with_the_programme():
    rules = _rules("seed", unit=5.0, max_bets=100, max_bet=25.0)
    for policy in (FlatStake(5.0), FlatStake(10.0), OptimalStakes(stakes=(5.0, 10.0, 25.0))):
        _check_against_exact(rules, policy, 6_000, 4)


def test_rare_completions_have_an_honest_error_bar():
    """On a 40% edge card a flat 1 player completes once in ~2,000: the SE of P(complete)
    comes from the exact p (never 0), and the report's SE stays positive with no completion."""
    rules = PRESETS["seed-oh-snap"]
    value = policy_value(rules, FlatStake(1.0))
    assert 0 < value.p_complete < 0.001
    stats, _ = _check_against_exact(rules, FlatStake(1.0), 20_000, 5)
    columns = REPORT.columns(stats)
    k = stats.counters["complete"]
    z = (k / 20_000 - value.p_complete) / math.sqrt(value.p_complete / 20_000)
    assert abs(z) < 4
    small = GAME.simulate(rules, FlatStake(1.0), FLAT, 50, np.random.SeedSequence(1))
    small_cols = REPORT.columns(small)
    assert small.counters["complete"] == 0 and small_cols["p_complete"] == 0
    assert small_cols["p_complete_se"] > 0.01  # about 1/n, not 0
    assert columns["p_complete_se"] > 0


def test_the_report_z_uses_the_exact_spread():
    exact = GAME.exact(PRESETS["seed"], Bold(), FLAT)
    value = policy_value(PRESETS["seed"], Bold())
    assert exact.sd_net == value.sd_payout and exact.mean_initial_stake == 100
    assert exact.mean_net == pytest.approx(value.expected_profit)


def test_reference_path_for_a_strategy_of_your_own():
    rules = PRESETS["seed"]

    def flat_three(view, rng):
        return BonusBet(min(3.0, view.balance))

    stats = GAME.simulate(rules, FunctionStrategy(flat_three), FLAT, 100,
                          np.random.SeedSequence(2))
    assert stats.rounds == 100 and GAME.exact(rules, FunctionStrategy(flat_three), FLAT) is None
    assert GAME.engine_path(rules, FunctionStrategy(flat_three)) == "reference"
    assert GAME.engine_path(rules, FlatStake(3.0)) == "kernel"


@pytest.mark.parametrize("action, why", [
    (BonusBet(500.0), "above the balance"), (BonusBet(1.5), "whole multiple"),
    (BonusBet(1.0, game=3), "game number"), (BonusBet(-2.0), "positive"),
    ("all", "BonusBet"), (BonusBet(10.0), "max bet is 5"),
])
def test_illegal_bets_are_named(action, why):
    rules = PRESETS["seed-max-bet-5"] if "max bet" in why else PRESETS["seed"]
    strategy = FunctionStrategy(lambda view, rng: action)
    with pytest.raises(IllegalActionError, match=why):
        GAME.simulate(rules, strategy, FLAT, 1, np.random.SeedSequence(0))


def test_failing_strategies_progressions_and_bad_policy_parameters():
    def broken(view, rng):
        return 1 / 0

    with pytest.raises(StrategyFailedError, match="ZeroDivisionError"):
        GAME.simulate(PRESETS["seed"], FunctionStrategy(broken), FLAT, 1,
                      np.random.SeedSequence(0))
    with pytest.raises(InputError, match="progression"):
        GAME.check(PRESETS["seed"], FlatStake(1.0), ProgressionSpec(PAROLI))
    with pytest.raises(InputError, match="stake: 1.5 is not a whole number"):
        GAME.check(PRESETS["seed"], FlatStake(1.5), FLAT)
    faro = BonusRules(games=("faro:rank",))
    with pytest.raises(InputError, match="smallest stake 2 of faro:rank"):
        GAME.check(faro, FlatStake(1.0), FLAT)
    with pytest.raises(InputError, match="game: expected a game number"):
        GAME.check(PRESETS["seed"], FlatStake(1.0, game=1), FLAT)
    with pytest.raises(InputError, match="max_bets"):
        GAME.check(_rules("seed", max_bets=500), OptimalStakes(), FLAT)


@pytest.mark.parametrize("changes, key, piece", [
    ({"deposit": 0.0}, "deposit", "positive"),
    ({"kind": "sticky-ish"}, "kind", "'cashable'"),
    ({"contributions": (0.0,)}, "contributions", "never worth playing"),
    ({"contributions": (1.0, 1.0)}, "contributions", "one per game"),
    ({"games": ("roulette",)}, "games", "unknown game 'roulette'"),
    ({"games": ("even-money:1.5",)}, "games", "win probability"),
    ({"games": ("scratch:no-such",)}, "games", "shipped table"),
    ({"max_bet": 0.5}, "max_bet", "not a whole number of units"),
    ({"max_bet": 2.0, "unit": 2.0, "games": ("faro:rank",)}, "max_bet", "below the smallest"),
    ({"max_bets": 10, "max_bet": 5.0}, "max_bets", "cannot be met in 10 bets"),
    ({"wagering": 20.5, "cap": 1.0, "match": 1.0}, "wagering", "wagering units"),
    ({"unit": 0.01}, "unit", "states"),
    ({"deposit": 1.0, "cap": 0.0, "match": 0.0, "games": ("faro:rank",)}, "deposit",
     "smallest stake"),
])
def test_impossible_terms_are_rejected_naming_the_term(changes, key, piece):
    with pytest.raises(ValueError) as info:
        _rules("seed", **changes)
    message = str(info.value)
    assert message.startswith(f"{key}:") and piece in message, message


def test_bad_terms_stop_a_run_with_one_line(tmp_path, capsys):
    exp = tmp_path / "exp.toml"
    exp.write_text('game = "bonus"\nrounds = 10\n[variants.v]\npreset = "seed"\n'
                   'max_bets = 10\nmax_bet = 5.0\n[[strategies]]\nuse = "flat"\n')
    out = tmp_path / "out"
    assert main(["run", str(exp), "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "variants.v.max_bets" in err[0] and str(exp) in err[0]
    assert not out.exists()


def test_a_small_run_end_to_end(tmp_path, capsys):
    exp = tmp_path / "exp.toml"
    exp.write_text('game = "bonus"\nrounds = 2000\nseed = 3\n[rules]\npreset = "seed"\n'
                   'unit = 5.0\n[[strategies]]\nuse = "flat"\nparams = { stake = 5 }\n'
                   '[[strategies]]\nuse = "optimal"\n')
    assert main(["run", str(exp), "--out", str(tmp_path / "out"), "--quiet", "--no-charts"]) == 0
    import pandas as pd

    report = pd.read_csv(tmp_path / "out" / "report.csv")
    assert report["z_vs_exact"].abs().max() < 4
    assert {"p_complete", "p_complete_se", "mean_cashout", "stderr_exact"} <= set(report)


BESIDE = """
name = "beside"
game = "bonus"
rounds = 400
seed = 3
chunk_rounds = 200
[rules]
preset = "seed"
games = ["scratch:cards/half.toml"]
[[strategies]]
use = "flat"
params = { stake = 1 }
"""


def _half_card(folder):
    (folder / "cards").mkdir(parents=True)
    (folder / "cards" / "half.toml").write_text(
        "price = 1\n[[tiers]]\nprize = 2\nprobability = 0.45\n")


def test_a_bonus_game_file_is_found_beside_the_experiment(tmp_path, monkeypatch, capsys):
    from sim.engine import experiment

    here, there = tmp_path / "here", tmp_path / "there"
    _half_card(here)
    (here / "bonus.toml").write_text(BESIDE)
    there.mkdir()
    monkeypatch.chdir(there)  # run from another folder, as a user of the file would
    exp = experiment.load(here / "bonus.toml")
    assert exp.variants[0].rules.games[0] == f"scratch:{here / 'cards' / 'half.toml'}"
    assert str(here / "cards" / "half.toml") in exp.files  # its content is in the fingerprint
    assert main(["run", str(here / "bonus.toml"), "--out", str(there / "out"), "--quiet"]) == 0
    # The same numbers from any checkout: the pack key names the file, not its folder.
    from sim import games

    key = games.get("bonus").pack_key(exp.variants[0].rules)
    assert str(here) not in key and "scratch:half.toml" in key
    # A game file named on the command line is found from the working folder.
    _half_card(there)
    exp = experiment.load(here / "bonus.toml",
                          ['rules.games=["scratch:cards/half.toml"]'])
    assert exp.variants[0].rules.games == (f"scratch:{there / 'cards' / 'half.toml'}",)
