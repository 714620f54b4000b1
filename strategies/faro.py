"""Faro strategies. Each built-in is a table the compiled kernel runs, and plays the same
table on the reference path through :class:`~sim.games.faro.TableBettor`.

Ranks are given as symbols (``"A"``, ``"2"`` .. ``"T"``, ``"J"``, ``"Q"``, ``"K"``), numbers
1..13, or ``"all"``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sim.core.cards import parse_rank
from sim.games.faro import FaroTable, TableBettor
from strategies.base import register

RankList = str | int | Sequence[str | int]


def parse_ranks(ranks: RankList) -> list[int]:
    """Rank indices from a symbol, a number, a list of them, or ``"all"``."""
    if isinstance(ranks, str) and ranks.strip().lower() == "all":
        return list(range(13))
    items: Iterable[str | int] = [ranks] if isinstance(ranks, (str, int)) else ranks
    out = [parse_rank(r) for r in items]
    if not out:
        raise ValueError("ranks: at least one rank is needed")
    return out


def _rank_slots(ranks: list[int], coppered: bool, stakes: tuple[float, ...]) -> FaroTable:
    masks = tuple(1 << r for r in ranks)
    return FaroTable(masks, (coppered,) * len(masks), (stakes,) * len(masks))


@register("faro", "flat-rank")
class FlatRank(TableBettor):
    """Flat bet to win on each chosen rank, re-placed after each decision while cards remain."""

    name = "flat-rank"

    def __init__(self, ranks: RankList = "K", units: float = 1.0) -> None:
        super().__init__(_rank_slots(parse_ranks(ranks), False, (0.0, units)))


@register("faro", "copper")
class Copper(TableBettor):
    """Coppered (to lose) flat bet on each chosen rank, re-placed after each decision."""

    name = "copper"

    def __init__(self, ranks: RankList = "K", units: float = 1.0) -> None:
        super().__init__(_rank_slots(parse_ranks(ranks), True, (0.0, units)))


@register("faro", "case-bets")
class CaseBets(TableBettor):
    """Bet only on case cards: every rank with exactly one card left (no split possible)."""

    name = "case-bets"

    def __init__(self, units: float = 1.0, coppered: bool = False) -> None:
        super().__init__(_rank_slots(list(range(13)), coppered, (0.0, units, 0.0)))


@register("faro", "corner")
class Corner(TableBettor):
    """One bet covering several ranks (placed between or at the corner of layout cards)."""

    name = "corner"

    def __init__(self, ranks: RankList = ("5", "6"), units: float = 1.0,
                 coppered: bool = False) -> None:
        mask = sum(1 << r for r in set(parse_ranks(ranks)))
        super().__init__(FaroTable((mask,), (coppered,), ((0.0, units),)))


@register("faro", "high-card")
class HighCard(TableBettor):
    """High card every turn: the winning card outranks the losing card."""

    name = "high-card"

    def __init__(self, units: float = 1.0) -> None:
        super().__init__(FaroTable(high_card=units))


@register("faro", "call-turn")
class CallTurn(TableBettor):
    """Call the last turn every deal (the order called: ascending ranks)."""

    name = "call-turn"

    def __init__(self, units: float = 1.0) -> None:
        super().__init__(FaroTable(call_turn=units))
