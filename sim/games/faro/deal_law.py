"""The exact distribution of a whole faro deal's net result, for flat bets on a few ranks.

A single-rank bet is decided by the cards of its rank only, so a deal's net for a table that
bets on the ranks R (each in its own slot, at stakes by the cards of the rank left, under no
progression) depends on the order of the cards of R among the others. Walk the deal turn by
turn over the cards of R (:func:`~sim.games.faro.deal_walk.walk_deal`), settling every bet of
a turn exactly as the kernel does (a split when both are of one bet rank, the winning card
void on old pharo's last turn). The state space is at most 5^|R| for a single pack, so a few
ranks are instant; the net is carried as a small distribution per state and merged.
"""

from __future__ import annotations

import numpy as np

from sim.core.progression import FLAT, ProgressionSpec
from sim.games.faro.deal_walk import OTHER, walk_deal
from sim.games.faro.kernel import FaroTable, by_rank
from sim.games.faro.rules import FaroRules

MAX_RANKS = 4


def deal_law(rules: FaroRules, table: FaroTable, progression: ProgressionSpec
             ) -> tuple[np.ndarray, np.ndarray] | None:
    """(values, probabilities) of a deal's net result; None where the table bets on more than
    MAX_RANKS ranks, on sets of ranks, high card or the turn, or under a progression."""
    if (progression.kind != FLAT or not by_rank(table) or table.high_card or table.call_turn
            or not 0 < len(table.masks) <= MAX_RANKS):
        return None
    ranks = [m.bit_length() - 1 for m in table.masks]
    sign = [-1.0 if c else 1.0 for c in table.coppered]
    base = float(progression.base)
    stakes = [list(s) for s in table.stakes]

    def stake(slot: int, left: int) -> float:
        row = stakes[slot]
        return base * float(row[min(left, len(row) - 1)])

    def turn(counts: tuple[int, ...], lose: int, win: int, void: bool):
        """What the turn adds to the net, settled as the kernel settles it."""
        s_lose = stake(lose, counts[lose]) if lose != OTHER else 0.0
        s_win = stake(win, counts[win]) if win != OTHER else 0.0
        if lose == win and lose != OTHER and not void:
            gain = -rules.split_take * s_lose
        else:
            gain = ((sign[win] * s_win if win != OTHER and not void else 0.0)
                    - (sign[lose] * s_lose if lose != OTHER else 0.0))
        return lambda net: round(net + gain, 9)

    totals = rules.rank_totals()
    start = tuple(int(totals[r]) for r in ranks)
    total = walk_deal(rules, start, 0.0, lambda c, box: c / box, turn)
    values = np.array(sorted(total))
    return values, np.array([total[v] for v in values.tolist()])
