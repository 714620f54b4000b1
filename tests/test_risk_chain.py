"""Sessions whose rounds a Markov chain drives (a progression's unit): the chain's programmes
against brute force on a tiny chain, against the programmes for rounds alike when the chain
has one state, and Monte Carlo sessions of faro under a progression against them."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sim.core.markov import RoundChain
from sim.core.progression import MARTINGALE, PAROLI, ProgressionSpec
from sim.engine import session_play
from sim.games.faro import GAME as FARO
from sim.games.faro import FaroRules
from sim.risk import chain, exact
from sim.risk.law import ChainLaw, RoundLaw
from sim.risk.spec import SessionSpec
from sim.risk.table import measure
from strategies.faro import FlatRank

# A two-state progression in miniature: at unit 1 a round wins 1 or loses 1 (a loss doubles
# the unit), at unit 2 it wins 2 or loses 2 or splits (-1), each going back to unit 1 except a
# loss at unit 2, which stays.
TINY = RoundChain(source=np.array([0, 0, 1, 1, 1]), target=np.array([0, 1, 0, 1, 0]),
                  values=np.array([1.0, -1.0, 2.0, -2.0, -1.0]),
                  probs=np.array([0.45, 0.55, 0.4, 0.5, 0.1]))


def _one_state(law: RoundLaw) -> ChainLaw:
    n = law.values.size
    return ChainLaw.from_chain(RoundChain(np.zeros(n, dtype=int), np.zeros(n, dtype=int),
                                          law.values, law.probs))


def _brute_force(chain_: RoundChain, bankroll, rounds, stop_win, stop_loss):
    """Every path of the chain, followed to ruin, a stop or the end: P(ruin) and the law
    of the session result."""
    by_source = {s: [t for t in range(len(chain_.probs)) if chain_.source[t] == s]
                 for s in range(chain_.n_states)}
    ruin, ended = 0.0, {}

    def walk(state, total, prob, n):
        nonlocal ruin
        if n == rounds:
            ended[total] = ended.get(total, 0.0) + prob
            return
        for t in by_source[state]:
            value, p = total + chain_.values[t], prob * chain_.probs[t]
            if value <= -bankroll:
                ruin += p
            elif not ((stop_loss is not None and value <= -stop_loss)
                      or (stop_win is not None and value >= stop_win)):
                walk(int(chain_.target[t]), value, p, n + 1)
                continue
            ended[value] = ended.get(value, 0.0) + p

    walk(chain_.start, 0.0, 1.0, 0)
    return ruin, ended


@pytest.mark.parametrize("bankroll,rounds,stop_win,stop_loss",
                         [(3.0, 8, None, None), (4.0, 8, 3.0, None), (5.0, 9, 4.0, 3.0)])
def test_the_forward_programme_is_every_path_of_a_tiny_chain(bankroll, rounds, stop_win,
                                                             stop_loss):
    law = ChainLaw.from_chain(TINY)
    session = chain.session_law(law, bankroll, rounds, stop_win, stop_loss)
    ruin, ended = _brute_force(TINY, bankroll, rounds, stop_win, stop_loss)
    assert session.p_ruin == pytest.approx(ruin, abs=1e-14)
    got = dict(zip(session.values.tolist(), session.probs.tolist()))
    for value, prob in ended.items():
        assert got[value] == pytest.approx(prob, abs=1e-14)
    assert session.probs.sum() == pytest.approx(1.0, abs=1e-14)
    if stop_win is None and stop_loss is None:
        every = chain.ruin_all_bankrolls(law, rounds, bankroll)
        assert every[round(bankroll / law.step)] == pytest.approx(ruin, abs=1e-14)


def test_a_chain_started_elsewhere_starts_there():
    start_two = RoundChain(TINY.source, TINY.target, TINY.values, TINY.probs, start=1)
    ruin, _ = _brute_force(start_two, 3.0, 7, None, None)
    law = ChainLaw.from_chain(start_two)
    assert chain.session_ruin(law, 3.0, 7) == pytest.approx(ruin, abs=1e-14)
    assert chain.ruin_all_bankrolls(law, 7, 3.0)[3] == pytest.approx(ruin, abs=1e-14)


def test_the_long_run_ruin_is_the_limit_of_long_sessions():
    law = ChainLaw.from_chain(TINY)
    for bankroll, stop_win, stop_loss in ((10.0, 10.0, None), (12.0, 6.0, 8.0)):
        long = chain.session_law(law, bankroll, 4000, stop_win, stop_loss)
        assert long.reasons[exact.HORIZON] < 1e-13  # every session has ended
        assert chain.long_run_ruin(law, bankroll, stop_win, stop_loss) == pytest.approx(
            long.p_ruin, abs=1e-10)
    assert law.mean < 0 and chain.long_run_ruin(law, 10.0) == 1.0


@pytest.mark.parametrize("values,probs", [([-1.0, 1.0], [0.505, 0.495]),
                                          ([-2.0, 0.5, 1.0], [0.3, 0.3, 0.4]),
                                          ([-1.0, 1.0], [0.48, 0.52])])
def test_a_one_state_chain_is_the_programme_for_rounds_alike(values, probs):
    law = RoundLaw.from_pairs(values, probs)
    one = _one_state(law)
    assert one.mean == pytest.approx(law.mean, abs=1e-15)
    assert one.sd == pytest.approx(law.sd, rel=1e-12)
    for stop_win, stop_loss in ((None, None), (15.0, None), (12.0, 9.0)):
        a = exact.session_law(law, 20, 200, stop_win, stop_loss, (0, 50, 200))
        b = chain.session_law(one, 20, 200, stop_win, stop_loss, (0, 50, 200))
        assert (a.low, a.step) == (b.low, b.step)
        np.testing.assert_allclose(b.probs, a.probs, atol=1e-15)
        np.testing.assert_allclose(b.reasons, a.reasons, atol=1e-15)
        np.testing.assert_allclose(b.ruin_by_round, a.ruin_by_round, atol=1e-15)
        np.testing.assert_allclose(b.at_checkpoint, a.at_checkpoint, atol=1e-15)
        assert chain.long_run_ruin(one, 20, stop_win, stop_loss) == pytest.approx(
            exact.long_run_ruin(law, 20, stop_win, stop_loss), abs=1e-12)
        assert chain.bankroll_for_risk(one, 0.05, 200, stop_win, stop_loss) == \
            exact.bankroll_for_risk(law, 0.05, 200, stop_win, stop_loss)
    np.testing.assert_allclose(chain.ruin_all_bankrolls(one, 200, 60),
                               exact.ruin_all_bankrolls(law, 200, 60), atol=1e-14)
    if law.mean > 0:
        np.testing.assert_allclose(chain.long_run_all_bankrolls(one, 40),
                                   exact.long_run_all_bankrolls(law, 40), atol=1e-12)
        assert chain.bankroll_for_risk(one, 0.05, None) == exact.bankroll_for_risk(
            law, 0.05, None)


@pytest.mark.parametrize("name,progression", [("martingale cap 16",
                                               ProgressionSpec(MARTINGALE, cap=16)),
                                              ("paroli 3", ProgressionSpec(PAROLI))])
def test_faro_sessions_under_a_progression_meet_the_exact_chain(name, progression):
    rules = FaroRules()
    king = FlatRank("K")
    law = session_play.exact_law(FARO, rules, king, progression)
    assert isinstance(law, ChainLaw) and law.step == 0.5
    # The chain's long-run mean is the exact value's.
    assert law.mean == pytest.approx(FARO.exact(rules, king, progression).mean_net, abs=1e-12)
    spec = SessionSpec(bankroll=30, rounds=60, sessions=20_000, chunk_sessions=10_000)
    mc = session_play.play(FARO, rules, king, name, progression, spec, 2024)
    result = measure("faro", "faro", name, progression, spec, law, mc)
    rows = {r["method"]: r for r in result.rows}
    assert {"exact", "diffusion", "mc"} <= set(rows)
    mc_row = rows["mc"]
    for key in ("z_p_ruin_vs_exact", "z_mean_vs_exact", "z_q5_vs_exact", "z_q50_vs_exact",
                "z_q95_vs_exact"):
        assert abs(mc_row[key]) < 4, (key, mc_row[key])
    exact_row = rows["exact"]
    assert exact_row["p_ruin_long_run"] == 1.0  # the house's edge ruins every bankroll
    assert math.isnan(exact_row["bankroll_long_run_risk_5"])
    assert exact_row["ev_per_round"] == pytest.approx(law.mean)
    # The session's ruin by bankroll: the forward programme at the row's bankroll.
    at = list(result.bankrolls).index(30.0)
    assert result.curve_exact[at] == pytest.approx(exact_row["p_ruin"], abs=1e-12)


def test_a_flat_row_keeps_the_law_of_rounds_alike():
    law = session_play.exact_law(FARO, FaroRules(), FlatRank("K"), ProgressionSpec())
    assert isinstance(law, RoundLaw)
    assert FARO.round_chain(FaroRules(), FlatRank("K"), ProgressionSpec()) is None
    assert FARO.round_chain(FaroRules(), FlatRank("K"), ProgressionSpec(MARTINGALE)) is None


def test_brute_force_helper_is_itself_checked_on_rounds_alike():
    """The path walker agrees with the forward programme for rounds alike (one state)."""
    law = RoundLaw.from_pairs([-2.0, 0.5, 1.0], [0.3, 0.3, 0.4])
    one = RoundChain(np.zeros(3, dtype=int), np.zeros(3, dtype=int), law.values, law.probs)
    ruin, _ = _brute_force(one, 3.0, 7, 2.5, 2.0)
    assert exact.session_ruin(law, 3.0, 7, 2.5, 2.0) == pytest.approx(ruin, abs=1e-14)
