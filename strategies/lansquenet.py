"""Lansquenet strategies: what every seat does as banker and as punter.

A lansquenet strategy speaks for the whole table: ``decide`` answers an
:class:`~sim.games.lansquenet.OpenView` (open the bank, carry on a passed one, or stack a
portee), a :class:`~sim.games.lansquenet.RideView` (``"ride"`` or ``"pass"``) and a
:class:`~sim.games.lansquenet.PunterView` (the amount met). Each built-in is a table of
per-seat policies that the compiled kernel runs and the exact analysis reads; the same table
answers on the reference path. Every seat plays the same policies unless ``seat0`` gives seat 0
its own (a table with one different player, whose results show in the per-seat columns).

Punter parameters, common to all: ``share`` (of the stake each punter offers to meet; 1: the
first punter takes it all), ``limit`` (meet only stakes up to this many units), ``avoid_after``
(stop meeting a bank that has won this many running), ``follow_after`` (meet all that is left
of a bank that has won this many running).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sim.core.cards import parse_rank
from sim.games.lansquenet.players import TableSeats
from sim.games.lansquenet.rules import SOURCE_SERIES, BankerPolicy, PunterPolicy
from strategies.base import register


def parse_series(series: str | Sequence[str | int]) -> tuple[int, ...]:
    """A portee from ``"source"`` (Q Q 10 7 10 9 9 A 8 A) or a list of rank symbols/numbers."""
    if isinstance(series, str):
        if series.strip().lower() == "source":
            return SOURCE_SERIES
        series = series.replace(",", " ").split()
    out = tuple(parse_rank(r) for r in series)
    if not out:
        raise ValueError("series: at least one card is needed")
    return out


@register("lansquenet", "pass-after")
class PassAfter(TableSeats):
    """Every banker passes the bank after `wins` coups won running (a jumelle counts)."""

    name = "pass-after"

    def __init__(self, wins: int = 3, carry: bool = False,
                 seat0: Mapping[str, Any] | None = None, **punter: Any) -> None:
        super().__init__(BankerPolicy(pass_after=wins, carry=carry), PunterPolicy(**punter),
                         seat0)


@register("lansquenet", "pass-at-target")
class PassAtTarget(TableSeats):
    """Every banker passes the bank once it reaches `target` times its opening stake."""

    name = "pass-at-target"

    def __init__(self, target: float = 8.0, carry: bool = False,
                 seat0: Mapping[str, Any] | None = None, **punter: Any) -> None:
        super().__init__(BankerPolicy(target=target, carry=carry), PunterPolicy(**punter), seat0)


@register("lansquenet", "never-pass")
class NeverPass(TableSeats):
    """Every banker lets the bank ride until he loses it."""

    name = "never-pass"

    def __init__(self, seat0: Mapping[str, Any] | None = None, **punter: Any) -> None:
        super().__init__(BankerPolicy(), PunterPolicy(**punter), seat0)


@register("lansquenet", "sharper")
class Sharper(TableSeats):
    """Seat 0 stacks a portee on the pack whenever it opens a bank; the others bank fairly.

    Args:
        series: the portee, ``"source"`` (Q Q 10 7 10 9 9 A 8 A, written for the banker's
            card turned first) or a list of ranks.
        adapt: rearrange the series for the table's custom of turning the table's card first.
        pass_after: the sharper passes after this many wins; 0: after those his series deals.
        others_pass_after: the other seats pass after this many wins (0: never).
        punter: the punter parameters of every seat.
    """

    name = "sharper"

    def __init__(self, series: str | Sequence[str | int] = "source", adapt: bool = False,
                 pass_after: int = 0, others_pass_after: int = 3, **punter: Any) -> None:
        seat0 = {"portee": parse_series(series), "pass_after": pass_after}
        super().__init__(BankerPolicy(pass_after=others_pass_after), PunterPolicy(**punter),
                         seat0, adapt)


class _PunterStudy(TableSeats):
    """Every seat (or seat 0 alone, with ``only_seat0``) punts by one policy, against bankers
    who pass after ``pass_after`` wins or at ``target`` (0 for both: bankers who never pass,
    and so lose every bank whose stakes are always met in full)."""

    def __init__(self, punter: dict, pass_after: int, target: float, only_seat0: bool) -> None:
        banker = BankerPolicy(pass_after=pass_after, target=target)
        if only_seat0:
            super().__init__(banker, PunterPolicy(), seat0=punter)
        else:
            super().__init__(banker, PunterPolicy(**punter))


@register("lansquenet", "cover-share")
class CoverShare(_PunterStudy):
    """Punters each offer to meet a fixed share of the stake."""

    name = "cover-share"

    def __init__(self, share: float = 0.5, pass_after: int = 3, target: float = 0.0,
                 only_seat0: bool = False) -> None:
        super().__init__({"share": share}, pass_after, target, only_seat0)


@register("lansquenet", "cover-below")
class CoverBelow(_PunterStudy):
    """Punters meet a share of stakes up to a limit, and nothing above it."""

    name = "cover-below"

    def __init__(self, limit: float = 16.0, share: float = 1.0, pass_after: int = 3,
                 target: float = 0.0, only_seat0: bool = False) -> None:
        super().__init__({"share": share, "limit": limit}, pass_after, target, only_seat0)


@register("lansquenet", "avoid-run")
class AvoidRun(_PunterStudy):
    """Punters stop meeting a bank that has won `after` coups running."""

    name = "avoid-run"

    def __init__(self, after: int = 3, share: float = 1.0, pass_after: int = 5,
                 target: float = 0.0, only_seat0: bool = False) -> None:
        super().__init__({"share": share, "avoid_after": after}, pass_after, target, only_seat0)


@register("lansquenet", "follow-run")
class FollowRun(_PunterStudy):
    """Punters meet a share, and all that is left once the bank has won `after` running."""

    name = "follow-run"

    def __init__(self, after: int = 3, share: float = 0.25, pass_after: int = 5,
                 target: float = 0.0, only_seat0: bool = False) -> None:
        super().__init__({"share": share, "follow_after": after}, pass_after, target,
                         only_seat0)
