"""Newmarket strategies: the suit a player begins a new run with.

A newmarket strategy speaks for the whole table: ``decide(view, rng)`` sees a
:class:`~sim.games.newmarket.NewmarketView` (the seat, its hand, the suits it may begin,
the boodle cards still holding money) and returns a suit (0 clubs, 1 diamonds, 2 hearts,
3 spades); the run begins with the player's lowest card of it. Every seat plays the same
policy unless ``seat0`` names seat 0's own (a table with one different player, whose result is
the report's ``net`` and ``seat_0_net``). The built-ins are policies as data for the kernel.
"""

from __future__ import annotations

from typing import Any

from sim.games.newmarket import (
    POLICY_NAMES,
    NewmarketRules,
    NewmarketTable,
    NewmarketView,
    policy_suit,
)
from strategies.base import register


class PolicyStrategy:
    """A named policy for every seat, optionally another for seat 0."""

    name = "policy"
    policy = "longest"

    def __init__(self, seat0: str | None = None) -> None:
        if seat0 is not None and seat0 not in POLICY_NAMES:
            raise ValueError(f"seat0: unknown policy {seat0!r} (known: "
                             f"{', '.join(POLICY_NAMES)})")
        self.seat0 = seat0 or self.policy

    def decide(self, view: NewmarketView, rng: Any) -> int:
        return policy_suit(self.seat0 if view.seat == 0 else self.policy, view)

    def kernel_table(self, rules: NewmarketRules) -> NewmarketTable:
        others = POLICY_NAMES.index(self.policy)
        return NewmarketTable((POLICY_NAMES.index(self.seat0),) + (others,) * (
            rules.players - 1))


@register("newmarket", "longest")
class Longest(PolicyStrategy):
    """Begin with the suit held longest."""

    name = "longest"
    policy = "longest"


@register("newmarket", "shortest")
class Shortest(PolicyStrategy):
    """Begin with the suit held shortest."""

    name = "shortest"
    policy = "shortest"


@register("newmarket", "boodle")
class Boodle(PolicyStrategy):
    """Begin with a suit holding a boodle card with money on it, else the longest."""

    name = "boodle"
    policy = "boodle"


@register("newmarket", "lowest")
class Lowest(PolicyStrategy):
    """Begin with the suit of the lowest card held (the longest run to come)."""

    name = "lowest"
    policy = "lowest"


@register("newmarket", "random", stochastic=True)
class Random:
    """Begin with a suit chosen at random among those allowed (reference path only)."""

    name = "random"

    def decide(self, view: NewmarketView, rng: Any) -> int:
        return int(view.allowed[int(rng.integers(len(view.allowed)))])
