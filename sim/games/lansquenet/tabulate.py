"""A plain-Python lansquenet strategy built into a :class:`LansquenetTable`.

A lansquenet table is per-seat policies with a few parameters: a banker's ``pass_after`` and
``carry``, a punter's ``share``, ``limit``, ``avoid_after`` and ``follow_after``. The engine
reads the parameters off the strategy's answers and then checks the policies against every
answer on a grid of views, seat by seat:

- opening a bank: with nothing to carry and with a passed bank on offer (``"open"`` or
  ``"carry"``; a portee is the built-in sharper's, not tabulated);
- after a won coup: runs 1..64 (``"ride"`` or ``"pass"``), which a ``pass_after`` holds when
  the bank rides up to some run and passes from it on;
- meeting a stake: runs 0..40, stakes of 0.5, 1 and 1.5 units times 1..2**12 (every stake a
  bank opened at those units reaches riding), and 100%, 75%, 50% and 25% of it uncovered.

The views show the fields the policies read (``seat``, ``seats``, ``carry``, ``run``,
``stake``, ``uncovered``, and the rules' ``first_card`` and ``reshuffle``); a read of another
field (the bank, the cards left, the opening stake, a punter's position) stays on the
reference path. A banker passing at a bank target reads the bank: it stays there too.
"""

from __future__ import annotations

from typing import Any

from sim.core.tabulate import NotTabulable, Tabulation, ask, cached, tabulation
from sim.games.lansquenet.rules import (
    BankerPolicy,
    LansquenetRules,
    LansquenetTable,
    OpenView,
    PunterPolicy,
    PunterView,
    RideView,
)

OPEN_FIELDS = ("seat", "seats", "carry", "first_card", "reshuffle")
BANKER_FIELDS = ("seat", "seats", "run", "first_card", "reshuffle")
PUNTER_FIELDS = ("seat", "seats", "run", "stake", "uncovered")
MAX_RUN = 64  # a banker's runs asked about
GRID_RUN = 40  # a punter's: a bank wins 40 running once in 2**40 banks
STAKES = tuple(sorted({base * 2 ** k for base in (0.5, 1.0, 1.5) for k in range(13)}))
UNCOVERED = (1.0, 0.75, 0.5, 0.25)
EPS = 1e-9


def _banker(rules: LansquenetRules, strategy: Any, seat: int) -> BankerPolicy:
    def opening(carry: float) -> Any:
        view = OpenView(seat, rules.seats, 1.0, carry, rules.first_card, rules.reshuffle)
        answer = ask(strategy, "decide", view, OPEN_FIELDS,
                     describe=lambda v: f"seat {seat} opening a bank (carry {carry:g})")
        if answer not in ("open", "carry"):
            raise NotTabulable(f"it answers {answer!r} when opening a bank: a table holds "
                               "'open' or 'carry' (a portee is the built-in sharper's)")
        return answer

    if opening(0.0) != "open":
        raise NotTabulable("it carries on a bank that was lost (the reference path reports "
                           "it)")
    carry = opening(4.0) == "carry"
    passes = []
    for run in range(1, MAX_RUN + 1):
        view = RideView(seat, rules.seats, 2.0 ** run, 1.0, run, 0, 52, rules.first_card,
                          rules.reshuffle)
        answer = ask(strategy, "decide", view, BANKER_FIELDS,
                     describe=lambda v: f"seat {seat}'s bank after {v.run} coups won")
        if answer not in ("ride", "pass"):
            raise NotTabulable(f"it answers {answer!r} to a won coup, not 'ride' or 'pass'")
        passes.append(answer == "pass")
    first = passes.index(True) + 1 if any(passes) else 0
    if first and not all(passes[first - 1:]):
        raise NotTabulable(f"seat {seat}'s bank rides again after passing at a shorter run, "
                           "which a table cannot hold")
    return BankerPolicy(pass_after=first, carry=carry)


def _punter(rules: LansquenetRules, strategy: Any, seat: int) -> PunterPolicy:
    banker = (seat + 1) % rules.seats
    answers: dict[tuple[int, float, float], float] = {}

    def cover(run: int, stake: float, share: float) -> float:
        key = (run, stake, share)
        if key not in answers:
            view = PunterView(seat, rules.seats, banker, 1, stake, stake * share, run, 1.0, 52)
            answer = ask(strategy, "decide", view, PUNTER_FIELDS,
                         describe=lambda v: f"seat {seat} meeting {v.stake:g} "
                                            f"({v.uncovered:g} uncovered) after {run} won")
            amount = view.uncovered if answer == "all" else answer
            if (isinstance(amount, bool) or not isinstance(amount, (int, float))
                    or not -EPS <= amount <= view.uncovered + EPS):
                raise NotTabulable(f"it answers {answer!r} to a stake, not an amount "
                                   "0..uncovered (the reference path reports it)")
            answers[key] = float(amount)
        return answers[key]

    # Read the parameters off a few answers, then check them on the whole grid.
    small = STAKES[0]
    share = cover(0, small, 1.0) / small
    met = [s for s in STAKES if cover(0, s, 1.0) > EPS]
    limit = 0.0 if not met or met[-1] == STAKES[-1] else met[-1]
    avoid = next((r for r in range(1, GRID_RUN + 1)
                  if share > 0 and cover(r, small, 1.0) <= EPS), 0)
    follow = 0
    if share < 1:
        follow = next((r for r in range(1, (avoid or GRID_RUN + 1))
                       if cover(r, small, 1.0) > share * small + EPS), 0)
    try:
        policy = PunterPolicy(share=min(max(share, 0.0), 1.0), limit=limit,
                              avoid_after=avoid, follow_after=follow)
    except ValueError:
        raise NotTabulable("its cover is not a share of the stake") from None
    for run in range(GRID_RUN + 1):
        for stake in STAKES:
            for part in UNCOVERED:
                want = policy.cover(stake, stake * part, run)
                if abs(cover(run, stake, part) - want) > EPS * max(1.0, stake):
                    raise NotTabulable(
                        f"seat {seat} meets {cover(run, stake, part):g} of a stake of "
                        f"{stake:g} ({stake * part:g} uncovered) after {run} won, where the "
                        f"nearest table policy meets {want:g}: a table cannot hold it")
    return policy


def build(rules: LansquenetRules, strategy: Any) -> LansquenetTable:
    """The strategy as per-seat policies (see the module notes).

    Raises:
        NotTabulable: why it cannot be one.
    """
    return LansquenetTable(tuple(_banker(rules, strategy, s) for s in range(rules.seats)),
                           tuple(_punter(rules, strategy, s) for s in range(rules.seats)))


def tabulate(rules: LansquenetRules, strategy: Any) -> Tabulation[LansquenetTable]:
    """The strategy as a kernel table, or the reason it stays on the reference path (built
    once per rules and strategy)."""
    return cached(rules, strategy, lambda: tabulation(lambda: build(rules, strategy)))
