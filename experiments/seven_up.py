"""A user-written faro strategy, referenced from experiments/faro_bets.toml as
``"seven_up.py:SevenUp"``. Any class or function with ``decide(view, rng)`` works and may
look at anything in the view on the reference path (plain Python). This one says what it reads
(``reads``: the sevens left), so the engine builds it into a table and it runs on the compiled
kernel, with an exact value; without ``reads`` it would run on the reference path.
"""

from __future__ import annotations

import numpy as np

from sim.games.faro import FaroView, RankBet


class SevenUp:
    """Back the seven while two or more are left; copper the last one (a case bet)."""

    name = "seven-up"
    reads = ("remaining[6]",)  # the view fields it reads: the sevens left

    def __init__(self, units: float = 1.0) -> None:
        self.units = units

    def decide(self, view: FaroView, rng: np.random.Generator) -> list[RankBet]:
        sevens = view.remaining[6]
        if sevens >= 2:
            return [RankBet(frozenset({6}), units=self.units)]
        if sevens == 1:
            return [RankBet(frozenset({6}), coppered=True, units=self.units)]
        return []
