"""Rows without an exact pontoon value say why in a player's words, and quote the first deal
from a full pack where it is exact."""

import dataclasses

from sim.core.progression import ProgressionSpec
from sim.games.pontoon import GAME, BankerTable, PlayerTable, PontoonRules
from sim.games.pontoon.exact_deal import DEFAULT_BUDGET, first_deal_value
from sim.games.pontoon.players import TableBanker, TablePlayer
from strategies.pontoon import CardMemory

FLAT = ProgressionSpec()


def test_a_carried_pack_says_why_and_quotes_the_first_deal_from_a_full_pack():
    rules = PontoonRules()  # shuffled only after a pontoon
    table = PlayerTable.threshold(rules, 16, 18, split="A8")
    strategy = TablePlayer(table, TableBanker(BankerTable.stand_on(17)))
    assert GAME.exact(rules, strategy, FLAT) is None
    note = GAME.exact_unavailable(rules, strategy, FLAT)
    first = first_deal_value(dataclasses.replace(rules, reshuffle="every-deal"), table,
                             BankerTable.stand_on(17))
    assert note.startswith("no exact value: the pack is shuffled only after a pontoon")
    assert note.endswith(f"house edge {first.edge_per_initial_bet:.2%} per initial stake")


def test_card_memory_says_it_remembers_and_quotes_its_first_deal():
    rules = PontoonRules()
    memory = CardMemory()
    note = GAME.exact_unavailable(rules, memory, FLAT)
    assert note.startswith("no exact value: he stakes by the cards seen since the last shuffle")
    control = GAME.exact(dataclasses.replace(rules, reshuffle="every-deal"),
                         CardMemory(remember=False), FLAT)
    assert note.endswith(f"house edge {control.edge_per_initial_bet:.2%} per initial stake")


def test_a_banker_who_reads_the_hands_past_the_budget_says_so():
    rules = PontoonRules(reshuffle="every-deal", players=2)
    strategy = TablePlayer(PlayerTable.threshold(rules, 16, 18, split="A8"),
                           TableBanker(BankerTable.adaptive(rules)))
    assert GAME.exact(rules, strategy, FLAT) is None
    note = GAME.exact_unavailable(rules, strategy, FLAT)
    assert "the banker draws by what he sees of the punters' hands" in note
    assert f"{DEFAULT_BUDGET:,} cached states" in note
