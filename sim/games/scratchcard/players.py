"""Scratchcard plans played as strategies: how many tickets to buy, and when to stop.

Each is a :class:`~sim.games.scratchcard.rules.ScratchPlan`, played for many sessions at once
on the vectorised path and, through the same rule, one decision at a time on the reference
path.
"""

from __future__ import annotations

from sim.games.scratchcard.rules import ScratchPlan, ScratchRules, ScratchView


class PlanPlayer:
    """A strategy given by a :class:`ScratchPlan`, playable on both paths."""

    name = "plan"

    def __init__(self, plan: ScratchPlan) -> None:
        self.plan = plan

    def as_table(self, rules: ScratchRules) -> ScratchPlan:
        """The plan the vectorised path plays."""
        return self.plan

    def decide(self, view: ScratchView, rng: object) -> int:
        return self.plan.decide(view)


class FixedTickets(PlanPlayer):
    """Buy a fixed number of tickets at once and scratch them all."""

    name = "buy"

    def __init__(self, tickets: int = 1) -> None:
        super().__init__(ScratchPlan(first=tickets, max_tickets=tickets))


class StopWinLoss(PlanPlayer):
    """One ticket at a time up to a cap, stopping at a net win or a net loss."""

    name = "session"

    def __init__(self, max_tickets: int = 20, stop_win: float = 0.0,
                 stop_loss: float = 0.0) -> None:
        super().__init__(ScratchPlan(first=1, max_tickets=max_tickets, stop_win=stop_win,
                                     stop_loss=stop_loss))


class Budget(PlanPlayer):
    """Spend a budget, reinvesting every prize, until it no longer buys a ticket.

    A stop-win and a cap on tickets may end the session earlier.
    """

    name = "budget"

    def __init__(self, budget: float = 20.0, stop_win: float = 0.0,
                 max_tickets: int = 10_000) -> None:
        super().__init__(ScratchPlan(first=1, max_tickets=max_tickets, stop_win=stop_win,
                                     budget=budget))
