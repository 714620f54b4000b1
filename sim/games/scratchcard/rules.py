"""Scratchcards: the rules as data, the pool a ticket is drawn from, and what a player sees.

See ``docs/rules/scratchcards.md``. A round is one player's session: the strategy buys
tickets (a first purchase, then more, one decision at a time) and stops when it likes; the
session's net result is prizes won less tickets bought, its initial stake the first purchase,
its total wagered every ticket bought.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from sim.core.errors import InputError, RuleError
from sim.core.validation import check_fields, is_int
from sim.games.scratchcard.current import ESTIMATORS, estimate_sold, remaining
from sim.games.scratchcard.table import SHIPPED, Claims, PrizeTable, load_claims, load_table

MODES = ("auto", "printed", "online")


@dataclass(frozen=True, eq=False)
class Pool:
    """What the next ticket is drawn from.

    Attributes:
        price: the ticket price.
        values: the prize of each tier, the losing tier (0) last.
        probs: the probability of each tier for one ticket.
        counts: tickets left of each tier (printed game, drawn without replacement), else None.
    """

    price: float
    values: np.ndarray
    probs: np.ndarray
    counts: np.ndarray | None = None

    @property
    def printed(self) -> bool:
        return self.counts is not None

    @property
    def tickets(self) -> int | None:
        """Tickets left (printed games)."""
        return int(self.counts.sum()) if self.counts is not None else None


@dataclass(frozen=True)
class ScratchRules:
    """Every choice that makes a scratchcard variant.

    Attributes:
        table: a shipped table (``oh-snap``, ``cash-payout``, ``true-north``,
            ``lucky-lines-gold``, ``deal-em``, ``online-example``), or a ``.csv`` / ``.toml``
            file (``path.csv#Game`` to pick one game of several; a relative path is taken from
            the working directory).
        mode: ``"printed"`` (tickets drawn without replacement from the print run),
            ``"online"`` (independent draws; a printed table becomes a virtual series that never
            runs down) or ``"auto"`` (printed when the table has counts).
        claims: ``""`` (a fresh print run), ``"shipped"`` (the shipped snapshot of this game) or
            a claims CSV: the player then buys from what is left mid-run.
        tickets_sold: tickets sold when the player buys (with claims); 0: estimate it.
        estimator: how tickets sold is estimated when not given (see :mod:`.current`).
        session_limit: the most tickets one session may buy.
    """

    table: str = "oh-snap"
    mode: str = "auto"
    claims: str = ""
    tickets_sold: int = 0
    estimator: str = "lowest-tier"
    session_limit: int = 100_000

    def __post_init__(self) -> None:
        checks = [
            ("table", isinstance(self.table, str) and bool(self.table.strip()),
             f"a shipped table ({', '.join(SHIPPED)}) or a .csv/.toml file"),
            ("mode", self.mode in MODES, " or ".join(repr(m) for m in MODES)),
            ("claims", isinstance(self.claims, str), "'', 'shipped' or a claims CSV file"),
            ("tickets_sold", is_int(self.tickets_sold) and self.tickets_sold >= 0,
             "a whole number >= 0"),
            ("estimator", self.estimator in ESTIMATORS,
             " or ".join(repr(e) for e in ESTIMATORS)),
            ("session_limit", is_int(self.session_limit) and 1 <= self.session_limit <= 10**7,
             "a whole number 1..10,000,000"),
        ]
        check_fields(self, checks)
        if self.table not in SHIPPED and not Path(self.table).is_absolute():
            # Workers may start elsewhere: pin a relative file to where the rules were made.
            spec = Path(self.table.split("#")[0]).resolve()
            rest = self.table[len(self.table.split("#")[0]):]
            object.__setattr__(self, "table", f"{spec}{rest}")
        try:
            table = self.prize_table
        except InputError as exc:
            raise RuleError("table", self.table,
                            detail=f"{exc}") from None
        if self.mode == "printed" and not table.printed:
            raise RuleError("mode", self.mode,
                            detail=f"{table.name!r} is an online card (probabilities): it has "
                            "no print run to draw without replacement")
        if self.claims:
            if not self.printed:
                raise RuleError("claims", self.claims,
                                detail="claims apply to a printed game drawn without "
                                "replacement (mode 'printed' or 'auto')")
            try:
                claims = self.claims_data
                if self.tickets_sold:
                    remaining(table, claims, self.tickets_sold)
            except InputError as exc:
                key = "tickets_sold" if str(exc).startswith("tickets_sold") else "claims"
                raise RuleError(key, getattr(self, key),
                                detail=str(exc).removeprefix("tickets_sold: ")) from None
        elif self.tickets_sold:
            raise RuleError("tickets_sold", self.tickets_sold,
                            detail="needs claims; without them a ticket bought mid-run "
                            "has the odds of the full print run")

    # ------------------------------------------------------------------ derived data
    @property
    def prize_table(self) -> PrizeTable:
        return load_table(self.table)

    @property
    def printed(self) -> bool:
        """Tickets are drawn without replacement."""
        return self.prize_table.printed and self.mode != "online"

    @property
    def claims_data(self) -> Claims | None:
        return load_claims(self.claims, self.prize_table) if self.claims else None

    @property
    def sold(self) -> int:
        """Tickets sold before the player buys: given, estimated from claims, or 0."""
        claims = self.claims_data
        if claims is None:
            return 0
        return self.tickets_sold or estimate_sold(self.prize_table, claims, self.estimator)

    @cached_property
    def _pool(self) -> Pool:
        table = self.prize_table
        values = np.array([*table.prizes, 0.0])
        if not self.printed:
            probs = table.tier_probabilities()
            return Pool(table.price, values, np.append(probs, max(0.0, 1.0 - probs.sum())))
        claims = self.claims_data
        if claims is None:
            counts = np.array([*table.counts, table.losing_tickets()], dtype=np.int64)
        else:
            left, losers = remaining(table, claims, self.sold)
            counts = np.append(left, losers).astype(np.int64)
        return Pool(table.price, values, counts / counts.sum(), counts)

    def pool(self) -> Pool:
        """What the player's first ticket is drawn from."""
        return self._pool


# The presets: one per shipped table, printed where the table is; the online example card.
PRESETS = {
    "oh-snap": ScratchRules("oh-snap"),
    "cash-payout": ScratchRules("cash-payout"),
    "true-north": ScratchRules("true-north"),
    "lucky-lines-gold": ScratchRules("lucky-lines-gold"),
    "deal-em": ScratchRules("deal-em"),
    "online-example": ScratchRules("online-example"),
    "oh-snap-now": ScratchRules("oh-snap", claims="shipped"),
    "cash-payout-now": ScratchRules("cash-payout", claims="shipped"),
}


@dataclass(frozen=True)
class ScratchView:
    """What a player sees between purchases (never the pool's order).

    Attributes:
        price: the price of a ticket.
        tickets: tickets bought so far this session.
        spent: money spent on them.
        won: prizes won on them.
        last_prize: the prize of the last ticket scratched (None before the first).
        tickets_left: tickets left in the pool (printed games), else None.
        session_limit: the most tickets a session may buy.
    """

    price: float
    tickets: int
    spent: float
    won: float
    last_prize: float | None
    tickets_left: int | None
    session_limit: int

    @property
    def net(self) -> float:
        return self.won - self.spent


@dataclass(frozen=True)
class ScratchPlan:
    """A session rule as data, which the vectorised path plays for many sessions at once.

    Buy ``first`` tickets, then one at a time until one of: ``max_tickets`` bought; net
    ``>= stop_win`` (if > 0); net ``<= -stop_loss`` (if > 0); the money left of ``budget``
    (if > 0: budget plus net, prizes reinvested) no longer buys a ticket. The stops are checked
    after the first purchase and after each ticket.
    """

    first: int = 1
    max_tickets: int = 1
    stop_win: float = 0.0
    stop_loss: float = 0.0
    budget: float = 0.0

    def __post_init__(self) -> None:
        if not (is_int(self.first) and self.first >= 1):
            raise RuleError("first", self.first, 'a whole number >= 1',
                            f"expected a whole number >= 1, got {self.first!r}")
        if not (is_int(self.max_tickets) and self.max_tickets >= self.first):
            raise RuleError("max_tickets", self.max_tickets,
                            detail=f"expected a whole number >= first ({self.first}), "
                            f"got {self.max_tickets!r}")
        for name in ("stop_win", "stop_loss", "budget"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise RuleError(name, value, "a number >= 0 (0: none)")

    @property
    def fixed(self) -> bool:
        """Every session buys exactly ``first`` tickets."""
        return self.max_tickets == self.first

    def check(self, rules: ScratchRules) -> None:
        """Raise ValueError if the plan cannot be played under ``rules``."""
        price = rules.prize_table.price
        if self.max_tickets > rules.session_limit:
            raise ValueError(f"max_tickets: {self.max_tickets:,} is above the session limit "
                             f"{rules.session_limit:,}")
        pool = rules.pool()
        if pool.printed and self.max_tickets > pool.tickets:
            raise ValueError(f"max_tickets: {self.max_tickets:,} is more than the "
                             f"{pool.tickets:,} tickets left")
        if self.budget and self.budget < self.first * price:
            raise ValueError(f"budget: {self.budget:g} does not buy the first {self.first} "
                             f"ticket(s) at {price:g}")

    def decide(self, view: ScratchView) -> int:
        """Tickets to buy now (0: stop): the same rule as the vectorised path."""
        if view.tickets == 0:
            return self.first
        net = view.net
        if (view.tickets >= self.max_tickets
                or (self.stop_win and net >= self.stop_win)
                or (self.stop_loss and net <= -self.stop_loss)
                or (self.budget and self.budget + net < view.price)):
            return 0
        return 1
