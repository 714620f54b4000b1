"""Newmarket play: the reference round (any Python strategy) and the compiled kernel
(policies as data); tests compare them on the same packs.

A round runs from a clear layout to the end of the first deal that leaves it clear: each deal
everyone stakes the kitty and each boodle card, the cards are dealt from the dealer's left one
at a time to the players and then the dummy, the holder of the lowest diamond begins, and the
holder of the next card of the suit plays it until the run stops (the card is in the dummy or
already played, or the ace was played); the player of the last card then begins a new run with
his lowest card of a suit he chooses among those allowed (another colour, or another suit).
Playing a boodle card collects its money; the first player out of cards takes the kitty. Money
left on the layout carries to the next deal, whose dealer is the previous dealer's left.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from sim.core import kernel_cache  # noqa: F401  (compiled code cached by digest)
from sim.core.stats import Stats, kernel_add_round
from sim.core.xoshiro import shuffle
from sim.games.newmarket.rules import MAX_DEALS, NewmarketRules, NewmarketTable, NewmarketView

N = 52


@numba.njit(cache=True)
def _allowed(suit, other, change_suit):
    """Whether ``other`` may begin a run after a run of ``suit`` stopped."""
    if other == suit:
        return False
    if change_suit:
        return True
    return (other == 0 or other == 3) != (suit == 0 or suit == 3)


@numba.njit(cache=True)
def choose_suit(policy, holder, seat, suits_ok, boodle, money):
    """The suit a policy begins with: 0 longest, 1 shortest, 2 a suit holding a live boodle
    card (else the longest), 3 the suit of his lowest card (ties: the lower suit)."""
    best = -1
    best_key = 0.0
    for s in range(4):
        if not suits_ok[s]:
            continue
        count = 0
        low = 13
        for r in range(13):
            if holder[s * 13 + r] == seat:
                count += 1
                if r < low:
                    low = r
        if count == 0:
            continue
        if policy == 0:
            key = float(count)
        elif policy == 1:
            key = -float(count)
        elif policy == 2:
            live = 0
            for b in range(4):
                if boodle[b] // 13 == s and holder[boodle[b]] == seat and money[b] > 0:
                    live = 1
            key = live * 100.0 + count
        else:
            key = -float(low)
        if best < 0 or key > best_key:
            best = s
            best_key = key
    return best


@numba.njit(cache=True)
def _deal(order, players, dealer, policies, boodle, money, change_suit, collected, counts):
    """Play one deal from a pack order; ``money`` (on each boodle card) and ``collected``
    (per seat) are updated. Returns the seat that went out."""
    holder = np.empty(N, dtype=np.int64)
    left = np.zeros(players, dtype=np.int64)
    hands = players + 1
    for k in range(N):
        h = k % hands
        if h == players:
            holder[order[k]] = players  # the dummy
        else:
            seat = (dealer + 1 + h) % players
            holder[order[k]] = seat
            left[seat] += 1
    seat = -1
    card = -1
    for r in range(13):
        if holder[13 + r] < players:
            card = 13 + r
            seat = holder[card]
            break
    suits_ok = np.ones(4, dtype=np.bool_)
    if card < 0:  # no player holds a diamond: the dealer's left begins
        seat = (dealer + 1) % players
        s = choose_suit(policies[seat], holder, seat, suits_ok, boodle, money)
        for r in range(13):
            if holder[s * 13 + r] == seat:
                card = s * 13 + r
                break
    while True:
        holder[card] = -1
        left[seat] -= 1
        counts[0] += 1
        for b in range(4):
            if boodle[b] == card and money[b] > 0:
                collected[seat] += money[b]
                money[b] = 0
                counts[1] += 1
        if left[seat] == 0:
            return seat
        nxt = card + 1
        if card % 13 != 12 and 0 <= holder[nxt] < players:
            seat = holder[nxt]
            card = nxt
            continue
        # the run stops: seat, who played its last card, begins a new one
        counts[2] += 1
        suit = card // 13
        for s in range(4):
            suits_ok[s] = _allowed(suit, s, change_suit)
        starter = -1
        for step in range(players):
            p = (seat + step) % players
            has = False
            for c in range(N):
                if holder[c] == p and suits_ok[c // 13]:
                    has = True
                    break
            if has:
                starter = p
                break
        if starter < 0:  # nobody may change: any suit, the player of the last card begins
            counts[3] += 1
            starter = seat
            for s in range(4):
                suits_ok[s] = True
        s = choose_suit(policies[starter], holder, starter, suits_ok, boodle, money)
        for r in range(13):
            if holder[s * 13 + r] == starter:
                card = s * 13 + r
                break
        seat = starter


@numba.njit(cache=True)
def _rounds(n, state, orders, players, policies, boodle, kitty_stake, boodle_stake,
            change_suit, outcomes, sums, seat_totals, counts, nets):
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    pack = np.arange(N)
    used = 0
    money = np.zeros(4, dtype=np.int64)
    collected = np.zeros(players, dtype=np.int64)
    for k in range(n):
        money[:] = 0
        collected[:] = 0
        paid = 0
        dealer = np.int64(0)  # typed: a literal 0 would compile _deal a second time
        deals = 0
        while True:
            deals += 1
            paid += kitty_stake + 4 * boodle_stake
            for b in range(4):
                money[b] += players * boodle_stake
            if orders.shape[0]:
                order = orders[used]
                used += 1
            else:
                s0, s1, s2, s3 = shuffle(pack, s0, s1, s2, s3)
                order = pack
            winner = _deal(order, players, dealer, policies, boodle, money, change_suit,
                           collected, counts)
            collected[winner] += players * kitty_stake
            counts[4 + winner] += 1
            if money.sum() == 0:
                break
            if deals >= MAX_DEALS:  # return what is left, in equal shares
                for b in range(4):
                    for p in range(players):
                        collected[p] += money[b] // players
                    money[b] = 0
                break
            dealer = (dealer + 1) % players
        counts[12] += deals
        for p in range(players):
            seat_totals[p] += collected[p] - paid
        net = float(collected[0] - paid)
        nets[k] = net  # a round's net has no useful bound (stakes, deals): kept, then counted
        kernel_add_round(outcomes, sums, net, float(paid), float(paid))
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3


def counters(players: int, seat_totals, counts) -> dict[str, float]:
    out = {f"seat_{p}": float(seat_totals[p]) for p in range(players)}
    out.update({"cards_played": float(counts[0]), "boodle_taken": float(counts[1]),
                "stops": float(counts[2]), "lifted": float(counts[3]),
                "deals": float(counts[12])})
    out.update({f"kitty_{p}": float(counts[4 + p]) for p in range(players)})
    return out


def simulate_table(rules: NewmarketRules, table: NewmarketTable, n: int, state: np.ndarray,
                   orders: np.ndarray | None = None) -> Stats:
    """``n`` rounds in the kernel (or from the given pack orders, consumed one a deal)."""
    outcomes = np.zeros(3, dtype=np.int64)
    sums = np.zeros(8)
    seat_totals = np.zeros(rules.players, dtype=np.int64)
    counts = np.zeros(13, dtype=np.int64)
    nets = np.zeros(n)
    given = np.zeros((0, N), dtype=np.int64) if orders is None else np.asarray(orders,
                                                                                dtype=np.int64)
    _rounds(n, state, given, rules.players, np.array(table.policies, dtype=np.int64),
            np.array(rules.boodle_cards, dtype=np.int64), rules.kitty_stake,
            rules.boodle_stake, rules.change == "suit", outcomes, sums, seat_totals, counts,
            nets)
    values, hist = np.unique(nets, return_counts=True)
    return Stats.from_arrays(n, outcomes, sums, values, hist,
                             counters(rules.players, seat_totals, counts))


class ReferenceRound:
    """A round in plain Python; ``strategy.decide(view, rng)`` (or a plain function) names
    the suit of every new run. ``orders`` yields one pack order a deal."""

    def __init__(self, rules: NewmarketRules, strategy: Any, rng: Any) -> None:
        self.rules = rules
        self.decide = getattr(strategy, "decide", strategy)
        self.who = getattr(strategy, "name", type(strategy).__name__)
        self.rng = rng

    def _choose(self, seat: int, holder: list[int], allowed: list[int], money: list[int],
                left: list[int]) -> int:
        hand = tuple(c for c in range(N) if holder[c] == seat)
        ok = tuple(s for s in allowed if any(c // 13 == s for c in hand))
        live = tuple(b for b, m in zip(self.rules.boodle_cards, money) if m > 0)
        view = NewmarketView(seat, hand, ok, live, tuple(left))
        suit = self.decide(view, self.rng)
        if suit not in ok:
            raise ValueError(f"strategy {self.who!r} chose suit {suit!r}; expected one of "
                             f"{list(ok)} (suits it holds and may begin)")
        return min(c for c in hand if c // 13 == suit)

    def deal(self, order, dealer: int, money: list[int], collected: list[int],
             counts: dict[str, float]) -> int:
        """Play one deal; returns the seat that went out."""
        players = self.rules.players
        holder = [0] * N
        left = [0] * players
        for k, c in enumerate(order):
            h = k % (players + 1)
            if h == players:
                holder[c] = players
            else:
                holder[c] = (dealer + 1 + h) % players
                left[holder[c]] += 1
        diamonds = [c for c in range(13, 26) if holder[c] < players]
        if diamonds:
            card = diamonds[0]
            seat = holder[card]
        else:
            seat = (dealer + 1) % players
            card = self._choose(seat, holder, [0, 1, 2, 3], money, left)
        while True:
            holder[card] = -1
            left[seat] -= 1
            counts["cards_played"] += 1
            if card in self.rules.boodle_cards:
                b = self.rules.boodle_cards.index(card)
                if money[b]:
                    collected[seat] += money[b]
                    money[b] = 0
                    counts["boodle_taken"] += 1
            if left[seat] == 0:
                return seat
            if card % 13 != 12 and 0 <= holder[card + 1] < players:
                card += 1
                seat = holder[card]
                continue
            counts["stops"] += 1
            suit = card // 13
            black = suit in (0, 3)
            allowed = [s for s in range(4) if s != suit and (
                self.rules.change == "suit" or (s in (0, 3)) != black)]
            starter = next((p for p in ((seat + i) % players for i in range(players))
                            if any(holder[c] == p and c // 13 in allowed for c in range(N))),
                           None)
            if starter is None:
                counts["lifted"] += 1
                starter, allowed = seat, [0, 1, 2, 3]
            card = self._choose(starter, holder, allowed, money, left)
            seat = starter

    def play(self, orders) -> tuple[list[int], int, dict[str, float]]:
        """A whole round: each seat's net result, seat 0's stakes, and counters."""
        r = self.rules
        players = r.players
        money = [0] * 4
        collected = [0] * players
        counts = {"cards_played": 0.0, "boodle_taken": 0.0, "stops": 0.0, "lifted": 0.0,
                  "deals": 0.0}
        kitty = [0.0] * players
        paid = 0
        dealer = 0
        while True:
            counts["deals"] += 1
            paid += r.stake_per_deal
            money = [m + players * r.boodle_stake for m in money]
            winner = self.deal(next(orders), dealer, money, collected, counts)
            collected[winner] += players * r.kitty_stake
            kitty[winner] += 1
            if not any(money):
                break
            if counts["deals"] >= MAX_DEALS:
                for p in range(players):
                    collected[p] += sum(m // players for m in money)
                break
            dealer = (dealer + 1) % players
        nets = [c - paid for c in collected]
        counts.update({f"seat_{p}": float(nets[p]) for p in range(players)})
        counts.update({f"kitty_{p}": kitty[p] for p in range(players)})
        return nets, paid, counts
