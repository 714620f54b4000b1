"""Best responses, both ways, in the infinite deck.

**The punter against a banker table.** Given the banker's final distribution for each signal
he may read, a hand's value in every state of a decision table (buys so far, twisted, cards,
visible sum, softness, total) follows by backward induction over the cards: stick, twist, or
buy one or two times the stake, whichever is worth most. The visible sum is part of the state,
so a banker who reads it is answered exactly on an unsplit hand. Splits (pair by pair), the
burn and the stake on each first card are then chosen by exact evaluation of the whole deal
(:mod:`sim.games.pontoon.exact_deal`), each kept if it gains. After a split the hands share
one banker, who reads the hand with the most money: their play is the table's, optimal hand by
hand, which is exact against a banker who ignores the signal.

**The banker against a punter table.** The punters' money on each score jointly with the
signal the banker finally reads (:func:`~sim.games.pontoon.exact_deal.signal_weights`) makes
his expected result linear in his final distribution signal by signal, so backward induction
over his own cards, signal by signal, gives his exact best policy. Under the rules'
``banker_reads = "stake"`` the signal carries the level of the hand's initial stake, so a
punter who stakes by first card is answered level by level.

**The punter against a banker reading stake levels** may stake only the amounts the banker's
table tells apart, and a punter table plays alike at every stake: the play is solved at each
level, each first card then takes the level its deals are worth most at, and the best of
these tables is kept (exact values throughout; the best table that plays alike at every
stake, not a play that changes with the stake).

**Iterating** the two shows how far each side can push.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numba
import numpy as np

from sim.core import kernel_cache  # noqa: F401  (compiled code cached by digest)
from sim.games.base import ExactValue
from sim.games.pontoon.exact_deal import reader_levels, signal_weights
from sim.games.pontoon.exact_infinite import (
    banker_by_key,
    infinite_exact,
    infinite_rules,
    value_law,
)
from sim.games.pontoon.hand import (
    BUST,
    BUY1,
    BUY_COUNT,
    BUY_LAST,
    BUY_SUM,
    FIVE,
    N_BUY_PATTERNS,
    N_KEYS,
    N_SCORES,
    NEXT_BUY,
    NO_LIVE_HAND,
    RI_SOFT21_DRAWS,
    STICK,
    TWIST,
    V_CAP,
    banker_score,
    best_total,
    hand_key,
    rule_vectors,
    settle,
)
from sim.games.pontoon.rules import TEN_RANKS, PontoonRules
from sim.games.pontoon.tables import BankerTable, PlayerTable, reachable_buys


@dataclass(frozen=True)
class PlayerResponse:
    """The punter's best table against a banker, and its exact value (punter's view)."""

    player: PlayerTable
    value: ExactValue


@dataclass(frozen=True)
class BankerResponse:
    """The banker's best table against a punter table, and the punters' exact value."""

    banker: BankerTable
    value: ExactValue


# ------------------------------------------------------------------ the punter
@numba.njit(cache=True)
def _after_card(V, S, hard, ace, n, buys, twisted, v, m, stick_min, soft21, offset):
    """Value (per unit of initial stake) of a hand just dealt a card (``soft21``: a soft 21
    may draw on, so it is a state with a choice; ``offset``: the stake level's keys)."""
    if hard > 21:
        return m * S[0, BUST]
    total, soft = best_total(hard, ace)
    if n >= 5:
        return m * S[offset + hand_key(m, v, n, stick_min), FIVE]
    if total == 21 and not (soft and soft21):
        return m * S[offset + hand_key(m, v, n, stick_min), 21]
    return V[buys, twisted, n - 2, min(v, V_CAP), 1 if soft else 0, total]


@numba.njit(cache=True)
def _player_dp(S, law, allowed, rule_i, offset):
    """Backward induction over table states: (values, best actions). ``S[key, score]``: the
    value of a finished hand per unit of its money; ``allowed[buys, n]``: the largest buy;
    ``offset``: the keys of the stake level the hand is played at (0: one level)."""
    stick_min = rule_i[2]
    soft21 = rule_i[RI_SOFT21_DRAWS] != 0
    V = np.zeros((N_BUY_PATTERNS, 2, 3, V_CAP + 1, 2, 22))
    A = np.full((N_BUY_PATTERNS, 2, 3, V_CAP + 1, 2, 22), TWIST, dtype=np.uint8)
    for n in range(4, 1, -1):
        for buys in range(N_BUY_PATTERNS):
            m = 1 + BUY_SUM[buys]
            for twisted in range(2):
                for v in range(V_CAP + 1):
                    for soft in range(2):
                        top = 22 if soft == 1 and soft21 else 21
                        for total in range(4 if soft == 0 else 12, top):
                            hard = total - 10 if soft else total
                            ace = soft == 1
                            best = -1e300
                            action = TWIST
                            if total >= stick_min:
                                best = m * S[offset + hand_key(m, v, n, stick_min), total]
                                action = STICK
                            value = 0.0
                            for x in range(1, 11):
                                value += law[x] * _after_card(V, S, hard + x, ace or x == 1,
                                                              n + 1, buys, 1, v + x, m,
                                                              stick_min, soft21, offset)
                            if value > best:
                                best, action = value, TWIST
                            limit = 0 if twisted else allowed[buys, n]
                            for a in range(1, limit + 1):
                                nb = NEXT_BUY[buys, a]
                                value = 0.0
                                for x in range(1, 11):
                                    value += law[x] * _after_card(V, S, hard + x, ace or x == 1,
                                                                  n + 1, nb, 0, v + 1, m + a,
                                                                  stick_min, soft21, offset)
                                if value > best:
                                    best, action = value, BUY1 + a - 1
                            V[buys, twisted, n - 2, v, soft, total] = best
                            A[buys, twisted, n - 2, v, soft, total] = action
    return V, A


def _allowed_buys(rules: PontoonRules) -> np.ndarray:
    """The largest buy (multiple of the stake) by buy pattern and cards held."""
    allowed = np.zeros((N_BUY_PATTERNS, 6), dtype=np.int64)
    for buys in reachable_buys(rules):
        for n in range(2, 5):
            if BUY_COUNT[buys] >= rules.max_buys or (n == 4 and not rules.buy_fifth_card):
                continue
            allowed[buys, n] = rules.first_buy_max if BUY_COUNT[buys] == 0 else BUY_LAST[buys]
    return allowed


def _hand_values(rules: PontoonRules, banker: BankerTable) -> np.ndarray:
    """``S[key, score]``: a finished hand's value per unit of its money, against ``banker``
    reading ``key`` (his pontoon excluded: it is the same whatever the punter does)."""
    dist = banker_by_key(rules, banker)
    _, rule_f = rule_vectors(rules)
    ties = rules.banker_wins_ties
    pay = np.array([[settle(s, b, ties, rule_f) for b in range(N_SCORES)]
                    for s in range(N_SCORES)])
    return dist @ pay.T


def _exact(rules: PontoonRules, player: PlayerTable, banker: BankerTable) -> float:
    return infinite_exact(rules, player, banker).value().mean_net


# Solved responses by (rules, banker table digest): the tables are frozen, and a run asks for
# the same response several times (validating the experiment, playing each chunk, the report).
_BEST_PLAYERS: dict[tuple[PontoonRules, str], PlayerResponse] = {}
_MAX_CACHED = 64


def best_player(rules: PontoonRules, banker: BankerTable) -> PlayerResponse:
    """The punter's best table against ``banker`` (infinite deck; see the module notes)."""
    key = (rules, banker.digest)
    if key not in _BEST_PLAYERS:
        if len(_BEST_PLAYERS) >= _MAX_CACHED:
            _BEST_PLAYERS.pop(next(iter(_BEST_PLAYERS)))
        _BEST_PLAYERS[key] = _solve_player(rules, banker)
    return _BEST_PLAYERS[key]


def clear_cache() -> None:
    """Forget the solved responses (``houseedge bench`` times a solve from cold caches)."""
    _BEST_PLAYERS.clear()


def _solve_player(rules: PontoonRules, banker: BankerTable) -> PlayerResponse:
    rules = infinite_rules(rules)
    banker = banker.under(rules)
    S = _hand_values(rules, banker)
    if banker.levels > 1:
        return _solve_player_levels(rules, banker, S)
    table = _play_and_splits(rules, banker, S, 0, 1.0)
    # The stake on each first card: the most where that card's deals gain, else the least.
    by_first = infinite_exact(rules, table, banker).first_card_net
    stakes = tuple(rules.max_stake if net > 1e-12 else rules.min_stake for net in by_first)
    table = table.with_stakes(stakes)
    return PlayerResponse(table, infinite_exact(rules, table, banker).value())


def _solve_player_levels(rules: PontoonRules, banker: BankerTable, S: np.ndarray
                         ) -> PlayerResponse:
    """Against a banker reading stake levels: a punter may stake only the amounts his table
    tells apart, and a table plays alike at every stake. For each level the play is solved
    as if every hand were staked at it (splits and burn kept where they gain); then each
    first card gets the level its deals are worth most at (heads-up, a first card's deals
    depend on its own stake alone), and the best of these tables is kept. Exact against the
    banker at each level; across levels, the best table that plays alike at every stake."""
    best: PlayerResponse | None = None
    levels = banker.stake_levels
    for level, amount in enumerate(levels):
        table = _play_and_splits(rules, banker, S, level * N_KEYS, amount)
        per_unit = []
        for other in levels:
            flat = table.with_stakes((other,) * 13)
            per_unit.append(np.array(infinite_exact(rules, flat, banker).first_card_net)
                            / other)
        stakes = tuple(max(levels, key=lambda x, r=r: (x * per_unit[levels.index(x)][r], -x))
                       for r in range(13))
        table = table.with_stakes(stakes)
        answer = PlayerResponse(table, infinite_exact(rules, table, banker).value())
        if best is None or answer.value.mean_net > best.value.mean_net + 1e-12:
            best = answer
    assert best is not None
    return best


def _play_and_splits(rules: PontoonRules, banker: BankerTable, S: np.ndarray, offset: int,
                     stake: float) -> PlayerTable:
    """The best play table against ``banker`` for hands staked ``stake`` (whose signal
    keys start at ``offset``), with its splits and burn."""
    rule_i, _ = rule_vectors(rules)
    _, actions = _player_dp(S, value_law(rules), _allowed_buys(rules), rule_i, offset)
    table = PlayerTable(actions, stakes=(stake,) * 13)
    # Splits, pair by pair (ten-cards together), and the burn: kept where the deal gains.
    groups = [[r] for r in range(9)] + [list(TEN_RANKS)]
    for ranks in groups:
        if not rules.may_split_rank(ranks[0]):
            continue
        split = list(table.split)
        for r in ranks:
            split[r] = True
        trial = dataclasses.replace(table, split=tuple(split))
        if _exact(rules, trial, banker) > _exact(rules, table, banker) + 1e-12:
            table = trial
    if rules.burn_hard_13:
        trial = dataclasses.replace(table, burn=True)
        if _exact(rules, trial, banker) > _exact(rules, table, banker) + 1e-12:
            table = trial
    return table


# ------------------------------------------------------------------ the banker
@numba.njit(cache=True)
def _banker_dp(U, law, five_rule, hit_soft_17):
    """Draw where drawing is worth more than standing (and on a soft 17 where the rules say
    so), by backward induction over his cards. ``U[b]``: his value of finishing on score b.
    Returns draw[cards-2, soft, total]."""
    V = np.zeros((6, 2, 22))
    draw = np.zeros((3, 2, 22), dtype=np.uint8)
    for n in range(5, 1, -1):
        for soft in range(2):
            for total in range(2, 22):
                hard = total - 10 if soft else total
                if hard < n:
                    continue
                stand = U[banker_score(hard, soft == 1, n, five_rule)]
                if n == 5 or total == 21:
                    V[n, soft, total] = stand
                    continue
                value = 0.0
                for x in range(1, 11):
                    h = hard + x
                    if h > 21:
                        value += law[x] * U[BUST]
                        continue
                    t, s = best_total(h, soft == 1 or x == 1)
                    value += law[x] * V[n + 1, 1 if s else 0, t]
                if value > stand or (hit_soft_17 and soft == 1 and total == 17):
                    V[n, soft, total] = value
                    draw[n - 2, soft, total] = 1
                else:
                    V[n, soft, total] = stand
    return draw


def best_banker(rules: PontoonRules, player: PlayerTable) -> BankerResponse:
    """The banker's best table against ``player`` (infinite deck; see the module notes).
    Under ``banker_reads = "stake"`` it reads the level of each hand's initial stake too,
    where the punters stake more than one amount."""
    rules = infinite_rules(rules)
    levels = reader_levels(rules, player)
    W = signal_weights(rules, player)
    _, rule_f = rule_vectors(rules)
    ties = rules.banker_wins_ties
    pay = np.array([[settle(s, b, ties, rule_f) for b in range(N_SCORES)]
                    for s in range(N_SCORES)])
    law = value_law(rules)
    # Where no money ever shows: stand on 17.
    draw = np.tile(BankerTable.stand_on(17).draw, (W.shape[0] // N_KEYS, 1, 1, 1))
    for key in range(W.shape[0]):
        if key % N_KEYS == NO_LIVE_HAND or not W[key].any():
            continue
        U = -(W[key] @ pay)  # the banker's result by his final score
        draw[key] = _banker_dp(U, law, rules.banker_five_card_trick,
                               rules.banker_hits_soft_17)
    draw[NO_LIVE_HAND::N_KEYS] = 0
    banker = BankerTable(draw, keyed=True, stake_levels=levels).under(rules)
    return BankerResponse(banker, infinite_exact(rules, player, banker).value())


def iterate(rules: PontoonRules, banker: BankerTable, rounds: int = 3) -> list[dict]:
    """Alternate best responses from ``banker``: each round the punter answers the banker,
    then the banker answers the punter. Rows: round, who moved, the punters' exact edge
    (house's view: positive, the banker wins) and the tables."""
    rows = []
    for k in range(1, rounds + 1):
        player = best_player(rules, banker)
        rows.append({"round": k, "moved": "punter", "edge": player.value.edge_per_initial_bet,
                     "player": player.player, "banker": banker})
        answer = best_banker(rules, player.player)
        banker = answer.banker
        rows.append({"round": k, "moved": "banker", "edge": answer.value.edge_per_initial_bet,
                     "player": player.player, "banker": banker})
    return rows


__all__ = ["BankerResponse", "PlayerResponse", "best_banker", "best_player", "iterate"]
