"""A bridge table played as a strategy: the adapter that lets a :class:`BridgeTable` answer on
the reference path exactly as the kernel reads it."""

from __future__ import annotations

from sim.games.bridge.rules import BridgeRules, BridgeTable, SuitView


class TableDeclarer:
    """A strategy given by a :class:`BridgeTable`, playable on both paths: the kernel and the
    exact code read the table (:meth:`as_table`), the reference path asks :meth:`decide`,
    which plays the table's line on every deal. The survey's table (``"survey"``) decides
    nothing: the reference path deals the survey without asking."""

    name = "table"

    def __init__(self, line: str) -> None:
        self.table = BridgeTable(line)

    def as_table(self, rules: BridgeRules) -> BridgeTable:
        """The table the compiled kernel runs."""
        return self.table

    def decide(self, view: SuitView, rng: object) -> str:
        return self.table.line
