"""Control variates: a row without an exact value estimated with the exact rows on the same
cards (their coverage over many seeds is in tests/test_interval_coverage.py)."""

from __future__ import annotations

import numpy as np
import pytest

from sim import api
from sim.core.stats import BatchTotals, Stats
from sim.engine import control
from sim.outputs import report
from tests.conftest import run_in_memory

KING_AFTER_KING = '''
from sim.games.faro import RankBet


class KingAfterKing:
    """The king, two units after a turn a king won: it reads the last turn, which no faro
    table holds, so it plays on the reference path with no exact value."""

    name = "king after king"

    def decide(self, view, rng):
        if not view.remaining[12]:
            return []
        double = view.last_turn is not None and view.last_turn[1] == 12
        return [RankBet(frozenset({12}), units=2.0 if double else 1.0)]
'''


def _totals(rows: list[tuple[float, float]]) -> BatchTotals:
    totals = BatchTotals()
    for net, stake in rows:
        stats = Stats()
        stats.add_round(net, stake, stake)
        totals.add(stats)
    return totals


def test_a_rows_pseudo_values_average_to_its_estimate():
    rng = np.random.default_rng(1)
    totals = _totals([(float(n), float(s)) for n, s in zip(rng.normal(-1, 3, 25),
                                                          rng.uniform(5, 9, 25))])
    net = sum(b[1] for b in totals.batches)
    stake = sum(b[2] for b in totals.batches)
    assert control.pseudo_values(totals, "initial", 1).mean() == pytest.approx(-net / stake)
    assert control.pseudo_values(totals, "round", 1).mean() == pytest.approx(net / 25)


def test_a_control_that_moves_with_the_row_takes_its_luck_away():
    """The row is the control plus a little noise of its own: the control's departure from
    its exact value is taken off, and the error is the noise's."""
    rng = np.random.default_rng(2)
    luck = rng.normal(0, 1.0, 40)
    own = rng.normal(0, 0.01, 40)
    row = _totals([(float(-0.05 * 10 + x + e), 10.0) for x, e in zip(luck, own)])
    ctl = _totals([(float(-0.02 * 10 + x), 10.0) for x in luck])
    found = control.control_estimate(row, [(ctl, 0.02)], "initial")
    assert found is not None and found.controls == (0,) and found.dof == 38
    assert abs(found.value - 0.05) < 4 * found.stderr
    assert found.stderr < 0.01 * 1.0 / 10 / np.sqrt(40) * 3  # the noise's error, not the luck's


def test_too_few_batches_lend_nothing():
    rows = _totals([(float(i % 3), 1.0) for i in range(9)])
    assert control.max_controls(9) == 0
    assert control.control_estimate(rows, [(rows, 0.0)], "initial") is None


def test_a_report_lends_precision_to_the_rows_without_an_exact_value(tmp_path):
    (tmp_path / "king.py").write_text(KING_AFTER_KING)
    experiment = api.load({"name": "lent", "game": "faro", "rounds": 20_000,
                           "chunk_rounds": 1_000, "seed": 7,
                           "strategies": [
                               {"name": "flat king", "use": "flat-rank",
                                "params": {"ranks": "K"}},
                               {"name": "every rank", "use": "flat-rank",
                                "params": {"ranks": "all"}},
                               {"name": "king after king", "use": "king.py:KingAfterKing"}]},
                          base_dir=tmp_path)
    frame = report.build(run_in_memory(experiment)).set_index("strategy")
    row = frame.loc["king after king"]
    assert np.isnan(row.edge_exact) and "flat king" in row.cv_controls
    # both exact rows serve, none chosen over another: 20 batches, an intercept, two controls
    assert row.cv_controls == "faro / flat king; faro / every rank" and row.edge_cv_dof == 17
    assert row.cv_variance_reduction > 3  # the king's luck is most of the row's spread
    assert abs(row.edge_cv - row.edge) < 4 * row.edge_stderr
    assert frame.loc[["flat king", "every rank"], "edge_cv"].isna().all()  # exact already


def test_a_row_is_lent_an_estimate_only_where_it_narrows_the_error():
    # Pontoon's carried pack against the pack shuffled every deal: the controls correlate
    # weakly; where they would widen the error the row keeps its own alone.
    data = {"name": "lend", "game": "pontoon", "rounds": 100_000, "chunk_rounds": 5_000,
            "seed": 4,
            "variants": {"british-home": {"preset": "british-home"},
                         "every-deal": {"preset": "reshuffle-every-deal"}},
            "strategies": [{"name": "stick 16", "use": "threshold",
                            "params": {"stick": 16, "soft_stick": 18}},
                           {"name": "optimal", "use": "optimal"}]}
    result = run_in_memory(api.load(data))
    frame = report.build(result)
    lent = control.columns(result, frame)
    assert lent["cv_variance_reduction"][0] > 1  # stick 16: lent, and narrower
    assert np.isnan(lent["edge_cv"][1])  # optimal: not lent
    controls = [(result.totals[(1, s)], frame["edge_exact"][2 + s]) for s in range(2)]
    wider = control.control_estimate(result.totals[(0, 1)], controls, "initial")
    assert wider.stderr >= frame["edge_stderr"][1]  # what the rule refused
