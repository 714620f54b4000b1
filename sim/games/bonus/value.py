"""The exact value of a bonus policy under some terms, cached per process: what the charts,
the operator's tables and the game's exact values share."""

from __future__ import annotations

from typing import Any

from sim.games.bonus.dp import BonusValue, evaluate
from sim.games.bonus.lattice import lattice_for
from sim.games.bonus.terms import BonusRules

_VALUES: dict[tuple, BonusValue] = {}


def policy_value(rules: BonusRules, strategy: Any) -> BonusValue | None:
    """The exact outcome of a policy under some terms (cached per process), or None where
    it offers no table.

    Raises:
        ValueError: the policy asks for something the terms do not allow.
    """
    key_of = getattr(strategy, "key", None)
    key = (rules, key_of()) if key_of is not None else None
    if key is not None and key in _VALUES:
        return _VALUES[key]
    describe = getattr(strategy, "as_table", None)  # the one table hook
    if describe is None:
        return None
    value = evaluate(lattice_for(rules), describe(rules))
    if key is not None:
        if len(_VALUES) > 256:
            _VALUES.clear()
        _VALUES[key] = value
    return value
