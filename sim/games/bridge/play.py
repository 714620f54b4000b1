"""The declarer's lines in the key suit, and their exact odds.

The declarer's side holds the key suit's ace, king, jack and all but ``k`` of its cards; the
opponents hold the queen and ``k - 1`` small ones. Both lines begin by cashing the ace (a
singleton queen falls under it, in either hand). If East shows out, West holds every missing
card and the declarer finesses against him: the queen is caught. Otherwise:

* **finesse**: lead towards the jack; the queen is caught if West holds it (the finesse is
  repeated as often as needed; entries are assumed);
* **drop**: cash the king; the queen is caught if it falls, that is if its holder had at most
  two cards of the suit.

The line wins or loses one trick, so the exact probability that it wins is a sum over West's
length ``w`` of the suit: ``P(West holds w) * (w/k * win(w, queen West) + (1 - w/k) * win(w,
queen East))``, the queen being any one of West's ``w`` cards with probability ``w / k`` by
symmetry. :func:`line_wins` is the one rule both the simulator and this sum use.
"""

from __future__ import annotations

from fractions import Fraction

import numba

from sim.core import kernel_cache  # noqa: F401  (compiled code cached by digest)
from sim.games.bridge.odds import HAND, UNSEEN, west_holds
from sim.games.bridge.scoring import Contract, score


def line_wins(line: int, k: int, west: int, queen_west: bool) -> bool:
    """Whether line 0 (finesse) or 1 (drop) catches the queen, West holding ``west`` of the
    ``k`` missing cards and the queen if ``queen_west``."""
    if west == k:  # East shows out on the ace: finesse West
        return True
    holder = west if queen_west else k - west
    if line == 0:
        return queen_west or holder == 1
    return holder <= 2


line_wins_compiled = numba.njit(cache=True)(line_wins)


def line_odds(line: str, k: int, west: int = HAND, unseen: int = UNSEEN) -> Fraction:
    """The exact probability that ``line`` (``"finesse"`` or ``"drop"``) catches the queen when
    the opponents hold ``k`` cards of the suit, the queen among them."""
    code = ("finesse", "drop").index(line)
    total = Fraction(0)
    for w in range(0, k + 1):
        p = west_holds(k, w, west, unseen)
        if p == 0:
            continue
        with_queen = Fraction(w, k)
        total += p * (with_queen * line_wins(code, k, w, True)
                      + (1 - with_queen) * line_wins(code, k, w, False))
    return total


def best_line(k: int) -> str:
    """The line with the better exact odds for ``k`` missing cards (the finesse on a tie)."""
    return "drop" if line_odds("drop", k) > line_odds("finesse", k) else "finesse"


def tricks_distribution(p_win: Fraction, sure_tricks: int) -> dict[int, Fraction]:
    """Tricks taken: ``sure_tricks + 1`` when the line wins, ``sure_tricks`` when it loses."""
    out = {sure_tricks: 1 - p_win}
    out[sure_tricks + 1] = p_win
    return {t: p for t, p in out.items() if p}


def contract_value(contract: Contract, p_win: Fraction, sure_tricks: int, scoring: str
                   ) -> tuple[Fraction, Fraction]:
    """The exact mean and variance of the deal's net score for a line that wins with
    probability ``p_win``."""
    dist = tricks_distribution(p_win, sure_tricks)
    mean = sum((p * score(contract, t, scoring).net for t, p in dist.items()), Fraction(0))
    second = sum((p * score(contract, t, scoring).net ** 2 for t, p in dist.items()),
                 Fraction(0))
    return mean, second - mean * mean
