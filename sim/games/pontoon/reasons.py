"""Why a pontoon row has no exact value, in words a player understands.

Where the pack carries over from deal to deal, no single deal has an exact value, but the
first deal after a shuffle, dealt from a full pack, does: it is what the same play is worth
in the game shuffled every deal, and the reason quotes it where it comes quickly (the hands
valued one by one, or no split for a banker who reads the hands to follow).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from sim.games.base import NOT_A_TABLE
from sim.games.pontoon.rules import PontoonRules
from sim.games.pontoon.tables import BankerTable, PlayerTable

CARRIED = ("no exact value: the pack is shuffled only after a pontoon, so each deal is dealt "
           "from what the deals before it left and its odds move with the cards already gone")
MEMORY = ("no exact value: he stakes by the cards seen since the last shuffle, and the pack "
          "carries over from deal to deal, so his stake and his odds on a deal depend on the "
          "deals before it")
READS_HANDS = ("no exact value: the banker draws by what he sees of the punters' hands, so "
               "their hands must be followed together through every deal, card by card, and "
               "that runs past the work budget ({budget:,} cached states, about ten seconds)")


def first_deal_edge(rules: PontoonRules, player: PlayerTable,
                    banker: BankerTable) -> float | None:
    """The exact house edge per initial stake of a first deal from a full pack, where it
    comes in a fraction of a second; None elsewhere."""
    from sim.games.pontoon import independent
    from sim.games.pontoon.exact_deal import first_deal_value

    fresh = dataclasses.replace(rules, reshuffle="every-deal", infinite_deck=False)
    splits = fresh.splits_allowed and any(
        player.split[r] and fresh.may_split_rank(r) for r in range(13))
    quick = independent.applies(fresh, player, banker.under(fresh), fresh.n_cards) or (
        fresh.players == 1 and not splits)
    if not quick or player.problems(fresh):
        return None
    value = first_deal_value(fresh, player, banker)
    return None if value is None else value.edge_per_initial_bet


def _first_deal(edge: float | None, who: str) -> str:
    if edge is None:
        return ""
    return f"; {who} first deal from a full pack is exact: house edge {edge:.2%} per initial stake"


def carried_pack(rules: PontoonRules, player: PlayerTable, banker: BankerTable) -> str:
    """The reason of a table strategy where the pack carries over."""
    return CARRIED + _first_deal(first_deal_edge(rules, player, banker), "the")


def not_a_table(rules: PontoonRules, strategy: Any) -> str:
    """The reason of a strategy the exact code cannot read as a table: a punter who remembers
    the cards seen (a ``remember`` attribute set) where the pack carries over, his first deal
    quoted from his play staking by the first card alone (``table_for``); else the house's
    words."""
    from sim.games.pontoon.players import seating_of

    player, banker = seating_of(strategy)
    table_for = getattr(player, "table_for", None)
    describe_banker = getattr(banker, "as_table", None)
    if (not getattr(player, "remember", False) or table_for is None or describe_banker is None
            or rules.infinite_deck or rules.reshuffle == "every-deal"):
        return NOT_A_TABLE
    edge = first_deal_edge(rules, table_for(rules), describe_banker(rules))
    return MEMORY + _first_deal(edge, "his")


def reads_hands(budget: int) -> str:
    """The reason where a banker who reads the hands makes the walk run past ``budget``."""
    return READS_HANDS.format(budget=budget)


__all__ = ["carried_pack", "first_deal_edge", "not_a_table", "reads_hands"]
