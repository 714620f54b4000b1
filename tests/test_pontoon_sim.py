"""Simulated pontoon edges against exact ones (|z| < 4 at fixed seeds), and reproducible runs."""

import dataclasses

import numpy as np
import pytest

from sim.cli import main
from sim.core.progression import ProgressionSpec
from sim.core.stats import z_score
from sim.games.pontoon import GAME, PontoonRules
from sim.games.pontoon.report import REPORT
from sim.games.pontoon.rules import PRESETS
from strategies.pontoon import CardMemory, Table, Threshold

FLAT = ProgressionSpec()
PUNTERS = {
    "threshold": dict(use=Threshold, params=dict(stick=16, soft_stick=18)),
    "buys-and-stakes": dict(use=Table, params=dict(
        stick=16, soft_stick=18, buy={"hard 9": 1, "hard 10": 2, "hard 11": 2, "soft 13": 2},
        stakes={"A": "max", "2": 2})),
}
BANKERS = ["stand-on", "adaptive"]


def _check(stats, exact):
    z1 = z_score(stats.edge_per_initial_bet, exact.edge_per_initial_bet, stats.stderr)
    z2 = z_score(stats.edge_per_total_wagered, exact.edge_per_total_wagered,
                 stats.stderr_per_total_wagered)
    assert abs(z1) < 4 and abs(z2) < 4, (stats.edge_per_initial_bet,
                                         exact.edge_per_initial_bet, z1, z2)


def _strategy(punter, banker):
    spec = PUNTERS[punter]
    return spec["use"](**spec["params"], banker=banker)


@pytest.mark.parametrize("punter", list(PUNTERS))
@pytest.mark.parametrize("banker", BANKERS)
def test_infinite_deck_edges_agree_with_exact(punter, banker):
    rules = PontoonRules(infinite_deck=True)
    strategy = _strategy(punter, banker)
    exact = GAME.exact(rules, strategy, FLAT)
    stats = GAME.simulate(rules, strategy, FLAT, 300_000, np.random.SeedSequence(31))
    _check(stats, exact)


@pytest.mark.parametrize("punter", list(PUNTERS))
@pytest.mark.parametrize("banker", BANKERS)
def test_first_deal_of_a_full_pack_agrees_with_exact(punter, banker):
    rules = PRESETS["reshuffle-every-deal"]  # every deal is a first deal
    strategy = _strategy(punter, banker)
    exact = GAME.exact(rules, strategy, FLAT)
    stats = GAME.simulate(rules, strategy, FLAT, 300_000, np.random.SeedSequence(32))
    _check(stats, exact)


def test_reference_path_agrees_with_exact_with_three_punters():
    rules = PontoonRules(infinite_deck=True, players=3)
    strategy = _strategy("buys-and-stakes", "adaptive")
    assert GAME.engine_path(rules, strategy) == "reference"
    exact = GAME.exact(rules, strategy, FLAT)
    stats = GAME.simulate(rules, strategy, FLAT, 4000, np.random.SeedSequence(33))
    _check(stats, exact)
    extra = REPORT.columns(stats)
    assert {"seat1_edge", "seat3_stderr", "person2_net_per_deal"} <= set(extra)


def test_no_exact_value_when_the_pack_carries_over():
    assert GAME.exact(PRESETS["british-home"], Threshold(), FLAT) is None


def test_card_memory_runs_and_stakes_within_limits():
    rules = dataclasses.replace(PRESETS["british-home"], max_stake=10.0)
    stats = GAME.simulate(rules, CardMemory(), FLAT, 3000, np.random.SeedSequence(34))
    assert 1.0 < stats.mean_initial_stake < 10.0
    assert stats.counters["shuffles"] < stats.rounds  # the pack carried over


SMALL_RUN = """
game = "pontoon"
rounds = 6000
chunk_rounds = 2000
seed = 7
[variants.british-home]
preset = "british-home"
[variants.three-punters]
players = 3
[[strategies]]
use = "threshold"
params = { split = "A8", banker = "adaptive" }
[[strategies]]
use = "card-memory"
rounds = 600
"""


def test_same_report_for_one_and_two_jobs(tmp_path):
    path = tmp_path / "small.toml"
    path.write_text(SMALL_RUN)
    args = ["run", str(path), "--quiet", "--no-charts"]
    assert main([*args, "--out", str(tmp_path / "one"), "--jobs", "1"]) == 0
    assert main([*args, "--out", str(tmp_path / "two"), "--jobs", "2"]) == 0
    assert (tmp_path / "one" / "report.csv").read_text() == (
        tmp_path / "two" / "report.csv").read_text()


USER_STRATEGY = '''
def decide(view, rng):
    """Twist below 17, buy once on 10 or 11 with two cards."""
    if "buy" in view.legal and view.n_cards == 2 and view.total in (10, 11):
        from sim.games.pontoon import Buy
        return Buy(view.initial_stake)
    return "stick" if view.total >= 17 else "twist"
'''


def test_a_user_strategy_file_runs_on_the_kernel_built_into_tables(tmp_path):
    (tmp_path / "mine.py").write_text(USER_STRATEGY)
    (tmp_path / "run.toml").write_text(
        'game = "pontoon"\nrounds = 500\n[[strategies]]\nuse = "mine.py:decide"\n')
    assert main(["run", str(tmp_path / "run.toml"), "--quiet", "--no-charts", "--out",
                 str(tmp_path / "out")]) == 0
    report = (tmp_path / "out" / "report.csv").read_text()
    assert "kernel (tabulated)" in report and "bust_freq" in report


def test_a_chart_file_round_trips(tmp_path):
    from strategies.pontoon import write_chart

    rules = PRESETS["british-home"]
    table = _strategy("buys-and-stakes", "stand-on").as_table(rules)
    write_chart(table, tmp_path / "chart.npz")
    again = Table(file=str(tmp_path / "chart.npz"), stakes={"A": "max", "2": 2})
    assert again.as_table(rules).digest == table.digest


def test_several_punters_agree_with_the_exact_first_deal():
    rules = dataclasses.replace(PRESETS["reshuffle-every-deal"], players=3)
    strategy = _strategy("threshold", "stand-on")
    exact = GAME.exact(rules, strategy, FLAT)  # the seats' hands valued one by one
    stats = GAME.simulate(rules, strategy, FLAT, 6000, np.random.SeedSequence(35))
    _check(stats, exact)
    assert GAME.exact(rules, _strategy("threshold", "adaptive"), FLAT) is None  # walked: too slow
