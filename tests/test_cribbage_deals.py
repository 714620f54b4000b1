"""Cribbage's whole-deal exact values: the keep laws against the chooser over every order
dealt, the classes of suits against every set, the seat's hand, the crib and the keeps' joint
law against every deal of stripped packs, and the simulator against the exact values."""

import dataclasses
import itertools
import math
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

from sim.core.progression import ProgressionSpec
from sim.games.cribbage import GAME, CribbageRules, DiscardPolicy
from sim.games.cribbage.joint import deal_values
from sim.games.cribbage.laws import (
    DROPS,
    KEEPS,
    ORDERS,
    hand_choice,
    rank_profile,
    seat_hand_moments,
    tie_law,
    tie_laws,
)
from sim.games.cribbage.pegging import peg
from sim.games.cribbage.play_exact import play_table, random_keep_play, type_of_key
from sim.games.cribbage.policy import KINDS, crib_table, kernel_choose
from sim.games.cribbage.score import kernel_show, rank_points_table, show_score
from sim.games.cribbage.suit_classes import canonical, representatives
from strategies.cribbage import BestHand, HighestCount

POLICIES = [("count", 0.0), ("hand", 0.0), ("hand-crib", -1.0), ("hand-crib", 1.0)]
SMALL = ((3, 4, 5, 8, 9, 10, 11), 2)  # 4 5 6 9 T J Q in two suits: 14 cards, two hands dealt


def pack_of(ranks, suits):
    return sorted(r * 4 + s for r in ranks for s in range(suits))


def law_of(hand, kind, weight):
    """{keep index: weight out of 720} of a hand (increasing codes)."""
    laws = tie_laws()
    mask = hand_choice(np.array(hand, dtype=np.int64), KINDS.index(kind), weight,
                       rank_profile(), crib_table(2), KEEPS, DROPS, np.empty(15, np.int64),
                       np.empty(30))
    law = tie_law(mask, laws.table, laws.known, ORDERS, KEEPS)
    return {j: int(w) for j, w in enumerate(law) if w}


@pytest.mark.parametrize("ranks, suits, k", [((0, 1, 2, 3), 4, 3), ((4, 9, 10, 3, 5), 3, 6),
                                             ((0, 4, 10), 4, 5), ((1, 2, 3, 4, 5), 2, 4)])
def test_suit_classes_stand_for_every_set_once(ranks, suits, k):
    reps, weights = representatives(k, ranks, suits)
    hits = Counter()
    rep, relabel = np.zeros(6, np.int64), np.zeros(4, np.int64)
    for cards in itertools.combinations(pack_of(ranks, suits), k):
        canonical(np.array(cards, np.int64), k, rep, relabel)
        hits[tuple(rep[:k].tolist())] += 1
        assert sorted((c // 4) * 4 + relabel[c % 4] for c in rep[:k]) == list(cards)
    assert dict(hits) == {tuple(r): w for r, w in zip(reps.tolist(), weights.tolist())}


@pytest.mark.parametrize("kind, weight", POLICIES)
def test_the_tie_law_is_the_choosers_choice_over_every_order_dealt(kind, weight):
    rng = np.random.default_rng(3)
    table, one, two = rank_points_table(5), crib_table(1), crib_table(2)
    hands = [sorted(rng.choice(52, 6, replace=False).tolist()) for _ in range(300)]
    tied = [h for h in hands if len(law_of(h, kind, weight)) > 1][:12]
    assert tied  # ties between keeps are common: the test meets some
    for hand in tied + hands[:6]:
        counts = Counter()
        for order in ORDERS:
            cards = np.array(hand)[np.argsort(order)]  # the card dealt at each position
            j, _ = kernel_choose(cards, 6, KINDS.index(kind), weight, KEEPS, DROPS, table, one,
                                 two, np.empty(4, np.int64), np.empty(17, np.int64),
                                 np.empty(6, np.int64))
            counts[frozenset(cards[KEEPS[j]].tolist())] += 1
        law = law_of(hand, kind, weight)
        assert counts == {frozenset(np.array(hand)[KEEPS[j]].tolist()): w
                          for j, w in law.items()}


@pytest.mark.parametrize("kind, weight", POLICIES)
def test_a_seats_hand_matches_every_hand_of_a_stripped_pack(kind, weight):
    pack = pack_of(*SMALL)
    first = second = 0
    for hand in itertools.combinations(pack, 6):
        starters = [c for c in pack if c not in hand]
        for j, w in law_of(hand, kind, weight).items():
            kept = [hand[i] for i in KEEPS[j]]
            scores = [show_score(kept, s) for s in starters]
            first += w * sum(scores)
            second += w * sum(x * x for x in scores)
    total = math.comb(len(pack), 6) * 720 * (len(pack) - 6)
    assert seat_hand_moments(kind, weight, *SMALL) == (Fraction(first, total),
                                                        Fraction(second, total))


@pytest.mark.parametrize("pone, dealer", [(POLICIES[0], POLICIES[0]), (POLICIES[1], POLICIES[1]),
                                          (POLICIES[2], POLICIES[3])])
def test_crib_and_keeps_match_every_deal_of_a_stripped_pack(pone, dealer):
    pack = pack_of(*SMALL)
    table5, scratch = rank_points_table(5), np.empty(5, np.int64)
    types = type_of_key()

    def keep_type(hand, j):
        key = 0
        for i in KEEPS[j]:
            key = key * 13 + hand[i] // 4
        return types[key]

    laws = {hand: (law_of(hand, *pone), law_of(hand, *dealer))
            for hand in itertools.combinations(pack, 6)}
    crib, deals, keeps = 0, 0, Counter()
    for hand_p, (law_p, _) in laws.items():
        rest = [c for c in pack if c not in hand_p]
        for hand_d in itertools.combinations(rest, 6):
            law_d = laws[hand_d][1]
            starters = [c for c in rest if c not in hand_d]
            deals += len(starters)
            for j, wp in law_p.items():
                for k, wd in law_d.items():
                    keeps[keep_type(hand_p, j), keep_type(hand_d, k)] += wp * wd
                    cards = np.array([hand_p[i] for i in DROPS[j]] + [hand_d[i] for i in DROPS[k]])
                    crib += wp * wd * sum(kernel_show(cards, 4, s, True, table5, scratch)
                                          for s in starters)
    values = deal_values(pone, dealer, *SMALL)
    assert values.crib == pytest.approx(crib / deals / 720 ** 2, rel=1e-13)
    pairs = sum(keeps.values())
    expected = np.zeros_like(values.keeps)
    for (kappa, lam), w in keeps.items():
        expected[kappa, lam] = w / pairs
    assert np.allclose(values.keeps, expected, rtol=0, atol=1e-15)


def test_the_play_of_random_keeps_matches_every_pair_of_hands():
    ranks, suits = (3, 4, 5, 9, 12), 2
    pack = pack_of(ranks, suits)
    for play, dealer_play in (("greedy", ""), ("cautious", ""), ("greedy", "cautious")):
        totals, pairs = [0, 0], 0
        for pone in itertools.combinations(pack, 4):
            rest = [c for c in pack if c not in pone]
            for dealer in itertools.combinations(rest, 4):
                points = peg([c // 4 for c in pone], [c // 4 for c in dealer], play,
                             dealer_play or None)
                totals = [totals[0] + points[0], totals[1] + points[1]]
                pairs += 1
        counts = tuple(suits if r in ranks else 0 for r in range(13))
        assert random_keep_play(play, dealer_play, counts) == (Fraction(totals[0], pairs),
                                                               Fraction(totals[1], pairs))


def test_the_play_table_is_the_play_of_each_pair_of_keeps():
    table = play_table("greedy", "cautious")
    types = type_of_key()
    rng = np.random.default_rng(4)
    for _ in range(50):
        pone, dealer = (sorted(rng.integers(0, 13, 4).tolist()) for _ in range(2))
        kappa, lam = (types[sum(r * 13 ** (3 - i) for i, r in enumerate(x))]
                      for x in (pone, dealer))
        assert tuple(table[kappa, lam]) == peg(pone, dealer, "greedy", "cautious")


@pytest.mark.parametrize("variant, seat, strategy", [
    ("six-card", "pone", BestHand()),
    ("six-card", "dealer", HighestCount()),
    ("six-card-pegging", "dealer", HighestCount()),
])
def test_rows_simulate_their_exact_values(variant, seat, strategy):
    rules = dataclasses.replace(GAME.presets[variant], seat=seat)
    exact = GAME.exact(rules, strategy, ProgressionSpec())
    stats = GAME.simulate(rules, strategy, None, 40_000, np.random.SeedSequence(11))
    sd = exact.sd_net if exact.sd_net is not None else stats.std_net
    assert abs(stats.mean_net - exact.mean_net) / (sd / math.sqrt(stats.rounds)) < 4


def test_the_first_legal_card_says_why_it_has_no_exact_value():
    rules = CribbageRules(pegging=True, seat="dealer")
    policy = DiscardPolicy("hand", play="first")
    assert GAME.exact_table(rules, policy, ProgressionSpec()) is None
    assert "order held" in GAME.exact_table_unavailable(rules, policy, ProgressionSpec())
