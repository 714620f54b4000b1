"""Exact faro odds: each bet in each state, a bet left until resolved, and whole deals.

Two facts make everything exact and fast. First, a bet on a set of ranks only cares about the
counts of its covered ranks and the number of cards left, so one small recursion gives the odds
of any bet from any state. Second, the cards left before turn t are a uniformly random subset of
the pack, so the expectation of a whole deal is a sum over turns of hypergeometric averages of
the one-turn expectations (linearity), for any strategy whose stakes depend on the counts of
the ranks it bets on: flat bets, case bets, coppering, high card and calling the turn.

All arithmetic is in exact fractions, rounded to floats only at the end: the values are right to
the last digit.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from math import comb

from sim.core.progression import FLAT, ProgressionSpec
from sim.games.base import ExactValue
from sim.games.faro.kernel import FaroTable
from sim.games.faro.rules import FaroRules


@dataclass(frozen=True)
class BetOdds:
    """Probabilities of a bet's outcomes, and its expected value per unit staked."""

    win: float
    lose: float
    split: float
    none: float
    ev: float
    # The expected value and the chance of a decision as computed, before rounding.
    exact: tuple[Fraction, Fraction] | None = None

    @property
    def exact_edge_per_decided(self) -> Fraction | None:
        """:attr:`edge_per_decided` as an exact fraction (None where not computed so)."""
        if self.exact is None or not self.exact[1]:
            return None
        return -self.exact[0] / self.exact[1]

    @property
    def decided(self) -> float:
        return 1.0 - self.none

    @property
    def edge_per_decided(self) -> float:
        """House edge per bet that reaches a decision (NaN if none can)."""
        return -self.ev / self.decided + 0.0 if self.decided > 0 else float("nan")


def _void_turn(n: int, rules: FaroRules) -> bool:
    # With n cards in the box before a turn, the turn is the deal's last when n is 2 or 3.
    return rules.last_winner_void and n in (2, 3)


def _odds(win: Fraction, lose: Fraction, split: Fraction, coppered: bool,
          split_take: float) -> BetOdds:
    if coppered:
        win, lose = lose, win
    none = 1 - win - lose - split
    ev = win - lose - Fraction(split_take) * split
    return BetOdds(float(win), float(lose), float(split), float(none), float(ev),
                   (ev, win + lose + split))


def turn_odds(counts: tuple[int, ...], n: int, rules: FaroRules, coppered: bool = False) -> BetOdds:
    """Odds of a bet on the ranks with ``counts`` cards left, for the next turn only.

    Args:
        counts: cards left of each covered rank (one entry per rank).
        n: cards left in the box, the hock included.
        rules: the variant (old pharo's void last card, the split rule).
        coppered: the bet is to lose.
    """
    zero = Fraction(0)
    if n < 2:
        return _odds(zero, zero, zero, coppered, rules.split_take)
    k = sum(counts)
    if _void_turn(n, rules):
        return _odds(zero, Fraction(k, n), zero, coppered, rules.split_take)
    pairs = n * (n - 1)
    one_sided = Fraction(k * (n - k), pairs)
    split = Fraction(sum(c * (c - 1) for c in counts), pairs)
    return _odds(one_sided, one_sided, split, coppered, rules.split_take)


@cache
def _resolved(counts: tuple[int, ...], n: int, void_last: bool
              ) -> tuple[Fraction, Fraction, Fraction]:
    """(win, lose, split) of a bet to win left until resolved; counts sorted, no zeros."""
    k = sum(counts)
    if n < 2 or k == 0:
        return Fraction(0), Fraction(0), Fraction(0)
    if void_last and n in (2, 3):
        return Fraction(0), Fraction(k, n), Fraction(0)
    pairs = n * (n - 1)
    other = n - k
    win = Fraction(k * other, pairs)
    lose = win
    split = Fraction(sum(c * (c - 1) for c in counts), pairs)
    # Neither card covered: the same bet, two cards fewer.
    if other >= 2:
        p = Fraction(other * (other - 1), pairs)
        w, l_, s = _resolved(counts, n - 2, void_last)
        win, lose, split = win + p * w, lose + p * l_, split + p * s
    # Two covered cards of different ranks: no action, the bet stands.
    for i, ci in enumerate(counts):
        for j, cj in enumerate(counts):
            if i != j and ci and cj:
                nxt = list(counts)
                nxt[i] -= 1
                nxt[j] -= 1
                p = Fraction(ci * cj, pairs)
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
    same = Fraction(sum(c * (c - 1) for c in remaining), n * (n - 1))
    higher = float((1 - same) / 2)
    if rules.high_card_pair == "push":
        return BetOdds(higher, higher, 0.0, float(same), 0.0, (Fraction(0), 1 - same))
    return BetOdds(higher, higher, float(same), 0.0, float(-same / 2),
                   (-same / 2, Fraction(1)))


def call_turn_odds(last_three: tuple[int, ...], rules: FaroRules) -> BetOdds | None:
    """Odds of calling the turn when these three ranks are left (None: not offered)."""
    distinct = len(set(last_three))
    if distinct == 1:
        return None
    orders = 6 if distinct == 3 else 3
    pays = Fraction(rules.call_turn_pays if distinct == 3 else rules.cat_hop_pays)
    ev = (pays + 1) / orders - 1
    return BetOdds(1 / orders, 1 - 1 / orders, 0.0, 0.0, float(ev), (ev, Fraction(1)))


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
    return [(k, q, Fraction(w * comb(rest, n_left - k), denom)) for (k, q), w in weights.items()
            if 0 <= n_left - k <= rest]


def deal_value(rules: FaroRules, table: FaroTable,
               progression: ProgressionSpec) -> ExactValue | None:
    """Exact expected net, initial stake and amount wagered of one deal (flat stakes only)."""
    if progression.kind != FLAT:
        return None
    totals = rules.rank_totals()
    n_total = int(totals.sum())
    first = n_total - int(rules.soda)
    net = wagered = Fraction(0)
    split_take = Fraction(rules.split_take)
    for mask, coppered, stakes in zip(table.masks, table.coppered, table.stakes):
        covered = [int(totals[r]) for r in range(13) if mask >> r & 1]
        for turn in range(rules.n_turns):
            n = first - 2 * turn
            void = _void_turn(n, rules)
            for k, q, p in _covered_distribution(covered, n_total, n):
                stake = Fraction(stakes[min(k, len(stakes) - 1)])
                if not stake or not p or not k:
                    continue
                if void:
                    decided = Fraction(k, n)
                    ev = decided if coppered else -decided
                else:
                    split = Fraction(q, n * (n - 1))
                    decided = Fraction(2 * k * (n - k), n * (n - 1)) + split
                    ev = -split_take * split
                net += p * stake * ev
                wagered += p * stake * decided
    if table.high_card:
        pair = Fraction(sum(int(c) * (int(c) - 1) for c in totals), n_total * (n_total - 1))
        live_turns = rules.n_turns - int(rules.last_winner_void)
        loss = pair / 2 if rules.high_card_pair == "lose-half" else Fraction(0)
        net -= Fraction(table.high_card) * live_turns * loss
        wagered += Fraction(table.high_card) * live_turns
    if table.call_turn and rules.has_hock:
        three = comb(n_total, 3)
        triple = Fraction(sum(comb(int(c), 3) for c in totals), three)
        cat_hop = Fraction(sum(comb(int(c), 2) * (n_total - int(c)) for c in totals), three)
        distinct = 1 - triple - cat_hop
        ev = distinct * ((Fraction(rules.call_turn_pays) + 1) / 6 - 1) + cat_hop * (
            (Fraction(rules.cat_hop_pays) + 1) / 3 - 1)
        net += Fraction(table.call_turn) * ev
        wagered += Fraction(table.call_turn) * (1 - triple)
    base = Fraction(progression.base)
    fractions = {"edge_per_initial_bet": -net}
    if wagered:
        fractions["edge_per_total_wagered"] = -net / wagered
    return ExactValue(mean_net=float(net * base), mean_initial_stake=float(base),
                      mean_total_wagered=float(wagered * base), fractions=fractions)


def rank_bet_table(rules: FaroRules) -> list[dict[str, float]]:
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


