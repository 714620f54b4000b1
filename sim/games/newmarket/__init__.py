"""Newmarket: the game object the engine uses.

Rules, views and policies: :mod:`.rules`; the reference round and the kernel: :mod:`.play`.

**A round** runs from a clear layout to the end of the first deal that leaves the boodle cards
without money (money left on a card carries to the next deal, as the text says), seat 0
dealing first and the deal passing to the left. ``net`` is seat 0's result over the round
(what it collected less what it staked) and its initial stake, as the amount wagered, is what
seat 0 put in the kitty and on the boodle cards; so ``edge_per_initial_bet`` is what the other
seats together win from seat 0 per unit it stakes (positive: the table beats seat 0). The
``seat_<i>_net`` columns are every seat's mean result per round; the game is zero-sum, so they
sum to zero. No exact value is computed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sim.core.progression import ProgressionSpec
from sim.core.rng import Cards, kernel_state
from sim.core.stats import Stats
from sim.games.base import BenchCase, Game
from sim.games.newmarket.play import ReferenceRound, simulate_table
from sim.games.newmarket.rules import (
    POLICY_NAMES,
    PRESETS,
    NewmarketRules,
    NewmarketTable,
    NewmarketView,
)

__all__ = ["GAME", "POLICY_NAMES", "NewmarketGame", "NewmarketRules", "NewmarketTable",
           "NewmarketView", "ReferenceRound", "policy_suit", "simulate_table"]


def policy_suit(policy: str, view: NewmarketView) -> int:
    """The suit a named policy begins with (the kernel's ``choose_suit`` in plain Python):
    ``longest``, ``shortest``, ``boodle`` (a suit holding a live boodle card, else the
    longest) or ``lowest`` (the suit of the lowest card); ties go to the lower suit."""
    def count(s: int) -> int:
        return sum(c // 13 == s for c in view.hand)

    def key(s: int) -> float:
        if policy == "longest":
            return count(s)
        if policy == "shortest":
            return -count(s)
        if policy == "boodle":
            live = any(b // 13 == s and b in view.hand for b in view.boodle_live)
            return 100 * live + count(s)
        return -min(c % 13 for c in view.hand if c // 13 == s)

    if policy not in POLICY_NAMES:
        raise ValueError(f"unknown policy {policy!r} (known: {', '.join(POLICY_NAMES)})")
    best = None
    for s in sorted(view.allowed):
        if best is None or key(s) > key(best):
            best = s
    return best


def _orders(rng: np.random.Generator):
    while True:
        yield rng.permutation(52)


class NewmarketGame(Game[NewmarketRules, NewmarketTable]):
    """Newmarket: stakes on the boodle cards and the kitty, seats' results."""

    name = "newmarket"
    description = ("Newmarket (boodle, stops): the kitty and the boodle cards, play policies "
                   "for the suit of a new run, each seat's result")
    round_name = "round"
    rules_doc = "docs/rules/newmarket.md"
    rules_type = NewmarketRules
    presets = PRESETS
    table_hook = "kernel_table"

    def simulate_table(self, rules: NewmarketRules, table: NewmarketTable,
                       progression: ProgressionSpec, rounds: int,
                       seed: np.random.SeedSequence) -> Stats:
        return simulate_table(rules, table, rounds, kernel_state(seed))

    def play_reference(self, rules: NewmarketRules, strategy: Any,
                       progression: ProgressionSpec, rounds: int, cards: Cards,
                       rng: np.random.Generator) -> Stats:
        """Rounds on the reference path (any Python strategy)."""
        player = ReferenceRound(rules, strategy, rng)
        orders = _orders(cards.generator())
        stats = Stats()
        for _ in range(rounds):
            nets, paid, counters = player.play(orders)
            stats.add_round(float(nets[0]), float(paid), float(paid), counters)
        return stats

    def extra_columns(self, stats: Stats) -> dict[str, float]:
        c = stats.counters
        players = sum(1 for k in c if k.startswith("seat_"))
        out = {"deals_per_round": stats.counter_rate("deals"),
               "cards_per_deal": c.get("cards_played", 0.0) / c["deals"] if c.get("deals")
               else np.nan,
               "stops_per_deal": c.get("stops", 0.0) / c["deals"] if c.get("deals") else np.nan}
        for p in range(players):
            out[f"seat_{p}_net"] = stats.counter_rate(f"seat_{p}")
        for p in range(players):
            out[f"seat_{p}_kitty_share"] = (c.get(f"kitty_{p}", 0.0) / c["deals"]
                                            if c.get("deals") else np.nan)
        out["seats_sum"] = sum(c.get(f"seat_{p}", 0.0) for p in range(players))
        return out

    def extra_charts(self, stats, rules) -> dict[str, Any]:
        """``seats.png``: each seat's mean result per round, by variant and strategy."""
        from sim.core.plotting import panel_grid

        fig, axes = panel_grid(None, len(rules), panel=(5.5, 3.4))
        for ax, variant in zip(axes, rules):
            rows = [(s, st) for (v, s), st in stats.items() if v == variant and st.rounds]
            width = 0.8 / max(1, len(rows))
            for i, (strategy, st) in enumerate(rows):
                players = sum(1 for k in st.counters if k.startswith("seat_"))
                means = [st.counter_rate(f"seat_{p}") for p in range(players)]
                x = np.arange(players) + (i - (len(rows) - 1) / 2) * width
                ax.bar(x, means, width=width, color=f"C{i}", label=strategy)
            ax.axhline(0, color="grey", lw=0.8)
            ax.set_xticks(range(rules[variant].players))
            ax.set_xlabel("seat (seat 0 deals first)")
            ax.set_ylabel("mean result per round, units")
            ax.set_title(variant, fontsize="medium")
            ax.grid(axis="y", alpha=0.3)
            ax.legend(fontsize="x-small")
        fig.suptitle("Newmarket: each seat's expected result (they sum to zero)")
        return {"seats.png": fig}

    def bench_cases(self) -> list[BenchCase]:
        rules = NewmarketRules()
        table = NewmarketTable((0,) * rules.players)
        state = kernel_state(np.random.SeedSequence(1))

        def kernel(n: int) -> object:
            return simulate_table(rules, table, n, state)

        return [BenchCase("rounds, four players, longest suit (kernel)", "rounds", kernel)]


GAME = NewmarketGame()
