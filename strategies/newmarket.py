"""Newmarket strategies: the suit a player begins a new run with.

A newmarket strategy speaks for the whole table: ``decide(view, rng)`` sees a
:class:`~sim.games.newmarket.NewmarketView` (the seat, its hand, the suits it may begin,
the boodle cards still holding money) and returns a suit (0 clubs, 1 diamonds, 2 hearts,
3 spades); the run begins with the player's lowest card of it. Every seat plays the same
policy unless ``seat0`` names seat 0's own (a table with one different player, whose result is
the report's ``net`` and ``seat_0_net``). The built-ins are policies as data for the kernel,
played on the reference path by :class:`~sim.games.newmarket.players.SuitPolicyPlayers`.
"""

from __future__ import annotations

from typing import Any

from sim.games.newmarket.players import SuitPolicyPlayers
from sim.games.newmarket.rules import NewmarketView
from strategies.base import configuration, register

# What each policy begins a new run with (sim.games.newmarket.players.policy_suit).
_POLICIES = {
    "longest": "Begin with the suit held longest.",
    "shortest": "Begin with the suit held shortest.",
    "boodle": "Begin with a suit holding a boodle card with money on it, else the longest.",
    "lowest": "Begin with the suit of the lowest card held (the longest run to come).",
}
LongestSuit, ShortestSuit, BoodleSuit, LowestSuit = (
    configuration("newmarket", policy, SuitPolicyPlayers, description,
                  class_name=f"{policy.capitalize()}Suit", policy=policy)
    for policy, description in _POLICIES.items())


@register("newmarket", "random", stochastic=True)
class Random:
    """Begin with a suit chosen at random among those allowed (reference path only)."""

    name = "random"

    def decide(self, view: NewmarketView, rng: Any) -> int:
        return int(view.allowed[int(rng.integers(len(view.allowed)))])
