"""Exact faro odds: each bet in each state, a bet left until resolved, and whole deals.

Two facts make everything exact and fast. First, a bet on a set of ranks only cares about the
counts of its covered ranks and the number of cards left, so one small recursion gives the odds
of any bet from any state. Second, the cards left before turn t are a uniformly random subset of
the pack, so the expectation of a whole deal is a sum over turns of hypergeometric averages of
the one-turn expectations (linearity), for any strategy whose stakes depend on the counts of
the ranks it bets on: flat bets, case bets, coppering, high card and calling the turn.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from math import comb

import numpy as np

from sim.games.base import ExactValue
from sim.games.faro.kernel import FaroTable
from sim.games.faro.rules import FaroRules
from sim.progression import FLAT, ProgressionSpec


@dataclass(frozen=True)
class BetOdds:
    """Probabilities of a bet's outcomes, and its expected value per unit staked."""

    win: float
    lose: float
    split: float
    none: float
    ev: float

    @property
    def decided(self) -> float:
        return 1.0 - self.none

    @property
    def edge_per_decided(self) -> float:
        """House edge per bet that reaches a decision (NaN if none can)."""
        return -self.ev / self.decided if self.decided > 0 else float("nan")


def _void_turn(n: int, rules: FaroRules) -> bool:
    # With n cards in the box before a turn, the turn is the deal's last when n is 2 or 3.
    return rules.last_winner_void and n in (2, 3)


def _odds(win: float, lose: float, split: float, coppered: bool, split_take: float) -> BetOdds:
    if coppered:
        win, lose = lose, win
    none = max(0.0, 1.0 - win - lose - split)
    return BetOdds(win, lose, split, none, win - lose - split_take * split)


def turn_odds(counts: tuple[int, ...], n: int, rules: FaroRules, coppered: bool = False) -> BetOdds:
    """Odds of a bet on the ranks with ``counts`` cards left, for the next turn only.

    Args:
        counts: cards left of each covered rank (one entry per rank).
        n: cards left in the box, the hock included.
        rules: the variant (old pharo's void last card, the split rule).
        coppered: the bet is to lose.
    """
    if n < 2:
        return _odds(0.0, 0.0, 0.0, coppered, rules.split_take)
    k = sum(counts)
    if _void_turn(n, rules):
        return _odds(0.0, k / n, 0.0, coppered, rules.split_take)
    pairs = n * (n - 1)
    one_sided = k * (n - k) / pairs
    split = sum(c * (c - 1) for c in counts) / pairs
    return _odds(one_sided, one_sided, split, coppered, rules.split_take)


@lru_cache(maxsize=None)
def _resolved(counts: tuple[int, ...], n: int, void_last: bool) -> tuple[float, float, float]:
    """(win, lose, split) of a bet to win left until resolved; counts sorted, no zeros."""
    k = sum(counts)
    if n < 2 or k == 0:
        return 0.0, 0.0, 0.0
    if void_last and n in (2, 3):
        return 0.0, k / n, 0.0
    pairs = n * (n - 1)
    other = n - k
    win = k * other / pairs
    lose = win
    split = sum(c * (c - 1) for c in counts) / pairs
    # Neither card covered: the same bet, two cards fewer.
    if other >= 2:
        p = other * (other - 1) / pairs
        w, l_, s = _resolved(counts, n - 2, void_last)
        win, lose, split = win + p * w, lose + p * l_, split + p * s
    # Two covered cards of different ranks: no action, the bet stands.
    for i, ci in enumerate(counts):
        for j, cj in enumerate(counts):
            if i != j and ci and cj:
                nxt = list(counts)
                nxt[i] -= 1
                nxt[j] -= 1
                p = ci * cj / pairs
                w, l_, s = _resolved(tuple(sorted((c for c in nxt if c), reverse=True)), n - 2,
                                     void_last)
                win, lose, split = win + p * w, lose + p * l_, split + p * s
    return win, lose, split


def resolved_odds(
    counts: tuple[int, ...], n: int, rules: FaroRules, coppered: bool = False
) -> BetOdds:
    """Odds of a bet left on the layout until it is resolved (or the deal ends)."""
    key = tuple(sorted((c for c in counts if c), reverse=True))
    win, lose, split = _resolved(key, n, rules.last_winner_void)
    return _odds(win, lose, split, coppered, rules.split_take)


def high_card_odds(remaining: tuple[int, ...], rules: FaroRules) -> BetOdds:
    """Odds of a high-card bet on the next turn, given the cards left of each rank."""
    n = sum(remaining)
    pairs = n * (n - 1)
    same = sum(c * (c - 1) for c in remaining) / pairs
    higher = (1.0 - same) / 2
    if rules.high_card_pair == "push":
        return BetOdds(higher, higher, 0.0, same, 0.0)
    return BetOdds(higher, higher, same, 0.0, -0.5 * same)


def call_turn_odds(last_three: tuple[int, ...], rules: FaroRules) -> BetOdds | None:
    """Odds of calling the turn when these three ranks are left (None: not offered)."""
    distinct = len(set(last_three))
    if distinct == 1:
        return None
    orders = 6 if distinct == 3 else 3
    pays = rules.call_turn_pays if distinct == 3 else rules.cat_hop_pays
    p = 1 / orders
    return BetOdds(p, 1 - p, 0.0, 0.0, (pays + 1) / orders - 1)


# ------------------------------------------------------------------------ whole deals
def _covered_distribution(totals: list[int], n_total: int, n_left: int):
    """P(K, Q) for the covered ranks when ``n_left`` random cards of the pack remain, where
    K = covered cards left and Q = sum over covered ranks of c(c-1)."""
    weights: dict[tuple[int, int], int] = {(0, 0): 1}
    for total in totals:
        nxt: dict[tuple[int, int], int] = {}
        for (k, q), w in weights.items():
            for c in range(total + 1):
                key = (k + c, q + c * (c - 1))
                nxt[key] = nxt.get(key, 0) + w * comb(total, c)
        weights = nxt
    rest = n_total - sum(totals)
    denom = comb(n_total, n_left)
    return [(k, q, w * comb(rest, n_left - k) / denom) for (k, q), w in weights.items()
            if 0 <= n_left - k <= rest]


def deal_value(rules: FaroRules, table: FaroTable, progression: ProgressionSpec) -> ExactValue | None:
    """Exact expected net, initial stake and amount wagered of one deal (flat stakes only)."""
    if progression.kind != FLAT:
        return None
    totals = rules.rank_totals()
    n_total = int(totals.sum())
    first = n_total - int(rules.soda)
    net = wagered = 0.0
    for mask, coppered, stakes in zip(table.masks, table.coppered, table.stakes):
        covered = [int(totals[r]) for r in range(13) if mask >> r & 1]
        for turn in range(rules.n_turns):
            n = first - 2 * turn
            void = _void_turn(n, rules)
            for k, q, p in _covered_distribution(covered, n_total, n):
                stake = stakes[min(k, len(stakes) - 1)]
                if not stake or not p or not k:
                    continue
                if void:
                    decided = k / n
                    ev = decided if coppered else -decided
                else:
                    split = q / (n * (n - 1))
                    decided = 2 * k * (n - k) / (n * (n - 1)) + split
                    ev = -rules.split_take * split
                net += p * stake * ev
                wagered += p * stake * decided
    if table.high_card:
        pair = sum(int(c) * (int(c) - 1) for c in totals) / (n_total * (n_total - 1))
        live_turns = rules.n_turns - int(rules.last_winner_void)
        loss = 0.5 * pair if rules.high_card_pair == "lose-half" else 0.0
        net -= table.high_card * live_turns * loss
        wagered += table.high_card * live_turns
    if table.call_turn and rules.has_hock:
        three = comb(n_total, 3)
        triple = sum(comb(int(c), 3) for c in totals) / three
        cat_hop = sum(comb(int(c), 2) * (n_total - int(c)) for c in totals) / three
        distinct = 1.0 - triple - cat_hop
        ev = distinct * ((rules.call_turn_pays + 1) / 6 - 1) + cat_hop * (
            (rules.cat_hop_pays + 1) / 3 - 1)
        net += table.call_turn * ev
        wagered += table.call_turn * (1.0 - triple)
    base = progression.base
    return ExactValue(mean_net=net * base, mean_initial_stake=base, mean_total_wagered=wagered * base)


def rank_bet_table(rules: FaroRules) -> "list[dict[str, float]]":
    """Odds of a single-rank bet to win, for every state of a deal: next turn and until
    resolved, by cards of the rank left (k) and cards left in the box (n)."""
    rows = []
    first = rules.n_cards - int(rules.soda)
    for turn in range(rules.n_turns):
        n = first - 2 * turn
        for k in range(1, min(rules.max_per_rank, n) + 1):
            nxt = turn_odds((k,), n, rules)
            res = resolved_odds((k,), n, rules)
            rows.append({
                "turn": turn + 1, "cards_left": n, "rank_left": k,
                "next_win": nxt.win, "next_lose": nxt.lose, "next_split": nxt.split,
                "next_none": nxt.none, "next_ev": nxt.ev,
                "resolved_win": res.win, "resolved_lose": res.lose,
                "resolved_split": res.split, "resolved_none": res.none,
                "resolved_ev": res.ev, "edge_per_decided": res.edge_per_decided,
            })
    return rows


