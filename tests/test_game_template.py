"""The game template: one table hook, one finder, the tabulation hook it leaves open, and the
engine only (what a game shows is its report module's)."""

from __future__ import annotations

import numpy as np
import pytest

from sim import games
from sim.core.progression import ProgressionSpec
from sim.games.base import KERNEL, KERNEL_TABULATED, REFERENCE, Presentation
from sim.games.faro import FaroGame, FaroRules, FaroTable, RankBet, TableBettor

FLAT = ProgressionSpec()
KING = FaroTable((1 << 12,), (False,), ((0.0, 1.0),))


class PlainKing:
    """Flat on the king while kings are left: a plain strategy with no table."""

    name = "plain king"

    def decide(self, view, rng):
        return [RankBet(frozenset({12}))] if view.remaining[12] else []


class OwnTable(PlainKing):
    """The same, offering its table through the one hook (no built-in base class)."""

    def as_table(self, rules):
        return KING


class OlderHook(PlainKing):
    """The same, offering its table under faro's former name for the hook, which is no hook:
    ``as_table`` is the only one."""

    def kernel_table(self, rules):
        return KING


class Tabulating(FaroGame):
    """A faro whose engine builds the king table from a plain strategy (a stand-in for the
    engine's tabulation)."""

    def tabulate(self, rules, strategy):
        return KING if isinstance(strategy, PlainKing) else None


def test_one_hook_and_one_finder():
    game, rules = FaroGame(), FaroRules()
    assert game.table_of(rules, OwnTable()) is KING
    assert game.table_of(rules, OlderHook()) is None
    assert game.table_of(rules, PlainKing()) is None
    assert game.engine_path(rules, OwnTable()) == KERNEL
    assert game.engine_path(rules, PlainKing()) == REFERENCE
    assert game.exact(rules, PlainKing(), FLAT) is None
    assert "not a table" in game.exact_unavailable(rules, PlainKing(), FLAT)


def test_a_tabulated_strategy_plays_on_the_kernel_with_an_exact_value():
    game, rules = Tabulating(), FaroRules()
    assert game.engine_path(rules, PlainKing()) == KERNEL_TABULATED
    assert game.engine_path(rules, OwnTable()) == KERNEL  # an offered table comes first
    seed = np.random.SeedSequence(3)
    tabulated = game.simulate(rules, PlainKing(), FLAT, 2000, seed)
    offered = FaroGame().simulate(rules, TableBettor(KING), FLAT, 2000, seed)
    assert tabulated.sums == offered.sums
    assert game.exact(rules, PlainKing(), FLAT) == FaroGame().exact(rules, OwnTable(), FLAT)
    assert game.session_nets(rules, PlainKing(), FLAT, 3, 10, seed).shape == (3, 10)


PRESENTATION_HOOKS = ("extra_columns", "columns", "warnings", "notes", "run_lines",
                      "exact_tables", "exact_charts", "exact_chart_keys", "exact_chart_names",
                      "extra_charts", "run_charts", "bench_cases", "bench_timings",
                      "printed_tables", "table_hook")


@pytest.mark.parametrize("name", games.names())
def test_a_game_holds_its_engine_and_its_report_module_what_it_shows(name):
    shown = games.presentation(name)
    assert isinstance(shown, Presentation)
    assert type(shown).__module__ == f"sim.games.{name}.report"
    game = games.get(name)
    assert [hook for hook in PRESENTATION_HOOKS if hasattr(game, hook)] == []
