"""Scratchcards: printed games and online cards, exact odds, current odds mid-run, sessions.

Prize tables: :mod:`.table`; rules, pool and view: :mod:`.rules`; exact odds: :mod:`.exact`;
current odds from claims: :mod:`.current`; sessions (vectorised and reference): :mod:`.play`;
charts: :mod:`.charts`; what the report shows of it: :mod:`.report`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from sim.core.errors import InputError
from sim.core.estimate import Measure
from sim.core.progression import FLAT, ProgressionSpec
from sim.core.rng import Cards, kernel_state
from sim.core.stats import Stats
from sim.games.base import ExactValue, Game
from sim.games.scratchcard.exact import plan_grid, session_value, total_distribution
from sim.games.scratchcard.play import play_plan, simulate_plan, simulate_reference
from sim.games.scratchcard.printed import EDGE_BOUND
from sim.games.scratchcard.rules import ScratchPlan, ScratchRules
from sim.games.scratchcard.table import (
    CLAIMS_FILE,
    DATA_DIR,
    SHIPPED,
    PrizeTable,
    load_table,
    split_spec,
)
from sim.games.scratchcard.tabulate import tabulate as tabulate_strategy


class ScratchcardGame(Game[ScratchRules, ScratchPlan]):
    """Scratchcards: prize tables, printed pools and online cards, sessions of tickets."""

    description = ("Scratchcards: printed games (without replacement) and online cards; "
                   "RTP, odds, current odds mid-run")
    round_name = "session"
    # A session buys many tickets (a budget reinvests its prizes): the edge per amount
    # wagered is the ticket's; per initial stake it would be per the first ticket bought.
    measure = Measure.stakes("wagered")
    rules_doc = "docs/rules/scratchcards.md"
    file_rules = ("table", "claims")
    fast_path = "numpy"
    kernel = staticmethod(simulate_plan)
    flat_stakes_only = ("progression: a scratchcard's stake is its ticket price; stake "
                        "progressions do not apply (leave progression out)")

    def locate(self, rule: str, value: Any, base_dir: Path) -> Any:
        """Shipped names (a table's name, ``claims = "shipped"``) stay as they are; a file,
        with its optional ``#Game`` suffix, is found beside the experiment."""
        if not isinstance(value, str) or value in SHIPPED or value == "shipped":
            return value
        file, hash_, game = value.partition("#")
        return super().locate(rule, file, base_dir) + hash_ + game

    def data_files(self, rule: str, value: str) -> list[Path]:
        if value == "shipped":
            return [DATA_DIR / CLAIMS_FILE]
        return [split_spec(value)[0]] if value else []

    def prize_table(self, spec: str) -> PrizeTable:
        """The prize table named by ``spec`` (a shipped name, ``path.csv``, ``path.csv#Game``
        or ``path.toml``), for another game that sells its tickets (a casino bonus played on
        a card); read once per process while the file is unchanged.

        Raises:
            InputError: missing or unreadable file, or a table that fails validation.
        """
        return load_table(spec)

    def play_reference(self, rules: ScratchRules, strategy: Any, progression: ProgressionSpec,
                       rounds: int, cards: Cards, rng: np.random.Generator) -> Stats:
        return simulate_reference(rules, strategy, rounds, rng, cards.kernel_state())

    def tabulate(self, rules: ScratchRules, strategy: Any) -> ScratchPlan | None:
        """A plain-Python session policy, as a plan (:mod:`.tabulate`)."""
        return tabulate_strategy(rules, strategy).table

    def check(self, rules: ScratchRules, strategy: Any, progression: ProgressionSpec) -> None:
        self.check_progression(progression)
        plan = self.table_of(rules, strategy)
        if plan is not None:
            try:
                plan.check(rules)
            except ValueError as exc:
                raise InputError(f"strategy {getattr(strategy, 'name', '')!r}: {exc}") from None
        self.simulate_reference(rules, strategy, progression, self.check_rounds,
                                np.random.SeedSequence(0))

    def pack_key(self, rules: ScratchRules) -> str:
        """What decides the tickets: the game's pool (its table, mode and claims), not the
        session limit; a file by its name, not its folder (the same numbers from any
        checkout)."""
        return (f"table={Path(rules.table).name} mode={rules.mode} "
                f"claims={Path(rules.claims).name} sold={rules.tickets_sold} "
                f"estimator={rules.estimator}")

    def exact_table(self, rules: ScratchRules, table: ScratchPlan,
                    progression: ProgressionSpec) -> ExactValue | None:
        value = session_value(rules.pool(), table)
        if value is None:
            return None
        return ExactValue(value.mean_net, value.initial, value.mean_wagered, value.sd_net,
                          value.sd_residual_total)

    def exact_unavailable(self, rules: ScratchRules, strategy: Any,
                          progression: ProgressionSpec) -> str:
        if self.table_of(rules, strategy) is None:
            return ("no exact value: the strategy is not a plan the exact code can read (it "
                    "plays on the reference path)")
        return super().exact_unavailable(rules, strategy, progression)

    def exact_table_unavailable(self, rules: ScratchRules, table: ScratchPlan,
                                progression: ProgressionSpec) -> str:
        if rules.pool().printed:
            return ("no exact value: on a printed game each ticket changes the odds of the "
                    "next; this session has too many drawn multisets to walk, and the walk "
                    "of independent tickets corrected for it runs past its work budget or "
                    f"cannot bound its error within {EDGE_BOUND:g} of the edge")
        return super().exact_table_unavailable(rules, table, progression)

    def session_nets_table(self, rules: ScratchRules, table: ScratchPlan,
                           progression: ProgressionSpec, sessions: int, rounds: int,
                           seed: np.random.SeedSequence) -> np.ndarray | None:
        """A round is one of the strategy's sessions of tickets (its plan, on the vectorised
        path); rounds are independent (a printed game's each from its full print run)."""
        pool = rules.pool()
        net_u, _, _ = play_plan(pool, table, sessions * rounds, kernel_state(seed))
        return (net_u * float(plan_grid(pool, table).step)).reshape(sessions, rounds)

    def round_law_table(self, rules: ScratchRules, table: ScratchPlan,
                        progression: ProgressionSpec) -> tuple[np.ndarray, np.ndarray] | None:
        """The exact law of a round's net for an online card and a plan of a fixed number of
        tickets (the k-ticket prize distribution, less their price)."""
        pool = rules.pool()
        if not table.fixed or pool.printed or progression.kind != FLAT:
            return None
        values, probs = total_distribution(pool, table.first)
        return np.asarray(values, dtype=float) - table.first * pool.price, np.asarray(probs)


GAME = ScratchcardGame()
