"""The reference path: a lansquenet session played readably, with any Python strategy.

Tests treat this module as the specification: the compiled kernel must agree with it bank by
bank on the same packs, and the exact analysis with it on every ordering of small packs.

Money moves only through a :class:`~sim.core.ledger.Ledger` with one account per seat, the
``bank`` (the money on the table behind the banker's stake) and the ``stakes`` the punters put
down to meet it. At the end of every coup the stakes account is empty; at the end of every bank
the bank account is empty (what is left goes back to its owners, per the pool shares); the
accounts always sum to zero.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sim.core.errors import IllegalActionError, StrategyFailedError
from sim.core.ledger import Ledger
from sim.core.progression import ProgressionSpec, ProgressionState
from sim.core.xoshiro import lazy_order, round_states
from sim.games.lansquenet.rules import (
    MONEY_EPS,
    LansquenetRules,
    OpenView,
    Portee,
    PunterView,
    RideView,
    check_series,
)

BANK, STAKES = "bank", "stakes"
RUN_CAP = 40  # run-length histogram: runs 0..RUN_CAP-1 one by one, then "RUN_CAP or more"


def seat_account(seat: int) -> str:
    return f"seat{seat}"


def stack(order: list[int], series: Iterable[int]) -> list[int]:
    """A given pack with ``series`` on top: its cards come out of the pack (the first of each
    rank found, the rest keeping their order), so the pack is rearranged, not augmented."""
    series = list(series)
    need = [0] * 13
    for r in series:
        need[r] += 1
    rest = []
    for r in order:
        if need[r]:
            need[r] -= 1
        else:
            rest.append(r)
    return series + rest


# Packs a bank may take before its packs' keys run into the next bank's (common random
# numbers, :class:`RandomPacks`): a bank takes a pack per coup at most, and 2**20 coups in one
# bank would need 2**20 wins in a row.
PACK_SLOTS = 1 << 20


class Deck:
    """The pack being dealt: its order and how many cards are gone."""

    def __init__(self, order: Iterable[int]) -> None:
        self.order = [int(r) for r in order]
        self.pos = 0

    @property
    def left(self) -> int:
        return len(self.order) - self.pos

    def draw(self) -> int:
        card = self.order[self.pos]
        self.pos += 1
        return card


class RandomPacks:
    """Fresh packs dealt as the kernel deals them (common random numbers).

    Pack j of bank i is dealt from the generator state ``round_state(key, PACK_SLOTS x i +
    j)`` in the order lazy draws take its cards (:func:`~sim.core.xoshiro.lazy_order`), so a
    bank meets the kernel's cards, and every strategy's, card for card. ``source`` is the
    chunk's 4-word key (:func:`sim.core.rng.kernel_state`) or a generator the key is drawn from.
    """

    def __init__(self, rules: LansquenetRules, source: np.ndarray | np.random.Generator
                 ) -> None:
        self.pack = rules.pack_ranks()
        if isinstance(source, np.random.Generator):
            source = source.integers(0, 2 ** 64, size=4, dtype=np.uint64)
        self.key = np.asarray(source, dtype=np.uint64)
        self.bank = -1
        self._index = 0

    def begin_bank(self) -> None:
        """A bank starts: its packs are keyed by its index."""
        self.bank += 1
        self._index = self.bank * PACK_SLOTS

    def _state(self) -> np.ndarray:
        state = round_states(self.key, self._index)
        self._index += 1
        return state

    def fresh(self) -> list[int]:
        return lazy_order(self.pack, self._state()).tolist()

    def fresh_stacked(self, series: tuple[int, ...]) -> list[int]:
        """``series`` on top of the rest of the pack, shuffled. (Taking the first cards of
        each rank out of a shuffled pack would not do: the cards left of those ranks would
        lie deeper than chance puts them.) The rest keeps the kernel's order: the series'
        cards taken from the top of the fresh pack."""
        need = list(series)
        rest_from_top = []
        for r in reversed(self.pack.tolist()):
            if r in need:
                need.remove(r)
            else:
                rest_from_top.append(r)
        rest = np.array(rest_from_top[::-1], dtype=self.pack.dtype)
        return list(series) + lazy_order(rest, self._state()).tolist()


class GivenPacks:
    """Fresh packs taken in turn from given orders (tests: the same packs on both paths)."""

    def __init__(self, orders: Iterable[Iterable[int]]) -> None:
        self._orders: Iterator[Iterable[int]] = iter(orders)

    def fresh(self) -> list[int]:
        try:
            return [int(r) for r in next(self._orders)]
        except StopIteration:
            raise ValueError("GivenPacks: no pack left") from None

    def fresh_stacked(self, series: tuple[int, ...]) -> list[int]:
        """The next pack with ``series`` on top (see :func:`stack`)."""
        return stack(self.fresh(), series)


def deal_coup(deck: Deck, banker_first: bool) -> tuple[str, tuple[int, ...]]:
    """Turn the cards of one coup: (outcome, cards turned). Outcome ``"J"`` jumelle, ``"W"``
    the banker's card matched first, ``"L"`` the table's, ``"V"`` the pack ran out (void)."""
    cards: list[int] = []
    if deck.left < 2:
        cards = [deck.draw() for _ in range(deck.left)]
        return "V", tuple(cards)
    first, second = deck.draw(), deck.draw()
    cards = [first, second]
    if first == second:
        return "J", tuple(cards)
    banker, table = (first, second) if banker_first else (second, first)
    while deck.left:
        card = deck.draw()
        cards.append(card)
        if card == banker:
            return "W", tuple(cards)
        if card == table:
            return "L", tuple(cards)
    return "V", tuple(cards)


@dataclass
class CoupRecord:
    """One coup as played: what was met, the cards, and the banker's gain."""

    stake: float
    covers: tuple[float, ...]
    cards: tuple[int, ...]
    outcome: str
    gain: float


@dataclass
class BankResult:
    """A bank from its opening to its end. ``result`` is the bank's (the banker's side)."""

    banker: int
    opening: float
    result: float = 0.0
    wagered: float = 0.0
    coups: int = 0
    voids: int = 0
    jumelles: int = 0
    wins: int = 0
    losses: int = 0
    run: int = 0
    ended: str = ""
    left: float = 0.0
    stacked: bool = False
    seat_nets: list[float] = field(default_factory=list)
    log: list[CoupRecord] = field(default_factory=list)
    decks: list[Deck] = field(default_factory=list)

    def counters(self) -> dict[str, float]:
        """The statistics counters of this bank (the kernel fills the same ones)."""
        out = {"coups": self.coups, "voids": self.voids, "jumelles": self.jumelles,
               "wins": self.wins, "losses": self.losses, "run": self.run,
               "ended_pass": self.ended == "pass", "ended_forced": self.ended == "forced",
               "stacked": self.stacked}
        out.update({f"seat_{s}": v for s, v in enumerate(self.seat_nets)})
        run = f"run_{self.run}" if self.run < RUN_CAP else f"run_ge_{RUN_CAP}"
        out[run] = 1
        if self.stacked:
            out[f"stacked_{run}"] = 1
        return out


def _ask(strategy: Any, view: Any, rng: np.random.Generator, situation: str) -> Any:
    try:
        return strategy.decide(view, rng)
    except Exception as exc:  # a user strategy's bug is reported as such
        raise StrategyFailedError(strategy, situation, exc) from exc


class RoundTable:
    """A table at which the bank goes round: one ledger, each seat's stake progression.

    Seat 0 opens the first bank; every bank ends by passing to the left (lost or given up).
    """

    def __init__(self, rules: LansquenetRules, strategy: Any, progression: ProgressionSpec,
                 packs: Any, rng: np.random.Generator, log: bool = False) -> None:
        self.rules = rules
        self.strategy = strategy
        self.packs = packs
        self.rng = rng
        self.log = log
        self.ledger = Ledger()
        self.banker = 0
        self.carry = 0.0
        self.units = [ProgressionState(progression) for _ in range(rules.seats)]

    # ------------------------------------------------------------------ decisions
    def _open(self, seat: int) -> tuple[float, tuple[int, ...]]:
        rules = self.rules
        unit = self.units[seat].unit
        view = OpenView(seat, rules.seats, unit, self.carry, rules.first_card, rules.reshuffle)
        situation = f"opening a bank at seat {seat} (carry offered {self.carry:g})"
        action = _ask(self.strategy, view, self.rng, situation)

        def illegal(why: str) -> IllegalActionError:
            return IllegalActionError(self.strategy, action, situation, why)

        carry = action == "carry" or (isinstance(action, Portee) and action.carry)
        if isinstance(action, Portee):
            if not action.ranks or not all(isinstance(r, (int, np.integer)) and 0 <= r < 13
                                           for r in action.ranks):
                raise illegal("a portee is a non-empty series of ranks 0..12")
            try:
                check_series(tuple(int(r) for r in action.ranks), rules)
            except ValueError as exc:
                raise illegal(str(exc)) from None
        elif action not in ("open", "carry"):
            raise illegal("expected 'open', 'carry' or a Portee")
        if carry and self.carry <= 0:
            raise illegal("there is no bank to carry on (the last one was lost)")
        series = tuple(int(r) for r in action.ranks) if isinstance(action, Portee) else ()
        return (self.carry if carry else unit), series

    def _covers(self, banker: int, stake: float, run: int, opening: float,
                cards_left: int) -> list[float]:
        rules = self.rules
        covers = [0.0] * rules.seats
        covered = 0.0
        for position in range(1, rules.seats):
            uncovered = stake - covered
            if uncovered <= MONEY_EPS:
                break
            seat = (banker + position) % rules.seats
            view = PunterView(seat, rules.seats, banker, position, stake, uncovered, run, opening,
                              cards_left)
            situation = (f"meeting a stake of {stake:g} at seat {seat} ({uncovered:g} "
                         f"uncovered, the bank has won {run} running)")
            action = _ask(self.strategy, view, self.rng, situation)
            amount = uncovered if action == "all" else action
            if (isinstance(amount, bool) or not isinstance(amount, (int, float, np.floating))
                    or not math.isfinite(amount)):
                raise IllegalActionError(self.strategy, action, situation,
                                         "expected an amount or 'all'")
            if amount < 0 or amount > uncovered + MONEY_EPS:
                raise IllegalActionError(self.strategy, action, situation,
                                         f"a punter meets 0..{uncovered:g} of the stake")
            covers[seat] = min(float(amount), uncovered)
            covered += covers[seat]
        return covers

    def _rides(self, seat: int, bank: float, opening: float, run: int, jumelles: int,
               cards_left: int) -> bool:
        rules = self.rules
        view = RideView(seat, rules.seats, bank, opening, run, jumelles, cards_left,
                          rules.first_card, rules.reshuffle)
        situation = f"after coup {run} won running at seat {seat}, bank {bank:g}"
        action = _ask(self.strategy, view, self.rng, situation)
        if action not in ("ride", "pass"):
            raise IllegalActionError(self.strategy, action, situation, "expected 'ride' or 'pass'")
        return action == "ride"

    # ------------------------------------------------------------------ money
    def _settle(self, covers: list[float], covered: float, gain: float) -> None:
        """Move the stakes of a decided coup: the banker's ``gain`` comes from (or goes to)
        the punters in proportion to what they met; only the met stakes move."""
        led = self.ledger
        for seat, cover in enumerate(covers):
            if not cover:
                continue
            if gain >= 0:
                lost = gain * cover / covered
                led.transfer(STAKES, BANK, lost)
                led.transfer(STAKES, seat_account(seat), cover - lost)
            else:
                led.transfer(STAKES, seat_account(seat), cover)
                led.transfer(BANK, seat_account(seat), cover)

    # ------------------------------------------------------------------ a bank
    def play_bank(self) -> BankResult:
        """Play the next bank of the session."""
        rules, led = self.rules, self.ledger
        seat = self.banker
        before = [led.balance(seat_account(s)) for s in range(rules.seats)]
        begin = getattr(self.packs, "begin_bank", None)
        if begin is not None:  # packs keyed by bank (common random numbers)
            begin()
        opening, series = self._open(seat)
        out = BankResult(banker=seat, opening=opening, stacked=bool(series))
        shares = rules.pool_shares
        for k, share in enumerate(shares):
            led.transfer(seat_account((seat + k) % rules.seats), BANK, share * opening)
        deck = Deck(self.packs.fresh_stacked(series) if series else self.packs.fresh())
        out.decks.append(deck)
        bank = opening
        first = True
        while True:
            covers = self._covers(seat, bank, out.run, opening, deck.left)
            covered = sum(covers)
            if covered <= MONEY_EPS:
                out.ended = "forced"
                break
            if deck.left == 0 or (rules.reshuffle == "coup" and not first):
                deck = Deck(self.packs.fresh())
                out.decks.append(deck)
            first = False
            for s, cover in enumerate(covers):
                if cover:
                    led.transfer(seat_account(s), STAKES, cover)
            outcome, cards = deal_coup(deck, rules.banker_first)
            out.wagered += covered
            if outcome == "V":  # the pack ran out: stakes back, the coup again on a fresh pack
                for s, cover in enumerate(covers):
                    if cover:
                        led.transfer(STAKES, seat_account(s), cover)
                out.voids += 1
                if self.log:
                    out.log.append(CoupRecord(bank, tuple(covers), cards, outcome, 0.0))
                continue
            gain = {"J": rules.jumelle_take * covered, "W": covered, "L": -covered}[outcome]
            self._settle(covers, covered, gain)
            if self.log:
                out.log.append(CoupRecord(bank, tuple(covers), cards, outcome, gain))
            bank += gain
            out.coups += 1
            if outcome == "L":
                out.losses += 1
                out.ended = "loss"
                break
            out.run += 1
            out.jumelles += outcome == "J"
            out.wins += outcome == "W"
            if not self._rides(seat, bank, opening, out.run, out.jumelles, deck.left):
                out.ended = "pass"
                break
        for k, share in enumerate(shares):  # what is left goes back to the bank's owners
            led.transfer(BANK, seat_account((seat + k) % rules.seats), share * bank)
        out.result = bank - opening
        out.left = bank
        out.seat_nets = [led.balance(seat_account(s)) - before[s] for s in range(rules.seats)]
        self.carry = bank if out.ended != "loss" else 0.0
        self.units[seat].record(out.result)
        self.banker = (seat + 1) % rules.seats
        return out
