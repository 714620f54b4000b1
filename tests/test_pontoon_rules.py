"""Pontoon rules, presets and hand arithmetic against the rules page."""

import dataclasses

import numpy as np
import pytest

from sim.core.progression import ProgressionSpec
from sim.games.pontoon import GAME, BankerTable, Move, PlayerTable
from sim.games.pontoon.exact_deal import deal_exact
from sim.games.pontoon.hand import (
    BANKER_SHAPE,
    BUST,
    FIVE,
    PONTOON,
    banker_score,
    best_total,
    hand_key,
    is_pontoon_pair,
    key_parts,
    pair_splittable,
    player_score,
    rule_vectors,
    settle,
    settle_banker_pontoon,
)
from sim.games.pontoon.players import TableBanker, TablePlayer
from sim.games.pontoon.rules import PRESETS, PontoonRules
from sim.games.pontoon.solver import best_banker
from sim.games.pontoon.views import hand_totals

A, TEN, J, Q, K = 0, 9, 10, 11, 12


def rank(symbol: str) -> int:
    return "A23456789TJQK".index(symbol)


def cards(text: str) -> tuple[int, ...]:
    return tuple(rank(c) for c in text)


@pytest.mark.parametrize("hand, total, soft", [
    ("A6", 17, True), ("A6T", 17, False), ("AA", 12, True), ("AA9", 21, True),
    ("T9", 19, False), ("AK", 21, True), ("55A", 21, True), ("K5A", 16, False),
    ("23A", 16, True), ("T5K", 25, False),
])
def test_totals_count_an_ace_as_eleven_where_it_does_not_bust(hand, total, soft):
    assert hand_totals(cards(hand)) == (total, soft)


def test_pontoon_is_an_ace_and_a_ten_card():
    assert is_pontoon_pair(A, K) and is_pontoon_pair(TEN, A)
    assert not is_pontoon_pair(A, rank("9")) and not is_pontoon_pair(K, Q)


def test_scores_rank_pontoon_over_five_card_trick_over_21():
    assert player_score(21, True, 2, True) == PONTOON
    assert player_score(14, False, 5, False) == FIVE  # five cards, 21 or under
    assert player_score(21, False, 3, False) == 21
    assert player_score(22, False, 5, False) == BUST
    assert banker_score(17, False, 5, True) == FIVE
    assert banker_score(17, False, 5, False) == 17  # his five card rule off: a plain total
    assert best_total(11, True) == (21, True)


BRITISH = PRESETS["british-home"]
RI, RF = rule_vectors(BRITISH)


@pytest.mark.parametrize("p, b, net", [
    (PONTOON, 20, 2.0), (PONTOON, BUST, 2.0), (PONTOON, FIVE, 2.0),   # pontoons paid double
    (FIVE, 21, 2.0), (FIVE, BUST, 2.0), (FIVE, FIVE, -2.0),           # banker's trick: double
    (20, FIVE, -2.0), (19, BUST, 1.0), (BUST, BUST, -1.0),            # bust loses anyway
    (20, 19, 1.0), (19, 19, -1.0), (18, 19, -1.0), (21, 21, -1.0),    # ties to the banker
])
def test_settlement_follows_the_rules_page(p, b, net):
    assert settle(p, b, True, RF) == net


def test_ties_push_and_single_payment_variants():
    rules = dataclasses.replace(BRITISH, banker_wins_ties=False, pontoon_pays=1.0,
                                five_card_trick_pays=1.0, banker_five_card_trick_collects=1.0)
    _, rf = rule_vectors(rules)
    assert settle(19, 19, False, rf) == 0.0
    assert settle(PONTOON, 20, False, rf) == 1.0
    assert settle(FIVE, 20, False, rf) == 1.0
    assert settle(20, FIVE, False, rf) == -1.0


def test_banker_pontoon_collects_double_even_from_a_pontoon():
    assert settle_banker_pontoon(False, True, RF) == -2.0
    assert settle_banker_pontoon(True, True, RF) == -2.0
    _, rf = rule_vectors(dataclasses.replace(BRITISH, banker_wins_ties=False,
                                             banker_pontoon_collects=1.0))
    assert settle_banker_pontoon(True, False, rf) == 0.0
    assert settle_banker_pontoon(False, False, rf) == -1.0


def test_splitting_ten_cards_needs_the_same_rank():
    assert pair_splittable(K, K, RI) and not pair_splittable(K, Q, RI)
    ri, _ = rule_vectors(dataclasses.replace(BRITISH, split_unequal_tens=True))
    assert pair_splittable(K, Q, ri)
    ri, _ = rule_vectors(PRESETS["aces-only-split"])
    assert pair_splittable(A, A, ri) and not pair_splittable(rank("8"), rank("8"), ri)


def test_banker_signal_keys():
    key = hand_key(3, 9, 3, 15)  # bought 2x: stake 3x, three face-down cards: shows 15+
    assert key_parts(key) == (3, 15)
    assert key_parts(hand_key(1, 19, 4, 15)) == (1, 19)
    assert key_parts(hand_key(1, 10, 5, 15)) == (1, 22)  # five cards: a trick
    assert key_parts(hand_key(9, 30, 3, 15)) == (7, 21)  # clipped


def test_presets_differ_from_the_default_only_where_named():
    base = dataclasses.asdict(PRESETS["british-home"])
    assert {k for k, v in dataclasses.asdict(PRESETS["ties-push"]).items()
            if base[k] != v} == {"banker_wins_ties"}
    assert {k for k, v in dataclasses.asdict(PRESETS["no-fifth-card-buy"]).items()
            if base[k] != v} == {"buy_fifth_card"}
    assert {k for k, v in dataclasses.asdict(PRESETS["aces-only-split"]).items()
            if base[k] != v} == {"split_pairs"}
    assert {k for k, v in dataclasses.asdict(PRESETS["reshuffle-every-deal"]).items()
            if base[k] != v} == {"reshuffle"}
    rtg = PRESETS["pontoon-rtg"]
    assert rtg.packs == 8 and rtg.reshuffle == "every-deal" and rtg.max_buys == 1
    assert rtg.first_buy_max == 1 and not rtg.bank_passes and rtg.banker_hits_soft_17


@pytest.mark.parametrize("field, value, expected", [
    ("packs", 0, "an integer 1..8"), ("packs", True, "an integer 1..8"),
    ("ranks", "AX", "distinct rank symbols"), ("ranks", "AA", "distinct rank symbols"),
    ("suits", 5, "an integer 1..4"), ("players", 8, "an integer 1..7"),
    ("min_stake", 0, "a positive number"), ("max_stake", 0.5, "at least min_stake"),
    ("pontoon_pays", 1.3, "a multiple of 0.5"), ("stick_min", 11, "an integer 12..21"),
    ("max_buys", 4, "an integer 0..3"), ("first_buy_max", 3, "1 or 2"),
    ("split_pairs", "tens", "'any' or 'aces' or 'none'"), ("max_hands", 5, "an integer 1..4"),
    ("reshuffle", "never", "'pontoon' or 'every-deal'"), ("bank_passes", 1, "true or false"),
])
def test_bad_rule_values_are_rejected_with_the_field_named(field, value, expected):
    with pytest.raises(ValueError, match=f"^{field}: expected .*{expected}"):
        dataclasses.replace(BRITISH, **{field: value})


def test_a_pack_too_small_to_deal_is_rejected():
    with pytest.raises(ValueError, match="ranks: a pack of 3 cards"):
        PontoonRules(ranks="AKQ", suits=1)
    PontoonRules(ranks="AKQ", suits=1, infinite_deck=True)  # draws with replacement


def test_stripped_packs():
    rules = PontoonRules(ranks="A5T", suits=2, packs=2)
    assert rules.n_cards == 12
    assert np.bincount(rules.pack_ranks(), minlength=13).tolist() == [
        4, 0, 0, 0, 4, 0, 0, 0, 0, 4, 0, 0, 0]
    assert rules.rank_probabilities()[0] == pytest.approx(1 / 3)


def test_the_banker_hits_soft_17_where_the_rules_say_so():
    rules = dataclasses.replace(PRESETS["reshuffle-every-deal"], banker_hits_soft_17=True)
    assert PRESETS["pontoon-rtg"].banker_hits_soft_17
    table = PlayerTable.threshold(rules, 16, 18, split="A8")
    forced = deal_exact(rules, table, BankerTable.stand_on(17)).value()
    chosen = deal_exact(PRESETS["reshuffle-every-deal"], table,
                        BankerTable.stand_on(17, hit_soft=True)).value()
    assert forced.mean_net == pytest.approx(chosen.mean_net, abs=1e-15)
    assert BankerTable.stand_on(17).under(rules).digest == BankerTable.stand_on(
        17, hit_soft=True).digest
    best = best_banker(rules, table).banker
    assert best.draw[:, :, 1, 17].all()


class NeverDraws:
    """A banker written in Python who never draws."""

    name, role = "never-draws", "banker"

    def decide(self, view, rng):
        return Move.STICK


def test_a_python_banker_is_made_to_hit_soft_17():
    rules = dataclasses.replace(PRESETS["reshuffle-every-deal"], banker_hits_soft_17=True)
    never = NeverDraws()
    draw = np.zeros(BANKER_SHAPE, dtype=np.uint8)
    draw[:, :, 1, 17] = 1
    soft17_only = TableBanker(BankerTable(draw, keyed=False))
    punter = TablePlayer(PlayerTable.threshold(rules, 16, 18))
    nets = []
    for banker in (never, soft17_only):
        stats = GAME.simulate_reference(rules, TablePlayer(punter.table_for(rules), banker),
                                        ProgressionSpec(), 3000, np.random.SeedSequence(5))
        nets.append((stats.mean_net, stats.counters["banker_busts"]))
    assert nets[0] == nets[1]
