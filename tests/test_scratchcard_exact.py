"""Exact scratchcard odds against brute-force enumeration: tickets, totals, sessions, claims."""

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import hypergeom

from sim.games.scratchcard.current import (
    _log_likelihood,
    claims_z,
    current_odds,
    estimate_sold,
    remaining,
    sold_bounds,
)
from sim.games.scratchcard.exact import session_value, ticket_odds, total_distribution
from sim.games.scratchcard.report import REPORT
from sim.games.scratchcard.rules import Pool, ScratchPlan, ScratchRules, ScratchView
from sim.games.scratchcard.table import load_claims, load_table


def _box_tickets() -> np.ndarray:
    """The 1,050 tickets of the Deal 'Em box, one prize each."""
    table = load_table("deal-em")
    prizes = np.repeat(table.prizes, table.counts)
    return np.concatenate([prizes, np.zeros(table.losing_tickets())])


def _as_dict(values, probs) -> dict[float, float]:
    return {round(float(v), 9): float(p) for v, p in zip(values, probs) if p > 0}


def _assert_same(a: dict, b: dict, tol: float = 1e-12) -> None:
    assert set(a) == set(b), set(a) ^ set(b)
    for key in a:
        assert abs(a[key] - b[key]) < tol, (key, a[key], b[key])


def test_one_ticket_of_the_box_against_its_tickets():
    tickets = _box_tickets()
    assert len(tickets) == 1050 and tickets.sum() == 335
    odds = ticket_odds(ScratchRules("deal-em").pool())
    assert odds.rtp == pytest.approx(tickets.mean() / 0.5, abs=1e-15)
    assert odds.house_edge == pytest.approx(1 - 335 / 525, abs=1e-15)
    assert odds.sd == pytest.approx(tickets.std(), abs=1e-12)
    assert odds.p_any == pytest.approx((tickets > 0).mean(), abs=1e-15)
    assert odds.odds_any == pytest.approx(1050 / 226)
    assert odds.p_prize_ge_price == pytest.approx((tickets >= 0.5).mean(), abs=1e-15)
    assert (odds.top_prize, odds.p_top) == (75, pytest.approx(1 / 1050))


def test_two_tickets_of_the_box_against_every_pair():
    tickets = _box_tickets()
    i, j = np.triu_indices(len(tickets), k=1)  # all 550,725 pairs of distinct tickets
    totals, counts = np.unique(tickets[i] + tickets[j], return_counts=True)
    brute = _as_dict(totals, counts / len(i))
    _assert_same(_as_dict(*total_distribution(ScratchRules("deal-em").pool(), 2)), brute)


@pytest.mark.parametrize("k", [1, 3, 4])
def test_k_tickets_of_the_box_against_every_sequence_of_tiers(k):
    """Without replacement, tier by tier in exact fractions over every ordered sequence."""
    pool = ScratchRules("deal-em").pool()
    counts = [int(c) for c in pool.counts]
    brute: dict[float, Fraction] = {}
    for seq in itertools.product(range(len(counts)), repeat=k):
        left, n, p = list(counts), sum(counts), Fraction(1)
        for tier in seq:
            p *= Fraction(left[tier], n)
            left[tier] -= 1
            n -= 1
        if p:
            total = round(float(sum(pool.values[t] for t in seq)), 9)
            brute[total] = brute.get(total, Fraction(0)) + p
    assert sum(brute.values()) == 1
    _assert_same(_as_dict(*total_distribution(pool, k)),
                 {v: float(p) for v, p in brute.items()})


def test_a_tiny_box_against_every_subset():
    pool = Pool(1.0, np.array([5.0, 2.0, 1.0, 0.0]), np.array([1, 2, 3, 6]) / 12,
                np.array([1, 2, 3, 6]))
    tickets = np.repeat(pool.values, pool.counts)
    for k in range(1, 7):
        subsets = list(itertools.combinations(range(12), k))
        totals = [tickets[list(s)].sum() for s in subsets]
        values, counts = np.unique(totals, return_counts=True)
        _assert_same(_as_dict(*total_distribution(pool, k)),
                     _as_dict(values, counts / len(subsets)))


@pytest.mark.parametrize("replace", [False, True])
def test_a_capped_total_counts_every_larger_total_at_the_cap(replace):
    pool = Pool(1.0, np.array([5.0, 2.0, 1.0, 0.0]), np.array([1, 2, 3, 6]) / 12,
                np.array([1, 2, 3, 6]))
    for k in range(1, 7):
        values, probs = total_distribution(pool, k, replace=replace)
        for cap in (0.0, 1.0, 2.5, 3.0, 7.0, 100.0):
            top = min(math.ceil(cap), values.max())
            want: dict[float, float] = {}
            for v, p in zip(values.tolist(), probs.tolist()):
                want[min(v, top)] = want.get(min(v, top), 0.0) + p
            _assert_same(_as_dict(*total_distribution(pool, k, replace=replace, cap=cap)),
                         want)


@pytest.mark.parametrize("k", [1, 2, 3])
def test_independent_tickets_against_every_sequence(k):
    pool = ScratchRules("online-example").pool()
    brute: dict[float, float] = {}
    for seq in itertools.product(range(len(pool.values)), repeat=k):
        total = round(float(sum(pool.values[t] for t in seq)), 9)
        brute[total] = brute.get(total, 0.0) + math.prod(pool.probs[t] for t in seq)
    _assert_same(_as_dict(*total_distribution(pool, k)), brute, 1e-14)
    # The virtual series of a printed table: the same counts, drawn with replacement.
    box = ScratchRules("deal-em", mode="online").pool()
    mean = sum(v * p for v, p in zip(*total_distribution(box, k)))
    assert mean == pytest.approx(k * 335 / 1050, rel=1e-12)


def _brute_session(pool: Pool, plan: ScratchPlan) -> dict[str, float]:
    """Every sequence of tiers for the longest session, each stopped by the plan's rule."""
    n = plan.max_tickets
    moments = np.zeros(5)  # 1, net, net^2, net x tickets, tickets^2
    reasons = {"win": 0.0, "loss": 0.0, "money": 0.0, "max": 0.0}
    tickets = 0.0
    for seq in itertools.product(range(len(pool.values)), repeat=n):
        p = math.prod(pool.probs[t] for t in seq)
        bought, won = 0, 0.0
        while True:
            view = ScratchView(pool.price, bought, bought * pool.price, won, None, None, 10**6)
            count = plan.decide(view)
            if count == 0:
                break
            won += sum(pool.values[t] for t in seq[bought:bought + count])
            bought += count
        net = won - bought * pool.price
        tickets += p * bought
        moments += p * np.array([1.0, net, net * net, net * bought, bought * bought])
        if bought == n:
            reasons["max"] += p
        elif plan.stop_win and net >= plan.stop_win:
            reasons["win"] += p
        elif plan.stop_loss and net <= -plan.stop_loss:
            reasons["loss"] += p
        else:
            reasons["money"] += p
    edge = -moments[1] / (tickets * pool.price)  # per amount wagered
    residual = moments[2] + 2 * edge * pool.price * moments[3] + (edge * pool.price) ** 2 * \
        moments[4]
    return {"tickets": tickets, "mean": moments[1], "sd": math.sqrt(moments[2] - moments[1] ** 2),
            "sd_residual": math.sqrt(residual), **reasons}


SMALL = Pool(1.0, np.array([4.0, 2.0, 0.0]), np.array([0.1, 0.25, 0.65]))


@pytest.mark.parametrize("plan", [
    ScratchPlan(first=1, max_tickets=7, stop_win=2),
    ScratchPlan(first=1, max_tickets=7, stop_loss=3),
    ScratchPlan(first=2, max_tickets=7, stop_win=3, stop_loss=2),
    ScratchPlan(first=1, max_tickets=7, budget=2),
    ScratchPlan(first=1, max_tickets=7, budget=3, stop_win=1.5),
    ScratchPlan(first=3, max_tickets=3),
], ids=str)
def test_sessions_against_every_sequence_of_tickets(plan):
    brute = _brute_session(SMALL, plan)
    exact = session_value(SMALL, plan)
    assert exact.mean_tickets == pytest.approx(brute["tickets"], abs=1e-12)
    assert exact.mean_net == pytest.approx(brute["mean"], abs=1e-12)  # Wald's identity
    assert exact.sd_net == pytest.approx(brute["sd"], abs=1e-9)
    assert exact.sd_residual_total == pytest.approx(brute["sd_residual"], abs=1e-9)
    assert exact.initial == plan.first and exact.mean_wagered == exact.mean_tickets
    if not plan.fixed:
        # A session that ends on its last allowed ticket counts as "max", whatever its net.
        assert exact.p_max_tickets == pytest.approx(brute["max"], abs=1e-12)
        assert (exact.p_stop_win + exact.p_stop_loss + exact.p_out_of_money ==
                pytest.approx(1 - brute["max"], abs=1e-12))


def _printed(price: float, prizes: list[float], counts: list[int]) -> Pool:
    counts_a = np.array(counts, dtype=np.int64)
    return Pool(price, np.array(prizes), counts_a / counts_a.sum(), counts_a)


class _Replay:
    """One ordering of a print run, dealt ticket by ticket."""

    def __init__(self, row):
        self.row, self.i = [int(t) for t in row], 0

    def tickets_left(self):
        return len(self.row) - self.i

    def draw(self):
        self.i += 1
        return self.row[self.i - 1]


def _brute_printed(pool: Pool, plan: ScratchPlan) -> dict[str, float]:
    """The session's moments over every distinct ordering of a print run (equally likely),
    played by the reference path's rule."""
    from types import SimpleNamespace

    from sim.games.scratchcard.play import play_session
    from strategies.scratchcard import PlanPlayer
    from tests.conftest import distinct_orderings

    rules = SimpleNamespace(pool=lambda: pool, session_limit=10**6)
    rows = distinct_orderings([int(c) for c in pool.counts])
    nets, tickets = [], []
    for row in rows:
        net, _, _, bought, _ = play_session(rules, PlanPlayer(plan), None, _Replay(row))
        nets.append(net)
        tickets.append(bought)
    net, t = np.array(nets), np.array(tickets, dtype=float)
    ratio = net.mean() / t.mean()
    return {"tickets": t.mean(), "mean": net.mean(), "sd": net.std(),
            "sd_residual": (net - ratio * t).std()}


PRINT_RUN = _printed(1.0, [5.0, 2.0, 1.0, 0.0], [1, 2, 2, 6])  # 13,860 orderings


@pytest.mark.parametrize("pool, plan", [
    (PRINT_RUN, ScratchPlan(first=1, max_tickets=11, budget=3)),  # the 1s leave the state
    (PRINT_RUN, ScratchPlan(first=1, max_tickets=5, budget=3)),  # ... not when the cap binds
    (PRINT_RUN, ScratchPlan(first=2, max_tickets=11, budget=4)),
    (PRINT_RUN, ScratchPlan(first=1, max_tickets=8, stop_win=3, stop_loss=3)),
    (PRINT_RUN, ScratchPlan(first=1, max_tickets=9, stop_win=2)),
    (_printed(0.5, [3.0, 1.0, 0.5, 0.0], [2, 3, 2, 5]), ScratchPlan(first=1, max_tickets=12,
                                                                     budget=2)),
], ids=str)
def test_printed_sessions_against_every_ordering_of_a_print_run(pool, plan):
    brute = _brute_printed(pool, plan)
    exact = session_value(pool, plan)
    assert exact.method == "multisets" and exact.edge_bound == 0.0
    assert exact.mean_tickets == pytest.approx(brute["tickets"], abs=1e-12)
    assert exact.mean_net == pytest.approx(brute["mean"], abs=1e-12)
    assert exact.sd_net == pytest.approx(brute["sd"], abs=1e-9)
    assert exact.sd_residual_total == pytest.approx(brute["sd_residual"], abs=1e-9)


@pytest.mark.parametrize("prizes, counts, plan", [
    ([10.0, 3.0, 0.0], [300, 4000, 35700], ScratchPlan(first=1, max_tickets=60, budget=5)),
    # Sessions sure to buy every ticket left, finished in closed form:
    ([10.0, 3.0, 0.0], [300, 4000, 35700], ScratchPlan(first=1, max_tickets=20, budget=5)),
    ([10.0, 3.0, 0.0], [300, 4000, 35700], ScratchPlan(first=3, max_tickets=25, budget=6)),
    ([20.0, 3.0, 1.0, 0.0], [30, 4000, 5000, 30670],
     ScratchPlan(first=1, max_tickets=40, budget=5, stop_win=25)),
    ([10.0, 3.0, 0.0], [300, 4000, 35700], ScratchPlan(first=2, max_tickets=30, stop_loss=6)),
], ids=str)
def test_the_corrected_walk_brackets_the_exact_value_of_a_print_run(prizes, counts, plan):
    from sim.games.scratchcard.exact import plan_grid
    from sim.games.scratchcard.printed import corrected_moments, multiset_moments

    # 40,000 tickets: the walk over multisets is exact; the corrected walk must hold it
    # within its bounds, which are far tighter than the independent walk's error.
    pool = _printed(1.0, prizes, counts)
    grid = plan_grid(pool, plan)
    exact = multiset_moments(pool, plan, grid)
    walk = corrected_moments(pool, plan, grid)
    independent = session_value(Pool(pool.price, pool.values, pool.probs), plan)
    assert abs(walk.net - exact.net) <= walk.bound_net
    assert abs(walk.tickets - exact.tickets) <= walk.bound_tickets
    assert walk.bound_tickets < 0.35 * abs(independent.mean_tickets - exact.tickets)
    assert walk.bound_net < 0.15 * abs(independent.mean_net - exact.net)
    assert walk.net2 == pytest.approx(exact.net2, rel=1e-4)
    assert walk.net_tickets == pytest.approx(exact.net_tickets, rel=1e-6)


def test_the_corrected_walk_of_a_vast_print_run_is_the_independent_walk():
    from sim.games.scratchcard.exact import plan_grid
    from sim.games.scratchcard.printed import corrected_moments

    online = ScratchRules("oh-snap", mode="online").pool()
    vast = Pool(online.price, online.values, online.probs,
                np.round(online.probs * 1e15).astype(np.int64))
    for plan in (ScratchPlan(first=1, max_tickets=300, budget=20),
                 ScratchPlan(first=2, max_tickets=100, stop_win=30, stop_loss=10)):
        walk = corrected_moments(vast, plan, plan_grid(vast, plan))
        plain = session_value(online, plan)
        assert walk.tickets == pytest.approx(plain.mean_tickets, rel=1e-9)
        assert walk.net == pytest.approx(plain.mean_net, rel=1e-9)
        assert walk.bound_tickets < 1e-9 and walk.bound_net < 1e-9


def test_sessions_on_a_printed_pool_are_exact_drawn_without_replacement():
    pool = ScratchRules("deal-em").pool()
    short = session_value(pool, ScratchPlan(first=1, max_tickets=5, stop_win=2))
    assert short.method == "multisets" and short.edge_bound == 0.0
    # A budget of 20 spends the box's 0.5 tickets to the last: the money left is always 0.
    budget = session_value(pool, ScratchPlan(first=1, max_tickets=1000, budget=20))
    assert budget.mean_net == pytest.approx(-20.0, abs=1e-12) and budget.sd_net < 1e-6
    big = session_value(ScratchRules("oh-snap").pool(),
                        ScratchPlan(first=1, max_tickets=1000, budget=20))
    assert big.method == "corrected walk" and 0 < big.edge_bound < 1e-6
    fixed = session_value(pool, ScratchPlan(first=10, max_tickets=10))
    sd = ticket_odds(pool).sd * math.sqrt(10 * 1040 / 1049)  # finite-population correction
    assert fixed.mean_net == pytest.approx(10 * (335 / 1050 - 0.5))
    assert fixed.sd_net == pytest.approx(sd)
    values, probs = total_distribution(pool, 10)
    assert fixed.sd_net == pytest.approx(math.sqrt(((values - values @ probs) ** 2) @ probs))


# ----------------------------------------------------------------------- current odds
def test_estimators_of_tickets_sold():
    table = load_table("oh-snap")
    claims = load_claims("shipped", table)
    n = table.print_run
    assert estimate_sold(table, claims, "lowest-tier") == round(775_108 / 1_158_669 * n)
    assert estimate_sold(table, claims, "all-prizes") == round(
        sum(claims.claimed) / sum(table.counts) * n)
    mle = estimate_sold(table, claims, "hypergeometric-mle")
    total, winners = sum(claims.claimed), sum(table.counts)
    loglik = [_log_likelihood(s, total, n - winners, n) for s in range(mle - 50, mle + 51)]
    assert int(np.argmax(loglik)) == 50  # the maximum, by brute force on its neighbourhood
    with pytest.raises(ValueError, match="estimator"):
        estimate_sold(table, claims, "guess")


def test_current_odds_and_claim_z_scores():
    table = load_table("deal-em")
    box = ScratchRules("deal-em").pool()
    claims = type(load_claims("shipped", load_table("oh-snap")))((1, 0, 0, 0, 1, 5, 40))
    low, high = sold_bounds(table, claims)
    assert (low, high) == (47, 1050 - (226 - 47))
    left, losers = remaining(table, claims, 300)
    assert left.tolist() == [0, 1, 1, 1, 1, 15, 160] and losers == 750 - 179
    now = current_odds(table, claims, 300)
    assert now.tickets_left == 750 and now.top_prizes_left == 0
    assert now.ev == pytest.approx((335 - 75 - 5 - 5 - 20) / 750)
    assert now.p_any == pytest.approx(179 / 750)
    z = claims_z(table, claims, 300)
    mean = hypergeom.mean(1050, table.counts[5], 300)
    assert z[5] == pytest.approx((5 - mean) / hypergeom.std(1050, table.counts[5], 300))
    with pytest.raises(Exception, match="impossible"):
        remaining(table, claims, 10)
    assert box.tickets == 1050


def test_the_snapshot_game_now():
    rules = ScratchRules("oh-snap", claims="shipped")
    pool = rules.pool()
    assert rules.sold == estimate_sold(rules.prize_table, rules.claims_data, "lowest-tier")
    assert pool.tickets == 10_219_461 - rules.sold
    odds = ticket_odds(pool)
    assert odds.rtp == pytest.approx(0.4933, abs=1e-4)  # worse than the full run's 60.1%
    # The claims are not what random sales give: large |z| on several tiers.
    z = claims_z(rules.prize_table, rules.claims_data, rules.sold)
    assert np.abs(z).max() > 10


def test_charts_draw_on_a_given_axes_and_return_the_figure():
    import matplotlib.pyplot as plt

    from sim.games.scratchcard.charts import ev_sold_chart, prize_chart

    fig, (a, b, c) = plt.subplots(1, 3)
    rules = ScratchRules("oh-snap", claims="shipped")
    assert prize_chart(ScratchRules("deal-em").pool(), 1, ax=a) is fig
    assert prize_chart(ScratchRules("online-example").pool(), 5, ax=b) is fig
    assert ev_sold_chart(rules.prize_table, rules.claims_data, ax=c) is fig
    assert len(c.lines) == 5  # the curve, the full run and the three estimators
    plt.close(fig)
    charts = REPORT.exact_charts(rules)
    assert set(charts) == {"prizes", "prizes-10-tickets", "ev-against-sold", "any-win"}
    for figure in charts.values():
        plt.close(figure)


def test_any_win_odds_agree_with_the_k_ticket_distribution():
    from sim.games.scratchcard.charts import any_win_odds

    for name in ("deal-em", "online-example"):
        pool = ScratchRules(name).pool()
        odds = any_win_odds(pool, np.array([1, 2, 3]))
        for k, p in zip((1, 2, 3), odds):
            values, probs = total_distribution(pool, k)
            assert p == pytest.approx(float(probs[values > 0].sum()), rel=1e-9)
