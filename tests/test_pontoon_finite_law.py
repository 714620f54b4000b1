"""The exact law of a deal's net from a finite pack shuffled every deal, against brute-force
enumeration of every deal of small packs and against the exact mean of full packs."""

import dataclasses
from collections import defaultdict

import numpy as np
import pytest

from sim.core.progression import ProgressionSpec
from sim.games.pontoon import GAME, BankerTable, PlayerTable, PontoonRules, finite_law
from sim.games.pontoon.exact_deal import first_deal_value
from sim.games.pontoon.players import TableBanker, TablePlayer
from sim.risk.law import RoundLaw
from tests.test_pontoon_exact import buying_table, replay_deals

EVERY_DEAL = "every-deal"

# Small packs in which no deal can run out of cards (the law assumes it, as the mean does).
SMALL = {
    "threshold": (PontoonRules(ranks="A6T", suits=2, packs=2, reshuffle=EVERY_DEAL),
                  lambda r: PlayerTable.threshold(r, 16, 18), BankerTable.stand_on(17)),
    "buys-stakes": (PontoonRules(ranks="A2T", suits=3, packs=2, reshuffle=EVERY_DEAL),
                    buying_table, BankerTable.stand_on(17, hit_soft=True)),
    "splits": (PontoonRules(ranks="A8T", suits=3, packs=2, reshuffle=EVERY_DEAL, max_hands=2),
               lambda r: PlayerTable.threshold(r, 16, 18, split="A8"),
               BankerTable.stand_on(17)),
    "resplits": (PontoonRules(ranks="8T", suits=4, packs=4, reshuffle=EVERY_DEAL,
                              max_hands=3, banker_wins_ties=False),
                 lambda r: PlayerTable.threshold(r, 16, 18, split="8"),
                 BankerTable.stand_on(16)),
    "unequal-tens": (PontoonRules(ranks="AJQ", suits=3, packs=2, reshuffle=EVERY_DEAL,
                                  split_unequal_tens=True, max_hands=2,
                                  split_pontoon_counts=False),
                     lambda r: PlayerTable.threshold(r, 16, 18, split="AJQ"),
                     BankerTable.stand_on(17)),
    "burn": (PontoonRules(ranks="A67T", suits=2, packs=2, reshuffle=EVERY_DEAL,
                          burn_hard_13=True),
             lambda r: PlayerTable.threshold(r, 17, 18, burn=True), BankerTable.stand_on(17)),
    "half-stakes": (PontoonRules(ranks="A5T", suits=2, packs=2, reshuffle=EVERY_DEAL,
                                 pontoon_pays=1.5, banker_pontoon_collects=1.0,
                                 banker_five_card_trick=False, max_buys=1, first_buy_max=1),
                    buying_table, BankerTable.stand_on(17)),
}


def enumerated_law(rules, table, banker):
    """The law of the first deal's net, by replaying the reference deal on every sequence."""
    law = defaultdict(float)

    def visit(deal, prob):
        law[round(deal.net, 9)] += prob

    replay_deals(rules, TablePlayer(table), TableBanker(banker), visit)
    return law


@pytest.mark.parametrize("case", list(SMALL))
def test_finite_law_matches_enumeration_of_every_deal(case):
    rules, make_table, banker = SMALL[case]
    table = make_table(rules)
    assert finite_law.reaches(rules, table, banker)
    law = finite_law.deal_law(rules, table, banker)
    brute = enumerated_law(rules, table, banker)
    assert sorted(brute) == law.values.tolist()
    assert law.probs == pytest.approx([brute[v] for v in law.values.tolist()], abs=1e-12)


@pytest.mark.parametrize("packs, split, max_hands", [(1, "", 4), (1, "A8", 2), (8, "8", 3)])
def test_finite_law_has_the_exact_mean(packs, split, max_hands):
    rules = PontoonRules(packs=packs, reshuffle=EVERY_DEAL, max_hands=max_hands)
    for table in (PlayerTable.threshold(rules, 16, 18, split=split),
                  buying_table(rules, split=split)):
        law = finite_law.deal_law(rules, table, BankerTable.stand_on(17))
        assert law.probs.sum() == pytest.approx(1.0, abs=1e-12)
        exact = first_deal_value(rules, table, BankerTable.stand_on(17))
        assert law.mean == pytest.approx(exact.mean_net, abs=1e-12)


def test_finite_law_gives_up_past_its_budget():
    rules = PontoonRules(reshuffle=EVERY_DEAL)
    table = PlayerTable.threshold(rules, 16, 18, split="A8")
    assert finite_law.deal_law(rules, table, BankerTable.stand_on(17), budget=1_000) is None


def test_finite_law_is_only_for_a_pack_shuffled_every_deal_and_a_banker_on_his_own_cards():
    rules = PontoonRules(reshuffle=EVERY_DEAL)
    table = PlayerTable.threshold(rules, 16, 18)
    assert finite_law.reaches(rules, table, BankerTable.stand_on(17))
    assert not finite_law.reaches(rules, table, BankerTable.adaptive(rules))
    assert not finite_law.reaches(dataclasses.replace(rules, reshuffle="pontoon"), table,
                                  BankerTable.stand_on(17))
    assert not finite_law.reaches(dataclasses.replace(rules, players=2), table,
                                  BankerTable.stand_on(17))


def test_the_risk_programme_gets_the_law_of_a_pack_shuffled_every_deal():
    rules = PontoonRules(reshuffle=EVERY_DEAL, max_hands=2)
    table = (PlayerTable.threshold(rules, 16, 18, split="8"), BankerTable.stand_on(17))
    pairs = GAME.round_law_table(rules, table, ProgressionSpec())
    law = RoundLaw.from_pairs(*pairs)
    assert law.step == 1.0
    assert law.mean == pytest.approx(first_deal_value(rules, *table).mean_net, abs=1e-12)
    carried = dataclasses.replace(rules, reshuffle="pontoon")
    assert GAME.round_law_table(carried, table, ProgressionSpec()) is None


def test_stakes_by_first_card_scale_that_cards_deals():
    rules = PontoonRules(reshuffle=EVERY_DEAL)
    flat = PlayerTable.threshold(rules, 16, 18)
    staked = flat.with_stakes((4.0,) + (1.0,) * 12)
    banker = BankerTable.stand_on(17)
    law = finite_law.deal_law(rules, staked, banker)
    assert law.mean == pytest.approx(first_deal_value(rules, staked, banker).mean_net,
                                     abs=1e-12)
    assert np.isin([-8.0, 8.0], law.values).all()  # a first ace, four units, doubled
    assert not np.isin([-8.0, 8.0], finite_law.deal_law(rules, flat, banker).values).any()
