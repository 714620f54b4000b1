"""The crib and the play under both players' discard policies, exactly, over every deal.

The crib is the pone's discard A, the dealer's discard B and the starter c. Each discard has a
law given its own six cards (:mod:`.laws`), but the two hands share one pack, so the crib's
expectation is a sum over pairs of *disjoint* hands P and D and the starters c left:

    N E[crib] = sum over P, D disjoint, c not in P or D, of  E[score(A + B, c) | P, D].

**Splitting the score.** The show of a crib is its fifteens, pairs and runs (a function
R(a, b, rho) of the ranks of A, of B and of the starter), its flush (all five cards of one
suit s) and his nobs. Summing over the starters left, with N_rho and M_s the pack's cards of
rank rho and of suit s, and n, m those of a hand,

    sum_c R = sum_rho R(a, b, rho) (N_rho - n_rho(P) - n_rho(D)),
    sum_c flush = 5 sum_s [A in s] [B in s] (M_s - m_s(P) - m_s(D)),

so, for a pair of hands, the sum Phi(P, D) is a sum of products of something of P and
something of D: the pone's discard ranks a with his rank counts, the dealer's b with his, and
the suited discards with the suit counts. His nobs (the jack of the starter's suit in the
crib) involves one discard at a time, and given one hand the starter is any other card alike,
so its part is a sum over single hands.

**The play** of two keeps, by policies that read ranks only and break ties by rank (greedy,
cautious), depends on the ranks each keeps: kappa and lambda of the 1,820 multisets of four
ranks. Its points are a table of pairs (:func:`~.play_exact.play_table`), so for a pair of
hands Phi(P, D) = sum_kl [P keeps kappa] table(kappa, lambda) [D keeps lambda], a product too.
The first legal card is not among them: which is first depends on the order held, and where
keeps tie the order and the keep taken are not independent.

**Disjoint pairs by inclusion and exclusion.** For any function Phi of two hands,

    sum over disjoint P, D of Phi(P, D) = sum over sets T of (-1)^|T| F(T),
    F(T) = sum over P containing T, D containing T, of Phi(P, D),

(a pair sharing the set S is counted, over the subsets T of S, by the alternating sum of
binomials, which is 1 for S empty and 0 otherwise), and T has at most six cards. As Phi is a
sum of products, F(T) is the same products of X(T), the sums over the pone's hands P
containing T of their features, and Y(T), the dealer's (:mod:`.overlap`). For the crib, with
cnt(a) the weight of discards of ranks a, V(b) the sum of R(a, b, rho) n_rho(P) and W(a)
likewise for the dealer,

    F(T) = sum_ab cnt_P(a) Rbar(a, b) cnt_D(b) - sum_b V_P(b) cnt_D(b) - sum_a cnt_P(a) W_D(a)
           + 5 sum_s (flush features),    Rbar(a, b) = sum_rho N_rho R(a, b, rho).

Pairs that overlap make impossible cribs (five cards of a rank), but the alternating sum
cancels them whatever value Phi gives them, so the same formula serves.

**Sets up to relabelled suits.** Relabelling the suits maps hands to hands, laws to laws and
F(T) to itself, so the sum over T is a sum over representatives (:mod:`.suit_classes`) with
their weights. X and Y of a set of five cards sum its supersets (one card each); those of four
cards sum their 1,128 supersets, read from the laws of every six-card hand (each propagated
from its class's representative). Below four cards every hand containing T holds 6 - |T| sets
of one card more, so X(T) is the sum of X(T + x) over the cards x, divided by 6 - |T|: each
X(T + x) is its representative's with the suits relabelled (the keep types, ranks only, are
passed down the same way from each representative to the sets it holds). For T of six cards
P = D = T. The sets below four cards are few; those of four and five cards, 16,432 and
134,459 representatives, add up the laws of 18.5 and 6.3 million hands, which with the
table of every hand's law (20.4 million hands, each from its class's representative) takes
most of the time.

The laws weigh each keep by its count out of the 720 orders dealt, so the sums carry a factor
720 per player. They are kept in float64: the features are whole numbers below 2^53, and only
the products round, to about one part in 10^15.
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass

import numpy as np

from sim.core.cards import N_SUITS
from sim.games.cribbage import overlap
from sim.games.cribbage.laws import (
    DEALT,
    DROPS,
    KEEP_OF_BITS,
    KEEPS,
    N_KEEPS,
    ORDERS,
    propagate,
    rep_choices,
    tie_laws,
)
from sim.games.cribbage.play_exact import play_table, type_of_key
from sim.games.cribbage.score import rank_points_table
from sim.games.cribbage.suit_classes import representatives, suit_perms

N_PAIRS = overlap.N_PAIRS


@functools.cache
def _pair_tables() -> tuple[np.ndarray, np.ndarray]:
    """``pair_of[r1, r2]`` the index of a rank pair (either order) and ``pair_ranks[i]``."""
    pair_of = np.zeros((13, 13), dtype=np.int64)
    pair_ranks = np.zeros((N_PAIRS, 2), dtype=np.int64)
    for i, (r1, r2) in enumerate(itertools.combinations_with_replacement(range(13), 2)):
        pair_of[r1, r2] = pair_of[r2, r1] = i
        pair_ranks[i] = (r1, r2)
    return pair_of, pair_ranks


@functools.cache
def crib_rank_points() -> np.ndarray:
    """``R[a, rho, b]``: fifteens, pairs and runs of the ranks of pairs a and b with a starter
    of rank rho (the table's -1 where five of a rank: those cancel). Read-only."""
    _, pair_ranks = _pair_tables()
    five = np.sort(np.concatenate([
        np.broadcast_to(pair_ranks[:, None, None, :], (N_PAIRS, 13, N_PAIRS, 2)),
        np.broadcast_to(np.arange(13)[None, :, None, None], (N_PAIRS, 13, N_PAIRS, 1)),
        np.broadcast_to(pair_ranks[None, None, :, :], (N_PAIRS, 13, N_PAIRS, 2))], axis=3),
        axis=3)
    keys = five @ (13 ** np.arange(4, -1, -1))
    out = rank_points_table(5)[keys].astype(float)
    out.setflags(write=False)
    return out


def _binomials(n: int, k: int) -> np.ndarray:
    return np.array([[math.comb(a, b) for b in range(k + 1)] for a in range(n + 1)],
                    dtype=np.int64)


def _colex_of(sets: np.ndarray, pos_of: np.ndarray, binom: np.ndarray) -> np.ndarray:
    """The colex index of each row's pack positions (the rows increasing)."""
    k = sets.shape[1]
    return binom[pos_of[sets], np.arange(1, k + 1)].sum(axis=1) if k else np.zeros(
        len(sets), dtype=np.int64)


def _rep_index(reps: np.ndarray, pos_of: np.ndarray, binom: np.ndarray, n: int) -> np.ndarray:
    """Row of each representative by the colex index of its pack positions (-1: none)."""
    index = np.full(math.comb(n, reps.shape[1]), -1, dtype=np.int64)
    index[_colex_of(reps, pos_of, binom)] = np.arange(len(reps))
    return index


def _every_hand(hands: np.ndarray, masks: np.ndarray, pos_of: np.ndarray, perms: np.ndarray,
                binom: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Every hand's code of tied keeps (one byte where the masks met are few enough, as they
    are for the policies here) and the mask of each code."""
    code_of = np.full(1 << N_KEEPS, -1, dtype=np.int64)
    mask_of = np.zeros(1 << N_KEEPS, dtype=np.int64)
    for dtype in (np.uint8, np.uint16):
        out = np.zeros(math.comb(n, DEALT), dtype=dtype)
        code_of[:] = -1
        if propagate(hands, masks, pos_of, perms, binom, KEEP_OF_BITS, KEEPS, code_of,
                     mask_of, out) >= 0:
            return out, mask_of
    raise AssertionError("more than 65,536 masks of 15 keeps")  # there are 32,768


@dataclass(frozen=True)
class DealValues:
    """Exact laws over every deal, under a pair of discard policies.

    Attributes:
        crib: the mean show of the dealer's crib.
        keeps: ``keeps[kappa, lambda]``: the chance that the pone keeps the ranks of multiset
            kappa and the dealer lambda (:func:`~.play_exact.keep_types`).
    """

    crib: float
    keeps: np.ndarray

    def play(self, play: str, dealer_play: str = "") -> tuple[float, float]:
        """The mean points the pone and the dealer peg laying their keeps by ``play`` and
        ``dealer_play`` (by ``play`` if empty): greedy or cautious."""
        table = play_table(play, dealer_play)
        return (float(np.sum(self.keeps * table[:, :, 0])),
                float(np.sum(self.keeps * table[:, :, 1])))


@functools.lru_cache(maxsize=4)  # 26 MB a policy pair (the keeps' law)
def deal_values(pone: tuple[str, float], dealer: tuple[str, float],
                ranks: tuple[int, ...] = tuple(range(13)), suits: int = N_SUITS) -> DealValues:
    """The exact mean crib, and the joint law of the two keeps' ranks, when the pone discards
    by ``pone`` and the dealer by ``dealer`` (each a policy kind and its crib weight for that
    seat, as the chooser reads them), over every deal of two six-card hands and a starter
    from the pack of ``ranks`` in ``suits`` suits. The chooser values keeps as in the full
    pack whatever the pack: a smaller one is for tests."""
    pack = np.array(sorted(r * N_SUITS + s for r in ranks for s in range(suits)),
                    dtype=np.int64)
    n = pack.size
    pos_of = np.full(52, -1, dtype=np.int64)
    pos_of[pack] = np.arange(n)
    binom = _binomials(n, DEALT)
    pack_ranks = np.bincount(pack // N_SUITS, minlength=13).astype(np.int64)
    pack_suits = np.bincount(pack % N_SUITS, minlength=N_SUITS).astype(np.int64)
    pair_of, _ = _pair_tables()
    points = crib_rank_points()
    rbar = np.einsum("arb,r->ab", points, pack_ranks.astype(float))
    type_of = type_of_key()
    laws = tie_laws()
    table, known = laws.table, laws.known
    hands, hand_weights = representatives(DEALT, ranks, suits)
    masks_pone = rep_choices(*pone, ranks, suits)
    masks_dealer = rep_choices(*dealer, ranks, suits)
    same = pone == dealer
    perms = suit_perms(suits)
    all_pone, mask_pone = _every_hand(hands, masks_pone, pos_of, perms, binom, n)
    all_dealer, mask_dealer = ((all_pone, mask_pone) if same else
                               _every_hand(hands, masks_dealer, pos_of, perms, binom, n))
    roles = 1 if same else 2
    joint = np.zeros((overlap.N_TYPES, overlap.N_TYPES))

    total = overlap.same_hand(hands, hand_weights, masks_pone, masks_dealer, table, known,
                              ORDERS, KEEPS, DROPS, pair_of, type_of, points, pack_ranks,
                              pack_suits, joint)
    threes, three_weights = representatives(3, ranks, suits)
    three_index = _rep_index(threes, pos_of, binom, n)
    types = np.zeros((len(threes), roles, overlap.N_TYPES))
    fours, four_weights = representatives(4, ranks, suits)
    fives, five_weights = representatives(5, ranks, suits)
    above = np.zeros((len(fours), overlap.FEATURES))
    for k, sets, weights, stored in ((5, fives, five_weights, np.zeros((1, overlap.FEATURES))),
                                     (4, fours, four_weights, above)):
        value = overlap.supersets(
            sets, weights, k, pack, pos_of, binom, all_pone, all_dealer, same, mask_pone,
            mask_dealer, table, known, ORDERS, KEEPS, DROPS, pair_of, type_of,
            points, rbar, pack_suits, joint, stored, three_index, three_weights, types)
        total += value if k % 2 == 0 else -value
    above_index = _rep_index(fours, pos_of, binom, n)
    for k in (3, 2, 1, 0):
        sets, set_weights = representatives(k, ranks, suits)
        sign = 1.0 if k % 2 == 0 else -1.0
        stored = np.zeros((len(sets), overlap.FEATURES))
        total += sign * overlap.fewer(sets, set_weights, k, pack, pos_of, binom, above_index,
                                      above, rbar, stored)
        overlap.types_value(types, set_weights.astype(float), same, sign, joint)
        if k:
            below, below_weights = representatives(k - 1, ranks, suits)
            below_index = _rep_index(below, pos_of, binom, n)
            below_types = np.zeros((len(below), roles, overlap.N_TYPES))
            overlap.types_down(sets, set_weights.astype(float), k, types, pos_of, binom,
                               below_index, below_weights.astype(float), below_types)
            types = below_types
        above = stored
        above_index = _rep_index(sets, pos_of, binom, n)
    deals = math.comb(n, DEALT) * math.comb(n - DEALT, DEALT) * (n - 2 * DEALT)
    orders = len(ORDERS)
    rank_and_flush = total / (deals * orders ** 2)
    nobs = sum(overlap.nobs_sum(hands, hand_weights, masks, table, known, ORDERS, KEEPS, DROPS,
                                pack_suits) for masks in (masks_pone, masks_dealer))
    crib = rank_and_flush + nobs / (math.comb(n, DEALT) * (n - DEALT) * orders)
    joint /= math.comb(n, DEALT) * math.comb(n - DEALT, DEALT) * orders ** 2
    joint.setflags(write=False)
    return DealValues(crib, joint)
