"""Table-driven strategies (playable on every path) and how a table is seated.

An experiment names one strategy, which describes the whole table: a punters' strategy
carrying the banker's policy as its ``banker`` attribute (a banker standing on 17 when it has
none), or a banker's policy (``role = "banker"``) carrying the punters' strategy as its
``player`` attribute (a punter sticking on 16, soft 18, when it has none). A strategy whose play
is a :class:`PlayerTable` (and a banker whose play is a :class:`BankerTable`), offered through
its ``as_table(rules)``, can run on the compiled kernel and be valued exactly.
"""

from __future__ import annotations

from typing import Any

from sim.games.pontoon.hand import (
    BUY1,
    BUY_PATTERNS,
    NO_LIVE_HAND,
    STICK,
    TWIST,
    level_key,
    player_index,
)
from sim.games.pontoon.rules import PontoonRules
from sim.games.pontoon.tables import BankerTable, PlayerTable
from sim.games.pontoon.tabulate import tabulate
from sim.games.pontoon.views import BankerView, Buy, Move, PlayerView, StakeView


class _TableStrategy:
    """A strategy whose play is a table built for the rules (and kept per rules)."""

    def __init__(self, table: Any = None) -> None:
        self._table = table
        self._built: dict[PontoonRules, Any] = {}

    def build_table(self, rules: PontoonRules) -> Any:
        """The table for these rules (subclasses build it from their parameters)."""
        if self._table is None:
            raise NotImplementedError
        return self._table

    def table_for(self, rules: PontoonRules) -> Any:
        if rules not in self._built:
            self._built[rules] = self.as_played(self.build_table(rules), rules)
        return self._built[rules]

    def as_played(self, table: Any, rules: PontoonRules) -> Any:
        """The table as the rules let it be played (as built, unless a rule forces a move)."""
        return table


class TableBanker(_TableStrategy):
    """A banker who draws by a :class:`BankerTable`; ``player`` is the punters' strategy."""

    name = "banker-table"
    role = "banker"

    def __init__(self, table: BankerTable | None = None, player: Any = None) -> None:
        super().__init__(table)
        self.player = player

    def as_table(self, rules: PontoonRules) -> BankerTable:
        """His :class:`BankerTable` under these rules, which the compiled kernel and the exact
        analysis read (built once per rules)."""
        return self.table_for(rules)

    def as_played(self, table: BankerTable, rules: PontoonRules) -> BankerTable:
        return table.under(rules)

    def decide(self, view: BankerView, rng: object) -> Move:
        table = self.as_table(view.rules)
        key = view.signal() if table.keyed else 0
        if table.levels > 1 and key != NO_LIVE_HAND:  # the level of the main hand's stake
            table.offsets(view.rules, ())  # (the rules must let him)
            key = level_key(table.level_of(view.main_stake()), key)
        draw = table.draw[key, view.n_cards - 2, int(view.soft), view.total]
        return Move.TWIST if draw else Move.STICK


class TablePlayer(_TableStrategy):
    """A punter who plays a :class:`PlayerTable`; ``banker`` is the banker he plays against."""

    name = "table"
    role = "punter"

    def __init__(self, table: PlayerTable | None = None, banker: Any = None) -> None:
        super().__init__(table)
        self.banker = banker if banker is not None else default_banker()

    def as_table(self, rules: PontoonRules) -> PlayerTable:
        """His :class:`PlayerTable` under these rules, which the compiled kernel and the exact
        analysis read (built once per rules)."""
        return self.table_for(rules)

    def stake(self, view: StakeView, rng: object) -> float:
        return self.as_table(view.rules).stakes[view.first_card]

    def decide(self, view: PlayerView, rng: object) -> Move | Buy:
        table = self.as_table(view.rules)
        if "burn" in view.legal and table.burn:
            return Move.BURN
        if "split" in view.legal and table.split[view.cards[0]]:
            return Move.SPLIT
        action = table_action(table, view)
        if action == STICK:
            return Move.STICK
        if action == TWIST:
            return Move.TWIST
        return Buy(view.initial_stake * (1 if action == BUY1 else 2))


def table_action(table: PlayerTable, view: PlayerView) -> int:
    """The table's action code for the hand in ``view``."""
    buys = BUY_PATTERNS.index(view.buy_multiples)
    index = player_index(buys, view.twisted, view.n_cards, view.visible_sum, view.soft,
                         view.total)
    return int(table.actions.flat[index])


class DefaultPunter(TablePlayer):
    """The punters of a banker's strategy that names none: stick on 16, soft 18."""

    name = "stick 16"

    def build_table(self, rules: PontoonRules) -> PlayerTable:
        return PlayerTable.threshold(rules, 16, 18)


def default_banker() -> TableBanker:
    """The banker of a punters' strategy that names none: stands on 17."""
    return TableBanker(BankerTable.stand_on(17))


def seating_of(strategy: Any) -> tuple[Any, Any]:
    """(punters' strategy, banker's policy) of an experiment's strategy."""
    if getattr(strategy, "role", "punter") == "banker":
        player = getattr(strategy, "player", None)
        return (player if player is not None else DefaultPunter()), strategy
    banker = getattr(strategy, "banker", None)
    return strategy, (banker if banker is not None else default_banker())


def tables_of(strategy: Any, rules: PontoonRules) -> tuple[PlayerTable, BankerTable] | None:
    """The strategy's player and banker tables (each seat's ``as_table``, or built from its
    play where it offers none), or None if either plays only in Python (under these rules)."""
    player, banker = seating_of(strategy)
    describe_player = getattr(player, "as_table", None)
    describe_banker = getattr(banker, "as_table", None)
    if describe_player is None or describe_banker is None:
        return tabulate(rules, strategy, player, banker).table  # plain Python, built into tables
    player_table = describe_player(rules)  # None: this punter plays only in Python here
    return None if player_table is None else (player_table, describe_banker(rules))


__all__ = ["DefaultPunter", "TableBanker", "TablePlayer", "default_banker", "seating_of",
           "table_action", "tables_of"]
