"""The reference path: one faro deal played readably, with any Python strategy.

Tests treat this module as the specification; the compiled kernel must agree with it deal by
deal, and the exact formulas with it on every ordering of small packs.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from sim.core.errors import IllegalActionError, StrategyFailedError
from sim.core.ledger import Ledger
from sim.core.progression import ProgressionState
from sim.games.faro.rules import CallTurnBet, FaroBet, FaroRules, FaroView, HighCardBet, RankBet

PLAYER, BANK, LAYOUT = "player", "bank", "layout"


@dataclass
class FaroDeal:
    """The money of one deal, in stake units (``net`` is the player's, ``bank_net`` the
    bank's; the ledger keeps them opposite)."""

    net: float = 0.0
    bank_net: float = 0.0
    layout_left: float = 0.0
    initial: float = 0.0
    wagered: float = 0.0
    splits: int = 0
    decisions: int = 0


def settle_rank(bet: RankBet, loser: int, winner: int, winner_void: bool, rules: FaroRules):
    """Net per unit staked of a rank bet on a turn, and whether it split; None if no action."""
    lose_in = loser in bet.ranks
    win_in = (not winner_void) and winner in bet.ranks
    if lose_in and win_in:
        if loser == winner:
            return -rules.split_take, True
        return None
    if win_in:
        return (-1.0 if bet.coppered else 1.0), False
    if lose_in:
        return (1.0 if bet.coppered else -1.0), False
    return None


def settle_high_card(loser: int, winner: int, rules: FaroRules) -> float:
    """Net per unit of a high-card bet on a turn (ace low)."""
    if winner > loser:
        return 1.0
    if winner < loser:
        return -1.0
    return 0.0 if rules.high_card_pair == "push" else -0.5


def call_turn_payout(order: tuple[int, int, int], last_three: tuple[int, int, int],
                     rules: FaroRules) -> float:
    """Net per unit of calling the turn ``order`` when the last cards fall ``last_three``."""
    cat_hop = len(set(last_three)) == 2
    if tuple(order) == tuple(last_three):
        return rules.cat_hop_pays if cat_hop else rules.call_turn_pays
    return -1.0


def _situation(view: FaroView) -> str:
    return f"before turn {view.turn + 1} of {view.turns}, cards left {view.remaining}"


def _check_bet(bet: object, view: FaroView, strategy: object) -> FaroBet:
    def illegal(why: str) -> IllegalActionError:
        return IllegalActionError(strategy, bet, _situation(view), why)

    if not isinstance(bet, (RankBet, HighCardBet, CallTurnBet)):
        raise illegal("not a faro bet (RankBet, HighCardBet or CallTurnBet)")
    units = bet.units
    if isinstance(units, bool) or not isinstance(units, (int, float)) or not math.isfinite(
            units) or units <= 0:
        raise illegal("the stake (units) must be a positive number")
    if isinstance(bet, RankBet):
        if not bet.ranks or not all(
            isinstance(r, (int, np.integer)) and 0 <= r < len(view.remaining) for r in bet.ranks
        ):
            raise illegal("ranks must be a non-empty set of ranks 0..12")
        return bet
    if isinstance(bet, HighCardBet):
        if view.winner_void:
            raise illegal("no high-card bet on a turn whose winning card is void")
        return bet
    if not view.can_call_turn:
        raise illegal("the turn can be called only when three cards are left")
    left = sorted(r for r, c in enumerate(view.remaining) for _ in range(c))
    if len(set(left)) == 1:
        raise illegal("three cards of one rank: calling the turn is not offered")
    if sorted(bet.order) != left:
        raise illegal(f"the order must be an arrangement of the cards left {left}")
    return bet


def play_deal(
    order: np.ndarray,
    rules: FaroRules,
    strategy: object,
    progression: ProgressionState,
    rng: np.random.Generator,
) -> FaroDeal:
    """Play one deal of the shuffled ranks ``order`` with ``strategy``.

    The turns are dealt from the start of ``order``; under the soda rule the soda (the top
    card, shown before the first turn) is its last entry, so that a deal with the soda burn
    and one without, from the same shuffle, play the same turns (common random numbers).

    Before each turn the strategy names every bet it has on the layout for that turn (a bet
    left standing is named again). Stakes are the bets' units times the progression's unit at
    the start of the turn; the progression then moves with each decided bet, in the order the
    bets were named.
    """
    remaining = [0] * 13
    for r in order.tolist():
        remaining[r] += 1
    cards = order.tolist()
    pos = 0
    shown = 0
    if rules.soda:  # the soda is the order's last entry, as in the kernel (common turns)
        remaining[cards[-1]] -= 1
        shown = 1
    result = FaroDeal(initial=progression.unit)
    ledger = Ledger()
    last: tuple[int, int] | None = None
    decide = strategy.decide
    n_turns = rules.n_turns
    for turn in range(n_turns):
        loser, winner = cards[pos], cards[pos + 1]
        void = rules.last_winner_void and turn == n_turns - 1
        cards_left = len(cards) - pos - shown
        view = FaroView(
            turn=turn, turns=n_turns, remaining=tuple(remaining), cards_left=cards_left,
            last_turn=last, winner_void=void, can_call_turn=cards_left == 3,
            unit=progression.unit,
        )
        try:
            bets: Iterable[object] | None = decide(view, rng)
        except Exception as exc:  # a user strategy's bug is reported as such
            raise StrategyFailedError(strategy, _situation(view), exc) from exc
        unit = progression.unit
        for raw in bets or ():
            bet = _check_bet(raw, view, strategy)
            stake = bet.units * unit
            ledger.transfer(PLAYER, LAYOUT, stake)
            split = False
            if isinstance(bet, RankBet):
                settled = settle_rank(bet, loser, winner, void, rules)
                if settled is None:  # no action: the stake comes back (named again next turn)
                    ledger.transfer(LAYOUT, PLAYER, stake)
                    continue
                per_unit, split = settled
            elif isinstance(bet, HighCardBet):
                per_unit = settle_high_card(loser, winner, rules)
            else:
                per_unit = call_turn_payout(bet.order, (loser, winner, cards[pos + 2]), rules)
            net = per_unit * stake
            # The stake comes off the layout to whoever it belongs to; the bank pays winnings.
            if net >= 0:
                ledger.transfer(LAYOUT, PLAYER, stake)
                ledger.transfer(BANK, PLAYER, net)
            else:
                ledger.transfer(LAYOUT, BANK, -net)
                ledger.transfer(LAYOUT, PLAYER, stake + net)
            result.wagered += stake
            result.decisions += 1
            result.splits += split
            progression.record(net)
        remaining[loser] -= 1
        remaining[winner] -= 1
        last = (loser, winner)
        pos += 2
    result.net = ledger.balance(PLAYER)
    result.bank_net = ledger.balance(BANK)
    result.layout_left = ledger.balance(LAYOUT)
    return result
