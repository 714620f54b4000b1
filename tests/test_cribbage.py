"""Cribbage: the scorer on the texts' hands, exact enumeration against brute force on stripped
packs, the two paths on the same deals, and simulation against exact values."""

import itertools
import math
import pickle

import numpy as np
import pytest

from sim.core.cards import make_pack
from sim.core.errors import UnknownParameter
from sim.core.progression import ProgressionSpec
from sim.core.rng import kernel_state
from sim.games.cribbage import (
    GAME,
    CribbageRules,
    DiscardPolicy,
    best_keep_counts,
    expected_hand,
    game_counts,
    hand_counts,
    parse_cards,
    play_deal,
    score_deals,
    show_breakdown,
    show_counts,
    show_score,
    simulate_policy,
)
from sim.games.cribbage.kernel import policy_arrays
from sim.games.cribbage.report import REPORT
from sim.games.cribbage.statistics import score_patterns
from strategies.base import FunctionStrategy, parameters, resolve
from strategies.cribbage import BestHand, FirstCards, HandAndCrib, HighestCount


def score(hand: str, starter: str, crib: bool = False) -> int:
    return show_score(parse_cards(hand), parse_cards(starter)[0], crib)


@pytest.mark.parametrize("hand, starter, crib, points", [
    ("5c 5d 5h Js", "5s", False, 29),           # the perfect hand
    ("5c 5d 5h Jc", "5s", False, 28),           # the jack not of the starter's suit
    ("5c 5d 5h 5s", "Kd", False, 28),
    ("5c 5d 5h 5s", "Jd", False, 28),           # a jack starter: no nobs (heels is the dealer's)
    ("As 6s 7s 8s", "6h", False, 18),           # seed 000's worked example
    ("Kc 5h 5d", "5s", False, 14),              # seed 003: five-card non-dealer
    ("7c 6h 6d", "5s", False, 8),               # seed 003: dealer
    ("Qc 4h 3d 3s", "5s", True, 12),            # seed 003: crib
    ("4c 4h 5d 6s 6d", "5h", False, 46),        # the seven-card maximum
    ("2c 4d 6h 8s", "Tc", False, 0),            # nineteen
    ("9c 9d 6h 6s", "Kc", False, 12),           # seed 003: fifteen eight and two pairs
    ("9c 3d 3h 3s", "Kc", False, 12),           # seed 003: three fifteens and a pair royal
    ("3c 3d 4h 5s", "Kc", False, 12),           # two runs, a pair, K5 and 3345 fifteens
])
def test_scorer_on_the_texts_hands(hand, starter, crib, points):
    assert score(hand, starter, crib) == points


def test_flush_rules_and_nobs():
    assert show_breakdown(parse_cards("2h 4h 8h Th"), parse_cards("Qc")[0]).flush == 4
    assert show_breakdown(parse_cards("2h 4h 8h Th"), parse_cards("Qh")[0]).flush == 5
    # the crib scores a flush only with all five of a suit
    assert show_breakdown(parse_cards("2h 4h 8h Th"), parse_cards("Qc")[0], True).flush == 0
    assert show_breakdown(parse_cards("2h 4h 8h Th"), parse_cards("Qh")[0], True).flush == 5
    assert show_breakdown(parse_cards("2h 4h 8h"), parse_cards("Qc")[0]).flush == 3
    assert show_breakdown(parse_cards("2h 4h 8h Th Kc"), parse_cards("Qc")[0]).flush == 0
    # his nobs with a flush: both count
    got = show_breakdown(parse_cards("2h 4h 8h Jh"), parse_cards("Qh")[0])
    assert (got.flush, got.nobs) == (5, 1)
    assert show_breakdown(parse_cards("Jc 2d 4h 8s"), parse_cards("Kc")[0], True).nobs == 1


STRIPPED = make_pack(ranks=[2, 3, 4, 9, 10], suits=3)  # 3, 4, 5, ten, jack in three suits


@pytest.mark.parametrize("k, crib", [(3, False), (4, False), (4, True), (5, False)])
def test_show_counts_match_brute_force(k, crib):
    pack = STRIPPED.tolist()
    brute = np.zeros(64, dtype=np.int64)
    for hand in itertools.combinations(pack, k):
        for starter in pack:
            if starter not in hand:
                brute[show_score(hand, starter, crib)] += 1
    assert (show_counts(k, crib, STRIPPED) == brute).all()


@pytest.mark.parametrize("pack", [make_pack(ranks=[2, 4, 9, 10], suits=3),
                                  make_pack(ranks=[3, 4, 10, 11], suits=3)[1:]],
                         ids=["rectangular", "ragged"])
@pytest.mark.parametrize("dealt, kept", [(6, 4), (5, 4), (5, 3)])
def test_best_keep_counts_match_brute_force(pack, dealt, kept):
    cards = pack.tolist()
    brute = np.zeros(64, dtype=np.int64)
    for deal in itertools.combinations(cards, dealt):
        for starter in cards:
            if starter not in deal:
                brute[max(show_score(k, starter) for k in
                          itertools.combinations(deal, kept))] += 1
    assert (best_keep_counts(dealt, kept, pack) == brute).all()


def test_full_pack_distribution():
    counts = hand_counts(4)
    assert counts.sum() == 12_994_800
    assert (counts[29], counts[28], counts[24], counts[0]) == (4, 76, 3680, 1_009_008)
    assert [s for s in range(30) if counts[s] == 0] == [19, 25, 26, 27]


def test_the_texts_odds_in_a_game():
    from fractions import Fraction

    two = game_counts(6, 4)
    assert Fraction(int(two[29]), int(two.sum())) == Fraction(1, 216_580)
    assert Fraction(int(two[28]), int(two.sum())) == Fraction(15_579, 234_122_980)
    assert round(two.sum() / two[28]) == 15_028
    more = game_counts(5, 4)
    assert Fraction(int(more[29]), int(more.sum())) == Fraction(1, 649_740)
    assert score_patterns(24) == "A7777 33339 36666 44447 44556 44566 45566 67788 77889".split()


def test_expected_hand_is_the_mean_over_unseen_starters():
    rng = np.random.default_rng(3)
    for _ in range(50):
        dealt = tuple(int(c) for c in rng.choice(52, 6, replace=False))
        kept = dealt[1:5]
        brute = np.mean([show_score(kept, s) for s in range(52) if s not in dealt])
        assert math.isclose(expected_hand(dealt, kept), brute, rel_tol=0, abs_tol=1e-12)


@pytest.mark.parametrize("strategy", [FirstCards(), HighestCount(), BestHand(),
                                      HandAndCrib(crib_weight=0.5, play="cautious")],
                         ids=lambda s: s.name)
def test_asking_for_the_policy_changes_nothing_on_the_strategy(strategy):
    before = pickle.dumps(strategy)
    tables = {preset: strategy.as_table(rules) for preset, rules in GAME.presets.items()}
    assert pickle.dumps(strategy) == before
    assert set(tables.values()) == {strategy.policy}  # the policy does not depend on the rules


def test_the_built_ins_take_how_they_play_and_only_hand_and_crib_a_crib_weight():
    for strategy in (FirstCards, HighestCount, BestHand):
        assert parameters(strategy) == "play='greedy', dealer_play=''"
    assert parameters(HandAndCrib) == "crib_weight=1.0, play='greedy', dealer_play=''"
    with pytest.raises(UnknownParameter):
        resolve("cribbage", "best-hand", {"crib_weight": 2.0})
    assert resolve("cribbage", "hand-and-crib", {"crib_weight": 2.0, "dealer_play": "first"}
                   ).policy == DiscardPolicy("hand-crib", 2.0, "greedy", "first")


@pytest.mark.parametrize("preset", ["six-card", "five-card", "seven-card", "three-player",
                                    "four-player", "six-card-pegging"])
@pytest.mark.parametrize("strategy", [FirstCards(), HighestCount(), BestHand(),
                                      HandAndCrib(play="first", dealer_play="cautious")],
                         ids=lambda s: s.name)
def test_reference_and_kernel_score_the_same_deals(preset, strategy):
    rules = GAME.presets[preset]
    rng = np.random.default_rng(11)
    deals = np.array([rng.choice(52, rules.cards_used, replace=False) for _ in range(40)],
                     dtype=np.int64)
    hands, evs, cribs, heels, pegs = score_deals(deals, *policy_arrays(rules, strategy.policy))
    for i, cards in enumerate(deals):
        deal = play_deal(cards.tolist(), rules, strategy)
        assert deal.hands == tuple(hands[i]) and deal.crib == cribs[i] and deal.heels == heels[i]
        assert np.allclose(deal.expected, evs[i])
        assert deal.pegs == tuple(pegs[i])


@pytest.mark.parametrize("preset, seat", [("six-card", "pone"), ("six-card", "dealer"),
                                          ("five-card", "dealer"), ("four-player", "pone"),
                                          ("three-player", "dealer")])
def test_random_keep_simulates_its_exact_value(preset, seat):
    import dataclasses

    rules = dataclasses.replace(GAME.presets[preset], seat=seat)
    stats = GAME.simulate(rules, FirstCards(), None, 40_000, np.random.SeedSequence(5))
    columns = REPORT.columns(stats)
    exact = GAME.exact(rules, FirstCards(), ProgressionSpec()).mean_net
    assert abs(stats.mean_net - exact) < 4 * stats.std_net / math.sqrt(stats.rounds)
    counts = hand_counts(rules.hand_size)
    p0 = counts[0] / counts.sum()
    z0 = (columns["p_hand_0"] - p0) / math.sqrt(p0 * (1 - p0) / stats.rounds)
    assert abs(z0) < 4


def test_reference_path_simulates_like_the_kernel():
    rules = CribbageRules(seat="dealer")
    kernel = simulate_policy(rules, DiscardPolicy("hand"), 20_000,
                             kernel_state(np.random.SeedSequence(1)))
    plain = FunctionStrategy(lambda view, rng: BestHand().decide(view, rng))  # no table
    reference = GAME.simulate_reference(rules, plain, ProgressionSpec(), 2_000,
                                        np.random.SeedSequence(2))
    se = math.hypot(kernel.std_net / math.sqrt(kernel.rounds),
                    reference.std_net / math.sqrt(reference.rounds))
    assert abs(kernel.mean_net - reference.mean_net) / se < 4


def test_bad_rules_and_illegal_discards():
    with pytest.raises(ValueError, match="cards_dealt"):
        CribbageRules(cards_dealt=6, players=3)
    with pytest.raises(ValueError, match="seat"):
        CribbageRules(seat="crib")
    from sim.core.errors import IllegalActionError

    with pytest.raises(IllegalActionError, match="different cards"):
        play_deal(list(range(13)), CribbageRules(),
                  FunctionStrategy(lambda view, rng: view.cards[:1]))


def test_a_policy_simulates_its_exact_value_with_five_cards_dealt():
    rules = CribbageRules(cards_dealt=5, players=4)  # the pone's side: two hands
    stats = GAME.simulate(rules, HandAndCrib(), None, 30_000, np.random.SeedSequence(8))
    exact = GAME.exact(rules, HandAndCrib(), ProgressionSpec()).mean_net
    assert 12 < exact < 14  # two hands kept from five cards
    assert abs(stats.mean_net - exact) < 4 * stats.std_net / math.sqrt(stats.rounds)


@pytest.mark.parametrize("sequence, points", [
    ([9, 4], 2), ([9, 4, 4], 2), ([9, 4, 4, 4], 6), ([9, 4, 4, 4, 5], 2),  # seed 000's play
    ([8, 6, 7], 3), ([5, 5, 3, 1, 2], 3), ([4, 4, 4, 4], 12),  # 9-7-8; 6-6-4-2-3; four fives
    ([0, 2, 1, 3], 4), ([4, 4, 4, 4, 0], 0)])
def test_play_scores(sequence, points):
    from sim.games.cribbage.pegging import card_points

    assert card_points(sequence) == points


@pytest.mark.parametrize("play, dealer_play", [("first", None), ("greedy", None),
                                               ("cautious", None), ("greedy", "cautious")])
def test_pegging_paths_agree_and_the_dealer_always_pegs(play, dealer_play):
    from sim.games.cribbage.pegging import kernel_peg_ranks, peg

    rng = np.random.default_rng(2)
    for _ in range(500):
        ranks = (rng.choice(52, 8, replace=False) // 4).tolist()
        got = peg(ranks[:4], ranks[4:], play, dealer_play)
        assert got == kernel_peg_ranks(ranks[:4], ranks[4:], play, dealer_play)
        assert got[1] >= 1  # seed 000: the dealer always pegs at least one (two, six cards)
