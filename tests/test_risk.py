"""Bankroll and risk of ruin: the exact programmes against closed forms and brute force, the
diffusion where it should agree, Monte Carlo sessions against exact values, bad input."""

from __future__ import annotations

import itertools
import json
import math
from math import comb

import numpy as np
import pytest

from sim import cli
from sim.core.progression import ProgressionSpec
from sim.engine import session_play
from sim.games.faro import GAME as FARO
from sim.games.faro import FaroRules
from sim.games.faro.kernel import play_ordered_deals
from sim.risk import diffusion, exact
from sim.risk.law import RoundLaw
from sim.risk.montecarlo import SessionStats
from sim.risk.spec import SessionSpec
from sim.risk.table import measure
from strategies.faro import Copper, FlatRank

FLAT = ProgressionSpec()


def _measure(game_name, variant, rules, strategy_name, strategy, spec, seed):
    """Exact, diffusion and Monte Carlo for one row, its sessions played as a run plays them."""
    from sim import games

    game = games.get(game_name)
    law = session_play.round_law(game, rules, strategy, FLAT)
    mc = session_play.play(game, rules, strategy, strategy_name, FLAT, spec, seed)
    return measure(game_name, variant, strategy_name, FLAT, spec, law, mc)


def even_money(p: float) -> RoundLaw:
    return RoundLaw.from_pairs([-1.0, 1.0], [1 - p, p])


def classical_ruin(p: float, bankroll: int, target: int | None) -> float:
    r = (1 - p) / p
    if target is None:
        return 1.0 if p <= 0.5 else r ** bankroll
    top = bankroll + target
    return (r ** bankroll - r ** top) / (1 - r ** top)


@pytest.mark.parametrize("p", [0.495, 0.505])
@pytest.mark.parametrize("bankroll", [10, 30, 100, 300, 1000])
@pytest.mark.parametrize("target", [None, 10, 100, 1000])
def test_long_run_ruin_is_the_classical_gamblers_ruin(p, bankroll, target):
    got = exact.long_run_ruin(even_money(p), bankroll, stop_win=target)
    assert got == pytest.approx(classical_ruin(p, bankroll, target), abs=1e-10)


@pytest.mark.parametrize("p", [0.495, 0.505])
def test_bankroll_for_a_long_run_risk(p):
    law = even_money(p)
    b = exact.bankroll_for_risk(law, 0.05, None)
    if p < 0.5:
        assert math.isnan(b)
    else:  # the least bankroll with (q/p)^b <= 5%
        assert b == math.ceil(math.log(0.05) / math.log((1 - p) / p))


@pytest.mark.parametrize("p", [0.495, 0.505])
def test_session_ruin_is_the_hitting_time_theorem(p):
    """P(ruin within N) = sum_n (B/n) C(n, (n-B)/2) p^((n-B)/2) q^((n+B)/2)."""
    law, q, n_max = even_money(p), 1 - p, 400
    every = exact.ruin_all_bankrolls(law, n_max, 60)
    for bankroll in (10, 25, 60):
        closed = sum(bankroll / n * comb(n, (n - bankroll) // 2) * p ** ((n - bankroll) // 2)
                     * q ** ((n + bankroll) // 2) for n in range(bankroll, n_max + 1, 2))
        assert exact.session_ruin(law, bankroll, n_max) == pytest.approx(closed, abs=1e-12)
        assert every[bankroll] == pytest.approx(closed, abs=1e-12)


def test_forward_programme_against_brute_force_paths():
    """Every path of a three-valued walk with both stops, enumerated."""
    values, probs = [-2.0, 0.5, 1.0], [0.3, 0.3, 0.4]
    law = RoundLaw.from_pairs(values, probs)
    bankroll, rounds, stop_win, stop_loss = 3.0, 7, 2.5, 2.0
    ended: dict[float, float] = {}
    ruin = 0.0
    for path in itertools.product(range(3), repeat=rounds):
        total, prob = 0.0, 1.0
        for k in path:
            prob *= probs[k]
        for k in path:
            total += values[k]
            if total <= -bankroll:
                ruin += prob
                break
            if total <= -stop_loss or total >= stop_win:
                break
        ended[total] = ended.get(total, 0.0) + prob
    session = exact.session_law(law, bankroll, rounds, stop_win, stop_loss)
    assert session.p_ruin == pytest.approx(ruin, abs=1e-14)
    got = dict(zip(session.values.tolist(), session.probs.tolist()))
    for value, prob in ended.items():
        assert got[value] == pytest.approx(prob, abs=1e-14)
    assert session.probs.sum() == pytest.approx(1.0, abs=1e-14)


def test_diffusion_agrees_with_small_steps_and_large_bankrolls():
    law = even_money(0.505)
    for bankroll in (100, 300, 1000):
        e = exact.long_run_ruin(law, bankroll)
        d = diffusion.long_run_ruin(law.mean, law.sd, bankroll)
        assert d == pytest.approx(e, rel=2e-3)
        et = exact.long_run_ruin(law, bankroll, stop_win=bankroll)
        dt = diffusion.long_run_ruin(law.mean, law.sd, bankroll, bankroll)
        assert dt == pytest.approx(et, rel=2e-3)
    for p in (0.495, 0.505):
        law = even_money(p)
        e = exact.session_ruin(law, 60, 3000)
        d = diffusion.session_ruin(law.mean, law.sd, 60, 3000)
        assert d == pytest.approx(e, rel=0.03)  # the lattice's half step of overshoot
        assert diffusion.result_quantile(law.mean, law.sd, 60, 3000, 0.5) == pytest.approx(
            exact.session_law(law, 60, 3000).quantile(0.5), abs=2.0)


def test_faro_deal_law_against_every_order_of_small_packs():
    for rules in (FaroRules(rank_count=3, suits=2),
                  FaroRules(rank_count=2, suits=3, split_take=1.0),
                  FaroRules(rank_count=3, suits=2, soda=False, last_winner_void=True)):
        for strategy in (FlatRank(["A", "2"]), Copper("A")):
            values, probs = FARO.round_law(rules, strategy, FLAT)
            orders = np.array(sorted(set(itertools.permutations(rules.pack_ranks().tolist()))))
            nets = play_ordered_deals(rules, strategy.as_table(rules), FLAT, orders)[:, 0]
            seen, counts = np.unique(nets, return_counts=True)
            np.testing.assert_allclose(values, seen)
            np.testing.assert_allclose(probs, counts / len(orders), atol=1e-14)
    values, probs = FARO.round_law(FaroRules(), FlatRank("K"), FLAT)
    assert values @ probs == pytest.approx(FARO.exact(FaroRules(), FlatRank("K"), FLAT).mean_net,
                                           abs=1e-14)


def test_faro_flat_king_mc_within_4_se_of_exact():
    """Faro, flat king, 50 units, 100 deals: 10^5 sessions at a fixed seed."""
    spec = SessionSpec(bankroll=50, rounds=100, sessions=100_000, chunk_sessions=25_000)
    result = _measure("faro", "faro", FaroRules(), "flat king", FlatRank("K"), spec, 20261201)
    rows = {r["method"]: r for r in result.rows}
    mc = rows["mc"]
    assert mc["sessions"] == 100_000
    assert abs(mc["z_p_ruin_vs_exact"]) < 4
    assert abs(mc["z_mean_vs_exact"]) < 4
    for q in ("5", "25", "50", "75", "95"):
        assert abs(mc[f"z_q{q}_vs_exact"]) < 4
    assert rows["exact"]["p_ruin"] == pytest.approx(0.0163122, abs=1e-6)
    assert abs(rows["diffusion"]["p_ruin"] - rows["exact"]["p_ruin"]) < 0.005
    half = result.curve_mc * (1 - result.curve_mc) / result.mc.sessions
    ok = half > 0
    z = (result.curve_mc[ok] - result.curve_exact[ok]) / np.sqrt(
        result.curve_exact[ok] * (1 - result.curve_exact[ok]) / result.mc.sessions)
    assert np.all(np.abs(z) < 4)


def test_session_statistics_survive_their_checkpoint_form():
    spec = SessionSpec(bankroll=10, rounds=20, sessions=3000, chunk_sessions=1000,
                       sample_paths=3)
    stats = session_play.play(FARO, FaroRules(), FlatRank("K"), "flat king", FLAT, spec, 5)
    back = SessionStats.from_json(json.loads(json.dumps(stats.to_json())))
    for name in ("end_hist", "min_hist", "cp_hist", "reasons", "sums", "paths"):
        np.testing.assert_array_equal(getattr(back, name), getattr(stats, name))
    assert (back.bins, back.checkpoints, back.sessions) == (
        stats.bins, stats.checkpoints, stats.sessions)


BASE = """
game = "faro"
rounds = 10
[[strategies]]
use = "flat-rank"
[session]
"""


@pytest.mark.parametrize("session, key", [
    ("bankroll = -5\nrounds = 10", "session.bankroll"),
    ("bankroll = 0\nrounds = 10", "session.bankroll"),
    ("bankroll = 50\nrounds = 0", "session.rounds"),
    ("bankroll = 50\nhours = 0.001\nrounds_per_hour = 100", "session.hours"),
    ("bankroll = 50\nrounds = 10\ntarget_risks = [0.05, 1.5]", "session.target_risks"),
    ("bankroll = 50\nrounds = 10\ntarget_risks = [0]", "session.target_risks"),
    ("bankroll = 50\nrounds = 10\nbankrol = 3", "session.bankrol"),
    ("bankroll = 50\nrounds = 10\nstop_loss = 80", "session.stop_loss"),
    ("bankroll = 50\nhours = 2", "session.rounds_per_hour"),
    ("bankroll = 0.5\nrounds = 10", "session.bankroll"),
    ("bankroll = 50\nrounds = 10\nbankrolls = [0.5, 10]", "session.bankrolls"),
])
def test_bad_session_is_one_line_exit_2_nothing_written(tmp_path, capsys, session, key):
    path = tmp_path / "bad.toml"
    path.write_text(BASE + session + "\n")
    out = tmp_path / "out"
    assert cli.main(["run", str(path), "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert str(path) in err and key in err
    assert not out.exists()


def test_a_stop_loss_past_the_bankroll_names_both_keys(tmp_path, capsys):
    path = tmp_path / "bad.toml"
    path.write_text(BASE + "bankroll = 50\nrounds = 10\nstop_loss = 80\n")
    assert cli.main(["run", str(path), "--out", str(tmp_path / "out"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "session.stop_loss: 80" in err and "session.bankroll = 50" in err


def test_a_stop_loss_of_the_whole_bankroll_is_accepted():
    from sim.risk.spec import parse_session

    assert parse_session({"bankroll": 50, "rounds": 10, "stop_loss": 50}, "f").stop_loss == 50
    with pytest.raises(ValueError, match="stop_loss"):
        SessionSpec(bankroll=50, rounds=10, stop_loss=80)
    with pytest.raises(ValueError, match="bankroll"):
        SessionSpec(bankroll=0.5, rounds=10)


@pytest.mark.parametrize("file_keys, override, rounds", [
    ("rounds = 10\nrounds_per_hour = 30", "session.hours=4", 120),
    ("hours = 4\nrounds_per_hour = 30", "session.rounds=10", 10),
])
def test_an_override_of_one_session_length_replaces_the_other(tmp_path, file_keys, override,
                                                              rounds):
    from sim.engine import experiment

    path = tmp_path / "e.toml"
    path.write_text(BASE + "bankroll = 50\n" + file_keys + "\n")
    exp = experiment.load(path, [override])
    assert exp.session.rounds == rounds


def _pontoon_stick_16():
    import dataclasses

    from sim.games.pontoon import GAME as PONTOON
    from strategies import base

    rules = dataclasses.replace(PONTOON.presets["british-home"], infinite_deck=True)
    strategy = base.resolve("pontoon", "threshold",
                            {"stick": 16, "soft_stick": 18, "split": "A8"}, None)
    return PONTOON, rules, strategy


def test_pontoon_deal_law_has_the_exact_mean_and_the_kernels_frequencies():
    game, rules, strategy = _pontoon_stick_16()
    values, probs = game.round_law(rules, strategy, FLAT)
    assert probs.sum() == pytest.approx(1.0, abs=1e-12)
    assert values @ probs == pytest.approx(game.exact(rules, strategy, FLAT).mean_net,
                                           abs=1e-12)
    n = 1_000_000
    stats = game.simulate(rules, strategy, FLAT, n, np.random.SeedSequence(12))
    for v, p in zip(values.tolist(), probs.tolist()):
        seen = stats.net_hist.get(v, 0) / n
        assert abs(seen - p) < 4 * math.sqrt(p * (1 - p) / n) + 1e-12
    assert sum(stats.net_hist.get(v, 0) for v in values.tolist()) == n


def test_pontoon_stick_16_mc_within_4_se_of_exact():
    """Pontoon stick 16 against stand 17, infinite deck, 100 units, 300 deals."""
    game, rules, strategy = _pontoon_stick_16()
    spec = SessionSpec(bankroll=100, rounds=300, sessions=100_000, chunk_sessions=25_000)
    result = _measure("pontoon", "infinite-deck", rules, "stick 16", strategy, spec, 20261201)
    mc = {r["method"]: r for r in result.rows}["mc"]
    assert abs(mc["z_p_ruin_vs_exact"]) < 4
    assert abs(mc["z_mean_vs_exact"]) < 4
    for q in ("5", "25", "50", "75", "95"):
        assert abs(mc[f"z_q{q}_vs_exact"]) < 4


def test_lansquenet_bank_law_has_the_exact_mean():
    from sim.games.lansquenet import GAME as LANSQUENET
    from sim.games.lansquenet.exact import bank_value
    from sim.games.lansquenet.rules import LansquenetRules
    from strategies import base

    rules = LansquenetRules()
    for use, params, sure in (("pass-after", {"wins": 3}, None), ("sharper", {}, -0.5),
                              ("sharper", {"adapt": True}, -8.0)):
        strategy = base.resolve("lansquenet", use, params, None)
        values, probs = LANSQUENET.round_law(rules, strategy, FLAT)
        mean = -bank_value(rules, strategy.as_table(rules), 0).result
        assert values @ probs == pytest.approx(mean, abs=1e-12)
        if sure is not None:
            assert values.tolist() == [sure]
            nets = LANSQUENET.session_nets(rules, strategy, FLAT, 50, 4,
                                           np.random.SeedSequence(1))
            assert (nets == sure).all()


def test_a_sure_loss_needs_one_step_more_than_it_loses():
    law = RoundLaw.from_pairs([-0.5], [1.0])
    assert exact.session_ruin(law, 100, 200) == 1.0
    assert exact.session_ruin(law, 100.5, 200) == 0.0
    assert exact.bankroll_for_risk(law, 0.01, 200) == 100.5


def test_online_scratchcard_sessions_against_exact():
    from sim.games.scratchcard import GAME as SCRATCH
    from strategies import base

    rules = SCRATCH.make_rules("online-example", {})
    strategy = base.resolve("scratchcard", "buy", {"tickets": 10}, None)
    values, probs = SCRATCH.round_law(rules, strategy, FLAT)
    assert values @ probs == pytest.approx(SCRATCH.exact(rules, strategy, FLAT).mean_net,
                                           abs=1e-12)
    spec = SessionSpec(bankroll=100, rounds=40, sessions=20_000, chunk_sessions=10_000)
    result = _measure("scratchcard", "online-example", rules, "ten tickets", strategy, spec, 3)
    mc = {r["method"]: r for r in result.rows}["mc"]
    assert abs(mc["z_p_ruin_vs_exact"]) < 4 and abs(mc["z_mean_vs_exact"]) < 4
    assert abs(mc["z_q50_vs_exact"]) < 4


def test_fft_spreading_agrees_with_direct_sums(monkeypatch):
    rng = np.random.default_rng(1)
    values = np.arange(-3, 60)
    probs = rng.random(values.size) ** 4
    law = RoundLaw.from_pairs(values, probs / probs.sum())
    assert law.shifts.size > exact.FFT_SHIFTS
    fft = exact.session_law(law, 20, 30)
    every_fft = exact.ruin_all_bankrolls(law, 30, 50)
    monkeypatch.setattr(exact, "FFT_SHIFTS", 10**9)
    direct = exact.session_law(law, 20, 30)
    np.testing.assert_allclose(fft.probs, direct.probs, atol=1e-15)
    np.testing.assert_allclose(every_fft, exact.ruin_all_bankrolls(law, 30, 50), atol=1e-15)
