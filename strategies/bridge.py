"""Bridge strategies: the deal survey and the declarer's line in the key suit.

A bridge strategy's ``decide(view, rng)`` sees a :class:`~sim.games.bridge.SuitView` (the
contract, the cards missing in the key suit, the sure tricks) and returns ``"finesse"`` or
``"drop"``. The built-ins describe themselves as a :class:`~sim.games.bridge.BridgeTable`, which
the compiled kernel plays and the exact analysis reads; ``survey`` makes no decision: it asks
the engine to deal whole hands and measure them.
"""

from __future__ import annotations

from typing import Any

from sim.games.bridge import BridgeRules, BridgeTable, SuitView, best_line
from strategies.base import register


class _Line:
    line = "finesse"

    def decide(self, view: SuitView, rng: Any) -> str:
        return self.line

    def kernel_table(self, rules: BridgeRules) -> BridgeTable:
        return BridgeTable(self.line)


@register("bridge", "survey")
class Survey:
    """Deal whole hands and measure them: points, pattern, splits, given cards."""

    name = "survey"

    def decide(self, view: SuitView, rng: Any) -> str:
        return "finesse"  # never asked: the survey deals whole hands with no contract

    def kernel_table(self, rules: BridgeRules) -> BridgeTable:
        return BridgeTable("survey")


@register("bridge", "finesse")
class Finesse(_Line):
    """Cash the ace, then finesse the jack against West."""

    name = "finesse"
    line = "finesse"


@register("bridge", "drop")
class Drop(_Line):
    """Cash the ace and the king, playing for the queen to fall."""

    name = "drop"
    line = "drop"


@register("bridge", "best")
class Best(_Line):
    """The line with the better exact odds for the cards missing ("eight ever, nine never")."""

    name = "best"

    def decide(self, view: SuitView, rng: Any) -> str:
        return best_line(view.missing)

    def kernel_table(self, rules: BridgeRules) -> BridgeTable:
        return BridgeTable(best_line(rules.missing))
