"""Exact pontoon values against brute-force enumeration of every deal of small packs.

The enumeration replays the reference deal on every sequence of cards it can draw (a prefix
tree: when the deal asks for a card beyond the prefix, each possible next card is tried with
its probability), so it shares nothing with the exact recursion but the rules themselves.
"""

import dataclasses

import numpy as np
import pytest

from sim.games.pontoon import (
    BankerTable,
    PlayerTable,
    PontoonRules,
    Session,
    exact_deal,
    independent,
)
from sim.games.pontoon.exact_deal import deal_exact, first_deal_value, tens_alike
from sim.games.pontoon.hand import BUY1, BUY2, N_SCORES, PLAYER_SHAPE
from sim.games.pontoon.players import TableBanker, TablePlayer
from sim.games.pontoon.walk import walk_deal


class NeedCard(Exception):
    """The deal wants a card beyond the prefix."""


class PrefixPack:
    """A pack whose first cards are a fixed prefix; drawing past it raises NeedCard."""

    def __init__(self, prefix, size):
        self.prefix, self.size, self.pos = prefix, size, 0

    def draw(self):
        if self.pos >= len(self.prefix):
            raise NeedCard
        self.pos += 1
        return self.prefix[self.pos - 1], True

    def shuffle(self):
        self.pos = 0

    def to_bottom(self, cards):
        pass

    def gather(self, piles, varied):
        pass

    def __len__(self):
        return self.size - self.pos


def replay_deals(rules, player, banker, visit):
    """Call ``visit(deal, chance)`` for every first deal the reference plays, by replaying it
    on every card sequence it can draw."""
    counts = rules.rank_counts()
    probs = rules.rank_probabilities()
    size = 10**6 if rules.infinite_deck else rules.n_cards
    finite = dataclasses.replace(rules, infinite_deck=False)

    def walk(prefix, prob):
        session = Session(finite, player, banker, None)
        session.pack = PrefixPack(prefix, size)
        try:
            deal = session.play(np.random.default_rng(0))
        except NeedCard:
            left = counts - np.bincount(prefix, minlength=13) if prefix else counts
            for r in range(13):
                p = probs[r] if rules.infinite_deck else left[r] / left.sum()
                if p > 0:
                    walk(prefix + [r], prob * p)
            return
        visit(deal, prob)

    walk([], 1.0)


def enumerate_deals(rules, player, banker):
    """Expected (net, initial, wagered, busts, fives, hands) of the first deal, by replaying
    the reference deal on every card sequence."""
    totals = np.zeros(6)

    def visit(deal, prob):
        seat = deal.seats[0]
        totals[:] += prob * np.array([deal.net, deal.initial, deal.wagered, seat.busts,
                                      seat.fives, seat.hands])

    replay_deals(rules, player, banker, visit)
    return totals


def buying_table(rules, split="", burn=False, stakes=None):
    """Twist below 16 (soft 18), buy twice the stake on 9-11 with two cards and once on hard
    12 with three; stake more on a first ace."""
    table = PlayerTable.threshold(rules, 16, 18, split=split, burn=burn,
                                  stakes=stakes or (rules.max_stake,) + (rules.min_stake,) * 12)
    actions = table.actions.copy()
    if rules.max_buys:
        actions[0, 0, 0, :, 0, 9:12] = BUY2 if rules.first_buy_max == 2 else BUY1
        if rules.max_buys > 1:
            actions[1:3, 0, 1, :, 0, 12] = BUY1
    return PlayerTable(actions, table.split, table.burn, table.stakes)


SMALL = PontoonRules(ranks="A2T", suits=2, reshuffle="every-deal")
CASES = {
    "threshold": (SMALL, lambda r: PlayerTable.threshold(r, 16, 18), "stand17"),
    "buys-stakes": (SMALL, buying_table, "stand17"),
    "adaptive": (SMALL, buying_table, "adaptive"),
    "splits": (PontoonRules(ranks="A8T", suits=3, reshuffle="every-deal"),
               lambda r: PlayerTable.threshold(r, 16, 18, split="A8"), "stand17"),
    "splits-adaptive": (PontoonRules(ranks="A8T", suits=3, reshuffle="every-deal",
                                     max_hands=3),
                        lambda r: buying_table(r, split="A8T"), "adaptive"),
    "ten-ranks": (PontoonRules(ranks="AJQ", suits=3, reshuffle="every-deal",
                               banker_wins_ties=False, split_pontoon_counts=False),
                  lambda r: PlayerTable.threshold(r, 16, 18, split="AJQ"), "stand15soft"),
    "unequal-tens": (PontoonRules(ranks="AJQ", suits=2, reshuffle="every-deal",
                                  split_unequal_tens=True, banker_five_card_trick=False),
                     lambda r: PlayerTable.threshold(r, 16, 18, split="AJQ"), "adaptive"),
    "burn": (PontoonRules(ranks="A67T", suits=2, reshuffle="every-deal", burn_hard_13=True),
             lambda r: PlayerTable.threshold(r, 17, 18, burn=True), "stand17"),
    "casino": (dataclasses.replace(PontoonRules(ranks="A23T", suits=2), reshuffle="every-deal",
                                   max_buys=1, first_buy_max=1, buy_fifth_card=False,
                                   banker_pontoon_collects=1.0, pontoon_pays=1.5),
               buying_table, "stand17soft"),
    "stick-16": (PontoonRules(ranks="A56T", suits=2, reshuffle="every-deal", stick_min=16),
                 buying_table, "adaptive"),
}
BANKERS = {
    "stand17": lambda r: BankerTable.stand_on(17),
    "stand15soft": lambda r: BankerTable.stand_on(15, hit_soft=True),
    "stand17soft": lambda r: BankerTable.stand_on(17, hit_soft=True),
    "adaptive": lambda r: BankerTable.adaptive(r),
}


@pytest.mark.parametrize("case", list(CASES))
def test_finite_first_deal_matches_enumeration(case):
    rules, make_table, banker_name = CASES[case]
    table = make_table(rules)
    banker = BANKERS[banker_name](rules)
    exact = deal_exact(rules, table, banker)
    brute = enumerate_deals(rules, TablePlayer(table), TableBanker(banker))
    value = exact.value()
    assert value.mean_net == pytest.approx(brute[0], abs=1e-12)
    assert value.mean_initial_stake == pytest.approx(brute[1], abs=1e-12)
    assert value.mean_total_wagered == pytest.approx(brute[2], abs=1e-12)
    assert exact.events["busts"] == pytest.approx(brute[3], abs=1e-12)
    assert exact.events["fives"] == pytest.approx(brute[4], abs=1e-12)
    assert exact.events["hands"] == pytest.approx(brute[5], abs=1e-12)


@pytest.mark.parametrize("case, ranks", [("threshold", "A7T"), ("adaptive", "A7T"),
                                         ("splits", "A8T"), ("burn", "67T")])
def test_infinite_deck_matches_enumeration(case, ranks):
    rules, make_table, banker_name = CASES[case]
    rules = dataclasses.replace(rules, infinite_deck=True, max_hands=2, ranks=ranks)
    table = make_table(rules)
    banker = BANKERS[banker_name](rules)
    exact = deal_exact(rules, table, banker).value()
    brute = enumerate_deals(rules, TablePlayer(table), TableBanker(banker))
    assert exact.mean_net == pytest.approx(brute[0], abs=1e-12)
    assert exact.mean_total_wagered == pytest.approx(brute[2], abs=1e-12)


def test_two_seats_match_enumeration():
    rules = PontoonRules(ranks="A2T", suits=2, players=2, reshuffle="every-deal")
    table = buying_table(rules)
    banker = BankerTable.adaptive(rules)
    exact = deal_exact(rules, table, banker)
    brute = enumerate_deals(rules, TablePlayer(table), TableBanker(banker))
    assert exact.value().mean_net == pytest.approx(brute[0], abs=1e-12)
    assert exact.value().mean_total_wagered == pytest.approx(brute[2], abs=1e-12)


def test_ten_cards_are_merged_only_when_nothing_tells_them_apart():
    rules = PontoonRules()
    assert tens_alike(rules, PlayerTable.threshold(rules, split="A8"))
    assert not tens_alike(rules, PlayerTable.threshold(rules, split="AK"))
    assert not tens_alike(rules, PlayerTable.threshold(rules, stakes=(1.0,) * 12 + (2.0,)))
    assert tens_alike(dataclasses.replace(rules, split_unequal_tens=True),
                      PlayerTable.threshold(rules, split="TJQK"))


def test_more_packs_approach_the_infinite_deck():
    table = PlayerTable.threshold(PontoonRules(), 16, 18, split="A8")
    banker = BankerTable.stand_on(17)
    values = [first_deal_value(PontoonRules(packs=k, reshuffle="every-deal", max_hands=2),
                               table, banker).edge_per_initial_bet for k in (1, 2, 8)]
    infinite = first_deal_value(PontoonRules(infinite_deck=True, max_hands=2), table,
                                banker).edge_per_initial_bet
    gaps = [abs(v - infinite) for v in values]
    assert gaps[0] > gaps[1] > gaps[2]


def test_the_work_budget_gives_up_cleanly():
    rules = PontoonRules(reshuffle="every-deal")
    table = PlayerTable.threshold(rules, 16, 18, split="A8")
    assert deal_exact(rules, table, BankerTable.adaptive(rules), budget=1000) is None


def test_tables_that_break_the_rules_are_refused():
    rules = PontoonRules(stick_min=16)
    actions = np.full(PLAYER_SHAPE, 0, dtype=np.uint8)
    with pytest.raises(ValueError, match="stick on hard 4"):
        deal_exact(rules, PlayerTable(actions), BankerTable.stand_on(17))


# Hands valued one by one (a banker who reads only his own cards, a stock no deal can exhaust).
ONE_BY_ONE = {
    "splits": (PontoonRules(ranks="A8T", suits=3, packs=2, reshuffle="every-deal", max_hands=2),
               lambda r: PlayerTable.threshold(r, 16, 18, split="A8"), "stand17"),
    "unequal-tens": (PontoonRules(ranks="AJQ", suits=3, packs=2, reshuffle="every-deal",
                                  split_unequal_tens=True, max_hands=2,
                                  split_pontoon_counts=False),
                     lambda r: PlayerTable.threshold(r, 16, 18, split="AJQ"), "stand17"),
    "burn": (PontoonRules(ranks="A67T", suits=2, packs=2, reshuffle="every-deal",
                          burn_hard_13=True),
             lambda r: PlayerTable.threshold(r, 17, 18, burn=True), "stand17"),
}


@pytest.mark.parametrize("case", list(ONE_BY_ONE))
def test_hands_valued_one_by_one_match_enumeration(case):
    rules, make_table, banker_name = ONE_BY_ONE[case]
    table, banker = make_table(rules), BANKERS[banker_name](rules)
    assert independent.applies(rules, table, banker, rules.n_cards)
    exact = deal_exact(rules, table, banker)
    assert exact.banker_scores is None  # the sign that the hands were valued one by one
    brute = enumerate_deals(rules, TablePlayer(table), TableBanker(banker))
    value = exact.value()
    assert value.mean_net == pytest.approx(brute[0], abs=1e-12)
    assert value.mean_initial_stake == pytest.approx(brute[1], abs=1e-12)
    assert value.mean_total_wagered == pytest.approx(brute[2], abs=1e-12)
    for i, event in enumerate(("busts", "fives", "hands"), start=3):
        assert exact.events[event] == pytest.approx(brute[i], abs=1e-12)


@pytest.mark.parametrize("rules, split", [
    (PontoonRules(max_hands=2), "A"),
    (PontoonRules(ranks="A8T", packs=3, max_hands=4, burn_hard_13=True), "A8T"),
    (PontoonRules(ranks="A8T", packs=4, players=2, max_hands=2), "8"),
])
def test_hands_valued_one_by_one_match_the_walk(rules, split):
    table = buying_table(rules, split=split, burn=rules.burn_hard_13)
    banker = BankerTable.stand_on(16, hit_soft=True)
    args = exact_deal._inputs(rules, table, banker, 10**7)
    assert independent.applies(rules, table, banker, rules.n_cards)
    walked, _ = walk_deal(*args)
    one_by_one, _ = independent.seat_row(args, rules.players)
    assert one_by_one[N_SCORES:] == pytest.approx(walked[N_SCORES:], abs=1e-12)


def test_hands_are_valued_together_where_they_must_be():
    rules = PontoonRules()
    splitter = PlayerTable.threshold(rules, 16, 18, split="A8")
    assert independent.applies(rules, splitter, BankerTable.stand_on(17), 52)
    assert not independent.applies(rules, splitter, BankerTable.adaptive(rules), 52)
    assert not independent.applies(dataclasses.replace(rules, players=3), splitter,
                                   BankerTable.stand_on(17), 52)  # 3 x 4 hands may run out
    assert independent.applies(dataclasses.replace(rules, players=7),
                               PlayerTable.threshold(rules, 16, 18), BankerTable.stand_on(17),
                               52)


def test_a_random_card_burnt_before_the_deal_changes_nothing():
    rules = PontoonRules()
    table = PlayerTable.threshold(rules, 16, 18, split="A8")
    banker = BankerTable.stand_on(17)
    full = rules.rank_counts()
    burnt = 0.0
    for r in range(13):
        stock = full.copy()
        stock[r] -= 1
        burnt += full[r] / full.sum() * deal_exact(rules, table, banker,
                                                   stock=tuple(stock)).value().mean_net
    assert burnt == pytest.approx(deal_exact(rules, table, banker).value().mean_net, abs=1e-12)


def test_a_stock_too_small_to_deal_is_refused():
    stock = (1, 1) + (0,) * 11
    with pytest.raises(ValueError, match="stock: expected at least 4 cards"):
        deal_exact(PontoonRules(), PlayerTable.threshold(PontoonRules()),
                   BankerTable.stand_on(17), stock=stock)
