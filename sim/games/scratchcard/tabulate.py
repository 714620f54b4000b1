"""A plain-Python scratchcard session rule built into a :class:`ScratchPlan`.

A plan buys ``first`` tickets, then one at a time until ``max_tickets`` are bought or the net
reaches a stop (``stop_win`` up, ``stop_loss`` down). The engine reads those numbers off the
strategy's answers (its first purchase; at the net of 0, how long it goes on; after the first
purchase, the smallest net it stops at going up and going down, in the pool's money steps)
and checks the plan against its answers on a grid of views: every count of tickets bought up
to 40 past the first and around ``max_tickets``, and nets in money steps across and around
both stops. The views show ``price``, ``tickets``, ``spent``, ``won`` (and so ``net``) and
``session_limit``; a strategy reading the last prize or the tickets left in the print run
stays on the reference path.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sim.core.tabulate import NotTabulable, Tabulation, ask, cached, tabulation
from sim.games.scratchcard.exact import money_grid
from sim.games.scratchcard.rules import ScratchPlan, ScratchRules, ScratchView

FIELDS = ("price", "tickets", "spent", "won", "net", "session_limit")
SCAN = 20_000  # money steps scanned for a stop, either way


def build(rules: ScratchRules, strategy: Any) -> ScratchPlan:
    """The strategy as a :class:`ScratchPlan` (see the module notes).

    Raises:
        NotTabulable: why it cannot be one.
    """
    pool = rules.pool()
    step = float(money_grid(pool)[0])
    price = float(pool.price)
    limit = rules.session_limit
    answers: dict[tuple[int, int], int] = {}

    def count(tickets: int, net_steps: int) -> int:
        key = (tickets, net_steps)
        if key not in answers:
            spent = tickets * price
            view = ScratchView(price, tickets, spent, spent + net_steps * step, None, None,
                               limit)
            answer = ask(strategy, "decide", view, FIELDS,
                         describe=lambda v: f"{v.tickets} tickets bought, net {v.net:g}")
            if (isinstance(answer, bool) or not isinstance(answer, (int, np.integer))
                    or answer < 0):
                raise NotTabulable(f"it answers {answer!r}, not a number of tickets (the "
                                   "reference path reports it)")
            if tickets and answer > 1:
                raise NotTabulable("it buys more than one ticket at a time after the first "
                                   "purchase, which a plan cannot hold")
            answers[key] = int(answer)
        return answers[key]

    first = count(0, 0)
    if first == 0:
        raise NotTabulable("it buys no ticket")
    most = next((t for t in range(first, limit + 1) if count(t, 0) == 0), None)
    if most is None:
        raise NotTabulable("it buys beyond the session limit (the reference path reports it)")
    stop_win = stop_loss = 0.0
    if most > first:
        up = next((k for k in range(1, SCAN) if count(first, k) == 0), None)
        down = next((k for k in range(1, SCAN) if count(first, -k) == 0), None)
        stop_win = up * step if up is not None else 0.0
        stop_loss = down * step if down is not None else 0.0
    try:
        plan = ScratchPlan(first, most, stop_win, stop_loss)
        plan.check(rules)
    except ValueError as exc:
        raise NotTabulable(f"its plan is not allowed here ({exc}; the reference path reports "
                           "it)") from None
    ups = round(stop_win / step) if stop_win else 0
    downs = round(stop_loss / step) if stop_loss else 0
    reach = max(ups, downs, round(first * price / step)) + 3
    nets = sorted({*range(-reach, reach + 1, max(1, reach // 40)), *range(ups - 2, ups + 3),
                   *range(-downs - 2, -downs + 3), 0})
    ticket_counts = sorted({*range(first, min(most, first + 40) + 1),
                            *range(max(first, most - 3), most + 2)})
    for tickets in ticket_counts:
        for k in nets:
            spent = tickets * price
            view = ScratchView(price, tickets, spent, spent + k * step, None, None, limit)
            want = plan.decide(view) if tickets else first
            if count(tickets, k) != want:
                raise NotTabulable(
                    f"after {tickets} tickets at a net of {k * step:g} it buys "
                    f"{count(tickets, k)}, where the nearest plan buys {want}: a plan cannot "
                    "hold it")
    return plan


def tabulate(rules: ScratchRules, strategy: Any) -> Tabulation[ScratchPlan]:
    """The strategy as a plan, or the reason it stays on the reference path (built once per
    rules and strategy)."""
    return cached(rules, strategy, lambda: tabulation(lambda: build(rules, strategy)))
