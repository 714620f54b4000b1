"""Piquet: declarations and the contest, exact odds against brute-force enumeration of
stripped packs, the exchange value against enumeration and simulation, and the kernel against
the reference deal on the same packs."""

import itertools
import math
import pickle
from fractions import Fraction
from math import comb

import numpy as np
import pytest

from sim.core.progression import ProgressionSpec
from sim.core.rng import kernel_state
from sim.games.piquet import GAME
from sim.games.piquet import exact as exact_odds
from sim.games.piquet.deal import play_reference, simulate_table
from sim.games.piquet.hand import contest, evaluate, masks_of, parse_card, unopposed
from sim.games.piquet.report import REPORT
from sim.games.piquet.rules import PiquetRules, PiquetView
from strategies.piquet import Cautious, Combinations, Lowest, Point


def hand(text):
    return np.array([parse_card(c) for c in text.split()], dtype=np.int64)


def m(text):
    return masks_of(hand(text))


def test_declarations_of_a_hand():
    e = evaluate(m("Ah Kh Qh Jh 10h 7h As Ad Ac 9s 8s 7s"), 3)
    assert e[:2] == (6, 58)                 # point of six, 11 + 4 x 10 + 7
    assert e[2:5] == (5, 7, 18)             # quint to the ace (15) and a tierce (3)
    assert e[5:8] == (4, 7, 14)             # quatorze of aces
    assert unopposed(m("Ah Kh Qh Jh 10h 7h As Ad Ac 9s 8s 7s"), 3) == 38
    assert evaluate(m("Kh Kd Ks 7c"), 3)[5:8] == (3, 6, 3)   # trio of kings
    assert evaluate(m("9h 9d 9s 9c"), 3)[5:8] == (0, -1, 0)  # nines make no set ...
    assert evaluate(m("9h 9d 9s 9c"), 2)[5:8] == (4, 2, 14)  # ... unless sets count from 9


def test_contest_scores_point_sequence_set_and_repique():
    elder = m("Ah Kh Qh Jh 10h 7h As Ad Ac 9s 8s 7s")
    younger = m("9h 8h Kd Qd 10d 9d Ks Qs Js 10s Kc Qc")
    ep, yp, er, yr, pe, se = contest(elder, younger, False, False, 3, 10, 60)
    # elder: point 6 (vs 4), quint to the ace beats younger's quart, quatorze of aces beats
    # trio of kings: 6 + 18 + 14 = 38 >= 30 and younger nothing: repique, 98
    assert (ep, yp, er, yr, pe, se) == (98, 0, True, False, False, False)
    # equal points: neither scores, and no repique
    a, b = m("Ah Kh 9h 8h"), m("As Ks 9s 8s")
    assert contest(a, b, False, False, 3, 10, 60)[:5] == (0, 0, False, False, True)
    # carte blanche: elder's first
    assert contest(m("7h"), m("8s"), True, True, 3, 10, 60)[:2] == (10, 1)  # and a point of 1


# ------------------------------------------------------------------ exact vs brute force
def test_dealt_distributions_match_enumeration_of_a_stripped_pack():
    ranks, hand_size = 5, 5  # 7 8 9 10 J of four suits; hands of five
    cards = [s * 8 + r for s in range(4) for r in range(ranks)]
    point, sequence, sets = {}, {}, {}
    for h in itertools.combinations(cards, hand_size):
        e = evaluate(masks_of(np.array(h, dtype=np.int64)), 3)
        point[e[0]] = point.get(e[0], 0) + 1
        sequence[e[2]] = sequence.get(e[2], 0) + 1
        sets[e[7]] = sets.get(e[7], 0) + 1
    assert exact_odds.point_length_counts(hand_size, ranks) == dict(sorted(point.items()))
    assert exact_odds.sequence_length_counts(hand_size, ranks) == dict(sorted(sequence.items()))
    assert exact_odds.set_score_counts(hand_size, ranks, sets_from=3) == dict(
        sorted(sets.items()))


@pytest.mark.parametrize("ranks, hand_size", [(5, 5), (6, 5), (5, 7)])
def test_mean_score_and_quatorze_match_enumeration_of_a_stripped_pack(ranks, hand_size):
    cards = [s * 8 + r for s in range(4) for r in range(ranks)]
    total, quatorze, count = 0, 0, 0
    for h in itertools.combinations(cards, hand_size):
        mk = masks_of(np.array(h, dtype=np.int64))
        total += int(unopposed(mk, 3))
        quatorze += evaluate(mk, 3)[5] == 4
        count += 1
    assert exact_odds.mean_dealt_score(hand_size, 3, ranks) == Fraction(total, count)
    assert exact_odds.p_quatorze(hand_size, 3, ranks) == Fraction(quatorze, count)


def test_full_pack_figures():
    assert exact_odds.p_carte_blanche() == Fraction(comb(20, 12), comb(32, 12))
    assert round(1 / float(exact_odds.p_carte_blanche()) - 1) == 1791  # 1791 to 1 against
    for counts in (exact_odds.point_length_counts(), exact_odds.sequence_length_counts(),
                   exact_odds.set_score_counts()):
        assert sum(counts.values()) == comb(32, 12)
    sets = exact_odds.distribution(exact_odds.set_score_counts())
    point = exact_odds.distribution(exact_odds.point_length_counts())
    mean = exact_odds.mean_dealt_score()
    mean_sets = sum(k * p for k, p in sets.items())
    mean_point = sum(k * p for k, p in point.items())
    assert 0 < mean - mean_sets - mean_point < 5  # the sequences' share


@pytest.mark.parametrize("draws", [1, 2, 3])
def test_take_in_odds_match_enumeration(draws):
    unseen = 10
    for wanted in (1, 2, 3):
        for at_least in range(1, min(wanted, draws) + 1):
            hits = sum(sum(c < wanted for c in s) >= at_least
                       for s in itertools.combinations(range(unseen), draws))
            assert exact_odds.take_in_odds(draws, wanted, at_least, unseen) == Fraction(
                hits, comb(unseen, draws))
    assert exact_odds.take_in_odds(5, 1, 1) == Fraction(1, 4)  # elder: one card in five


def test_exchange_value_matches_enumeration_and_simulation():
    h = [int(c) for c in hand("Ah Kh Qh 9h 7h As Kd 10d 8d 9c 8c 7s")]
    unseen = [c for c in range(32) if c not in h]
    discard = h[-3:]
    kept = [c for c in h if c not in discard]
    total = [int(unopposed(masks_of(np.array(kept + list(s))), 3))
             for s in itertools.combinations(unseen, 3)]
    exact = exact_odds.exchange_value(h, discard)
    assert exact == Fraction(sum(total), len(total))
    rng = np.random.default_rng(8)
    n = 20_000
    draws = [int(unopposed(masks_of(np.array(kept + list(rng.permutation(unseen)[:3]))), 3))
             for _ in range(n)]
    sd = float(np.std(total))
    assert abs((np.mean(draws) - float(exact)) / (sd / math.sqrt(n))) < 4


# --------------------------------------------------------------- the deal, both paths
@pytest.mark.parametrize("strategy", [Lowest(), Point(), Combinations(), Cautious(),
                                      Combinations(younger={"younger_take": 2})])
@pytest.mark.parametrize("preset", ["classic", "sets-from-nine", "no-minimum",
                                    "younger-takes-all"])
def test_kernel_and_reference_agree_on_the_same_packs(strategy, preset):
    rules = GAME.presets[preset]
    rng = np.random.default_rng(3)
    orders = np.array([rng.permutation(32) for _ in range(300)])
    # the reference deals first: it counts sets from the rules, never from a table asked for
    total_net, totals = 0.0, {}
    for order in orders:
        net, counters = play_reference(order, rules, strategy, rng)
        total_net += net
        for k, v in counters.items():
            totals[k] = totals.get(k, 0.0) + v
    kernel = simulate_table(rules, strategy.as_table(rules), len(orders),
                            kernel_state(np.random.SeedSequence(1)), orders)
    assert kernel.sums["sum_net"] == total_net
    assert kernel.counters == totals


@pytest.mark.parametrize("strategy", [Lowest(), Point(), Combinations(), Cautious(),
                                      Combinations(younger={"younger_take": 2}, sets=10)])
def test_asking_for_the_table_changes_nothing_on_the_strategy(strategy):
    before = pickle.dumps(strategy)
    tables = {preset: strategy.as_table(rules) for preset, rules in GAME.presets.items()}
    assert pickle.dumps(strategy) == before
    assert len(set(tables.values())) == 1  # the policies do not depend on the rules


def test_sets_from_nine_change_what_a_policy_discards_on_the_reference_path():
    # 9h 9d make a pair towards a trio only where sets count from the nine: the policy keeps
    # both there, and under the texts' rules lays the nine of diamonds (in no run) away
    hand = tuple(sorted(parse_card(c) for c in
                        "9h 9d 7s 8c 10s Js Qc Kc Ad 8h 7d 10c".split()))
    strategy = Combinations()
    discards = {}
    for preset in ("classic", "sets-from-nine"):
        rules = GAME.presets[preset]
        view = PiquetView(hand, "elder", rules.minimum_exchange, rules.elder_max, rules)
        discards[preset] = set(strategy.decide(view, None))
    nines = {parse_card("9h"), parse_card("9d")}
    assert parse_card("9d") in discards["classic"]
    assert not nines & discards["sets-from-nine"]


def test_simulated_dealt_figures_match_exact():
    stats = GAME.simulate(PiquetRules(), Combinations(), ProgressionSpec(), 100_000,
                          np.random.SeedSequence(12))
    cols = REPORT.columns(stats)
    for name in ("z_dealt_score", "z_carte_blanche", "z_quatorze"):
        assert abs(cols[name]) < 4, (name, cols[name])
    assert cols["elder_took"] == 5 and cols["younger_took"] == 3
    # the exchange improves the hand: elder's unopposed score after it beats the dealt one
    assert cols["elder_after"] > cols["dealt_score"] + 4


def test_a_user_strategy_and_an_illegal_discard():
    def keep_all_but_first(view: PiquetView, rng):
        return list(view.hand[:max(view.low, 1)])

    flat = ProgressionSpec()
    stats = GAME.simulate(PiquetRules(), keep_all_but_first, flat, 50, np.random.SeedSequence(2))
    assert stats.rounds == 50 and stats.counter_rate("elder_took") == 1
    with pytest.raises(ValueError, match="discarded"):
        GAME.simulate(PiquetRules(), lambda v, r: [], flat, 5, np.random.SeedSequence(2))
