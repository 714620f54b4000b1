"""``houseedge exact`` reads like the rest: exact fractions where they exist, the same sign
and basis as ``run``, no rounding noise, a reason instead of NaN, 100 columns, CSV with --out."""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import pandas as pd

from sim import cli
from sim.engine import experiment
from sim.outputs import exact_report

EXPERIMENTS = Path(__file__).resolve().parent.parent / "experiments"


def _exact(capsys, *args) -> str:
    assert cli.main(["exact", *args]) == 0
    return capsys.readouterr().out


def test_faro_values_are_exact_fractions_with_decimal_and_percent(capsys):
    out = _exact(capsys, str(EXPERIMENTS / "faro.toml"))
    head = out.splitlines()[:2]
    assert "house edge per amount wagered" in head[0] and "+ = the house wins" in head[0]
    line = next(x for x in out.splitlines() if x.startswith("faro ") and "flat king" in x)
    # A flat bet on one rank at faro: 1/66 per amount wagered, 25/442 per deal's stake.
    assert "1/66 = 0.0151515 = 1.5152%" in line and "25/442 = 0.0565611 = 5.6561%" in line
    pharo = next(x for x in out.splitlines() if x.startswith("old-pharo") and "call" in x)
    assert "not offered" in pharo
    assert "1/198" in out  # the bets table: a rank bet with 2 left, next turn, edge exact
    assert all(len(x) <= 100 for x in out.splitlines())
    assert "nan" not in out.lower()


def test_no_value_says_why(capsys, tmp_path):
    path = tmp_path / "p.toml"
    path.write_text('game = "pontoon"\nrounds = 10\n[variants.home]\npreset = "british-home"\n'
                    '[[strategies]]\nname = "stick 16"\nuse = "threshold"\n'
                    'params = { stick = 16 }\n')
    exp = experiment.load(path)
    frame = exact_report.values(exp)
    assert frame["note"].iloc[0].startswith("no exact value: the pack is shuffled only after")
    assert math.isnan(frame["edge"].iloc[0])
    lines = exact_report.value_lines(frame, "deal", "p")
    assert "nan" not in "\n".join(lines).lower()


def test_rounding_noise_is_not_a_value():
    table = pd.DataFrame({"x": [1.23777e-11, 13.68, -0.0], "p": [1e-7, 0.5, 0.25]})
    text = exact_report.table_text(table)
    assert "e-11" not in text and "-0" not in text.replace("-07", "")
    assert "1e-07" in text  # a small probability is a value, not noise
    assert exact_report.number(Fraction(3, 182)) == "3/182"
    assert exact_report.edge_words(-0.0) == "0 = 0.0000%"


def test_out_writes_the_same_tables_as_csv(capsys, tmp_path):
    _exact(capsys, str(EXPERIMENTS / "faro.toml"), "--out", str(tmp_path))
    values = pd.read_csv(tmp_path / "exact.csv")
    row = values[(values.variant == "faro") & (values.strategy == "flat king")].iloc[0]
    assert row.edge_fraction == "1/66" and row.edge_per_initial_bet_fraction == "25/442"
    assert row.headline_basis == "per amount wagered"
    assert (tmp_path / "faro-bets.csv").exists() and (tmp_path / "stuss-bets.csv").exists()


def _named(tmp_path, variant: str, strategies: list[str]) -> str:
    path = tmp_path / "names.toml"
    head = f'game = "faro"\nrounds = 10\n[variants.{variant}]\npreset = "faro"\n'
    path.write_text(head + "".join(
        f'[[strategies]]\nname = "{name}"\nuse = "flat-rank"\n' for name in strategies))
    return str(path)


def test_a_long_name_is_shown_whole_where_it_fits(capsys, tmp_path):
    # 21 + 32 columns of names leave the 47 the values and their headings take.
    names = ["stick-twist-only-soft21", "a-strategy-named-with-30-chars"]
    out = _exact(capsys, _named(tmp_path, "nineteen-characters", names))
    rows = [x for x in out.splitlines() if x.startswith("nineteen")]
    assert len(rows) == 2 and all(len(x) <= 100 for x in out.splitlines())
    for row, name in zip(rows, names):
        assert row.startswith(f"nineteen-characters  {name}  "), row
        assert "1/66 = " in row and "…" not in row


def test_a_name_too_long_for_100_columns_is_cut_with_an_ellipsis(capsys, tmp_path):
    long = "an-even-longer-strategy-name-that-goes-on-and-on-and-on"
    out = _exact(capsys, _named(tmp_path, "faro", ["flat king", long]))
    row = next(x for x in out.splitlines() if x.startswith("faro ") and "an-even" in x)
    assert long not in row and "…  1/66" in row and len(row) <= 100
    assert long[:30] in row
