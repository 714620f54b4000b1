"""How a game's figures are shown: the other half of a game, apart from its engine.

A game's package keeps its engine in ``__init__.py`` (:class:`sim.games.base.Game`: rules,
simulation, exact values) and its presentation in ``report.py``: ``REPORT``, an instance of a
:class:`Presentation` subclass, with the game's own report columns and notes, the lines the
terminal prints after a run's table, the exact tables ``houseedge exact`` prints, the exact
odds charts and a run's own charts, and what ``houseedge bench`` measures. The engine never
imports it; the outputs reach it through the registry (:func:`sim.games.presentation`).

Every hook has a default (nothing to add), so a game fills in only what it shows.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import pandas as pd

from sim.core.progression import ProgressionSpec
from sim.core.stats import Stats

RulesT = TypeVar("RulesT")

# The paths a bench case plays, through the game's own entry points.
KERNEL, SESSIONS, REFERENCE, ENGINE = "kernel", "sessions", "reference", "engine"


@dataclass(frozen=True)
class BenchCase:
    """One line of ``houseedge bench``, as data: rounds of ``strategy`` under ``rules`` on one
    of the game's paths, which the bench plays through the game's own entry points.

    Attributes:
        label: the line's words; ``unit`` what it counts (deals, coups, tickets).
        path: :data:`KERNEL` (``simulate_table``: ``strategy`` is a table), :data:`SESSIONS`
            (``session_nets_table``, sessions of ``session_rounds`` rounds), :data:`REFERENCE`
            (``simulate_reference``) or :data:`ENGINE` (``simulate``: a plain strategy, which
            the engine tabulates).
        per_round: units of ``unit`` per round (ten tickets a scratchcard session).
        run: for what is no path of the game (a kernel of single coups, an exact programme):
            ``run(n)`` does ``n`` units of work; the other fields but the label and unit are
            then unused.
    """

    label: str
    unit: str
    rules: Any = None
    strategy: Any = None
    path: str = KERNEL
    progression: ProgressionSpec = ProgressionSpec()
    session_rounds: int = 100
    per_round: int = 1
    run: Callable[[int], object] | None = field(default=None, compare=False)

    @property
    def reference(self) -> bool:
        """A reference-path line: slow, so it starts from few rounds, and ``--no-reference``
        skips it."""
        return self.path == REFERENCE


@dataclass(frozen=True)
class BenchTiming:
    """One timed line of ``houseedge bench``: ``run()`` computes something once (e.g. an exact
    value from cold caches) and returns a short note on it, or None when it gave up."""

    label: str
    run: Callable[[], str | None]


class Presentation(Generic[RulesT]):
    """What a game shows beside the engine's numbers (every hook: nothing by default)."""

    # The exact tables `houseedge exact` prints (the rest are written with --out only).
    printed_tables: tuple[str, ...] = ("bets",)

    def columns(self, stats: Stats) -> dict[str, float]:
        """The game's own report columns of a row, from its merged statistics."""
        return {}

    def notes(self, stats: Stats) -> list[str]:
        """What the report must flag about a row's rounds (added to its ``note``), e.g. deals
        locked in a repeating cycle."""
        return []

    def run_lines(self, frame: pd.DataFrame) -> list[str]:
        """Lines ``houseedge run`` prints after its table, from the report frame."""
        return []

    def exact_tables(self, rules: RulesT) -> dict[str, pd.DataFrame]:
        """Exact odds tables for ``houseedge exact`` (name -> table)."""
        return {}

    def exact_charts(self, rules: RulesT, names: Collection[str] | None = None
                     ) -> dict[str, Any]:
        """Odds charts of the exact values (name -> matplotlib Figure): those in ``names``
        (None: every one)."""
        return {}

    def exact_chart_keys(self, rules: RulesT) -> dict[str, Hashable]:
        """What each exact chart is drawn from (name -> hashable key), for games whose
        variants often differ in what a chart does not show: variants of equal key share the
        chart, drawn once. Empty (the default): each variant draws its own. Where given, it
        names every chart of :meth:`exact_charts`."""
        return {}

    def exact_chart_names(self, rules: RulesT, strategies: Sequence[Any]
                          ) -> Collection[str] | None:
        """The exact charts that belong to a run of ``strategies`` on ``rules`` (a chart about
        one strategy is left out where no row plays it); None: every one."""
        return None

    def run_charts(self, stats: Mapping[tuple[str, str], Stats],
                   rules: Mapping[str, RulesT]) -> dict[str, Any]:
        """The game's own charts of a run: file name -> Figure, from the merged statistics of
        each (variant, strategy) and the rules of each variant."""
        return {}

    def bench_cases(self) -> list[BenchCase]:
        """What ``houseedge bench`` measures for this game."""
        return []

    def bench_timings(self) -> list[BenchTiming]:
        """What ``houseedge bench`` times once per run (exact computations)."""
        return []
