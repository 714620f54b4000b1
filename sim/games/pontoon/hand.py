"""Hand arithmetic shared by every path: totals, scores, settlement, and the indices of the
decision tables.

The functions are compiled (numba) so the kernel and the exact recursions call them inline, and
they are plain callables from Python, so the reference deal uses the very same rules.

A hand's **score** ranks it: 0 bust, 1..21 a total (fewer than five cards), 22 a five card trick,
23 a pontoon. The banker's five cards score 22 only where his five card trick rule is on.
"""

from __future__ import annotations

import numba
import numpy as np

from sim.core import kernel_cache  # noqa: F401  (compiled code cached by digest)
from sim.games.pontoon.rules import MAX_CARDS, VALUES, PontoonRules

BUST, FIVE, PONTOON = 0, 22, 23
N_SCORES = 24

# ------------------------------------------------------------------ buy patterns
# The buys of a hand, in multiples of the initial stake: each at most the one before, the first
# at most two (a buy between two amounts is never better than one of them: the value is convex
# in the amount). A table indexes them by id.
BUY_PATTERNS: tuple[tuple[int, ...], ...] = (
    (), (1,), (2,), (1, 1), (2, 1), (2, 2), (1, 1, 1), (2, 1, 1), (2, 2, 1), (2, 2, 2))
N_BUY_PATTERNS = len(BUY_PATTERNS)
BUY_COUNT = np.array([len(p) for p in BUY_PATTERNS], dtype=np.int64)
BUY_SUM = np.array([sum(p) for p in BUY_PATTERNS], dtype=np.int64)
BUY_LAST = np.array([p[-1] if p else 0 for p in BUY_PATTERNS], dtype=np.int64)
NEXT_BUY = np.full((N_BUY_PATTERNS, 3), -1, dtype=np.int64)
for _i, _p in enumerate(BUY_PATTERNS):
    for _a in (1, 2):
        if (_p + (_a,)) in BUY_PATTERNS:
            NEXT_BUY[_i, _a] = BUY_PATTERNS.index(_p + (_a,))

# ---------------------------------------------------------- the banker's signal
# What the banker reads of a hand (heads-up decisions and tables): its stake as a multiple m of
# its initial stake (1..7) and its visible lower bound: the face-up cards (aces as one) plus one
# for each face-down card, at least the smallest total a player may stick on, at most 21; a
# live five-card hand is class 22 (a five card trick).
MAX_MULTIPLE = 7
N_LB = 23
NO_LIVE_HAND = MAX_MULTIPLE * N_LB  # key when no hand is left for the banker to play against
N_KEYS = NO_LIVE_HAND + 1
V_CAP = 22  # the visible sum is capped: anything at or above 22 means the same
# Under the rules' ``banker_reads = "stake"`` the signal also carries the level of the hand's
# initial stake: its index among the distinct stakes of the punters' table, sorted (at most
# one per first card). Level l's keys are ``l * N_KEYS + key``: level 0 is the one-level
# layout above, bit for bit, so a table that reads no level is a one-level table, and the
# slot ``l * N_KEYS + NO_LIVE_HAND`` of a higher level is never read ("no live hand" has no
# stake).
MAX_STAKE_LEVELS = 13

# ------------------------------------------------------------------ table shapes
# Player: (buy pattern, twisted, cards 2..4, visible sum 0..22, soft, total 0..21).
PLAYER_SHAPE = (N_BUY_PATTERNS, 2, MAX_CARDS - 2, V_CAP + 1, 2, 22)
# Banker: (signal key, cards 2..4, soft, total 0..21); True: draw. A table reading stake
# levels has ``levels * N_KEYS`` keys.
BANKER_SHAPE = (N_KEYS, MAX_CARDS - 2, 2, 22)
BANKER_KEY_SIZE = (MAX_CARDS - 2) * 2 * 22  # entries of one key in a flat banker table
STICK, TWIST, BUY1, BUY2 = 0, 1, 2, 3
ACTION_NAMES = {STICK: "stick", TWIST: "twist", BUY1: "buy 1x", BUY2: "buy 2x"}

# ------------------------------------------------------------- rule vectors
RI_TIES_TO_BANKER, RI_BANKER_FIVE, RI_STICK_MIN, RI_MAX_BUYS, RI_FIRST_BUY_MAX = 0, 1, 2, 3, 4
RI_BUY_FIFTH, RI_SPLIT_MODE, RI_MAX_HANDS, RI_UNEQUAL_TENS, RI_SPLIT_PONTOON = 5, 6, 7, 8, 9
RI_BURN, RI_EVERY_DEAL, RI_BANK_PASSES, RI_INFINITE = 10, 11, 12, 13
RI_GATHER_VARIED, RI_SOFT21_DRAWS = 14, 15
RF_PONTOON_PAYS, RF_FIVE_PAYS, RF_BANKER_PONTOON, RF_BANKER_FIVE = 0, 1, 2, 3
SPLIT_NONE, SPLIT_ACES, SPLIT_ANY = 0, 1, 2


def rule_vectors(rules: PontoonRules) -> tuple[np.ndarray, np.ndarray]:
    """The rules as the integer and float vectors the compiled code reads."""
    split_mode = {"none": SPLIT_NONE, "aces": SPLIT_ACES, "any": SPLIT_ANY}[rules.split_pairs]
    if rules.max_hands < 2:
        split_mode = SPLIT_NONE
    rule_i = np.array([
        rules.banker_wins_ties, rules.banker_five_card_trick, rules.stick_min, rules.max_buys,
        rules.first_buy_max, rules.buy_fifth_card, split_mode, rules.max_hands,
        rules.split_unequal_tens, rules.split_pontoon_counts, rules.burn_hard_13,
        rules.reshuffle == "every-deal", rules.bank_passes, rules.infinite_deck,
        rules.gathering == "varied", rules.soft_21_draws,
    ], dtype=np.int64)
    rule_f = np.array([rules.pontoon_pays, rules.five_card_trick_pays,
                       rules.banker_pontoon_collects, rules.banker_five_card_trick_collects],
                      dtype=np.float64)
    return rule_i, rule_f


# ------------------------------------------------------------------ arithmetic
@numba.njit(cache=True)
def best_total(hard: int, has_ace: bool) -> tuple[int, bool]:
    """(best total, soft): an ace counts 11 where that does not bust."""
    if has_ace and hard + 10 <= 21:
        return hard + 10, True
    return hard, False


@numba.njit(cache=True)
def hand_over(total: int, soft: bool, n: int, soft21_draws: bool) -> bool:
    """A punter's hand takes no more cards: 21 (a soft 21 may go on where the rules read "under
    21" with the ace as one) or five cards."""
    return n >= MAX_CARDS or (total == 21 and not (soft and soft21_draws))


@numba.njit(cache=True)
def is_pontoon_pair(a: int, b: int) -> bool:
    """Two ranks make a pontoon: an ace and a ten-card."""
    return (a == 0 and b >= 9) or (b == 0 and a >= 9)


@numba.njit(cache=True)
def player_score(hard: int, has_ace: bool, n: int, pontoon: bool) -> int:
    """A player's hand score; ``pontoon``: an unsplit (or counted) ace and ten in two cards."""
    if hard > 21:
        return BUST
    if pontoon:
        return PONTOON
    if n >= MAX_CARDS:
        return FIVE
    return best_total(hard, has_ace)[0]


@numba.njit(cache=True)
def banker_score(hard: int, has_ace: bool, n: int, five_rule: bool) -> int:
    """The banker's score after he stands (his pontoon is settled before anyone plays)."""
    if hard > 21:
        return BUST
    if n >= MAX_CARDS and five_rule:
        return FIVE
    return best_total(hard, has_ace)[0]


@numba.njit(cache=True)
def settle(p: int, b: int, ties_to_banker: bool, rule_f: np.ndarray) -> float:
    """The player's net per unit of his hand's stake, his score ``p`` against the banker's ``b``
    (the banker without a pontoon)."""
    if p == BUST:
        return -1.0
    if p == PONTOON:
        return rule_f[RF_PONTOON_PAYS]
    if b == FIVE:
        return -rule_f[RF_BANKER_FIVE]
    if b == BUST or p == FIVE:
        return rule_f[RF_FIVE_PAYS] if p == FIVE else 1.0
    if p > b:
        return 1.0
    if p == b and not ties_to_banker:
        return 0.0
    return -1.0


@numba.njit(cache=True)
def settle_banker_pontoon(player_pontoon: bool, ties_to_banker: bool, rule_f: np.ndarray
                          ) -> float:
    """A player's net per unit of initial stake when the banker shows a pontoon."""
    if player_pontoon and not ties_to_banker:
        return 0.0
    return -rule_f[RF_BANKER_PONTOON]


# ----------------------------------------------------------------- the signal
@numba.njit(cache=True)
def hand_key(multiple: int, visible: int, n: int, stick_min: int) -> int:
    """The banker's signal of a live hand (see the module notes)."""
    m = min(max(multiple, 1), MAX_MULTIPLE)
    if n >= MAX_CARDS:
        lb = N_LB - 1
    else:
        lb = min(21, max(stick_min, visible))
    return (m - 1) * N_LB + lb


def key_parts(key: int) -> tuple[int, int]:
    """(stake multiple, visible lower bound or 22 for five cards) of a signal key (of any
    stake level)."""
    key %= N_KEYS
    return key // N_LB + 1, key % N_LB


def key_level(key: int) -> int:
    """The stake level of a signal key (0 under the "multiple" reading)."""
    return key // N_KEYS


@numba.njit(cache=True)
def key_multiple(key: int) -> int:
    """The stake multiple of a live hand's signal key, at any stake level."""
    return (key % N_KEYS) // N_LB + 1


@numba.njit(cache=True)
def level_key(level: int, key: int) -> int:
    """A one-level signal key at a stake level ("no live hand" has none)."""
    if key == NO_LIVE_HAND:
        return key
    return level * N_KEYS + key


def stake_levels(stakes: tuple[float, ...]) -> tuple[float, ...]:
    """The stake levels a banker reading stakes tells apart: the distinct stakes, sorted."""
    return tuple(sorted({float(s) for s in stakes}))


def level_offsets(stakes: tuple[float, ...], levels: tuple[float, ...]) -> np.ndarray:
    """Per first card, what its stake's level adds to a signal key (zeros without levels):
    the one array by which the kernel and the exact walk read the level.

    Raises:
        ValueError: a stake is not one of ``levels``.
    """
    offsets = np.zeros(13, dtype=np.int64)
    if not levels:
        return offsets
    for rank, stake in enumerate(stakes):
        if float(stake) not in levels:
            raise ValueError(f"stakes: the banker's table tells apart the stakes "
                             f"{', '.join(f'{x:g}' for x in levels)}, not {stake:g}")
        offsets[rank] = levels.index(float(stake)) * N_KEYS
    return offsets


# ----------------------------------------------------------------- indices
@numba.njit(cache=True)
def player_index(buys: int, twisted: bool, n: int, visible: int, soft: bool, total: int) -> int:
    """Flat index of a state in a player table (see PLAYER_SHAPE)."""
    v = min(visible, V_CAP)
    return ((((buys * 2 + twisted) * 3 + (n - 2)) * (V_CAP + 1) + v) * 2 + soft) * 22 + total


@numba.njit(cache=True)
def banker_index(key: int, n: int, soft: bool, total: int) -> int:
    """Flat index of a state in a banker table (see BANKER_SHAPE)."""
    return ((key * 3 + (n - 2)) * 2 + soft) * 22 + total


@numba.njit(cache=True)
def max_buy(buys: int, twisted: bool, n: int, total: int, rule_i: np.ndarray) -> int:
    """The largest buy allowed, in multiples of the initial stake (0: no buying)."""
    if twisted or total >= 21 or n >= MAX_CARDS or BUY_COUNT[buys] >= rule_i[RI_MAX_BUYS]:
        return 0
    if n == MAX_CARDS - 1 and not rule_i[RI_BUY_FIFTH]:
        return 0
    if BUY_COUNT[buys] == 0:
        return rule_i[RI_FIRST_BUY_MAX]
    return BUY_LAST[buys]


@numba.njit(cache=True)
def pair_splittable(a: int, b: int, rule_i: np.ndarray) -> bool:
    """Two ranks form a pair the rules let a player split (before limits and stock)."""
    mode = rule_i[RI_SPLIT_MODE]
    if mode == SPLIT_NONE:
        return False
    if mode == SPLIT_ACES:
        return a == 0 and b == 0
    if a == b:
        return True
    return rule_i[RI_UNEQUAL_TENS] != 0 and a >= 9 and b >= 9


@numba.njit(cache=True)
def hard_thirteen(a: int, b: int) -> bool:
    """Two cards without an ace totalling 13."""
    return a != 0 and b != 0 and VALUES[a] + VALUES[b] == 13
