"""Rules validation raises RuleError with the field, the value and what is allowed, and an
experiment file's error names the key from those fields."""

from __future__ import annotations

import pytest

from sim.core.errors import InputError, RuleError
from sim.engine import experiment
from sim.games import get
from sim.games.faro import FaroRules
from sim.games.lansquenet.rules import LansquenetRules


def test_a_rule_error_carries_its_field_value_and_what_is_allowed():
    with pytest.raises(RuleError) as info:
        FaroRules(packs=9)
    err = info.value
    assert (err.field, err.value, err.allowed) == ("packs", 9, "an integer 1..8")
    assert str(err) == "packs: expected an integer 1..8, got 9"
    assert isinstance(err, ValueError) and isinstance(err, InputError)


def test_a_clash_of_rules_is_named_by_the_field_it_blames():
    with pytest.raises(RuleError) as info:
        LansquenetRules(packs=1, suits=1)
    assert info.value.field == "suits" and "packs * suits >= 2" in info.value.allowed


@pytest.mark.parametrize("game", ["faro", "lansquenet", "pontoon", "cribbage", "gin_rummy",
                                  "newmarket"])
def test_games_reject_a_bad_count_with_a_rule_error(game):
    g = get(game)
    preset = next(iter(g.presets))
    rules = g.presets[preset]
    field = next(f for f in ("packs", "players", "punters", "rank_count", "hand_size")
                 if isinstance(getattr(rules, f, None), int))
    with pytest.raises(RuleError) as info:
        g.make_rules(preset, {field: -1})
    assert info.value.field == field and info.value.value == -1


@pytest.mark.parametrize("game, field, value", [
    ("bridge", "missing", 0), ("bridge", "strain", "X"),
    ("piquet", "elder_max", 0), ("piquet", "sets_from", "J"),
    ("newmarket", "players", 2), ("newmarket", "change", "rank"),
])
def test_rules_reject_a_bad_value_with_a_rule_error_naming_its_field(game, field, value):
    with pytest.raises(RuleError) as info:
        get(game).rules_type(**{field: value})
    assert (info.value.field, info.value.value) == (field, value)


def test_the_experiment_error_names_the_key_of_the_rule(tmp_path):
    data = {"game": "faro", "rounds": 10, "variants": {"tiny": {"rank_count": 2, "suits": 1}},
            "strategies": [{"use": "flat-rank"}]}
    with pytest.raises(InputError) as info:
        experiment.from_dict(data, "x.toml", tmp_path)
    assert "variants.tiny.rank_count" in str(info.value)
    assert "a pack of 2 cards is too small to deal" in str(info.value)
