"""Exact value of a deal by composition-dependent recursion (finite pack or infinite deck).

The recursion walks every card a deal can draw, with its probability given the cards left
(finite pack) or the fixed law of the pack (infinite deck), and plays the tables exactly as the
reference deal does. Three facts keep it small:

* **Exchangeability.** The cards of a shuffled pack are exchangeable and no table decision
  depends on a card its owner cannot see, so cards may be drawn in any order that respects the
  decisions: each seat's first two cards when its turn comes, a split hand's second card when
  that hand is played, the banker's two cards after every punter (his pontoon is valued apart:
  when he has one nobody plays). The stock a decision sees is still the physical one.
* **Linearity.** A finished hand's value is linear in the distribution of the banker's final
  score, so the recursion returns, for what is left of a deal, the expected banker distribution
  (times the chance that he has no pontoon) and the expected value of the hands still to play.
  Earlier hands settle against that vector.
* **Caches.** What is left of a deal depends on the cards drawn only through their multiset:
  results are cached by (cards removed, the banker's signal so far, the seat's pending hands),
  and the banker's distribution by (cards removed, signal).

Where the banker reads only his own cards, the hands can instead be valued one by one, far
faster (see :mod:`sim.games.pontoon.independent`). In infinite-deck mode the cards removed do
not matter and the caches collapse to a few hundred entries (see
:mod:`sim.games.pontoon.exact_infinite`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numba
import numpy as np

from sim.core import kernel_cache  # noqa: F401  (compiled code cached by digest)
from sim.core.jit import read_only
from sim.core.memo import by_content
from sim.games.base import ExactValue
from sim.games.pontoon import independent
from sim.games.pontoon.composition import P_INFINITE, draw_p, pack_counts, put_back, take
from sim.games.pontoon.hand import (
    N_KEYS,
    N_SCORES,
    NO_LIVE_HAND,
    RI_TIES_TO_BANKER,
    is_pontoon_pair,
    rule_vectors,
    settle_banker_pontoon,
    stake_levels,
)
from sim.games.pontoon.rules import PontoonRules
from sim.games.pontoon.tables import BankerTable, PlayerTable
from sim.games.pontoon.walk import EVENTS, N_EVENTS, walk_deal

DEFAULT_BUDGET = 400_000


@numba.njit(cache=True)
def _banker_pontoon_part(full, probs, stakes, params, rule_i, rule_f):
    """Per seat, by its first card: (expected net, expected stake) over the deals where the
    banker has a pontoon (a seat's two cards and the banker's two: exchangeable, whatever the
    other seats hold)."""
    infinite = params[P_INFINITE] != 0
    counts = pack_counts(full)
    ties = rule_i[RI_TIES_TO_BANKER] != 0
    net = np.zeros(13)
    staked = np.zeros(13)
    for r1 in range(13):
        p1 = draw_p(r1, counts, probs, infinite)
        if p1 == 0.0:
            continue
        take(r1, counts, infinite)
        for r2 in range(13):
            p2 = draw_p(r2, counts, probs, infinite)
            if p2 == 0.0:
                continue
            take(r2, counts, infinite)
            pont = 0.0
            for b1 in range(13):
                q1 = draw_p(b1, counts, probs, infinite)
                if q1 == 0.0:
                    continue
                take(b1, counts, infinite)
                for b2 in range(13):
                    if is_pontoon_pair(b1, b2):
                        pont += q1 * draw_p(b2, counts, probs, infinite)
                put_back(b1, counts, infinite)
            per_unit = settle_banker_pontoon(is_pontoon_pair(r1, r2), ties, rule_f)
            net[r1] += p1 * p2 * pont * per_unit * stakes[r1]
            staked[r1] += p1 * p2 * pont * stakes[r1]
            put_back(r2, counts, infinite)
        put_back(r1, counts, infinite)
    return net, staked


@dataclass(frozen=True)
class DealExact:
    """Exact expectations of one deal.

    Attributes:
        seat_net: expected net of each punter seat (stake units; positive: he wins).
        seat_initial: expected initial stake of each seat.
        seat_wagered: expected total staked by each seat (buys and splits included).
        banker_scores: probability of each final banker score when he has no pontoon
            (index = score: 0 bust, 1..21 totals, 22 five card trick); None where the hands
            were valued one by one (:mod:`sim.games.pontoon.independent`), which does not
            follow the banker across them.
        banker_pontoon: probability that the banker has a pontoon.
        events: expected number per deal of each of EVENTS.
        first_card_net: seat 0's expected net by its first card's rank (a sum over the
            ranks gives its expected net): what the stake on each first card earns.
        states: cached states of the recursion (a measure of its work).
    """

    seat_net: tuple[float, ...]
    seat_initial: tuple[float, ...]
    seat_wagered: tuple[float, ...]
    banker_scores: tuple[float, ...] | None
    banker_pontoon: float
    events: dict[str, float]
    first_card_net: tuple[float, ...]
    states: int

    def value(self) -> ExactValue:
        return ExactValue(sum(self.seat_net), sum(self.seat_initial), sum(self.seat_wagered))


def tens_alike(rules: PontoonRules, player: PlayerTable) -> bool:
    """Nothing in the deal tells the four ten-card ranks apart: the same stake and split
    decision on each, and two ten-cards split alike whatever their ranks (or never)."""
    tens = range(9, 13)
    return (len({player.stakes[r] for r in tens}) == 1
            and len({player.split[r] for r in tens}) == 1
            and (not player.split[9] or rules.split_unequal_tens or not rules.splits_allowed
                 or rules.split_pairs == "aces"))


def _stock_counts(rules: PontoonRules, stock: tuple[int, ...] | None) -> np.ndarray:
    """The cards of each rank the deal starts from: the full pack, or ``stock``."""
    if stock is None or rules.infinite_deck:
        return rules.rank_counts()
    counts = np.array(stock, dtype=np.int64)
    if counts.shape != (13,) or (counts < 0).any() or (counts > rules.rank_counts()).any():
        raise ValueError(f"stock: expected 13 counts within the pack's, got {stock}")
    if counts.sum() < 2 * (rules.players + 1):
        raise ValueError(f"stock: expected at least {2 * (rules.players + 1)} cards to deal "
                         f"two to every hand, got {int(counts.sum())}")
    return counts


def _inputs(rules: PontoonRules, player: PlayerTable, banker: BankerTable,
            budget: int, mode: int = 0, stock: tuple[int, ...] | None = None) -> tuple:
    rule_i, rule_f = rule_vectors(rules)
    full = _stock_counts(rules, stock)
    params = np.array([rules.infinite_deck, banker.keyed, rules.players, full.sum(),
                       player.burn, budget, mode], dtype=np.int64)
    probs = rules.rank_probabilities() if stock is None else full / full.sum()
    if tens_alike(rules, player):
        # Draw ten-cards as one rank (index 9): 13 branches become 10 at every card.
        full = full.copy()
        probs = probs.copy()
        full[9], full[10:] = full[9:].sum(), 0
        probs[9], probs[10:] = probs[9:].sum(), 0.0
    # The tables read-only at every call: a frozen table and a fresh one compile one walk.
    return (full, probs, read_only(player.actions.ravel()),
            read_only(np.array(player.split, dtype=np.bool_)), read_only(np.array(player.stakes)),
            read_only(banker.offsets(rules, player.stakes)), read_only(banker.draw.ravel()),
            rule_i, rule_f, params)


# Variants whose rules differ only where a deal's value does not look (when the pack is
# reshuffled, how it is gathered) give a walk equal inputs: it is walked once for them all.
_walk = by_content()(walk_deal)


@lru_cache(maxsize=256)
def _cached(rules: PontoonRules, player_digest: str, banker_digest: str, budget: int,
            stock: tuple[int, ...] | None, player: PlayerTable,
            banker: BankerTable) -> DealExact | None:
    args = _inputs(rules, player, banker, budget, stock=stock)
    full, probs, _, _, stakes, _, _, rule_i, rule_f, params = args
    one_by_one = independent.applies(rules, player, banker, int(full.sum()))
    if one_by_one:
        acc, states = independent.seat_row(args, rules.players)
        no_pontoon = float(independent.no_pontoon(full, probs, rules.infinite_deck))
    else:
        acc, states = _walk(*args)
        no_pontoon = float(acc[:N_SCORES].sum())
    if states < 0:
        return None
    bp_net, bp_staked = _banker_pontoon_part(full, probs, stakes, params, rule_i, rule_f)
    p = rules.players
    start = _stock_counts(rules, stock)
    initial = float(np.dot(start / start.sum(), player.stakes))
    e = N_SCORES + 2 * p
    events = dict(zip(EVENTS, (float(x) for x in acc[e:e + N_EVENTS])))
    events["hands"] += (1.0 - no_pontoon) * p
    first = acc[e + N_EVENTS:e + N_EVENTS + 13] + bp_net
    tens = start[9:]
    if tens.sum() and full[9] != tens[0]:  # the ten-cards were drawn as one rank: share out
        first = np.concatenate([first[:9], first[9] * tens / tens.sum()])
    return DealExact(
        seat_net=tuple(float(x) + bp_net.sum() for x in acc[N_SCORES:N_SCORES + p]),
        seat_initial=(initial,) * p,
        seat_wagered=tuple(float(x) + bp_staked.sum() for x in acc[N_SCORES + p:e]),
        banker_scores=None if one_by_one else tuple(
            float(x) / no_pontoon for x in acc[:N_SCORES - 1]),
        banker_pontoon=1.0 - no_pontoon, events=events,
        first_card_net=tuple(float(x) for x in first), states=states)


def deal_exact(rules: PontoonRules, player: PlayerTable, banker: BankerTable,
               budget: int = DEFAULT_BUDGET,
               stock: tuple[int, ...] | None = None) -> DealExact | None:
    """Exact expectations of a deal from a full pack (finite) or of any deal (infinite deck).

    ``stock`` (finite pack): the cards of each rank left when the deal starts, when that is
    not the full pack (e.g. to measure the effect of removing cards).

    The punters all play ``player``; the banker plays ``banker``. Cached by the tables'
    fingerprints. Where the banker reads only his own cards and no deal can exhaust the
    stock, the hands are valued one by one (:mod:`sim.games.pontoon.independent`: a fraction
    of a second, a few seconds for a table splitting every pair into four hands). Otherwise the
    deal is walked whole; None when that walk would cache more than ``budget`` states or walk
    more than 128 frames per state of it (the default: about ten seconds): a banker who reads
    the punters' hands against splits into three or four hands can take minutes, and a report
    should not wait for it.
    """
    problems = player.problems(rules)
    if problems:
        raise ValueError(f"the table breaks the rules: {problems[0]}")
    banker = banker.under(rules)
    stock = None if stock is None else tuple(int(x) for x in stock)
    return _cached(rules, player.digest, banker.digest, budget, stock, player, banker)


def clear_caches() -> None:
    """Forget every deal value computed so far (for timing a computation from scratch)."""
    _cached.cache_clear()
    _walk.cache_clear()
    independent.clear_caches()


def first_deal_value(rules: PontoonRules, player: PlayerTable, banker: BankerTable,
                     budget: int = DEFAULT_BUDGET) -> ExactValue | None:
    """Exact expectations of the first deal from a full pack (every deal, when the pack is
    shuffled every deal); None beyond the work budget."""
    exact = deal_exact(rules, player, banker, budget)
    return exact.value() if exact is not None else None


def signal_weights(rules: PontoonRules, player: PlayerTable) -> np.ndarray:
    """In the infinite deck, the expected money on the punters' hands by score, jointly with
    the signal the banker finally reads: an array (keys, N_SCORES), N_KEYS keys, or under
    ``banker_reads = "stake"`` N_KEYS per level of :func:`reader_levels`. The punters'
    expected net against a banker with distribution ``B[key]`` per signal (his pontoon
    excluded) is ``sum(W[key, s] * settle(s, b) * B[key, b])`` plus the part where he has a
    pontoon; the banker's best response maximises it key by key."""
    if not rules.infinite_deck:
        raise ValueError("infinite_deck: the signal weights are computed in the infinite deck")
    levels = reader_levels(rules, player)
    if levels and rules.players == 1:
        # Heads-up, the level is the first card's: level l's block is the walk's money where
        # only the first cards staked at l carry any (the others' deals add nothing to it),
        # read by a one-level banker. Thirteen narrow walks, not one thirteen times as wide.
        blocks = []
        for amount in levels:
            args = list(_inputs(rules, player, _signal_reader(()), 10**9, mode=1))
            args[4] = read_only(np.where(args[4] == amount, args[4], 0.0))  # one type
            acc, _ = _walk(*args)
            blocks.append(acc[N_KEYS:].reshape(N_KEYS, N_SCORES))
        weights = np.concatenate(blocks)
        # "No live hand" is one key at every level (the money of bust hands and pontoons).
        weights[NO_LIVE_HAND] = weights[NO_LIVE_HAND::N_KEYS].sum(axis=0)
        weights[NO_LIVE_HAND + N_KEYS::N_KEYS] = 0.0
        return weights
    return full_signal_weights(rules, player)


def full_signal_weights(rules: PontoonRules, player: PlayerTable) -> np.ndarray:
    """:func:`signal_weights` by one walk over every key of every level (what several punters
    need: the main hand is then the one with the most money across the seats)."""
    reader = _signal_reader(reader_levels(rules, player))
    args = _inputs(rules, player, reader, 10**9, mode=1)
    acc, _ = _walk(*args)
    return acc[reader.n_keys:].reshape(reader.n_keys, N_SCORES)


def _signal_reader(levels: tuple[float, ...]) -> BankerTable:
    """A banker table reading the signal at every level (its draws do not matter here, only
    the signal does, which must be kept apart in the walk's caches)."""
    draw = np.tile(BankerTable.stand_on(17).draw, (max(1, len(levels)), 1, 1, 1))
    return BankerTable(draw, keyed=True, stake_levels=levels)


def reader_levels(rules: PontoonRules, player: PlayerTable) -> tuple[float, ...]:
    """The stake levels a banker can read against ``player``: none under the "multiple"
    reading or where the punters stake one amount on every first card."""
    levels = stake_levels(player.stakes)
    return levels if rules.banker_reads == "stake" and len(levels) > 1 else ()


__all__ = ["EVENTS", "DealExact", "clear_caches", "deal_exact", "first_deal_value",
           "reader_levels", "signal_weights", "tens_alike"]
