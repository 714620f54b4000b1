import math

import numpy as np

from sim.core.stats import Stats, z_score


def _stats(rng, n, vary_stake=True):
    s = Stats()
    nets, stakes = [], []
    for _ in range(n):
        stake = float(rng.integers(1, 4)) if vary_stake else 1.0
        net = stake * float(rng.choice([-1.0, 0.0, 1.0, -0.5], p=[0.45, 0.1, 0.4, 0.05]))
        s.add_round(net, stake, stake * 2, {"x": 1})
        nets.append(net)
        stakes.append(stake)
    return s, np.array(nets), np.array(stakes)


def test_estimates_match_direct_computation():
    rng = np.random.default_rng(1)
    s, nets, stakes = _stats(rng, 5000)
    assert math.isclose(s.mean_net, nets.mean())
    assert math.isclose(s.std_net, nets.std(ddof=1))
    edge = -nets.sum() / stakes.sum()
    assert math.isclose(s.edge_per_initial_bet, edge)
    # Delta-method SE of a ratio of means, computed directly from the per-round values.
    resid = nets + edge * stakes
    se = resid.std(ddof=1) / math.sqrt(len(nets)) / stakes.mean()
    assert math.isclose(s.stderr, se, rel_tol=1e-9)
    assert math.isclose(s.edge_per_total_wagered, edge / 2)
    assert s.wins + s.pushes + s.losses == 5000
    assert sum(s.net_hist.values()) == 5000
    low, high = s.ci95()
    assert low < edge < high


def test_flat_stake_se_is_the_plain_standard_error():
    rng = np.random.default_rng(2)
    s, nets, _ = _stats(rng, 3000, vary_stake=False)
    assert math.isclose(s.stderr, nets.std(ddof=1) / math.sqrt(3000), rel_tol=1e-9)


def test_merge_is_associative_and_matches_one_pass():
    rng = np.random.default_rng(3)
    parts = [_stats(rng, n)[0] for n in (10, 200, 37)]
    left = parts[0].merge(parts[1]).merge(parts[2])
    right = parts[0].merge(parts[1].merge(parts[2]))
    assert all(math.isclose(left.sums[k], right.sums[k]) for k in left.sums)
    assert left.rounds == 247 and left.counters["x"] == 247
    assert left.net_hist == right.net_hist


def test_json_round_trip():
    s, _, _ = _stats(np.random.default_rng(4), 100)
    again = Stats.from_json(s.to_json())
    assert again.to_json() == s.to_json()


def test_z_score_handles_missing_values():
    assert math.isnan(z_score(0.1, None, 0.01))
    assert math.isnan(z_score(0.1, 0.1, 0.0))
    assert math.isclose(z_score(0.12, 0.1, 0.01), 2.0)
