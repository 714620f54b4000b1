"""The what-if page's state and tasks, in this process: controls generated from the rules
dataclasses, the command line's own messages beside the controls, no code or path taken from
the page, bounded work, and numbers equal to ``houseedge exact`` and ``houseedge run``."""

from __future__ import annotations

import json
import tomllib
from fractions import Fraction
from pathlib import Path

import pytest

from sim import api
from sim.engine import experiment as experiment_module
from sim.web import state, tasks

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "experiments"
FARO_NO_SODA = {"game": "faro", "r.soda": "false", "strategy": "flat-rank", "p.ranks": '"K"'}
PONTOON_TIES_PUSH = {"game": "pontoon", "r.banker_wins_ties": "false", "strategy": "threshold",
                     "rounds": "60000", "chunk_rounds": "10000", "target_ci": "0",
                     "seed": "7"}


def _by_name(controls):
    return {c["name"]: c for c in controls["rules"]}


def test_rule_controls_are_generated_from_the_rules_dataclass():
    faro = _by_name(state.game_controls("faro"))
    assert faro["soda"]["kind"] == "bool"
    assert faro["split_take"]["kind"] == "choice" and faro["split_take"]["choices"] == [0, 0.5, 1]
    assert (faro["packs"]["kind"], faro["packs"]["min"], faro["packs"]["max"]) == ("int", 1, 8)
    assert faro["call_turn_pays"]["step"] == 0.5 and faro["call_turn_pays"]["min"] == 0
    assert faro["high_card_pair"]["choices"] == ["push", "lose-half"]
    assert faro["soda"]["help"] == "the top card is burned before the first turn."
    pontoon = _by_name(state.game_controls("pontoon"))
    assert pontoon["split_pairs"]["choices"] == ["any", "aces", "none"]
    assert (pontoon["stick_min"]["min"], pontoon["stick_min"]["max"]) == (12, 21)
    strategies = {s["name"]: s for s in state.game_controls("pontoon")["strategies"]}
    assert strategies["threshold"]["banker"] and not strategies["banker-stand-on"]["banker"]
    assert {p["name"] for p in strategies["threshold"]["params"]} >= {"stick", "soft_stick"}


@pytest.mark.parametrize("key, value, control", [
    ("r.packs", "9", "r.packs"),
    ("r.soda", "maybe", "r.soda"),
    ("r.split_take", "0.3", "r.split_take"),
    ("p.ranks", '"Z"', "strategy"),
    ("rounds", "0", "rounds"),
])
def test_a_bad_value_is_the_command_lines_message_beside_its_control(tmp_path, key, value,
                                                                     control):
    path = tmp_path / "what-if.toml"
    path.write_text(state.toml_text(state.experiment_data(FARO_NO_SODA, FOLDER), FARO_NO_SODA))
    cli_key = {"r.packs": "variants.what-if.packs", "r.soda": "variants.what-if.soda",
               "r.split_take": "variants.what-if.split_take",
               "p.ranks": "strategies.0.params.ranks", "rounds": "rounds"}[key]
    with pytest.raises(Exception) as cli:
        experiment_module.load(path, [f"{cli_key}={value}"])
    with pytest.raises(state.StateError) as page:
        state.load({**FARO_NO_SODA, key: value}, FOLDER)
    assert page.value.control == control
    assert str(cli.value) == f"{path}: {page.value}"


@pytest.mark.parametrize("settings, control", [
    ({"strategy": "os:system"}, "strategy"),
    ({"strategy": "../tests/conftest.py:run_in_memory"}, "strategy"),
    ({"strategy": "/etc/passwd.py:x"}, "strategy"),
    ({"game": "pontoon", "strategy": "threshold", "banker": "os:system"}, "params.banker.use"),
    ({"game": "scratchcard", "strategy": "buy", "r.table": '"/etc/passwd.csv"'}, "rules.table"),
    ({"game": "pontoon", "strategy": "table", "p.file": '"../pyproject.toml"'}, "params.file"),
])
def test_the_page_takes_no_code_and_no_path_outside_the_experiments_folder(settings, control):
    with pytest.raises(state.StateError) as refused:
        state.load({"game": "faro", **settings}, FOLDER)
    assert refused.value.control == control
    assert "experiments folder" in str(refused.value)


def test_a_strategy_file_of_the_experiments_folder_is_allowed():
    exp = state.load({"game": "faro", "strategy": "seven_up.py:SevenUp"}, FOLDER)
    assert exp.strategies[0].use == "seven_up.py:SevenUp"


@pytest.mark.parametrize("settings, control", [
    ({"rounds": str(state.MAX_ROUNDS + 1)}, "rounds"),
    ({"rounds": "10000000", "chunk_rounds": "100"}, "chunk_rounds"),
    ({"view": "grid", "sweep": "r.call_turn_pays", "sweep_values": ",".join(
        str(x) for x in range(state.MAX_GRID_POINTS + 1))}, "sweep_values"),
    ({"z.x": "1"}, ""),
    ({"p.ranks": "K" * (state.MAX_VALUE_CHARS + 1)}, "p.ranks"),
])
def test_a_states_work_is_bounded(settings, control):
    with pytest.raises(state.StateError) as refused:
        state.load({**FARO_NO_SODA, **settings}, FOLDER)
    assert refused.value.control == control


@pytest.mark.parametrize("settings", [
    {},
    {"view": "grid", "sweep": "r.split_take", "sweep_values": "0,0.5,1"},
    {"view": "risk", "s.bankroll": "50", "s.stop_loss": "40"},
])
def test_the_downloaded_experiment_is_the_pages_experiment(settings, tmp_path):
    query = {**FARO_NO_SODA, **settings}
    text = tasks.experiment_toml(query, str(FOLDER))
    assert tomllib.loads(text) == state.experiment_data(query, FOLDER)
    path = tmp_path / "what-if.toml"
    path.write_text(text)
    from_file = experiment_module.load(path).resolved
    from_page = state.load(query, FOLDER).resolved
    assert json.dumps(from_file, sort_keys=True, default=str) == json.dumps(
        from_page, sort_keys=True, default=str)


@pytest.mark.parametrize("name", [
    pytest.param(p.name, marks=[pytest.mark.slow] if p.name.startswith("bonus") else [])
    for p in sorted(FOLDER.glob("*.toml"))])
def test_every_shipped_experiment_opens_as_a_state_of_the_same_rules_and_strategy(name):
    opened = state.open_file(FOLDER, name)
    exp = experiment_module.load(FOLDER / name)
    page = state.load(opened["query"], FOLDER)
    assert page.variants[-1].rules == exp.variants[0].rules
    assert page.strategies[0].use == exp.strategies[0].use
    assert dict(page.strategies[0].params) == dict(exp.strategies[0].params)
    assert opened["variants"] == [v.name for v in exp.variants]


def test_the_exact_edges_are_houseedge_exacts_fractions():
    shown = tasks.exact(FARO_NO_SODA, str(FOLDER))
    by_role = {r["role"]: r for r in shown["rows"]}
    assert shown["basis"] == {"headline": "per amount wagered", "other": "per initial stake"}
    assert by_role["what-if"]["edge"]["fraction"] == "1/66"
    assert by_role["what-if"]["other"]["fraction"] == "1/17"
    assert by_role["preset"]["other"]["fraction"] == "25/442"
    assert Fraction(shown["diff"]["other"]["fraction"]) == Fraction(1, 17) - Fraction(25, 442)
    assert shown["diff"]["edge"]["value"] == 0
    cli = api.exact(FOLDER / "faro_soda.toml")
    king = cli[cli["strategy"] == "flat king"].set_index("variant")
    assert king.loc["no-soda", "edge_per_initial_bet_fraction"] == "1/17"
    assert king.loc["no-soda", "edge_fraction"] == by_role["what-if"]["edge"]["fraction"]
    # The SD of a deal, from its exact law where the exact value gives none.
    assert by_role["what-if"]["sd"] == pytest.approx(1.947115, abs=1e-6)
    assert not shown["simulate"]


def _last(items):
    return list(items)[-1]


@pytest.mark.parametrize("target", ["0", "0.03"])
def test_the_streamed_estimate_is_houseedge_runs(tmp_path, target):
    query = {**PONTOON_TIES_PUSH, "target_ci": target}
    final = _last(tasks.simulate(query, str(FOLDER), str(tmp_path / "page"), 120.0))
    assert final["done"] and not final["stopped"]
    path = tmp_path / "what-if.toml"
    path.write_text(tasks.experiment_toml(query, str(FOLDER)))
    run = api.run(path, out=tmp_path / "run", charts=False)
    frame = run.frame.set_index("variant")
    for row in final["rows"]:
        expected = frame.loc[row["variant"]]
        assert row["rounds"] == expected["rounds"]
        for key in ("edge", "edge_ci95_low", "edge_ci95_high", "edge_per_total_wagered"):
            assert row[key] == expected[key], key
    paired = run.comparisons["paired"].iloc[0]
    assert final["diffs"][0]["diff"] == paired["diff"]
    assert final["diffs"][0]["diff_ci95_low"] == paired["diff_ci95_low"]
    if target != "0":
        assert all(r["target_met"] for r in final["rows"])
        assert final["rows"][0]["rounds"] < 60_000


def test_a_simulation_stops_at_its_next_chunk_once_cancelled(tmp_path):
    query = {**PONTOON_TIES_PUSH, "rounds": "10000000", "chunk_rounds": "20000"}
    seen = []
    tasks.SNAPSHOT_SECONDS, saved = 0.0, tasks.SNAPSHOT_SECONDS
    try:
        for snapshot in tasks.simulate(query, str(FOLDER), str(tmp_path), 120.0,
                                       cancelled=lambda: len(seen) >= 2):
            seen.append(snapshot)
    finally:
        tasks.SNAPSHOT_SECONDS = saved
    assert len(seen) == 2 and seen[-1]["chunks"] == 2 and not seen[-1]["done"]


def test_a_simulation_stops_at_its_time_limit_and_says_so(tmp_path):
    query = {**PONTOON_TIES_PUSH, "rounds": "10000000", "chunk_rounds": "20000"}
    final = _last(tasks.simulate(query, str(FOLDER), str(tmp_path), 0.5))
    assert final["done"] and "limit of 0.5 s" in final["stopped"]
    assert final["chunks"] < 1000


def test_a_sessions_risk_is_exact_from_the_rounds_law():
    from sim import games
    from sim.risk import exact as ruin
    from sim.risk.law import RoundLaw

    shown = tasks.risk({**FARO_NO_SODA, "s.bankroll": "60", "s.rounds": "200"}, str(FOLDER))
    row = next(r for r in shown["rows"] if r["variant"] == "what-if")
    exp = state.load({**FARO_NO_SODA, "view": "risk"}, FOLDER)
    law = RoundLaw.from_pairs(*games.get("faro").round_law(
        exp.variants[1].rules, exp.strategies[0].build("faro"), exp.strategies[0].progression))
    assert row["exact"] and row["method"] == "exact"
    assert row["p_ruin"] == pytest.approx(ruin.session_ruin(law, 60, 200), rel=1e-12)
    assert row["targets"][0]["risk"] == 0.01 and row["targets"][0]["bankroll"] > 60


def test_a_session_without_an_exact_law_waits_for_the_simulations_moments():
    query = {**PONTOON_TIES_PUSH, "view": "risk"}
    waiting = tasks.risk(query, str(FOLDER))
    assert all("note" in r for r in waiting["rows"])
    shown = tasks.risk({**query, "mu": "-0.05", "sigma": "1.15"}, str(FOLDER))
    assert all(r["method"] == "diffusion" and 0 < r["p_ruin"] < 1 for r in shown["rows"])


def test_the_exact_odds_charts_are_the_engines_figures_as_svg():
    shown = tasks.charts(FARO_NO_SODA, str(FOLDER))
    assert [c["name"] for c in shown["charts"]] == ["rank-bet-edge"]
    assert "<svg" in shown["charts"][0]["svg"]


def test_a_grid_gives_one_exact_point_per_value():
    query = {**FARO_NO_SODA, "view": "grid", "sweep": "r.split_take", "sweep_values": "0,0.5,1"}
    shown = tasks.exact(query, str(FOLDER))
    assert shown["column"] == "split_take"
    assert [r["x"] for r in shown["rows"]] == [0, 0.5, 1]
    edges = [r["edge"]["value"] for r in shown["rows"]]
    assert edges[0] < edges[1] < edges[2]
