"""The headline figures: the basis a player means, intervals from the exact spread, rows
flagged or marked not offered rather than shown with a tight, wrong or empty interval."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from sim import cli
from sim.core.stats import Z95
from sim.engine import experiment, runner
from sim.outputs import report


def _frame(tmp_path: Path, data: dict):
    exp = experiment.from_dict(data, "test.toml", tmp_path)
    return report.build(runner.run(exp, tmp_path / "out", progress=False))


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("scratch")
    return _frame(tmp, {
        "game": "scratchcard", "rounds": 20_000, "seed": 7,
        "variants": {"true-north": {"preset": "true-north"}},
        "strategies": [{"name": "one ticket", "use": "buy", "params": {"tickets": 1}},
                       {"name": "budget", "use": "budget",
                        "params": {"budget": 20, "max_tickets": 1000, "stop_win": 100_000}}]}
    ).set_index("strategy")


@pytest.fixture(scope="module")
def faro(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("faro")
    return _frame(tmp, {
        "game": "faro", "rounds": 2_000, "seed": 3,
        "variants": {"faro": {"preset": "faro"}, "old-pharo": {"preset": "old-pharo"}},
        "strategies": [{"name": "high card", "use": "high-card"},
                       {"name": "call the turn", "use": "call-turn"}]}
    ).set_index(["variant", "strategy"])


def test_interval_uses_the_exact_spread_where_known(scratch):
    row = scratch.loc["one ticket"]
    assert row.stderr_source == "exact"
    # The interval and z are taken with the same error: they cannot contradict each other.
    assert row.ci95_high - row.ci95_low == pytest.approx(2 * Z95 * row.stderr_exact)
    assert row.edge_ci95_high - row.edge_ci95_low == pytest.approx(2 * Z95 * row.edge_stderr)
    inside = row.ci95_low <= row.exact_edge <= row.ci95_high
    assert inside == (abs(row.z_vs_exact) < Z95)


def test_unreliable_sample_error_is_flagged(scratch):
    # A printed game's budget with a stop-win far off: no exact value (the corrected walk
    # would run past its work budget), a rare top prize.
    row = scratch.loc["budget"]
    assert math.isnan(row.exact_edge)
    assert row.stderr_source == "sample"
    assert row.note.startswith("sample SE unreliable")
    assert scratch.loc["one ticket"].note == ""


def test_headline_is_per_amount_wagered_for_faro_and_scratch_budgets(faro, scratch):
    row = faro.loc[("faro", "high card")]
    assert row.headline_basis == "per amount wagered"
    assert row.edge == row.edge_per_total_wagered
    assert row.edge_exact == row.exact_edge_per_total_wagered
    budget = scratch.loc["budget"]
    assert budget.edge == budget.edge_per_total_wagered
    assert 0.2 < budget.edge < 0.5  # a ticket's edge, not ~350% of the first ticket


def test_headline_is_per_initial_stake_for_lansquenet(tmp_path):
    frame = _frame(tmp_path, {"game": "lansquenet", "rounds": 2_000, "seed": 1,
                              "strategies": [{"name": "p1", "use": "pass-after",
                                              "params": {"wins": 1}}]})
    row = frame.iloc[0]
    assert row.headline_basis == "per initial stake"
    assert row.edge == row.edge_per_initial_bet


def test_a_bet_not_offered_is_shown_as_not_offered(faro, capsys):
    row = faro.loc[("old-pharo", "call the turn")]
    assert row.note.startswith("not offered")
    assert math.isnan(row.edge) and math.isnan(row.edge_stderr)
    table = report.terminal_table(faro.reset_index())
    assert "house edge per amount wagered" in table.splitlines()[0]
    line = next(x for x in table.splitlines() if x.startswith("old-pharo") and "call" in x)
    assert "not offered" in line and "0.0000" not in line
    offered = faro.loc[("faro", "call the turn")]
    assert offered.note == "" and offered.edge > 0.1


def test_the_cli_table_names_the_basis(tmp_path, capsys):
    path = tmp_path / "f.toml"
    path.write_text('game = "faro"\nrounds = 500\n[variants.old-pharo]\npreset = "old-pharo"\n'
                    '[[strategies]]\nuse = "call-turn"\n')
    assert cli.main(["run", str(path), "--out", str(tmp_path / "out"), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "per amount wagered" in out and "not offered" in out


def test_a_row_without_an_edge_has_no_running_edge_nor_outcomes_drawn(tmp_path):
    from sim.outputs import charts

    # On the oh-snap card the optimal bonus player keeps the deposit and never bets (checked
    # below): the net per initial stake is 0 in every round, and there is no edge at all.
    exp = experiment.from_dict({
        "game": "bonus", "rounds": 400, "chunk_rounds": 100, "seed": 3,
        "rules": {"preset": "seed", "unit": 5.0},
        "variants": {"seed": {}, "oh-snap": {"games": ["scratch:oh-snap"]}},
        "strategies": [{"name": "optimal", "use": "optimal"}]}, "test.toml", tmp_path)
    result = runner.run(exp, tmp_path / "out", progress=False)
    frame = report.build(result).set_index("variant")
    assert frame.loc["oh-snap", "note"] == "no bet placed in any round"
    conv = report.convergence(result, frame.reset_index())
    snap = conv[conv["variant"] == "oh-snap"]
    assert len(snap) == 4 and snap["edge"].isna().all() and snap["ci95_low"].isna().all()
    assert conv.loc[conv["variant"] == "seed", "edge"].notna().all()
    figure = charts.convergence_chart(conv, frame.reset_index())
    assert [ax.get_title() for ax in figure.axes] == ["seed / optimal"]
    charts.plt.close(figure)
    # Nor an outcome: its net of 0 every round is drawn for no variant.
    drawn = {name: figure for name, _, figure in report.run_charts(
        result, frame.reset_index(), conv, report.outcomes(result), exact_odds=False)}
    legend = drawn["outcomes.png"].legends[0]
    assert [text.get_text() for text in legend.get_texts()] == ["seed"]
    for figure in drawn.values():
        charts.plt.close(figure)


def test_a_run_of_bets_not_offered_says_why_it_has_no_outcome_or_convergence_chart(tmp_path):
    path = tmp_path / "f.toml"
    path.write_text('game = "faro"\nrounds = 2000\nchunk_rounds = 1000\n'
                    '[variants.old-pharo]\npreset = "old-pharo"\n'
                    '[[strategies]]\nuse = "call-turn"\n')
    out = tmp_path / "out"
    assert cli.main(["run", str(path), "--out", str(out), "--quiet"]) == 0
    assert not (out / "outcomes.png").exists() and not (out / "convergence.png").exists()
    page = (out / "report.html").read_text()
    assert "No outcome chart: every bet is not offered or was never placed" in page
    assert "No convergence chart: no row has an edge to follow" in page
