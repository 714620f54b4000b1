"""Checks every registered game, every built-in strategy and every shipped experiment gets."""

import dataclasses
import pickle
import tomllib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sim import games
from sim.cli import main
from strategies import base
from strategies.betting import progression_spec

EXPERIMENTS = sorted((Path(__file__).parents[1] / "experiments").glob("*.toml"))
STRATEGIES = [(g, info.name) for g in games.names() for info in base.registered(g)]


@pytest.mark.parametrize("name", games.names())
def test_game_presets_and_rules(name):
    game = games.get(name)
    assert game.description and game.presets
    # What the header derives from where the class is written: its name, rules and page.
    assert game.name == name and (Path(__file__).parents[1] / game.rules_doc).is_file()
    for preset in game.presets.values():
        assert isinstance(preset, game.rules_type)
        assert dataclasses.is_dataclass(preset)
    first = next(iter(game.presets))
    with pytest.raises(KeyError, match="no_such_rule"):
        game.make_rules(first, {"no_such_rule": 1})
    with pytest.raises(KeyError, match="no-such-preset"):
        game.make_rules("no-such-preset", {})
    assert base.registered(name), f"{name} has no built-in strategy"


@pytest.mark.parametrize("game_name, strategy_name", STRATEGIES)
def test_builtin_strategy_is_picklable_described_and_reproducible(game_name, strategy_name):
    game = games.get(game_name)
    info = next(i for i in base.registered(game_name) if i.name == strategy_name)
    assert info.description, f"{strategy_name} needs a docstring"
    strategy = base.resolve(game_name, strategy_name)
    again = pickle.loads(pickle.dumps(strategy))
    rules = next(iter(game.presets.values()))
    flat = progression_spec(None)
    game.check(rules, strategy, flat)
    a = game.simulate(rules, strategy, flat, 300, np.random.SeedSequence(4))
    b = game.simulate(rules, again, flat, 300, np.random.SeedSequence(4))
    assert a.rounds == 300 and a.to_json() == b.to_json()


@pytest.mark.parametrize("path", EXPERIMENTS, ids=lambda p: p.name)
def test_shipped_experiment_validates_and_runs(path, tmp_path):
    # The file as written (the run below validates it: loading it here too would build
    # every strategy's tables twice).
    raw = tomllib.loads(path.read_text())
    strategies = raw.get("strategies", [])
    code = main(["run", str(path), "--out", str(tmp_path / "r"), "--quiet", "rounds=2000",
                 "chunk_rounds=1000", *[f"strategies.{i}.rounds=1000"
                                         for i, s in enumerate(strategies) if "rounds" in s],
                 *(["session.sessions=500"] if "session" in raw else [])])
    assert code == 0
    report = pd.read_csv(tmp_path / "r" / "report.csv")
    assert len(report) == report["variant"].nunique() * report["strategy"].nunique() > 0
    assert (tmp_path / "r" / "risk.csv").exists() == ("session" in raw)
