"""Checks the rules dataclasses share: value kinds, and a list of (field, ok, allowed) checks
raised as one :class:`~sim.core.errors.RuleError` naming the first field that fails."""

from __future__ import annotations

from collections.abc import Iterable

from sim.core.errors import RuleError


def is_int(x: object) -> bool:
    """An integer, not a bool (``True`` is no count of anything)."""
    return isinstance(x, int) and not isinstance(x, bool)


def is_number(x: object) -> bool:
    """An int or a float, not a bool."""
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def check_fields(rules: object, checks: Iterable[tuple[str, bool, str]]) -> None:
    """Raise a :class:`RuleError` for the first ``(field, ok, allowed)`` that is not ok.

    Raises:
        RuleError: naming the field, its value and what it allows.
    """
    for field, ok, allowed in checks:
        if not ok:
            raise RuleError(field, getattr(rules, field), allowed)
