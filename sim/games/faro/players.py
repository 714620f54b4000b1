"""A faro table played as a strategy: the adapter that lets a :class:`FaroTable` answer on the
reference path exactly as the kernel reads it."""

from __future__ import annotations

from sim.games.faro.kernel import FaroTable
from sim.games.faro.rules import CallTurnBet, FaroBet, FaroRules, FaroView, HighCardBet, RankBet


class TableBettor:
    """A strategy given by a :class:`FaroTable`, playable on both paths: the kernel and the
    exact code read the table (:meth:`as_table`), the reference path asks :meth:`decide`."""

    name = "table"

    def __init__(self, table: FaroTable) -> None:
        self.table = table

    def as_table(self, rules: FaroRules) -> FaroTable:
        """The table the compiled kernel runs."""
        return self.table

    def decide(self, view: FaroView, rng: object) -> list[FaroBet]:
        t = self.table
        bets: list[FaroBet] = []
        for mask, coppered, stakes in zip(t.masks, t.coppered, t.stakes):
            ranks = [r for r in range(13) if mask >> r & 1]
            left = sum(view.remaining[r] for r in ranks)
            units = stakes[min(left, len(stakes) - 1)]
            if units > 0:
                bets.append(RankBet(frozenset(ranks), coppered, units))
        if t.high_card > 0 and not view.winner_void:
            bets.append(HighCardBet(t.high_card))
        if t.call_turn > 0 and view.can_call_turn:
            left3 = tuple(sorted(r for r, c in enumerate(view.remaining) for _ in range(c)))
            if len(set(left3)) > 1:
                bets.append(CallTurnBet(left3, t.call_turn))  # type: ignore[arg-type]
        return bets
