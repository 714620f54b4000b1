"""Bridge: the rules of a deal as data, the declarer's view, and the lines of suit play.

See ``docs/rules/bridge.md``. A *round* of the engine is one deal, of one of two kinds, set by
the strategy:

* **the deal survey** (strategy ``survey``): a full deal of the 52-card pack to North, East,
  South and West, 13 cards each. Nobody decides anything; the deal is measured: South's
  high-card points (the round's ``net``, so the report's outcome chart is the points
  distribution), South's hand pattern, the split of the opponents' cards in every suit as South
  sees it, and who holds the unseen king and queen of a suit.
* **a contract** (strategies ``finesse``, ``drop``, ``best``, or a user's): the rules fix the
  contract and the key suit, in which the declarer's side holds every card but the queen and
  ``missing - 1`` small ones; the 26 cards the declarer cannot see are dealt to West and East,
  the strategy chooses the line, and the round's ``net`` is the deal's score for the
  declarer's side (less the defenders').

No one stakes anything against a house, so both kinds put 0 as the initial stake and the amount
wagered; the report's headline is then the mean ``net`` (points or score) per deal, beside its
exact value.
"""

from __future__ import annotations

from dataclasses import dataclass

from sim.core.errors import RuleError
from sim.core.validation import check_fields, is_int
from sim.games.bridge.scoring import SCORINGS, STRAINS, Contract

LINES = ("finesse", "drop")


@dataclass(frozen=True)
class BridgeRules:
    """Every rule a bridge variant can change.

    Attributes:
        level: the contract's level (1..7).
        strain: ``"C"``, ``"D"``, ``"H"``, ``"S"`` or ``"NT"``.
        doubled: 0 undoubled, 1 doubled, 2 redoubled.
        vulnerable: the declarer's side is vulnerable.
        scoring: ``"duplicate"`` (game and part-score bonuses on every deal), ``"rubber"``
            (a deal's points without them) or ``"auction"`` (auction bridge, no honours).
        missing: cards of the key suit the opponents hold, the queen among them (1..10); the
            declarer's side holds the ace, king, jack and the rest.
        sure_tricks: tricks the declarer takes whatever happens in the key suit; he takes
            one more when his line in the key suit loses no trick to the queen.
    """

    level: int = 4
    strain: str = "S"
    doubled: int = 0
    vulnerable: bool = False
    scoring: str = "duplicate"
    missing: int = 4
    sure_tricks: int = 9

    def __post_init__(self) -> None:
        checks = [
            ("level", is_int(self.level) and 1 <= self.level <= 7, "an integer 1..7"),
            ("strain", self.strain in STRAINS, " or ".join(map(repr, STRAINS))),
            ("doubled", is_int(self.doubled) and self.doubled in (0, 1, 2), "0, 1 or 2"),
            ("vulnerable", isinstance(self.vulnerable, bool), "true or false"),
            ("scoring", self.scoring in SCORINGS, " or ".join(map(repr, SCORINGS))),
            ("missing", is_int(self.missing) and 1 <= self.missing <= 10, "an integer 1..10"),
            ("sure_tricks", is_int(self.sure_tricks) and 0 <= self.sure_tricks <= 12,
             "an integer 0..12"),
        ]
        check_fields(self, checks)

    @property
    def contract(self) -> Contract:
        return Contract(self.level, self.strain, self.doubled, self.vulnerable)


@dataclass(frozen=True)
class SuitView:
    """What the declarer knows when he chooses his line in the key suit: the contract, the
    cards missing and the tricks he has without the key suit's queen."""

    contract: Contract
    missing: int
    sure_tricks: int
    scoring: str


@dataclass(frozen=True)
class BridgeTable:
    """A bridge strategy as data: ``"survey"`` (the deal survey) or a line in the key suit."""

    line: str

    def __post_init__(self) -> None:
        if self.line not in ("survey", *LINES):
            raise RuleError("line", self.line, "'survey', 'finesse' or 'drop'",
                            f"expected 'survey', 'finesse' or 'drop', got {self.line!r}")


PRESETS = {
    "nine-never": BridgeRules(),
    "eight-ever": BridgeRules(missing=5),
    "slam": BridgeRules(level=6, strain="NT", missing=4, sure_tricks=11, vulnerable=True),
    "auction": BridgeRules(level=4, strain="S", scoring="auction", missing=4),
}
