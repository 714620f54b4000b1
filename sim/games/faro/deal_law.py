"""The exact distribution of a whole faro deal's net result, for flat bets on a few ranks.

A single-rank bet is decided by the cards of its rank only, so a deal's net for a table that
bets on the ranks R (each in its own slot, at stakes by the cards of the rank left, under no
progression) depends on the order of the cards of R among the others. Walk the deal turn by
turn with the state (cards of each rank in R left; the others are the rest of the box, whose
size is fixed by the turn): the soda removes one card, then each turn draws the losing card
and the winning card without replacement, by category, and settles every bet exactly as the
kernel does (a split when both are of one bet rank, the winning card void on old pharo's last
turn). The state space is at most 5^|R| for a single pack, so a few ranks are instant; the
net is carried as a small distribution per state and merged.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from sim.core.progression import FLAT, ProgressionSpec
from sim.games.faro.kernel import FaroTable, by_rank
from sim.games.faro.rules import FaroRules

MAX_RANKS = 4
OTHER = -1


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

    totals = rules.rank_totals()
    n = int(rules.n_cards)
    layer: dict[tuple[int, ...], dict[float, float]] = {
        tuple(int(totals[r]) for r in ranks): {0.0: 1.0}}

    def draws(counts: tuple[int, ...], box: int):
        """(category, probability, counts after) of the next card."""
        rest = box - sum(counts)
        for i, c in enumerate(counts):
            if c:
                yield i, c / box, counts[:i] + (c - 1,) + counts[i + 1:]
        if rest:
            yield OTHER, rest / box, counts

    if rules.soda:
        nxt: dict = defaultdict(lambda: defaultdict(float))
        for counts, dist in layer.items():
            for _, p, after in draws(counts, n):
                for net, q in dist.items():
                    nxt[after][net] += p * q
        layer, n = nxt, n - 1
    for turn in range(rules.n_turns):
        void = rules.last_winner_void and turn == rules.n_turns - 1  # old pharo
        nxt = defaultdict(lambda: defaultdict(float))
        for counts, dist in layer.items():
            for lose, p1, mid in draws(counts, n):
                for win, p2, after in draws(mid, n - 1):
                    s_lose = stake(lose, counts[lose]) if lose != OTHER else 0.0
                    s_win = stake(win, counts[win]) if win != OTHER else 0.0
                    if lose == win and lose != OTHER and not void:
                        gain = -rules.split_take * s_lose
                    else:
                        gain = ((sign[win] * s_win if win != OTHER and not void else 0.0)
                                - (sign[lose] * s_lose if lose != OTHER else 0.0))
                    target = nxt[after]
                    for net, q in dist.items():
                        target[round(net + gain, 9)] += p1 * p2 * q
        layer, n = nxt, n - 2
    total: dict[float, float] = defaultdict(float)
    for dist in layer.values():
        for net, q in dist.items():
            total[net] += q
    values = np.array(sorted(total))
    return values, np.array([total[v] for v in values.tolist()])
