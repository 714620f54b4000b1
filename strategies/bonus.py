"""Bonus player policies, registered by name: what to stake, on which game, and when to walk
away (the policies themselves: :mod:`sim.games.bonus.players`).

A strategy of your own answers ``decide(view, rng) -> BonusBet(stake, game) | None`` (None:
walk away) and runs on the reference path; its exact value is not computed.
"""

from __future__ import annotations

from sim.games.bonus.players import Bold, FlatStake, OptimalStakes, SwitchGame, TwoTier
from strategies.base import register

register("bonus", "flat")(FlatStake)
register("bonus", "bold")(Bold)
register("bonus", "two-tier")(TwoTier)
register("bonus", "switch-game")(SwitchGame)
register("bonus", "optimal")(OptimalStakes)

__all__ = ["Bold", "FlatStake", "OptimalStakes", "SwitchGame", "TwoTier"]
