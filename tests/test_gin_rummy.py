"""Gin rummy: deadwood against a brute-force search of melds, exact counts against every hand
of stripped packs, and simulated gin against the exact chance."""

import itertools
import math

import numpy as np

from sim.core.cards import N_SUITS
from sim.core.rng import kernel_state
from sim.games.cribbage.score import parse_cards
from sim.games.gin_rummy import GAME, GinRules, deadwood, deadwood_counts, simulate_hands
from sim.games.gin_rummy.exact import deadwood_distribution_counts, deadwood_moments


def melds_of(cards):
    """Every set (3 or 4 of a rank) and run (3+ in a suit, ace low) among the cards."""
    cards = set(cards)
    out = []
    for r in range(13):
        same = [c for c in cards if c // N_SUITS == r]
        for size in (3, 4):
            out += [frozenset(m) for m in itertools.combinations(same, size)]
    for s in range(N_SUITS):
        for start in range(13):
            run = []
            for r in range(start, 13):
                if r * N_SUITS + s not in cards:
                    break
                run.append(r * N_SUITS + s)
                if len(run) >= 3:
                    out.append(frozenset(run))
    return out


def brute_deadwood(cards):
    melds = melds_of(cards)
    best = sum(min(c // N_SUITS + 1, 10) for c in cards)

    def search(i, used, covered):
        nonlocal best
        dead = sum(min(c // N_SUITS + 1, 10) for c in cards if c not in covered)
        best = min(best, dead)
        for j in range(i, len(melds)):
            if not melds[j] & used:
                search(j + 1, used | melds[j], covered | melds[j])

    search(0, frozenset(), frozenset())
    return best


def test_deadwood_examples():
    assert deadwood(parse_cards("Ac 2c 3c 4d 4h 4s 7h 8h 9h Th")) == 0
    assert deadwood(parse_cards("Qc Kc Ac 2d 5h 9s 7h 8h 9h Kd")) == 47  # no Q-K-A
    assert deadwood(parse_cards("4c 4d 4h 4s 5s 6s 7c 7d 7h 2h")) == 2   # 4s in a run


def test_deadwood_matches_brute_force_on_random_hands():
    rng = np.random.default_rng(7)
    for _ in range(300):
        hand = [int(c) for c in rng.choice(52, 10, replace=False)]
        assert deadwood(hand) == brute_deadwood(hand)


def test_counts_match_every_hand_of_stripped_packs():
    for ranks, suits, size, cap in ((6, 3, 6, 3), (7, 2, 7, 11), (5, 4, 7, 8)):
        pack = [r * N_SUITS + s for r in range(ranks) for s in range(suits)]
        brute = [0] * (cap + 1)
        for hand in itertools.combinations(pack, size):
            brute[min(deadwood(hand), cap)] += 1
        assert list(deadwood_counts(size, ranks, suits, cap=cap)) == brute


def test_simulated_gin_matches_exact_on_a_stripped_pack():
    rules = GinRules(hand_size=7, rank_count=6, suits=4)
    counts = deadwood_counts(7, 6, 4, cap=3)
    total = math.comb(24, 7)
    stats = simulate_hands(rules, 200_000, kernel_state(np.random.SeedSequence(3)))
    for d in range(3):
        p = counts[d] / total
        got = stats.net_hist.get(float(d), 0) / stats.rounds
        assert abs(got - p) / math.sqrt(p * (1 - p) / stats.rounds) < 4


def test_every_deadwood_is_counted_as_every_hand_of_stripped_packs_scores():
    for ranks, suits, size in ((6, 3, 6), (7, 2, 7), (5, 4, 7), (6, 4, 8)):
        pack = [r * N_SUITS + s for r in range(ranks) for s in range(suits)]
        brute = [0] * (10 * size + 1)
        for hand in itertools.combinations(pack, size):
            brute[deadwood(hand)] += 1
        counts = deadwood_distribution_counts(size, ranks, suits)
        assert list(counts) == brute[:len(counts)] and not any(brute[len(counts):])


def test_full_pack_counts_agree_with_the_gin_count_and_sum_to_every_hand():
    counts = deadwood_distribution_counts()
    assert sum(counts) == math.comb(52, 10)
    assert counts[:3] == (136_694, 312_878, 321_176)


def test_simulated_mean_deadwood_matches_the_exact_mean_on_a_stripped_pack():
    rules = GinRules(hand_size=8, rank_count=7, suits=4)
    mean, variance = deadwood_moments(8, 7, 4)
    stats = simulate_hands(rules, 200_000, kernel_state(np.random.SeedSequence(5)))
    z = (stats.mean_net - float(mean)) / math.sqrt(float(variance) / stats.rounds)
    assert abs(z) < 4


def test_the_dealt_hand_row_has_the_exact_mean_deadwood():
    from sim.core.progression import ProgressionSpec

    exact = GAME.exact(GinRules(), None, ProgressionSpec())
    mean, variance = deadwood_moments()
    assert exact.mean_net == float(mean) and exact.mean_initial_stake is None
    assert exact.sd_net == math.sqrt(variance)
