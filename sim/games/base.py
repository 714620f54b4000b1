"""The game contracts: what every game module offers the engine (:class:`Game`, and the
template it fills in) and what it shows (:class:`Presentation`).

A game is a ``Game[RulesT, TableT]``: its rules type, and the table type its kernel and exact
code read. A strategy offers itself as a table through one hook, ``as_table(rules)``;
:meth:`Game.table_of` is the one place that asks, and where the strategy offers nothing it
asks :meth:`Game.tabulate` (the engine building a table from a plain strategy; no table by
default). On top of that one finder the base writes, once for every game, the dispatch of
:meth:`Game.simulate` (the kernel when there is a table, else the reference path),
:meth:`Game.engine_path`, :meth:`Game.exact`, :meth:`Game.exact_unavailable`,
:meth:`Game.session_nets`, :meth:`Game.round_law`, :meth:`Game.round_chain` and
:meth:`Game.not_offered`; a game fills in the ``*_table`` methods its kernel and exact code
answer. What a game shows is apart from its engine: its package's ``report.py`` holds a
:class:`Presentation`, which the engine never reads.
"""

from __future__ import annotations

import dataclasses
import math
import sys
import typing
from abc import ABC
from collections.abc import (
    Callable,
    Collection,
    Hashable,
    Mapping,
    Sequence,
)
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Generic, TypeVar

import numpy as np
import pandas as pd

from sim.core.errors import InputError, UnknownName
from sim.core.estimate import Measure
from sim.core.markov import RoundChain
from sim.core.progression import FLAT, ProgressionSpec
from sim.core.rng import Cards, Streams, kernel_state, strategy_generator, streams
from sim.core.stats import DEPENDENT_BATCH_ROUNDS, Stats

RulesT = TypeVar("RulesT")
TableT = TypeVar("TableT")

# What Game.engine_path answers.
KERNEL = "kernel"
KERNEL_TABULATED = "kernel (tabulated)"
REFERENCE = "reference"

NOT_A_TABLE = ("no exact value: the strategy is not a table the exact code can read (it plays "
               "on the reference path)")


def progression_unavailable(progression: ProgressionSpec) -> str:
    """Why no exact value is given under ``progression``, in a reader's words."""
    if progression.kind != FLAT:
        return ("no exact value: a stake progression makes each round's stake depend on the "
                "rounds before")
    return "no exact value: the exact code does not reach this strategy under these rules"


@dataclass(frozen=True)
class ExactValue:
    """Exact expectations per round, in the same units as the simulation.

    ``mean_initial_stake`` or ``mean_total_wagered`` is None where it has no closed form; the
    edge on that basis is then not reported exactly.

    ``sd_net`` is the exact standard deviation of the net result per round, given by games
    whose initial stake is the same every round. The report then takes the standard error of
    ``z_vs_exact`` from it (``sd_net / sqrt(rounds) / mean_initial_stake``): a sample that has
    not yet met a rare large outcome (a top prize, a completed bonus) underestimates its own
    spread, and a z-score from the sample SD would flag a correct simulator.
    ``sd_residual_total`` does the same for ``z_vs_exact_per_total_wagered``: the exact SD of
    ``net + edge_per_total_wagered x total wagered`` per round (``sd_net`` itself when every
    round wagers the same).

    Where the initial stake varies because a progression carries its unit from round to
    round, ``sd_net`` is in the same way the SD of ``net + edge_per_initial_bet x initial``,
    and both are *long-run* SDs: the square root of ``lim Var(sum of n residuals) / n``,
    the autocovariances of the dependent rounds included, which is what the standard error
    of a long run's edge needs. The means are then the long-run means per round.
    """

    mean_net: float
    mean_initial_stake: float | None
    mean_total_wagered: float | None
    sd_net: float | None = None
    sd_residual_total: float | None = None
    # The edges as exact fractions, where the exact code computes in them (faro): shown
    # beside the decimals by `houseedge exact`.
    fractions: Mapping[str, Fraction] | None = None

    @property
    def edge_per_initial_bet(self) -> float | None:
        if self.mean_initial_stake:
            return -self.mean_net / self.mean_initial_stake
        return None

    @property
    def edge_per_total_wagered(self) -> float | None:
        if self.mean_total_wagered:
            return -self.mean_net / self.mean_total_wagered
        return None

    def value(self, basis: str) -> float | None:
        """The exact measure on ``basis``: the edge per initial stake (``"initial"``) or per
        amount wagered (``"wagered"``), or the mean net per round (``"round"``)."""
        if basis == "initial":
            return self.edge_per_initial_bet
        if basis == "wagered":
            return self.edge_per_total_wagered
        return self.mean_net

    def stderr(self, basis: str, rounds: int) -> float | None:
        """The exact standard error of the estimate on ``basis`` from ``rounds`` rounds,
        where the exact SD is known (None: take the sample's)."""
        if not rounds:
            return None
        if basis == "initial":
            if self.sd_net is None or not self.mean_initial_stake:
                return None
            return self.sd_net / math.sqrt(rounds) / self.mean_initial_stake
        if basis == "wagered":
            if self.sd_residual_total is None or not self.mean_total_wagered:
                return None
            return self.sd_residual_total / math.sqrt(rounds) / self.mean_total_wagered
        return None if self.sd_net is None else self.sd_net / math.sqrt(rounds)


class Game(ABC, Generic[RulesT, TableT]):
    """A game: its rules type and presets, a simulator, and exact values where they exist.

    The template: a game gives :meth:`play_reference` (any Python strategy) and, where it
    has a kernel, :meth:`simulate_table`; the exact code answers through :meth:`exact_table`,
    :meth:`round_law_table`, :meth:`session_nets_table` and :meth:`not_offered_table`. Each is
    reached only through :meth:`table_of`.
    """

    # What the class derives from where it is written (see __init_subclass__): ``name`` from
    # its package (sim.games.faro: "faro"), ``rules_type`` from Game[RulesT, TableT],
    # ``rules_doc`` from the name, and ``presets`` from the PRESETS beside the rules type.
    name: str
    rules_type: type[RulesT]
    rules_doc: str = ""  # the rules as the project models them: "docs/rules/<name>.md"
    description: str
    round_name: str = "round"
    presets: Mapping[str, RulesT]
    # What a round measures and what the report headlines (sim.core.estimate.Measure): a
    # house edge per initial stake where a round is one bet, per amount wagered where it holds
    # many (a faro deal, a scratchcard budget); a mean per round where nobody stakes anything.
    # The other basis is compared on the terminal and the page only where a player asks it
    # (a faro deal's cost per deal beside per bet), not by default: a scratchcard budget's
    # "initial stake" is its first ticket, and a bonus's per amount wagered has no exact SD.
    measure: Measure = Measure.stakes("initial")
    file_rules: tuple[str, ...] = ()  # rules whose value names a file (found beside the experiment)
    # Where set, the game's stakes are not a progression's to choose: any progression but
    # the flat one at base 1 is bad input with this message.
    flat_stakes_only: str = ""
    check_rounds: int = 2  # rounds the reference path plays to check a strategy
    fast_path: str = KERNEL  # what the report's path column calls the fast path ("numpy")
    # The simulators carry a progression's unit from round to round (so a row under one has
    # dependent rounds) and cut its rounds into batches of batch_rounds for the error.
    progression_batches: bool = False
    # The kernel, where simulate_table only hands it the chunk's xoshiro state: a function
    # ``kernel(rules, table, rounds, state) -> Stats``, set as ``staticmethod(function)``.
    kernel: Callable[[Any, Any, int, np.ndarray], Stats] | None = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "name" not in cls.__dict__:
            cls.name = cls.__module__.split(".")[2] if cls.__module__.startswith(
                "sim.games.") else cls.__module__.rsplit(".", 1)[-1]
        if "rules_type" not in cls.__dict__:
            for base in getattr(cls, "__orig_bases__", ()):
                args = typing.get_args(base)
                if typing.get_origin(base) is Game and args and isinstance(args[0], type):
                    cls.rules_type = args[0]
        if "rules_doc" not in cls.__dict__:
            cls.rules_doc = f"docs/rules/{cls.name}.md"
        if not hasattr(cls, "presets") and hasattr(cls, "rules_type"):
            cls.presets = vars(sys.modules[cls.rules_type.__module__])["PRESETS"]

    def locate(self, rule: str, value: Any, base_dir: Path) -> Any:
        """The file named by ``rule = value`` in an experiment file kept in ``base_dir``.

        A relative path is taken from the experiment file's folder, so an experiment runs the
        same from any working directory; ``""`` (no file) and a value that is no path stay as
        they are.
        """
        if not isinstance(value, str) or not value or Path(value).expanduser().is_absolute():
            return value
        return str(base_dir / value)

    def data_files(self, rule: str, value: Any) -> list[Path]:
        """The files whose content ``rule = value`` reads (for a run's fingerprint)."""
        return [Path(value).expanduser()] if isinstance(value, str) and value else []

    def portable(self, rule: str, value: Any) -> Any:
        """``rule = value`` as the pack key counts it: a file by its name, not its folder, so
        that a run gives the same numbers from any checkout."""
        return Path(value).name if isinstance(value, str) else value

    def make_rules(self, preset: str, overrides: Mapping[str, Any]) -> RulesT:
        """The rules of ``preset`` with ``overrides`` applied (validated by the rules type).

        Raises:
            UnknownName: unknown preset or field (with the closest known name).
            RuleError / ValueError / TypeError: a value the rules reject.
        """
        if preset not in self.presets:
            raise UnknownName("preset", preset, self.presets)
        fields = {f.name for f in dataclasses.fields(self.rules_type)}
        for key in overrides:
            if key not in fields:
                raise UnknownName("rule", key, fields)
        return dataclasses.replace(self.presets[preset], **overrides)  # type: ignore[type-var]

    # ------------------------------------------------------------ the table hook
    def offered_table(self, rules: RulesT, strategy: Any) -> TableT | None:
        """The table the strategy offers itself as under ``rules`` (its ``as_table``), or
        None."""
        describe = getattr(strategy, "as_table", None)
        return None if describe is None else describe(rules)

    def pack_key(self, rules: Any) -> str:
        """What decides the cards a variant deals: variants with the same key share their
        shuffles (common random numbers). By default all the rules, so variants differ; a
        game names the fields that decide its pack. A rule naming a file counts as
        :meth:`portable` gives it."""
        values = []
        for f in dataclasses.fields(rules):
            value = getattr(rules, f.name)
            if f.name in self.file_rules:
                value = self.portable(f.name, value)
            values.append(f"{f.name}={value!r}")
        return f"{type(rules).__name__}({', '.join(values)})"

    def tabulate(self, rules: RulesT, strategy: Any) -> TableT | None:
        """A table built by the engine from a strategy that offers none (by evaluating it over
        every view the table covers), or None where it cannot be: the strategy then plays on
        the reference path. No game tabulates by default."""
        return None

    def reference_reason(self, rules: RulesT, strategy: Any) -> str:
        """Why this strategy plays on the reference path, in words a reader understands."""
        return "the strategy offers no table and the engine cannot build one from it"

    def table_source(self, rules: RulesT, strategy: Any) -> tuple[TableT | None, str]:
        """The strategy's table and where it came from: ``"offered"``, ``"tabulated"`` or,
        with no table, ``""``."""
        table = self.offered_table(rules, strategy)
        if table is not None:
            return table, "offered"
        table = self.tabulate(rules, strategy)
        return (table, "tabulated") if table is not None else (None, "")

    def table_of(self, rules: RulesT, strategy: Any) -> TableT | None:
        """The strategy as the table the kernel and the exact code read, or None: the one
        finder every part of the template goes through."""
        return self.table_source(rules, strategy)[0]

    def kernel_plays(self, rules: RulesT) -> bool:
        """Whether the kernel plays these rules (given a table); else the reference does."""
        return True

    def check_progression(self, progression: ProgressionSpec) -> None:
        """Reject a progression the game cannot apply (see :attr:`flat_stakes_only`)."""
        if self.flat_stakes_only and (progression.kind != FLAT or progression.base != 1.0):
            raise InputError(self.flat_stakes_only)

    # ---------------------------------------------------------------- simulation
    def simulate(self, rules: RulesT, strategy: Any, progression: ProgressionSpec,
                 rounds: int, seed: Streams | np.random.SeedSequence) -> Stats:
        """Play ``rounds`` rounds and return their statistics: on the kernel where the
        strategy is a table and the kernel plays the rules, else on the reference path.

        ``seed``: the chunk's :class:`~sim.core.rng.Streams` (the cards, shared by every strategy
        of the pack, and the strategy's own stream); a plain SeedSequence stands for both
        (:func:`sim.core.rng.streams`).
        """
        self.check_progression(progression)
        table = self.table_of(rules, strategy)
        if table is not None and self.kernel_plays(rules):
            return self.simulate_table(rules, table, progression, rounds, seed)
        return self.simulate_reference(rules, strategy, progression, rounds, seed)

    def warm_up(self) -> None:
        """Compile the kernel :meth:`simulate_table` runs (a few rounds of any rules will
        do, where one compiled specialization serves every experiment), so that it is in
        numba's cache: :mod:`sim.engine.warm` calls it in a process of its own while a first run
        reads its experiment. Games whose kernel compiles in a second or two leave it out."""

    def simulate_table(self, rules: RulesT, table: TableT, progression: ProgressionSpec,
                       rounds: int, seed: np.random.SeedSequence) -> Stats:
        """Play ``rounds`` rounds of a table on the kernel: by default :attr:`kernel`, from
        the chunk's xoshiro state (:func:`sim.core.rng.kernel_state`)."""
        if self.kernel is None:
            raise NotImplementedError(f"{self.name} has no kernel")
        return self.kernel(rules, table, rounds, kernel_state(seed))

    def simulate_reference(self, rules: RulesT, strategy: Any, progression: ProgressionSpec,
                           rounds: int, seed: Streams | np.random.SeedSequence) -> Stats:
        """Play ``rounds`` rounds on the reference path (any Python strategy).

        Common random numbers are the template's: the game is handed the chunk's cards
        (:class:`~sim.core.rng.Cards`, from the cards' stream) and the strategy's own
        generator apart, so a strategy that draws moves no card of any row.
        """
        parts = streams(seed)
        return self.play_reference(rules, strategy, progression, rounds, Cards(parts.cards),
                                   strategy_generator(parts))

    def play_reference(self, rules: RulesT, strategy: Any, progression: ProgressionSpec,
                       rounds: int, cards: Cards, rng: np.random.Generator) -> Stats:
        """The game's reference path: ``rounds`` rounds dealt from ``cards``, the strategy
        handed ``rng`` (its own generator) wherever it decides."""
        raise NotImplementedError(f"{self.name} has no reference path")

    def engine_path(self, rules: RulesT, strategy: Any) -> str:
        """Which path plays this strategy: ``"kernel"``, ``"kernel (tabulated)"`` (a table
        the engine built from a plain strategy) or ``"reference"``."""
        table, source = self.table_source(rules, strategy)
        if table is None or not self.kernel_plays(rules):
            return REFERENCE
        return f"{self.fast_path} (tabulated)" if source == "tabulated" else self.fast_path

    def check(self, rules: RulesT, strategy: Any, progression: ProgressionSpec) -> None:
        """Build the strategy's table and play a round or two on the reference path, so that
        a broken strategy fails before a run."""
        self.check_progression(progression)
        self.table_of(rules, strategy)
        self.simulate_reference(rules, strategy, progression, self.check_rounds,
                                np.random.SeedSequence(0))

    def rounds_independent(self, rules: RulesT) -> bool:
        """Whether one round tells nothing of the next (a fresh shuffle or draw each round).
        Where a pack is carried from round to round it does, and a run's standard errors are
        taken from the spread between batches of :meth:`batch_rounds` rounds instead."""
        return True

    def rounds_dependent(self, rules: RulesT,
                         progression: ProgressionSpec | None = None) -> bool:
        """Whether a row's rounds tell of each other: the rules carry a pack from round to
        round (not :meth:`rounds_independent`), or a progression carries its unit, where the
        game's simulators cut such rounds into batches (:attr:`progression_batches`). The
        runner closes each chunk by it."""
        if not self.rounds_independent(rules):
            return True
        return (self.progression_batches and progression is not None
                and progression.kind != FLAT)

    def batch_rounds(self, rules: RulesT, progression: ProgressionSpec | None = None) -> int:
        """The fixed length of the batches a chunk of dependent rounds is cut into (its
        simulators record each batch's totals: :meth:`sim.core.stats.Stats.add_batch`); 0 where
        rounds are independent."""
        return DEPENDENT_BATCH_ROUNDS if self.rounds_dependent(rules, progression) else 0

    def exact(self, rules: RulesT, strategy: Any,
              progression: ProgressionSpec) -> ExactValue | None:
        """Exact expectations for this strategy, or None where the mathematics does not reach."""
        table = self.table_of(rules, strategy)
        return None if table is None else self.exact_table(rules, table, progression)

    def exact_table(self, rules: RulesT, table: TableT,
                    progression: ProgressionSpec) -> ExactValue | None:
        """Exact expectations of a table, or None where the exact code does not reach."""
        return None

    def exact_unavailable(self, rules: RulesT, strategy: Any,
                          progression: ProgressionSpec) -> str:
        """Why :meth:`exact` gives no value here, in words a reader understands (shown in
        place of an empty cell)."""
        table = self.table_of(rules, strategy)
        if table is None:
            return NOT_A_TABLE
        return self.exact_table_unavailable(rules, table, progression)

    def exact_table_unavailable(self, rules: RulesT, table: TableT,
                                progression: ProgressionSpec) -> str:
        """Why :meth:`exact_table` gives no value for this table."""
        return progression_unavailable(progression)

    def not_offered(self, rules: RulesT, strategy: Any) -> str | None:
        """Why the variant does not offer what the strategy bets on (None: it is offered).

        A row whose bet is not offered shows that reason instead of an edge of 0 +- 0.
        """
        if type(self).not_offered_table is Game.not_offered_table:
            return None  # the game offers every bet: no table to build for the question
        table = self.table_of(rules, strategy)
        return None if table is None else self.not_offered_table(rules, table)

    def not_offered_table(self, rules: RulesT, table: TableT) -> str | None:
        """Why the variant does not offer what this table bets on (None: it is offered)."""
        return None

    def session_nets(self, rules: RulesT, strategy: Any, progression: ProgressionSpec,
                     sessions: int, rounds: int, seed: np.random.SeedSequence
                     ) -> np.ndarray | None:
        """The net result of each round of ``sessions`` sessions of ``rounds`` rounds, one row
        per session, each session starting afresh (a new pack, the progression at its base),
        played by the kernel from ``seed``; None where the game has no session play or the
        strategy is no table. The risk tracker (:mod:`sim.risk.montecarlo`) follows the
        bankroll through the rows."""
        self.check_progression(progression)
        table = self.table_of(rules, strategy)
        if table is None or not self.kernel_plays(rules):
            return None
        return self.session_nets_table(rules, table, progression, sessions, rounds, seed)

    def session_nets_table(self, rules: RulesT, table: TableT, progression: ProgressionSpec,
                           sessions: int, rounds: int, seed: np.random.SeedSequence
                           ) -> np.ndarray | None:
        """:meth:`session_nets` of a table on the kernel (None: no session play)."""
        return None

    def round_law(self, rules: RulesT, strategy: Any, progression: ProgressionSpec
                  ) -> tuple[np.ndarray, np.ndarray] | None:
        """The exact distribution of the net result of one round as (values, probabilities),
        where rounds are independent and alike and the exact code reaches; else None."""
        table = self.table_of(rules, strategy)
        return None if table is None else self.round_law_table(rules, table, progression)

    def round_law_table(self, rules: RulesT, table: TableT, progression: ProgressionSpec
                        ) -> tuple[np.ndarray, np.ndarray] | None:
        """:meth:`round_law` of a table (None where the exact code does not reach)."""
        return None

    def round_chain(self, rules: RulesT, strategy: Any, progression: ProgressionSpec
                    ) -> RoundChain | None:
        """The exact law of a session's rounds where they are not alike but driven by a
        finite state carried from round to round (a progression's unit): per state, the law
        of a round's net and of the next state, a session starting in ``start``; else None
        (see :meth:`round_law` for rounds alike)."""
        table = self.table_of(rules, strategy)
        return None if table is None else self.round_chain_table(rules, table, progression)

    def round_chain_table(self, rules: RulesT, table: TableT, progression: ProgressionSpec
                          ) -> RoundChain | None:
        """:meth:`round_chain` of a table (None where the exact code does not reach)."""
        return None


# ----------------------------------------------------------------- what a game shows
# A game's package keeps its engine in ``__init__.py`` (:class:`Game`) and what it shows in
# ``report.py``: ``REPORT``, an instance of a :class:`Presentation` subclass (its own report
# columns and notes, the lines printed after a run's table, the exact tables and odds charts,
# a run's own charts, and what ``houseedge bench`` measures). The engine never reads it; the
# outputs reach it through the registry (:func:`sim.games.presentation`). Every hook has a
# default (nothing to add), so a game fills in only what it shows.
# The paths a bench case plays, through the game's own entry points (KERNEL and REFERENCE
# as above).
SESSIONS, ENGINE = "sessions", "engine"


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
