"""Wagering bonuses: what a bonus is worth to a player under each policy, exactly and by
simulation, and what it costs the operator.

Terms and the games played: :mod:`.terms`; the integer lattice and policy tables: :mod:`.lattice`,
:mod:`.policy`; the built-in policies: :mod:`.players`; the exact programme: :mod:`.dp`;
simulated players: :mod:`.walk`; the operator's view: :mod:`.operator`; charts:
:mod:`.charts`; what the report shows of it: :mod:`.report`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from sim import games
from sim.core.errors import InputError
from sim.core.progression import ProgressionSpec
from sim.core.rng import Cards, kernel_state
from sim.core.stats import Stats
from sim.games.base import ExactValue, Game
from sim.games.bonus.dp import BonusValue, evaluate
from sim.games.bonus.lattice import PolicyTable, lattice_for
from sim.games.bonus.tabulate import tabulate as tabulate_strategy
from sim.games.bonus.terms import BonusRules, scratch_table
from sim.games.bonus.value import policy_value
from sim.games.bonus.walk import player_stats, simulate_reference, walk_table


def _exact_value(value: BonusValue) -> ExactValue:
    return ExactValue(value.expected_profit, value.deposit, value.mean_wagered, value.sd_payout)


_PATHS: dict[tuple, str] = {}  # engine path by (terms, policy key), found at check time

class BonusGame(Game[BonusRules, PolicyTable]):
    """Wagering bonuses played on scratch cards, faro bets or even-money bets."""

    description = ("Wagering bonuses: terms, player policies, exact value by dynamic "
                   "programming, the operator's cost")
    round_name = "player"
    rules_doc = "docs/rules/scratchcards.md"
    file_rules = ("games",)  # a scratch card's prize table: scratch:<file>
    flat_stakes_only = ("progression: stakes are set by the bonus policy (its params); "
                        "stake progressions do not apply (leave progression out)")

    def simulate_table(self, rules: BonusRules, table: PolicyTable,
                       progression: ProgressionSpec, rounds: int,
                       seed: np.random.SeedSequence) -> Stats:
        lattice = lattice_for(rules)
        return player_stats(lattice, *walk_table(lattice, table, rounds, kernel_state(seed)))

    def play_reference(self, rules: BonusRules, strategy: Any, progression: ProgressionSpec,
                       rounds: int, cards: Cards, rng: np.random.Generator) -> Stats:
        return simulate_reference(lattice_for(rules), strategy, rounds, rng, cards.kernel_state())

    def pack_key(self, rules: BonusRules) -> str:
        """What decides the spins: the games played (a uniform per bet picks the outcome of
        the game bet on), so terms that differ only in wagering, caps or match share them."""
        return f"games={self.portable('games', rules.games)}"

    def locate(self, rule: str, value: Any, base_dir: Path) -> Any:
        """Each ``scratch:<file>`` of the games with its prize table found beside the
        experiment (a shipped table's name and the other games stay as they are)."""
        if isinstance(value, (list, tuple)):
            return [self.locate(rule, spec, base_dir) for spec in value]
        table = scratch_table(value)
        if table is None:
            return value
        return "scratch:" + games.get("scratchcard").locate("table", table, base_dir)

    def data_files(self, rule: str, value: Any) -> list[Path]:
        specs = (value,) if isinstance(value, str) else tuple(value)
        scratch = games.get("scratchcard")
        return [path for spec in specs if (table := scratch_table(spec)) is not None
                for path in scratch.data_files("table", table)]

    def portable(self, rule: str, value: Any) -> Any:
        """The games with each prize table by its file's name, not its folder."""
        specs = (value,) if isinstance(value, str) else tuple(value)
        scratch = games.get("scratchcard")
        return tuple(spec if (table := scratch_table(spec)) is None
                     else "scratch:" + scratch.portable("table", table) for spec in specs)

    def tabulate(self, rules: BonusRules, strategy: Any) -> PolicyTable | None:
        """A plain-Python policy that does not read the balance, as a table
        (:mod:`.tabulate`)."""
        return tabulate_strategy(lattice_for(rules), strategy).table

    def check(self, rules: BonusRules, strategy: Any, progression: ProgressionSpec) -> None:
        try:
            super().check(rules, strategy, progression)
            # Its exact value and its path now, while its table is at hand: a policy table
            # is 40-80 MB, more than the table cache keeps, and the report would build it
            # again for each.
            policy_value(rules, strategy)
            self.engine_path(rules, strategy)
        except ValueError as exc:  # a stake the terms do not allow, found building the table
            raise InputError(f"strategy {getattr(strategy, 'name', '')!r}: {exc}") from None

    def engine_path(self, rules: BonusRules, strategy: Any) -> str:
        key_of = getattr(strategy, "key", None)  # a policy's key names its table
        if key_of is None:
            return super().engine_path(rules, strategy)
        key = (rules, key_of())
        if key not in _PATHS:
            if len(_PATHS) > 256:
                _PATHS.clear()
            _PATHS[key] = super().engine_path(rules, strategy)
        return _PATHS[key]

    def exact(self, rules: BonusRules, strategy: Any,
              progression: ProgressionSpec) -> ExactValue | None:
        value = policy_value(rules, strategy)  # an offered table's, cached per policy
        if value is None:
            return super().exact(rules, strategy, progression)
        return _exact_value(value)

    def exact_table(self, rules: BonusRules, table: PolicyTable,
                    progression: ProgressionSpec) -> ExactValue | None:
        return _exact_value(evaluate(lattice_for(rules), table))

    def exact_unavailable(self, rules: BonusRules, strategy: Any,
                          progression: ProgressionSpec) -> str:
        return ("no exact value: the policy is not a table over (balance, wagering left) that "
                "the dynamic programme can read")


GAME = BonusGame()
