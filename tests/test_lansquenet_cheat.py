"""Cheat detection: reading observed tables, rejecting impossible ones, the p-values, the
command line, the charts and the shipped experiments."""

import csv
from pathlib import Path

import numpy as np
import pytest

from sim.cli import main
from sim.core.cards import RANK_SYMBOLS
from sim.core.errors import InputError
from sim.core.progression import ProgressionSpec
from sim.engine.experiment import load
from sim.games.lansquenet.cheat import check_file, p_at_least, read_observed, run_length_chart
from sim.games.lansquenet.coup import RandomPacks, RoundTable
from sim.games.lansquenet.exact import run_lengths
from sim.games.lansquenet.rules import PRESETS, LansquenetRules
from strategies.lansquenet import NeverPass, Sharper

ROOT = Path(__file__).resolve().parent.parent


def _write(path: Path, header: list[str], rows: list[list[str]]) -> Path:
    with open(path, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def _table_log(rules, strategy, banks: int, seed: int) -> list[list[str]]:
    """The cards of every coup of a session, as a cards file's rows (with the bank)."""
    rng = np.random.default_rng(seed)
    session = RoundTable(rules, strategy, ProgressionSpec(), RandomPacks(rules, rng), rng, log=True)
    rows = []
    for b in range(banks):
        for coup in session.play_bank().log:
            rows.append([" ".join(RANK_SYMBOLS[c] for c in coup.cards), f"bank {b}"])
    return rows


def test_outcome_files_and_runs(tmp_path):
    path = _write(tmp_path / "t.csv", ["Outcome"],
                  [["W"], ["jumelle"], ["w"], ["L"], ["win"], ["V"], ["loss"], ["L"]])
    observed = read_observed(path, PRESETS["one-pack"])
    assert observed.outcomes == "WJWLWVLL"
    assert observed.runs() == [3, 1, 0]
    assert observed.jumelle_odds is None  # the pack before each coup is unknown
    report = check_file(path, PRESETS["one-pack"])
    assert report.longest_run == 3 and report.decided == 7 and report.voids == 1


def test_cards_files_give_outcomes_by_the_rules_order(tmp_path):
    rows = [["Q Q"], ["10 7 5 10"], ["9,3,3"], ["A 8 8"]]
    path = _write(tmp_path / "c.csv", ["cards"], rows)
    table_first = read_observed(path, PRESETS["one-pack"])
    banker_first = read_observed(path, PRESETS["banker-first"])
    assert table_first.outcomes == "JLWW" and banker_first.outcomes == "JWLL"
    assert table_first.banks == (0, 0, 1, 1)  # a new bank after a loss
    assert table_first.jumelle_odds[0] == pytest.approx(3 / 51)
    assert table_first.jumelle_odds[1] == pytest.approx((12 * 12 + 2) / (50 * 49))


@pytest.mark.parametrize("header, rows, message", [
    (["outcome"], [["W"], ["X"]], "row 3: outcome: expected W, L, J or V, got 'x'"),
    (["cards"], [["Q Q"], ["K Z 4"]], "row 3: cards: not a rank: 'Z'"),
    (["cards"], [["Q Q 5"]], "row 2: cards: the coup was decided at card 2 of 3"),
    (["cards"], [["Q 5 Q 5"]], "row 2: cards: the coup was decided at card 3 of 4"),
    (["cards"], [["Q"]], "row 2: cards: no card matched, yet the pack still holds"),
    (["cards"], [[""]], "row 2: cards: no cards"),
    (["cards"], [["Q 5 7 8"]], "row 2: cards: no card matched, yet the pack still holds"),
    (["cards", "bank"], [["A A", "1"], ["A A", "1"], ["A 2 A", "1"]],
     "row 4: cards: more As than the pack holds"),
    (["outcome"], [["V"]], "row 2: outcome: a void coup from a fresh pack"),
    (["outcome"], [["W"], ["L"], ["V"]], "row 4: outcome: a void coup from a fresh pack"),
    (["outcome", "bank"], [["W", "a"], ["L", "a"], ["W", "a"]], "row 4: bank: 'a' goes on"),
    (["outcome", "bank"], [["W", "a"], ["L", "b"], ["W", "a"]], "row 4: bank: 'a' appears"),
    (["result"], [["W"]], "expected a column 'outcome' or 'cards', got result"),
    (["outcome"], [], "no coups"),
])
def test_bad_rows_are_rejected_naming_file_and_row(tmp_path, header, rows, message):
    path = _write(tmp_path / "bad.csv", header, rows)
    with pytest.raises(InputError, match=message) as info:
        read_observed(path, PRESETS["one-pack"])
    assert str(path) in str(info.value)


def test_a_stripped_pack_rejects_ranks_it_does_not_hold(tmp_path):
    path = _write(tmp_path / "s.csv", ["cards"], [["K K"]])
    with pytest.raises(InputError, match="row 2: cards: the pack of these rules has ranks A..6"):
        read_observed(path, LansquenetRules(rank_count=6))
    with pytest.raises(InputError, match="file not found"):
        read_observed(tmp_path / "missing.csv", PRESETS["one-pack"])


def test_a_void_coup_is_allowed_when_the_pack_runs_out(tmp_path):
    rules = LansquenetRules(rank_count=3, suits=2)  # A A 2 2 3 3
    rows = [["A A"], ["2 3 3"], ["2"], ["3 2 3"]]  # the lone 2 runs the pack out: void
    observed = read_observed(_write(tmp_path / "v.csv", ["cards"], rows), rules)
    assert observed.outcomes == "JWVL"
    assert observed.jumelle_odds[2] == 0.0 and observed.jumelle_odds[3] == pytest.approx(0.2)
    rows = [["A A"], ["2 3"]]  # a 2 and a 3 are still in the pack
    with pytest.raises(InputError, match="row 3: cards: no card matched"):
        read_observed(_write(tmp_path / "w.csv", ["cards"], rows), rules)


def test_the_cunard_banker_is_very_unlikely_and_a_fair_table_is_not(tmp_path):
    cunard = check_file(ROOT / "experiments" / "lansquenet_cunard.csv", PRESETS["one-pack"])
    assert cunard.longest_run == 18 and cunard.run_model == "exact"
    runs = run_lengths(PRESETS["one-pack"])
    p18 = 1 - runs[:18].sum()
    assert p18 < cunard.p_value < 2 * p18  # a run of 18 within 19 coups: two chances
    rules = PRESETS["one-pack"]
    # 1,000 banks: some 115 jumelles expected, so half of them either way is over 4 SE
    fair = _write(tmp_path / "fair.csv", ["cards", "bank"],
                  _table_log(rules, NeverPass(), 1000, 1))
    report = check_file(fair, rules)
    assert report.p_value > 0.01 and report.p_binomial > 0.01 and report.p_jumelles > 0.01
    assert report.jumelles_expected == pytest.approx(report.jumelles, rel=0.5)


def test_the_sources_sharper_shows_in_the_jumelles(tmp_path):
    rules = PRESETS["banker-first"]
    rows = _table_log(rules, Sharper(others_pass_after=0), 60, 2)
    report = check_file(_write(tmp_path / "sharp.csv", ["cards", "bank"], rows), rules)
    assert report.jumelles >= 24 and report.p_jumelles < 1e-6


def test_poisson_binomial_tail():
    odds = [0.1, 0.5, 0.3, 0.9]
    outcomes = np.array(np.meshgrid(*[[0, 1]] * 4)).reshape(4, -1).T
    probs = np.prod(np.where(outcomes == 1, odds, 1 - np.array(odds)), axis=1)
    for k in range(6):
        assert p_at_least(k, odds) == pytest.approx(probs[outcomes.sum(axis=1) >= k].sum())


def test_the_exact_command_checks_an_observed_table(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    toml = str(ROOT / "experiments" / "lansquenet_cheat.toml")
    assert main(["exact", toml, "variants.table-first.punters=2"]) == 0
    out = capsys.readouterr().out
    assert "# banker-first: cheat" in out and "longest_run" in out and "3,276 16s" in out
    bad = _write(tmp_path / "bad.csv", ["outcome"], [["W"], ["W"], ["maybe"]])
    assert main(["exact", toml, f"rules.observed={bad}"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "bad.csv: row 4: outcome" in err


def test_run_length_chart_takes_axes_and_returns_the_figure():
    import matplotlib.pyplot as plt

    fair = run_lengths(PRESETS["one-pack"])
    fig = run_length_chart({"a sharper": np.r_[np.zeros(4), 1.0]}, fair)
    assert fig.axes[0].get_yscale() == "log"
    other, ax = plt.subplots()
    assert run_length_chart({}, fair, ax=ax) is other
    plt.close("all")


def test_shipped_experiments(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    for name in ("lansquenet", "lansquenet_policies"):  # validated: rules, strategies, play
        exp = load(f"experiments/{name}.toml")
        assert exp.chunk_rounds % exp.variants[0].rules.seats == 0
    out = tmp_path / "cheat"
    code = main(["run", "experiments/lansquenet_cheat.toml", "--rounds", "1000",
                 "chunk_rounds=500", "--out", str(out), "--quiet"])
    assert code == 0
    assert (out / "run_lengths.png").exists() and (out / "report.csv").exists()
