"""Per-seat lansquenet policies played as a strategy: the adapter that lets a
:class:`~sim.games.lansquenet.rules.LansquenetTable` answer on the reference path exactly as
the kernel and the exact code read it."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from typing import Any

from sim.games.lansquenet.rules import (
    BankerPolicy,
    LansquenetRules,
    LansquenetTable,
    OpenView,
    Portee,
    PunterPolicy,
    PunterView,
    RideView,
    adapt_series,
    check_series,
    stacked_wins,
)

_BANKER_FIELDS = {f.name for f in dataclasses.fields(BankerPolicy)}
_PUNTER_FIELDS = {f.name for f in dataclasses.fields(PunterPolicy)}


def _split(params: Mapping[str, Any], where: str) -> tuple[dict, dict]:
    unknown = set(params) - _BANKER_FIELDS - _PUNTER_FIELDS
    if unknown:
        raise TypeError(f"{where}: unknown key {sorted(unknown)[0]!r} (known: "
                        f"{', '.join(sorted(_BANKER_FIELDS | _PUNTER_FIELDS))})")
    return ({k: v for k, v in params.items() if k in _BANKER_FIELDS},
            {k: v for k, v in params.items() if k in _PUNTER_FIELDS})


def _seat_banker(policy: BankerPolicy, adapt: bool, first_card: str, reshuffle: str
                 ) -> BankerPolicy:
    if not policy.portee:
        return policy
    series = adapt_series(policy.portee, first_card == "banker") if adapt else policy.portee
    rules = LansquenetRules(first_card=first_card, reshuffle=reshuffle)
    pass_after = policy.pass_after or max(1, stacked_wins(series, rules))
    return dataclasses.replace(policy, portee=series, pass_after=pass_after)


# Kept per process, not on the strategy: asking a strategy for its table changes nothing, and
# the reference path asks for every view.
@functools.lru_cache(maxsize=256)
def _seat_policies(banker0: BankerPolicy, banker: BankerPolicy, punter0: PunterPolicy,
                   punter: PunterPolicy, adapt: bool, seats: int, first_card: str,
                   reshuffle: str) -> LansquenetTable:
    bankers = [_seat_banker(banker0 if s == 0 else banker, adapt, first_card, reshuffle)
               for s in range(seats)]
    punters = [punter0 if s == 0 else punter for s in range(seats)]
    return LansquenetTable(tuple(bankers), tuple(punters))


class TableSeats:
    """Per-seat policies, playable on both paths.

    Args:
        banker: every seat's banker policy.
        punter: every seat's punter policy.
        seat0: fields of either policy that seat 0 plays differently.
        adapt: a stacked series written for the banker's card first is rearranged when the
            rules turn the table's card first (a sharper who knows the table's custom).

    A seat with a portee and no ``pass_after`` passes after the coups its series wins.
    """

    name = "table"

    def __init__(self, banker: BankerPolicy, punter: PunterPolicy,
                 seat0: Mapping[str, Any] | None = None, adapt: bool = False) -> None:
        bank0, punt0 = _split(seat0 or {}, "seat0")
        self.banker = banker
        self.punter = punter
        self.banker0 = dataclasses.replace(banker, **bank0)
        self.punter0 = dataclasses.replace(punter, **punt0)
        self.adapt = adapt

    def _policies(self, seats: int, first_card: str, reshuffle: str) -> LansquenetTable:
        return _seat_policies(self.banker0, self.banker, self.punter0, self.punter, self.adapt,
                              seats, first_card, reshuffle)

    def as_table(self, rules: LansquenetRules) -> LansquenetTable:
        """The table the compiled kernel runs under ``rules``."""
        table = self._policies(rules.seats, rules.first_card, rules.reshuffle)
        for policy in table.bankers:
            if policy.portee:
                check_series(policy.portee, rules)
        return table

    def decide(self, view: OpenView | RideView | PunterView, rng: object) -> Any:
        if isinstance(view, PunterView):
            return (self.punter0 if view.seat == 0 else self.punter).cover(
                view.stake, view.uncovered, view.run)
        table = self._policies(view.seats, view.first_card, view.reshuffle)
        policy = table.bankers[view.seat]
        if isinstance(view, RideView):
            return "pass" if policy.passes(view.bank, view.opening, view.run) else "ride"
        carry = policy.carry and view.carry > 0
        if policy.portee:
            return Portee(policy.portee, carry)
        return "carry" if carry else "open"
