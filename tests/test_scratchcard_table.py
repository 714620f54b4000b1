"""Prize tables and claims: the shipped data, and bad input named by file and row."""

from pathlib import Path

import pytest

from sim.cli import main
from sim.core.errors import InputError
from sim.games.scratchcard.rules import ScratchRules
from sim.games.scratchcard.table import DATA_DIR, SHIPPED, load_claims, load_table

HEADER = "game,price,print_run,prize,count\n"


def _csv(tmp_path: Path, body: str, name: str = "t.csv") -> str:
    path = tmp_path / name
    path.write_text(body)
    return str(path)


def _error(spec: str) -> str:
    with pytest.raises(InputError) as info:
        load_table(spec)
    return str(info.value)


def test_shipped_tables_load_with_their_figures():
    assert set(SHIPPED) >= {"oh-snap", "cash-payout", "true-north", "lucky-lines-gold",
                            "deal-em", "online-example"}
    snap = load_table("oh-snap")
    assert snap.print_run == 10_219_461 and snap.price == 1.0
    assert snap.prizes[0] == 500 and snap.counts[0] == 50 and snap.counts[-1] == 1_158_669
    assert "tracker" in snap.source
    box = load_table("deal-em")
    assert box.print_run == 1050 and box.prizes == (75, 60, 50, 20, 5, 1, 0.5)
    assert box.counts == (1, 1, 1, 1, 2, 20, 200) and box.losing_tickets() == 824
    online = load_table("online-example")
    assert not online.printed and abs(sum(online.probabilities) - 0.42431) < 1e-12
    assert (DATA_DIR / "README.md").exists()


def test_a_one_game_csv_and_a_toml_table(tmp_path):
    one = _csv(tmp_path, "price,print_run,prize,count\n2,100,10,3\n4,100,x,1\n".replace(
        "4,100,x,1\n", "2,100,4,10\n"))
    table = load_table(one)
    assert table.prizes == (10, 4) and table.counts == (3, 10) and table.price == 2
    toml = tmp_path / "card.toml"
    toml.write_text('price = 1\n[[tiers]]\nprize = 3\nprobability = 0.25\n')
    assert load_table(str(toml)).probabilities == (0.25,)
    many = _csv(tmp_path, HEADER + "A,1,10,5,1\nB,1,10,5,1\nB,1,10,2,1\nB,1,10,5,2\n")
    b = load_table(f"{many}#B")
    assert b.name == "B" and b.prizes == (5, 2) and b.counts == (3, 1)  # same prize: merged


@pytest.mark.parametrize("body, pieces", [
    (HEADER + "G,1,100,5,101\n", ["row 2", "count", "above the print run 100"]),
    (HEADER + "G,1,100,5,60\nG,1,100,2,50\n", ["row 3", "counts reach 110"]),
    (HEADER + "G,1,100,-5,1\n", ["row 2", "prize", ">= 0"]),
    (HEADER + "G,1,100,five,1\n", ["row 2", "prize", "expected a number"]),
    (HEADER + "G,1,100,5,1.5\n", ["row 2", "count", "whole number"]),
    (HEADER + "G,1,100,5,1\nG,2,100,1,1\n", ["row 3", "price", "differs"]),
    (HEADER + "G,0,100,5,1\n", ["row 2", "price", "positive"]),
    ("game,price,prize,probability\nG,1,5,0.6\nG,1,1,0.5\n",
     ["row 3", "probabilities reach 1.1"]),
    ("game,price,prize,probability\nG,1,5,1.5\n", ["row 2", "probability", "[0, 1]"]),
    ("game,price,prize,count,probability\nG,1,5,1,0.1\n", ["row 2", "exactly one of"]),
    ("game,price,prize,count\nG,1,5,1\n", ["row 2", "print_run"]),
    ("game,price,print_run,prize\nG,1,10,5\n", ["row 2", "exactly one of"]),
    (HEADER + "G,1,100,0,5\n", ["no tier pays a prize"]),
    (HEADER + "A,1,10,5,1\nB,1,10,5,1\n", ["holds 2 games", "#<game>"]),
])
def test_malformed_tables_name_the_file_and_the_row(tmp_path, body, pieces):
    spec = _csv(tmp_path, body)
    message = _error(spec)
    assert message.startswith(spec), message
    for piece in pieces:
        assert piece in message, message


def test_bad_specs_and_toml_rows(tmp_path):
    assert "file not found" in _error(str(tmp_path / "missing.csv"))
    assert "shipped table" in _error("no-such-game")
    toml = tmp_path / "bad.toml"
    toml.write_text('price = 1\n[[tiers]]\nprize = 3\nprobability = 0.5\n'
                    '[[tiers]]\nprize = 1\nprobability = 0.6\n')
    assert "tiers[1]" in _error(str(toml))
    toml.write_text('price = 1\ntiers = 3\n')
    assert "tiers: expected an array" in _error(str(toml))


def test_claims_load_and_bad_claims_are_named(tmp_path):
    claims = load_claims("shipped", load_table("oh-snap"))
    assert claims.claimed[0] == 37 and claims.claimed[-1] == 775_108
    assert claims.date == "2025-04-14"
    box = load_table("deal-em")
    rows = "prize,claimed\n75,1\n60,0\n50,0\n20,0\n5,0\n1,0\n0.5,0\n"
    assert load_claims(_csv(tmp_path, rows, "c.csv"), box).claimed == (1, 0, 0, 0, 0, 0, 0)
    for body, piece in [(rows.replace("75,1", "75,2"), "only 1 were printed"),
                        (rows.replace("60,0", "61,0"), "not a tier"),
                        (rows.replace("\n5,0\n", "\n"), "no claims row for the prize tier 5"),
                        (rows.replace("75,1", "75,-1"), "claimed")]:
        with pytest.raises(InputError, match=piece):
            load_claims(_csv(tmp_path, body, "c.csv"), box)
    with pytest.raises(InputError, match="online card"):
        load_claims("shipped", load_table("online-example"))


@pytest.mark.parametrize("kwargs, key", [
    ({"table": "no-such"}, "table"),
    ({"mode": "scratched"}, "mode"),
    ({"table": "online-example", "mode": "printed"}, "mode"),
    ({"claims": "shipped", "mode": "online"}, "claims"),
    ({"tickets_sold": 5}, "tickets_sold"),
    ({"claims": "shipped", "tickets_sold": 10}, "tickets_sold"),
    ({"estimator": "guess"}, "estimator"),
    ({"session_limit": 0}, "session_limit"),
])
def test_rules_reject_bad_values_naming_the_field(kwargs, key):
    with pytest.raises(ValueError) as info:
        ScratchRules(**kwargs)
    assert str(info.value).startswith(f"{key}:"), str(info.value)


EXPERIMENT = """
game = "scratchcard"
rounds = 100
[variants.mine]
table = "{table}"
[[strategies]]
use = "buy"
params = {{ tickets = {tickets} }}
"""


@pytest.mark.parametrize("body, tickets, pieces", [
    (HEADER + "G,1,100,5,101\n", 1, ["variants.mine.table", "row 2", "count", "above the "
                                     "print run"]),
    (HEADER + "G,1,100,5,10\n", 101, ["strategies[0]", "max_tickets", "100 tickets left"]),
])
def test_bad_tables_stop_a_run_with_one_line(tmp_path, capsys, body, tickets, pieces):
    table = _csv(tmp_path, body)
    exp = tmp_path / "exp.toml"
    exp.write_text(EXPERIMENT.format(table=table, tickets=tickets))
    out = tmp_path / "out"
    code = main(["run", str(exp), "--out", str(out), "--quiet"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    assert str(exp) in err[0]
    for piece in pieces:
        assert piece in err[0], err[0]
    assert not out.exists()
