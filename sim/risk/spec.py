"""The ``[session]`` table of an experiment file: a bankroll, a session length and its stops.

::

    [session]
    bankroll = 100              # in units of the base stake (at least one)
    rounds = 300                # the session's length; or hours = 3 at rounds_per_hour
    rounds_per_hour = 100       # the pace: needed with hours; else for per-hour figures
                                # (default 100)
    stop_win = 50               # optional: leave once ahead by this much
    stop_loss = 60              # optional: leave once behind by this much (at most the bankroll)
    target_risks = [0.01, 0.05, 0.135]   # bankrolls sized to these risks of ruin
    sessions = 100_000          # Monte Carlo sessions per variant and strategy
    chunk_sessions = 10_000     # fixed: the same seed gives the same numbers for any jobs
    checkpoints = 30            # points along the session for the fan chart
    sample_paths = 8            # bankroll paths drawn on the fan chart
    bankrolls = [10, 25, 50, 100, 200]   # optional: ruin against bankroll at these points

The bankroll is **ruined** when it is no longer positive after a round (the round in play is
finished on credit: a split or a doubled bet that costs more than is left still counts in the
result). Stakes are the strategy's own, under its progression; they are not cut to what is
left.

``rounds`` and ``hours`` are two ways to give one length (:data:`ALTERNATIVES`): a file gives
one of them, and a command-line override of one replaces the other.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sim.core.errors import InputError

SESSION_KEYS = {"bankroll", "rounds", "hours", "rounds_per_hour", "stop_win", "stop_loss",
                "target_risks", "sessions", "chunk_sessions", "checkpoints", "sample_paths",
                "bankrolls"}
# Keys that say the same thing two ways: a file gives one of each group, and an override of
# one replaces the others (sim.engine.experiment.apply_overrides).
ALTERNATIVES = (("rounds", "hours"),)
DEFAULT_RISKS = (0.01, 0.05, 0.135)
DEFAULT_PACE = 100.0
MAX_ROUNDS = 1_000_000


@dataclass(frozen=True)
class SessionSpec:
    """A session as data (money in units of the base stake).

    Attributes:
        bankroll: what the player brings; ruin is losing all of it.
        rounds: the session's length in rounds (deals, banks, tickets).
        rounds_per_hour: the pace, for EV and SD per hour.
        stop_win: leave once ahead by this much (None: never).
        stop_loss: leave once behind by this much (None: play on to ruin or the end).
        target_risks: risks of ruin to size a bankroll for, each in (0, 1).
        sessions: Monte Carlo sessions per variant and strategy.
        chunk_sessions: sessions per chunk (fixed by the file, never by the jobs).
        checkpoints: points along the session where the bankroll's distribution is kept.
        sample_paths: whole bankroll paths kept for the fan chart.
        bankrolls: bankrolls at which ruin is also given (the ruin-against-bankroll chart).
    """

    bankroll: float
    rounds: int
    rounds_per_hour: float = DEFAULT_PACE
    stop_win: float | None = None
    stop_loss: float | None = None
    target_risks: tuple[float, ...] = DEFAULT_RISKS
    sessions: int = 100_000
    chunk_sessions: int = 10_000
    checkpoints: int = 30
    sample_paths: int = 8
    bankrolls: tuple[float, ...] = ()

    def __post_init__(self) -> None:
        if not (self.bankroll >= 1 and math.isfinite(self.bankroll)):
            raise ValueError(f"bankroll: expected at least one base stake, got {self.bankroll}")
        if self.rounds < 1:
            raise ValueError(f"rounds: a session needs at least one round, got {self.rounds}")
        for name in ("stop_win", "stop_loss"):
            value = getattr(self, name)
            if value is not None and not value > 0:
                raise ValueError(f"{name}: expected a positive amount, got {value}")
        if self.stop_loss is not None and self.stop_loss > self.bankroll:
            raise ValueError(f"stop_loss: {self.stop_loss:g} is more than the bankroll "
                             f"{self.bankroll:g}")
        for risk in self.target_risks:
            if not 0 < risk < 1:
                raise ValueError(f"target_risks: each risk must be in (0, 1), got {risk}")

    @property
    def checkpoint_rounds(self) -> tuple[int, ...]:
        """The rounds (0 = the start) at which the bankroll's distribution is kept."""
        k = max(1, min(self.checkpoints, self.rounds))
        return tuple(sorted({round(i * self.rounds / k) for i in range(k + 1)}))

    @property
    def chart_bankrolls(self) -> tuple[float, ...]:
        """The bankrolls of the ruin-against-bankroll chart: those given, else a spread
        around the session's own (a tenth of it to three times it)."""
        if self.bankrolls:
            return tuple(sorted(set(self.bankrolls)))
        return tuple(sorted({max(1.0, round(self.bankroll * f)) for f in
                             (0.1, 0.2, 0.35, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0)}))


def _number(source: str, data: Mapping[str, Any], key: str, low: float | None = None,
            integer: bool = False, strict: bool = True) -> Any:
    value = data[key]
    kind = "an integer" if integer else "a number"
    if isinstance(value, bool) or not isinstance(value, int if integer else (int, float)):
        raise InputError(f"{source}: session.{key}: expected {kind}, got {value!r}")
    if low is not None and (value <= low if strict else value < low):
        bound = f"> {low:g}" if strict else f">= {low:g}"
        raise InputError(f"{source}: session.{key}: expected {kind} {bound}, got {value}")
    if not math.isfinite(value):
        raise InputError(f"{source}: session.{key}: expected a finite number, got {value}")
    return value


def parse_session(value: Any, source: str) -> SessionSpec:
    """Validate a ``[session]`` table; every problem is an InputError naming ``source`` and
    the key."""
    if not isinstance(value, Mapping):
        raise InputError(f"{source}: session: expected a table [session], got {value!r}")
    extra = sorted(set(value) - SESSION_KEYS)
    if extra:
        raise InputError(f"{source}: session.{extra[0]}: unknown key (expected one of "
                         f"{', '.join(sorted(SESSION_KEYS))})")
    if "bankroll" not in value:
        raise InputError(f"{source}: session.bankroll: missing (expected a positive amount "
                         "in base stakes)")
    bankroll = float(_number(source, value, "bankroll", 0.0))
    if bankroll < 1:  # a player who cannot cover one base stake has no session to play
        raise InputError(f"{source}: session.bankroll: expected at least one base stake "
                         f"(a number >= 1), got {value['bankroll']}")
    pace = float(_number(source, value, "rounds_per_hour", 0.0)) if (
        "rounds_per_hour" in value) else DEFAULT_PACE
    if ("rounds" in value) == ("hours" in value):
        raise InputError(f"{source}: session.rounds: give the length as rounds or as hours "
                         "(at rounds_per_hour), one of the two")
    if "hours" in value and "rounds_per_hour" not in value:
        raise InputError(f"{source}: session.rounds_per_hour: missing (session.hours needs "
                         "the pace, in rounds an hour, to make a number of rounds)")
    if "rounds" in value:
        rounds = _number(source, value, "rounds", integer=True)
        if rounds < 1:
            raise InputError(f"{source}: session.rounds: a session needs at least one round, "
                             f"got {rounds}")
    else:
        hours = float(_number(source, value, "hours", 0.0))
        rounds = math.floor(hours * pace + 1e-9)
        if rounds < 1:
            raise InputError(f"{source}: session.hours: {hours:g} h at {pace:g} rounds per "
                             "hour is shorter than one round")
    if rounds > MAX_ROUNDS:
        raise InputError(f"{source}: session.rounds: at most {MAX_ROUNDS:,}, got {rounds:,}")
    stops = {k: float(_number(source, value, k, 0.0)) if k in value else None
             for k in ("stop_win", "stop_loss")}
    if stops["stop_loss"] is not None and stops["stop_loss"] > bankroll:
        # Behind by more than the bankroll is past ruin: such a stop is never reached.
        raise InputError(f"{source}: session.stop_loss: {value['stop_loss']} is more than "
                         f"session.bankroll = {value['bankroll']} (ruin comes first); give at "
                         f"most {value['bankroll']}, or no stop_loss")
    risks = value.get("target_risks", list(DEFAULT_RISKS))
    if not isinstance(risks, list) or not risks:
        raise InputError(f"{source}: session.target_risks: expected a non-empty list of "
                         f"risks in (0, 1), got {risks!r}")
    for risk in risks:
        if isinstance(risk, bool) or not isinstance(risk, (int, float)) or not 0 < risk < 1:
            raise InputError(f"{source}: session.target_risks: each risk must be a number in "
                             f"(0, 1), got {risk!r}")
    bankrolls = value.get("bankrolls", [])
    if not isinstance(bankrolls, list) or any(
            isinstance(b, bool) or not isinstance(b, (int, float)) or not b >= 1
            for b in bankrolls):
        raise InputError(f"{source}: session.bankrolls: expected a list of amounts of at least "
                         f"one base stake, got {bankrolls!r}")
    counts = {}
    for key, default, low in (("sessions", 100_000, 1), ("chunk_sessions", 10_000, 1),
                              ("checkpoints", 30, 1), ("sample_paths", 8, 0)):
        counts[key] = _number(source, value, key, low, integer=True, strict=False) if (
            key in value) else default
    counts["chunk_sessions"] = min(counts["chunk_sessions"], counts["sessions"])
    return SessionSpec(bankroll, int(rounds), pace, stops["stop_win"], stops["stop_loss"],
                       tuple(float(r) for r in risks), bankrolls=tuple(float(b) for b in bankrolls),
                       **counts)


def check_sessions(game: Any, variants: Any, strategies: Any, source: str) -> None:
    """Fail before any work where a (variant, strategy) has no session play on a kernel."""
    import numpy as np

    for variant in variants:
        for spec in strategies:
            try:
                nets = game.session_nets(variant.rules, spec.build(game.name), spec.progression,
                                         1, 1, np.random.SeedSequence(0))
            except InputError as exc:
                raise InputError(f"{source}: session: {exc}") from None
            if nets is None:
                raise InputError(
                    f"{source}: session: {game.name} cannot play sessions of strategy "
                    f"{spec.name!r} in variant {variant.name!r} on its kernel (a strategy "
                    "with a kernel table is needed)")
