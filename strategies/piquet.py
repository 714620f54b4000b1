"""Piquet strategies: how each player exchanges.

A piquet strategy speaks for both players: ``decide(view, rng)`` sees a
:class:`~sim.games.piquet.PiquetView` (the hand as card codes, the seat, how many cards may be
taken) and returns the cards to discard. The built-ins are exchange policies as data
(:class:`~sim.games.piquet.ExchangePolicy`: keep values for the point suit, runs and sets, and
how many cards each seat takes), which the compiled kernel plays and the exact exchange table
reads; ``params`` override any field, e.g. ``{ elder_take = 4, sets = 10 }``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from sim.games.piquet import (
    POLICIES,
    ExchangePolicy,
    PiquetRules,
    PiquetTable,
    PiquetView,
    policy_discard,
)
from strategies.base import register


class PolicyStrategy:
    """An exchange policy for both seats, playable on both paths."""

    name = "policy"
    base = "lowest"

    def __init__(self, younger: dict[str, Any] | None = None, **params: Any) -> None:
        fields = {f.name for f in dataclasses.fields(ExchangePolicy)}
        for given in (params, younger or {}):
            unknown = set(given) - fields
            if unknown:
                raise TypeError(f"unknown key {sorted(unknown)[0]!r} (known: "
                                f"{', '.join(sorted(fields | {'younger'}))})")
        self.policy = dataclasses.replace(POLICIES[self.base], **params)
        # younger hand plays the same policy unless ``younger`` changes some of its fields
        self.younger = dataclasses.replace(self.policy, **(younger or {}))

    _sets_from = 3  # set by kernel_table from the rules (the reference path asks it first)

    def decide(self, view: PiquetView, rng: Any) -> list[int]:
        policy = self.policy if view.seat == "elder" else self.younger
        return policy_discard(policy, view, self._sets_from)

    def kernel_table(self, rules: PiquetRules) -> PiquetTable:
        self._sets_from = rules.set_rank
        return PiquetTable(self.policy, self.younger)


@register("piquet", "lowest")
class Lowest(PolicyStrategy):
    """Take every card allowed, discarding the lowest ranks."""

    name = "lowest"
    base = "lowest"


@register("piquet", "point")
class Point(PolicyStrategy):
    """Take every card allowed, keeping the point suit whole."""

    name = "point"
    base = "point"


@register("piquet", "combinations")
class Combinations(PolicyStrategy):
    """Take every card allowed, keeping the point suit, runs and pairs towards sets."""

    name = "combinations"
    base = "combinations"


@register("piquet", "cautious")
class Cautious(PolicyStrategy):
    """Keep combinations; elder takes three, younger one."""

    name = "cautious"
    base = "cautious"
