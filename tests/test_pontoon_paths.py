"""The compiled kernel against the reference path, deal by deal on given card orders."""

import dataclasses

import numpy as np
import pytest

from sim.core.progression import ProgressionSpec
from sim.games.pontoon import GAME, BankerTable, GivenCards, PontoonRules, Session
from sim.games.pontoon.kernel import play_ordered_deals
from sim.games.pontoon.players import TableBanker, TablePlayer
from sim.games.pontoon.report import REPORT
from sim.games.pontoon.rules import PRESETS
from strategies.pontoon import CardMemory, Threshold
from tests.test_pontoon_exact import buying_table

TABLES = {
    "threshold": lambda r: Threshold(stick=16, soft_stick=18).as_table(r),
    "splits-buys": lambda r: buying_table(r, split="A89T", burn=True),
    "split-all": lambda r: buying_table(r, split="A23456789TJQK"),
}
BANKERS = {
    "stand17": lambda r: BankerTable.stand_on(17),
    "adaptive": lambda r: BankerTable.adaptive(r),
    "stand16soft": lambda r: BankerTable.stand_on(16, hit_soft=True),
}
RULES = {
    "british-home": dataclasses.replace(PRESETS["british-home"], burn_hard_13=True),
    "fixed-gathering": PontoonRules(gathering="fixed", burn_hard_13=True),
    "every-deal": PRESETS["reshuffle-every-deal"],
    "rtg": PRESETS["pontoon-rtg"],
    "variants": PontoonRules(banker_wins_ties=False, pontoon_pays=1.5, stick_min=16,
                             split_pontoon_counts=False, split_unequal_tens=True,
                             banker_five_card_trick=False, buy_fifth_card=False,
                             max_hands=3, burn_hard_13=True),
    "tiny-pack": PontoonRules(ranks="A23T", suits=2),  # the stock runs out
    "infinite": PontoonRules(infinite_deck=True, burn_hard_13=True),
}
FIELDS = ["net", "initial", "wagered", "hands", "busts", "fives", "pontoons", "splits", "buys",
          "burns", "banker_pontoon", "banker_bust", "banker_five", "shuffle", "pass", "locked",
          "banker"]


def _orders(rules, n, seed):
    rng = np.random.default_rng(seed)
    width = 40 if rules.infinite_deck else rules.n_cards  # infinite deck: one row per deal
    return np.array([rng.permutation(np.resize(rules.pack_ranks(), width))
                     for _ in range(n)])


def reference_rows(rules, player, banker, orders, deals):
    """Each deal's kernel row on the reference path, for a player's and a banker's table."""
    return played_rows(rules, TablePlayer(player), TableBanker(banker), orders, deals)


def played_rows(rules, player, banker, orders, deals):
    """Each deal's kernel row on the reference path, for any player and banker."""
    session = Session(rules, player, banker, GivenCards(orders))
    rows = []
    for _ in range(deals):
        deal = session.play(np.random.default_rng(0))
        rows.append(deal.kernel_row())
    return np.array(rows, dtype=float)


@pytest.mark.parametrize("rules_name", list(RULES))
@pytest.mark.parametrize("table_name", list(TABLES))
@pytest.mark.parametrize("banker_name", list(BANKERS))
def test_kernel_equals_reference_deal_by_deal(rules_name, table_name, banker_name):
    rules = RULES[rules_name]
    player = TABLES[table_name](rules)
    banker = BANKERS[banker_name](rules)
    deals = 120
    orders = _orders(rules, deals, seed=hash((rules_name, table_name)) % 1000)
    kernel = play_ordered_deals(rules, player, banker, orders, deals)
    reference = reference_rows(rules, player, banker, orders, deals)
    for k, name in enumerate(FIELDS):
        np.testing.assert_allclose(kernel[:, k], reference[:, k], atol=1e-9, err_msg=name)


def test_long_sessions_without_shuffles_agree():
    # Without a pontoon the pack goes round and round: used cards come back in order.
    rules = PRESETS["british-home"]
    player, banker = TABLES["splits-buys"](rules), BankerTable.adaptive(rules)
    orders = _orders(rules, 400, seed=5)
    kernel = play_ordered_deals(rules, player, banker, orders, 1500)
    reference = reference_rows(rules, player, banker, orders, 1500)
    np.testing.assert_allclose(kernel, reference, atol=1e-9)
    runs = np.diff(np.flatnonzero(reference[:, FIELDS.index("shuffle")]))
    assert runs.max() > 8  # some runs went round the pack more than once


def test_the_game_picks_the_kernel_for_heads_up_tables_only():
    rules = PRESETS["british-home"]
    assert GAME.engine_path(rules, Threshold()) == "kernel"
    assert GAME.engine_path(rules, Threshold(banker="adaptive")) == "kernel"
    assert GAME.engine_path(dataclasses.replace(rules, players=2), Threshold()) == "reference"
    assert GAME.engine_path(rules, CardMemory()) == "reference"


def test_kernel_and_reference_report_the_same_counters():
    rules = PRESETS["british-home"]
    kernel = GAME.simulate(rules, Threshold(split="A8"), ProgressionSpec(), 2000,
                           np.random.SeedSequence(1))
    reference = GAME.simulate_reference(rules, Threshold(split="A8"), ProgressionSpec(), 50,
                                        np.random.SeedSequence(1))
    assert set(kernel.counters) == set(reference.counters)
    assert set(REPORT.columns(kernel)) == set(REPORT.columns(reference))
    assert kernel.counters["person0_net"] == pytest.approx(-kernel.counters["person1_net"])


def test_sessions_in_one_call_equal_a_call_per_session():
    """session_nets plays all its sessions in one kernel call: the nets are those of one call
    per session, each starting at its own shuffle index under the same key."""
    from sim.core.rng import kernel_state
    from sim.games.pontoon.kernel import _kernel_args, _simulate, session_nets

    rules = PRESETS["british-home"]
    player = TABLES["splits-buys"](rules)
    banker = BankerTable.stand_on(17)
    key = kernel_state(np.random.SeedSequence(3))
    nets = session_nets(rules, player, banker, 6, 40, key)
    # Count each session's shuffles to know where the next one starts.
    first, rows = 0, []
    for _ in range(6):
        rows.append(session_nets(rules, player, banker, 1, 40, key, first)[0])
        pack = rules.pack_ranks().astype(np.int64)
        no_orders = np.zeros((0, pack.size), dtype=np.int64)
        per = _simulate(40, key, pack, no_orders, *_kernel_args(rules, player, banker),
                        1, False, 0, first, 0)[4]
        first += 1 + int(per[:-1, FIELDS.index("shuffle")].sum())
    assert nets.tolist() == np.array(rows).tolist()
