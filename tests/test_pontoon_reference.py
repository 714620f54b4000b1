"""The pontoon reference deal: scripted deals, invariants over many deals, illegal actions."""

import dataclasses
from collections import Counter

import numpy as np
import pytest

from sim.core.errors import IllegalActionError, StrategyFailedError
from sim.core.progression import ProgressionSpec
from sim.games.pontoon import (
    GAME,
    BankerTable,
    Buy,
    GivenCards,
    Move,
    PontoonRules,
    RandomCards,
    Session,
    TableBanker,
)
from sim.games.pontoon.rules import PRESETS
from strategies.pontoon import Adaptive, CardMemory, StandOn, Table, Threshold

RULES = PRESETS["british-home"]
SYMBOLS = "A23456789TJQK"


def ranks(text: str) -> list[int]:
    return [SYMBOLS.index(c) for c in text.replace(" ", "")]


def order(top: str, rules: PontoonRules = RULES) -> list[int]:
    """A full pack whose top cards are ``top``; the rest in pack order."""
    rest = rules.pack_ranks().tolist()
    head = ranks(top)
    for c in head:
        rest.remove(c)
    return head + rest


class Script:
    """Plays the given actions in turn, staking ``stake``; records its views."""

    name = "script"

    def __init__(self, *actions, stake=1.0, banker=None):
        self.actions = list(actions)
        self.stake_amount = stake
        self.banker = banker or StandOn()
        self.views = []

    def stake(self, view, rng):
        return self.stake_amount

    def decide(self, view, rng):
        self.views.append(view)
        return self.actions.pop(0)


def one_deal(player, top, rules=RULES, banker=None):
    session = Session(rules, player, banker or StandOn(), GivenCards([order(top, rules)]))
    return session, session.play(np.random.default_rng(0))


# Deal order heads-up: punter's first card, banker's first, punter's second, banker's second,
# then the punter's draws, then the banker's.
def test_bought_card_is_face_down_and_pays_on_the_whole_stake():
    player = Script(Buy(2.0), Move.STICK)
    session, deal = one_deal(player, "5 T 6 7 9")  # punter 5 6 buys 9: 20; banker T 7
    assert deal.seats[0].net == 3.0 and deal.seats[0].wagered == 3.0
    assert deal.banker_net == -3.0 and deal.ledger_total == 0.0 and deal.table_left == 0.0
    view = player.views[1]
    assert view.cards == (4, 5, 8) and view.face_up == (False, False, False)
    assert view.buys == (2.0,) and view.max_buy == 2.0 and view.stake == 3.0


def test_banker_pontoon_collects_double_before_anyone_plays():
    player = Script()
    _, deal = one_deal(player, "9 A 8 K")
    assert deal.banker_pontoon and deal.seats[0].net == -2.0 and player.views == []
    assert deal.shuffle_next


def test_five_card_trick_paid_double_and_banker_twenty_one_beaten():
    player = Script(Move.TWIST, Move.TWIST, Move.TWIST)
    _, deal = one_deal(player, "2 T 3 7 2 3 4")  # 2 3 2 3 4: 14 in five cards v 17
    assert deal.seats[0].fives == 1 and deal.seats[0].net == 2.0
    _, deal = one_deal(Script(Move.TWIST, Move.STICK), "2 T 9 9 K")  # 21 in three v 19
    assert deal.seats[0].net == 1.0


def test_ties_go_to_the_banker_and_push_when_the_rule_says_so():
    _, deal = one_deal(Script(Move.STICK), "T T 9 9")
    assert deal.seats[0].net == -1.0
    _, deal = one_deal(Script(Move.STICK), "T T 9 9",
                       dataclasses.replace(RULES, banker_wins_ties=False))
    assert deal.seats[0].net == 0.0


def test_bust_loses_at_once_and_the_banker_does_not_draw():
    banker = Adaptive()
    _, deal = one_deal(Script(Move.TWIST), "T 2 6 3 K", banker=banker)
    assert deal.seats[0].busts == 1 and deal.seats[0].net == -1.0
    assert not deal.banker_bust  # he stood on 5: nobody left to play against


def test_used_cards_go_to_the_bottom_in_the_stated_order():
    fixed = dataclasses.replace(RULES, gathering="fixed")
    session, deal = one_deal(Script(Move.TWIST), "T 7 5 8 K", fixed)  # punter busts on K
    assert not deal.shuffle_next
    rest = order("T 7 5 8 K", fixed)[5:]
    assert session.pack.ranks() == rest + ranks("T5K") + ranks("78")


def test_pontoon_forces_a_shuffle_and_passes_the_bank():
    rules = dataclasses.replace(RULES, players=2)
    player = Script(Move.STICK)
    session = Session(rules, player, StandOn(), GivenCards([order("A 9 K T 7 9", rules)] * 2))
    deal = session.play(np.random.default_rng(0))  # seat 1: A T pontoon; seat 2: 9 7 sticks
    assert deal.seats[0].pontoons == 1 and deal.shuffle_next
    assert deal.banker == 0 and deal.next_banker == deal.seats[0].person == 1
    assert session.banker == 1


def test_split_deals_a_card_to_each_hand_and_stakes_again():
    player = Script(Move.SPLIT, Move.STICK, Move.STICK)
    _, deal = one_deal(player, "8 T 8 9 9 T")  # 8 8 split: 8 9 and 8 T; banker T 9
    seat = deal.seats[0]
    assert seat.splits == 1 and seat.hands == 2 and seat.wagered == 2.0
    assert seat.net == -2.0  # 17 and 18 against the banker's 19
    split_view = player.views[1]
    assert split_view.cards == (7, 8) and split_view.face_up == (True, False)
    assert split_view.split_hand and split_view.hands == 2


def test_burning_a_hard_13_deals_two_new_cards():
    rules = dataclasses.replace(RULES, burn_hard_13=True)
    player = Script(Move.BURN, Move.STICK)
    _, deal = one_deal(player, "7 T 6 8 T 9", rules)  # 7 6 burnt, new T 9: 19 v T 8
    assert deal.seats[0].burns == 1 and deal.seats[0].net == 1.0
    assert "burn" in player.views[0].legal and "burn" not in player.views[1].legal


# --------------------------------------------------------------- illegal actions
@pytest.mark.parametrize("actions, top, why, hand", [
    ((Move.TWIST, Buy(1.0)), "5 T 6 7 2", "no buying after a twist", "[5 6 2]"),
    ((Move.STICK,), "7 T 6 7", "sticking needs a total of 15", "[7 6]"),
    ((Move.SPLIT,), "K T Q 7", "two ten-cards may be split only if of the same rank", "[K Q]"),
    ((Buy(3.0),), "5 T 6 7", "a buy must add between 1 and 2", "[5 6]"),
    ((Buy(1.0), Buy(2.0)), "2 T 2 7 2", "a buy must add between 1 and 1", "[2 2 2]"),
    (("double",), "5 T 6 7", "not a pontoon action", "[5 6]"),
    ((Move.BURN,), "7 T 6 7", "burning is not allowed", "[7 6]"),
])
def test_illegal_actions_name_strategy_action_and_hand(actions, top, why, hand):
    player = Script(*actions)
    with pytest.raises(IllegalActionError, match=why) as info:
        one_deal(player, top)
    message = str(info.value)
    assert "'script'" in message and hand in message
    assert repr(actions[-1]) in message


def test_buy_limits_of_the_casino_rules():
    rules = PRESETS["pontoon-rtg"]
    with pytest.raises(IllegalActionError, match="at most 1 buys"):
        one_deal(Script(Buy(1.0), Buy(1.0)), "2 T 2 7 2", rules)
    with pytest.raises(IllegalActionError, match="the fifth card may only be twisted"):
        one_deal(Script(Buy(1.0), Buy(1.0), Buy(1.0)), "2 T 2 7 2 2",
                 dataclasses.replace(RULES, buy_fifth_card=False))


def test_a_stake_out_of_limits_is_illegal():
    with pytest.raises(IllegalActionError, match="initial stake must be between 1 and 4") as e:
        one_deal(Script(stake=5.0), "5 T 6 7")
    assert "first card 5" in str(e.value) and "'script'" in str(e.value)


def test_a_banker_action_other_than_twist_or_stick_is_illegal():
    class Bad(TableBanker):
        name = "bad-banker"

        def decide(self, view, rng):
            return Buy(1.0)

    with pytest.raises(IllegalActionError, match="bad-banker.*only twist or stick"):
        one_deal(Script(Move.STICK), "T 5 9 6", banker=Bad(BankerTable.stand_on(17)))


def test_a_strategy_that_raises_is_reported():
    class Broken(Script):
        def decide(self, view, rng):
            raise ZeroDivisionError("oops")

    with pytest.raises(StrategyFailedError, match="ZeroDivisionError: oops.*seat 1"):
        one_deal(Broken(), "5 T 6 7")


def test_bad_tables_are_refused_before_the_run():
    rules = dataclasses.replace(RULES, stick_min=16)
    table = Threshold(stick=16).as_table(RULES)  # sticks on 15 only if stick < 16: fine

    class Loose(Threshold):
        def build_table(self, r):
            t = table.actions.copy()
            t[..., 0, 15] = 0  # stick on hard 15
            return dataclasses.replace(table, actions=t)

    with pytest.raises(IllegalActionError, match="stick on hard 15"):
        GAME.check(rules, Loose(), ProgressionSpec())


def test_progressions_are_refused():
    from sim.core.errors import InputError

    with pytest.raises(InputError, match="only the flat progression"):
        GAME.check(RULES, Threshold(), ProgressionSpec(kind=1))


# ---------------------------------------------------------------- invariants
STRATEGIES = [
    Threshold(), Threshold(split="A8T", burn=True, banker="adaptive"),
    Table(buy={"hard 9": 1, "hard 10": 2, "hard 11": 2, "soft 13": 1}, buy_cards=(2, 3, 4),
          split="A89", stakes={"A": "max", "T": 2}, banker={"use": "banker-stand-on",
                                                            "params": {"total": 16}}),
    CardMemory(),
]
VARIANTS = [
    dataclasses.replace(RULES, burn_hard_13=True),
    dataclasses.replace(RULES, players=4, burn_hard_13=True),
    dataclasses.replace(RULES, players=7, ranks="A2345T", packs=1),  # runs out of cards
    dataclasses.replace(PRESETS["pontoon-rtg"], players=3, packs=1),
]


@pytest.mark.parametrize("rules", VARIANTS, ids=range(len(VARIANTS)))
@pytest.mark.parametrize("strategy", STRATEGIES, ids=lambda s: s.name)
def test_money_and_cards_are_conserved(rules, strategy):
    rng = np.random.default_rng(7)
    player, banker = strategy, strategy.banker
    session = Session(rules, player, banker, RandomCards(rules, rng))
    full = Counter(rules.pack_ranks().tolist())
    dealt_since_shuffle: Counter = Counter()
    for _ in range(150):
        before = session.pack.ranks() if not session.needs_shuffle else None
        deal = session.play(rng)
        assert deal.ledger_total == pytest.approx(0.0, abs=1e-9)
        assert deal.table_left == pytest.approx(0.0, abs=1e-9)
        assert sum(deal.person_nets.values()) == pytest.approx(0.0, abs=1e-9)
        assert deal.banker_net == pytest.approx(-deal.net, abs=1e-9)
        for seat in deal.seats:
            assert seat.net == pytest.approx(deal.person_nets[seat.person])
            assert rules.min_stake <= seat.initial <= rules.max_stake
        # Every card is back in the pack, behind the cards not dealt.
        after = session.pack.ranks()
        assert Counter(after) == full
        if before is not None:
            n = len(after)
            assert any(after[:n - k] == before[k:] for k in range(2 * rules.players + 2, n + 1))
        # What has been seen since the shuffle: every fresh card dealt, once.
        if deal.shuffle_next:
            dealt_since_shuffle = Counter()
        else:
            fresh = session.pack.fresh
            dealt_since_shuffle = full - Counter(c for c, f in session.pack.stock if f)
            assert sum(session.seen) == rules.n_cards - fresh
            assert Counter({r: n for r, n in enumerate(session.seen) if n}) == \
                dealt_since_shuffle


def test_no_shuffle_without_a_pontoon():
    rules = RULES
    orders = [np.random.default_rng(i).permutation(rules.pack_ranks()).tolist()
              for i in range(200)]
    source = GivenCards(orders)
    taken = []
    original = source.shuffled

    def counting():
        taken.append(1)
        return original()

    source.shuffled = counting
    session = Session(rules, Threshold(), StandOn(), source)
    shuffles_due = 1
    for _ in range(100):
        deal = session.play(np.random.default_rng(0))
        shuffles_due += deal.shuffle_next
    assert len(taken) == shuffles_due - session.needs_shuffle


def test_the_banker_never_sees_face_down_cards():
    class Watcher(TableBanker):
        name = "watcher"
        seen_views = []

        def decide(self, view, rng):
            self.seen_views.append(view)
            return Move.STICK

    banker = Watcher(BankerTable.stand_on(17))
    player = Script(Buy(1.0), Move.TWIST, Move.STICK)
    one_deal(player, "4 T 5 6 3 4", banker=banker)  # 4 5, buys 3 (down), twists 4 (up): 16
    (view,) = banker.seen_views
    (hand,) = view.hands
    assert hand.n_cards == 4 and hand.up_cards == (3,) and hand.stake == 2.0
    assert hand.visible_sum == 7  # the twisted 4, and one for each of three face-down cards
    assert view.seen[3] == 1 and sum(view.seen) == 3  # his own T 6 and the twisted 4
