"""The source texts' cribbage statistics, each beside the exact figure this project computes.

Every figure is an exact count from :mod:`sim.games.cribbage.exact` (or a search over every
hand below), given as a reduced fraction and as "1 in N". "In a game" means, as the texts
count it, that some keep of the cards dealt makes the score with the starter turned (the best
keep in hindsight). The check column says whether the text's figure stands.
"""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction

import numba
import numpy as np

from sim.core import kernel_cache  # noqa: F401  (compiled code cached by digest)
from sim.core.cards import N_SUITS, RANK_SYMBOLS, make_pack
from sim.games.cribbage.exact import game_counts, hand_counts
from sim.games.cribbage.score import JACK, kernel_show, rank_points_table, show_score


@dataclass(frozen=True)
class Statistic:
    """One claim of a source text and the exact figure."""

    claim: str
    text: str
    exact: str
    check: str

    def row(self) -> dict[str, str]:
        return {"claim": self.claim, "text": self.text, "exact": self.exact, "check": self.check}


def one_in(p: Fraction) -> str:
    """``"62316/936491920 = 1 in 15,028.11"``."""
    return f"{p.numerator}/{p.denominator} = 1 in {float(1 / p):,.2f}" if p else "0"


def score_patterns(score: int, hand_size: int = 4) -> list[str]:
    """The rank multisets (hand and starter together, e.g. ``"5555J"``) of which some hand
    with some starter shows ``score``."""
    table = rank_points_table(hand_size + 1)
    found = set()
    flush_most = hand_size + 2  # a flush with the starter, and his nobs
    for ranks in itertools.combinations_with_replacement(range(13), hand_size + 1):
        if max(Counter(ranks).values()) > N_SUITS:
            continue
        base = int(table[sum(r * 13 ** i for i, r in enumerate(reversed(ranks)))])
        if not score - flush_most <= base <= score:
            continue
        if base == score or _realised(ranks, score):
            found.add("".join(RANK_SYMBOLS[r] for r in ranks))
    return sorted(found, key=lambda p: [RANK_SYMBOLS.index(c) for c in p])


def _realised(ranks: tuple[int, ...], score: int) -> bool:
    """Some suits for these ranks and some card as the starter show ``score``."""
    for suits in itertools.product(range(N_SUITS), repeat=len(ranks)):
        cards = [r * N_SUITS + s for r, s in zip(ranks, suits)]
        if len(set(cards)) < len(cards):
            continue
        for i, starter in enumerate(cards):
            if show_score(cards[:i] + cards[i + 1:], starter) == score:
                return True
    return False


@numba.njit(cache=True)
def _score_all(hands, starter, crib, table):
    out = np.empty(hands.shape[0], dtype=np.int64)
    scratch = np.empty(hands.shape[1] + 1, dtype=np.int64)
    for i in range(hands.shape[0]):
        out[i] = kernel_show(hands[i], hands.shape[1], starter, crib, table, scratch)
    return out


def best_dealer_show() -> tuple[int, str]:
    """The most a dealer can score in the show of one deal (his hand, his crib and his heels,
    two players, six cards), by search over every starter, hand and crib, and an example."""
    table = rank_points_table(5)
    best, example = 0, ""
    positions = np.array(list(itertools.combinations(range(51), 4)), dtype=np.int64)
    for rank in range(13):  # one starter a rank: a suit permutation maps it to the others
        starter = rank * N_SUITS
        others = np.array([c for c in make_pack().tolist() if c != starter], dtype=np.int64)
        fours = others[positions]
        masks = np.bitwise_or.reduce(np.left_shift(np.uint64(1), fours.astype(np.uint64)),
                                     axis=1)
        hand = _score_all(fours, starter, False, table)
        crib = _score_all(fours, starter, True, table)
        heels = 2 if rank == JACK else 0
        by_hand, by_crib = np.argsort(-hand, kind="stable"), np.argsort(-crib, kind="stable")
        for i in by_hand:
            if hand[i] + crib[by_crib[0]] + heels <= best:
                break
            for j in by_crib:
                if hand[i] + crib[j] + heels <= best:
                    break
                if not masks[i] & masks[j]:
                    best = int(hand[i] + crib[j] + heels)
                    example = (f"starter {_names([starter])}, hand {_names(fours[i])} "
                               f"({hand[i]}), crib {_names(fours[j])} ({crib[j]})")
                    break
    return best, example


def _names(cards) -> str:
    from sim.games.cribbage.score import card_names

    return card_names([int(c) for c in cards])


def five_in_crib_minimum() -> int:
    """The least a five-card set holding a five scores (any suits): the texts say 2."""
    table = rank_points_table(5)
    least = 99
    for ranks in itertools.combinations_with_replacement(range(13), 5):
        if 4 in ranks and max(Counter(ranks).values()) <= N_SUITS:
            least = min(least, int(table[sum(r * 13 ** i for i, r in
                                             enumerate(reversed(ranks)))]))
    return least


@functools.lru_cache(maxsize=1)
def source_statistics() -> tuple[Statistic, ...]:
    """The texts' statistics (seed 000, "Statistics"; seed 003) beside the exact figures."""
    hand = hand_counts(4)
    total = int(hand.sum())
    out = [Statistic("(hand, starter) pairs", "12,994,800 (52c5 x 5)",
                     f"{total:,} = C(52,4) x 48 = C(52,5) x 5",
                     "right" if total == 12_994_800 else "wrong")]
    p0 = Fraction(int(hand[0]), total)
    out.append(Statistic("a random four-card hand scores 0", "approximately 8.5%",
                         f"{p0.numerator}/{p0.denominator} = {float(p0):.4%}",
                         "wrong: 7.76%, not 8.5%"))
    impossible = [s for s in range(30) if hand[s] == 0]
    out.append(Statistic("scores no hand can make (0..29)", "19, 25, 26, 27",
                         ", ".join(map(str, impossible)),
                         "right" if impossible == [19, 25, 26, 27] else "wrong"))
    top = max(s for s in range(hand.size) if hand[s])
    out.append(Statistic("highest hand", "29 (555J, the starter the 5 of the jack's suit)",
                         f"{top}: {int(hand[top])} of {total:,} pairs",
                         "right" if top == 29 and hand[29] == 4 else "wrong"))
    patterns = score_patterns(24)
    text24 = "A7777 33339 36666 44447 44556 44566 45566 67788 77889".split()
    out.append(Statistic("hands of 24, the third highest", " ".join(text24),
                         " ".join(patterns),
                         "right" if patterns == text24 else "wrong"))
    for label, dealt, keep, text in (("a 28 in a two-player game", 6, 4, 15_028),
                                     ("a 29 in a two-player game", 6, 4, 216_580),
                                     ("a 29 in a three- or four-player game", 5, 4, 649_740)):
        counts = game_counts(dealt, keep)
        score = 28 if "28" in label else 29
        p = Fraction(int(counts[score]), int(counts.sum()))
        exact = 1 / p
        check = ("right" if exact == text else
                 "right (rounded)" if round(exact) == text else "wrong")
        out.append(Statistic(label + " (best keep of the deal, in hindsight)",
                             f"1 in {text:,}", one_in(p), check))
    seven = hand_counts(5)
    top7 = max(s for s in range(seven.size) if seven[s])
    out.append(Statistic("highest seven-card hand", "46 (445566 with the starter)",
                         f"{top7}: " + " ".join(score_patterns(top7, 5)),
                         "right" if top7 == 46 else "wrong"))
    missing7 = [s for s in range(top7) if seven[s] == 0]
    out.append(Statistic("lowest score no seven-card hand makes", "not 19 (in seven-card)",
                         f"{missing7[0]} (none: {', '.join(map(str, missing7))})",
                         "right" if 19 not in missing7 else "wrong"))
    least = five_in_crib_minimum()
    out.append(Statistic("a five in five cards scores at least", "2 points", str(least),
                         "right" if least == 2 else "wrong"))
    best, example = best_dealer_show()
    out.append(Statistic("highest dealer's show (hand + crib + heels)",
                         "53 (J555 and 4466, the starter a 5)", f"{best}: {example}",
                         "right" if best == 53 else "wrong"))
    return tuple(out)


def fraction_text(counts: np.ndarray, score: int) -> str:
    """P(score) of a distribution as ``"a/b = 1 in N"``."""
    p = Fraction(int(counts[score]), int(counts.sum()))
    return one_in(p)

