import pytest

from sim.core.progression import ProgressionSpec, ProgressionState
from strategies.betting import progression_spec


def units(spec, results):
    state = ProgressionState(spec)
    seen = []
    for r in results:
        state.record(r)
        seen.append(state.unit)
    return seen


def test_martingale_doubles_and_resets_past_the_cap():
    spec = progression_spec({"name": "martingale", "base": 1, "cap": 8})
    assert units(spec, [-1, -2, -4, 0, -8, 1]) == [2, 4, 8, 8, 1, 1]


def test_paroli_banks_after_three_wins():
    spec = progression_spec("paroli")
    assert units(spec, [1, 2, 4, -1, 1, -2]) == [2, 4, 1, 1, 2, 1]


def test_dalembert_steps_up_and_down():
    spec = progression_spec({"name": "dalembert", "base": 2})
    assert units(spec, [-1, -1, 1, 1, 1]) == [4, 6, 4, 2, 2]


def test_flat_and_push():
    assert units(progression_spec(None), [-1, 1, 0]) == [1, 1, 1]


@pytest.mark.parametrize("bad", ["nope", {"name": "martingale", "base": -1},
                                 {"name": "paroli", "wins": 0}, {"cap": 3}, 5])
def test_bad_progressions(bad):
    with pytest.raises((LookupError, TypeError, ValueError)):
        progression_spec(bad)


def test_spec_validation():
    with pytest.raises(ValueError, match="cap"):
        ProgressionSpec(cap=0.5)
