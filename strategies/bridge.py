"""Bridge strategies: the deal survey and the declarer's line in the key suit.

A bridge strategy's ``decide(view, rng)`` sees a :class:`~sim.games.bridge.SuitView` (the
contract, the cards missing in the key suit, the sure tricks) and returns ``"finesse"`` or
``"drop"``. The built-ins describe themselves as a :class:`~sim.games.bridge.BridgeTable`, which
the compiled kernel plays and the exact analysis reads, and play it on the reference path
through :class:`~sim.games.bridge.players.TableDeclarer`; ``survey`` makes no decision: it asks
the engine to deal whole hands and measure them.
"""

from __future__ import annotations

from typing import Any

from sim.games.bridge.play import best_line
from sim.games.bridge.players import TableDeclarer
from sim.games.bridge.rules import BridgeRules, BridgeTable, SuitView
from strategies.base import configuration, register

Survey = configuration("bridge", "survey", TableDeclarer, "Deal whole hands and measure them: "
                       "points, pattern, splits, given cards.", line="survey")
Finesse = configuration("bridge", "finesse", TableDeclarer,
                        "Cash the ace, then finesse the jack against West.", line="finesse")
Drop = configuration("bridge", "drop", TableDeclarer,
                     "Cash the ace and the king, playing for the queen to fall.", line="drop")


@register("bridge", "best")
class Best:
    """The line with the better exact odds for the cards missing ("eight ever, nine never")."""

    name = "best"

    def decide(self, view: SuitView, rng: Any) -> str:
        return best_line(view.missing)

    def as_table(self, rules: BridgeRules) -> BridgeTable:
        return BridgeTable(best_line(rules.missing))
