"""The exact value of a bonus policy under some terms, cached per process: what the charts,
the operator's tables and the game's exact values share."""

from __future__ import annotations

from typing import Any

from sim.games.bonus.dp import BonusValue, evaluate
from sim.games.bonus.lattice import Lattice, PolicyTable, lattice_for
from sim.games.bonus.terms import BonusRules


def table_of(strategy: Any, lattice: Lattice) -> PolicyTable | None:
    """The policy table a strategy offers (``bonus_table(lattice)``, or ``as_table(rules)``), or
    None (reference path only).

    Raises:
        ValueError: the policy asks for something the terms do not allow.
    """
    describe = getattr(strategy, "bonus_table", None)  # a policy reads the terms' lattice
    if describe is not None:
        return describe(lattice)
    describe = getattr(strategy, "as_table", None)
    return describe(lattice.rules) if describe is not None else None


_VALUES: dict[tuple, BonusValue] = {}


def policy_value(rules: BonusRules, strategy: Any) -> BonusValue | None:
    """The exact outcome of a policy under some terms (cached per process), or None."""
    key_of = getattr(strategy, "key", None)
    key = (rules, key_of()) if key_of is not None else None
    if key is not None and key in _VALUES:
        return _VALUES[key]
    lattice = lattice_for(rules)
    table = table_of(strategy, lattice)
    if table is None:
        return None
    value = evaluate(lattice, table)
    if key is not None:
        if len(_VALUES) > 256:
            _VALUES.clear()
        _VALUES[key] = value
    return value
