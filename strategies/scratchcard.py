"""Scratchcard strategies, registered by name: how many tickets to buy, and when to stop (the
plans themselves: :mod:`sim.games.scratchcard.players`).

A strategy of your own answers ``decide(view, rng) -> tickets to buy now`` (0: stop) and runs
on the reference path.
"""

from __future__ import annotations

from sim.games.scratchcard.players import Budget, FixedTickets, PlanPlayer, StopWinLoss
from strategies.base import register

register("scratchcard", "buy")(FixedTickets)
register("scratchcard", "session")(StopWinLoss)
register("scratchcard", "budget")(Budget)

__all__ = ["Budget", "FixedTickets", "PlanPlayer", "StopWinLoss"]
