"""What every game module offers the engine."""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from sim.errors import UnknownName
from sim.progression import ProgressionSpec
from sim.rng import Streams
from sim.stats import Stats


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


@dataclass(frozen=True)
class BenchCase:
    """One line of ``houseedge bench``: ``run(n)`` plays n rounds of something."""

    label: str
    unit: str
    run: Callable[[int], object]


@dataclass(frozen=True)
class BenchTiming:
    """One timed line of ``houseedge bench``: ``run()`` computes something once (e.g. an exact
    value from cold caches) and returns a short note on it, or None when it gave up."""

    label: str
    run: Callable[[], str | None]


class Game(ABC):
    """A game: its rules type and presets, a simulator, and exact values where they exist."""

    name: str
    description: str
    round_name: str = "round"
    rules_type: type
    presets: Mapping[str, Any]
    printed_tables: tuple[str, ...] = ("bets",)  # exact tables `houseedge exact` prints
    # The basis of the headline edge: what a player of the game means by "the house edge".
    # "initial" (per initial stake) where a round is one bet; "wagered" (per amount wagered)
    # where a round holds many bets (a faro deal, a scratchcard budget).
    headline_basis: str = "initial"
    rules_doc: str = ""  # the rules as the project models them, e.g. "docs/rules/faro.md"
    file_rules: tuple[str, ...] = ()  # rules whose value names a file (found beside the experiment)

    def locate(self, rule: str, value: str, base_dir: Path) -> str:
        """The file named by ``rule = value`` in an experiment file kept in ``base_dir``.

        A relative path is taken from the experiment file's folder, so an experiment runs the
        same from any working directory; ``""`` (no file) stays as it is.
        """
        if not value or Path(value).expanduser().is_absolute():
            return value
        return str(base_dir / value)

    def data_file(self, rule: str, value: str) -> Path | None:
        """The file whose content ``rule = value`` reads (for a run's fingerprint), or None."""
        return Path(value).expanduser() if value else None

    def make_rules(self, preset: str, overrides: Mapping[str, Any]) -> Any:
        """The rules of ``preset`` with ``overrides`` applied (validated by the rules type).

        Raises:
            UnknownName: unknown preset or field (with the closest known name).
            ValueError / TypeError: a value the rules reject.
        """
        if preset not in self.presets:
            raise UnknownName("preset", preset, self.presets)
        fields = {f.name for f in dataclasses.fields(self.rules_type)}
        for key in overrides:
            if key not in fields:
                raise UnknownName("rule", key, fields)
        return dataclasses.replace(self.presets[preset], **overrides)

    @abstractmethod
    def simulate(
        self,
        rules: Any,
        strategy: Any,
        progression: ProgressionSpec,
        rounds: int,
        seed: Streams | np.random.SeedSequence,
    ) -> Stats:
        """Play ``rounds`` rounds and return their statistics.

        ``seed``: the chunk's :class:`~sim.rng.Streams` (the cards, shared by every strategy
        of the pack, and the strategy's own stream); a plain SeedSequence stands for both
        (:func:`sim.rng.streams`).
        """

    def pack_key(self, rules: Any) -> str:
        """What decides the cards a variant deals: variants with the same key share their
        shuffles (common random numbers). By default all the rules, so variants differ; a
        game names the fields that decide its pack. A rule naming a file counts by the file's
        name, not its folder, so a run gives the same numbers from any checkout."""
        values = []
        for f in dataclasses.fields(rules):
            value = getattr(rules, f.name)
            if f.name in self.file_rules and isinstance(value, str):
                value = Path(value).name
            values.append(f"{f.name}={value!r}")
        return f"{type(rules).__name__}({', '.join(values)})"

    def check(self, rules: Any, strategy: Any, progression: ProgressionSpec) -> None:
        """Play a round or two on the reference path so a broken strategy fails before a run."""
        self.simulate(rules, strategy, progression, 2, np.random.SeedSequence(0))

    def rounds_independent(self, rules: Any) -> bool:
        """Whether one round tells nothing of the next (a fresh shuffle or draw each round).
        Where a pack is carried from round to round it does, and a run's standard errors are
        taken from the spread between chunks (batch means) instead."""
        return True

    def engine_path(self, rules: Any, strategy: Any) -> str:
        """Which path plays this strategy: ``"kernel"`` or ``"reference"``."""
        return "reference"

    def exact(self, rules: Any, strategy: Any, progression: ProgressionSpec) -> ExactValue | None:
        """Exact expectations for this strategy, or None where the mathematics does not reach."""
        return None

    def exact_unavailable(self, rules: Any, strategy: Any, progression: ProgressionSpec) -> str:
        """Why :meth:`exact` gives no value here, in words a reader understands (shown in
        place of an empty cell)."""
        if progression.kind != 0:
            return ("no exact value: a stake progression makes each round's stake depend on "
                    "the rounds before")
        return "no exact value: the exact code does not reach this strategy under these rules"

    def not_offered(self, rules: Any, strategy: Any) -> str | None:
        """Why the variant does not offer what the strategy bets on (None: it is offered).

        A row whose bet is not offered shows that reason instead of an edge of 0 +- 0.
        """
        return None

    def warnings(self, stats: Stats) -> list[str]:
        """What the report must flag about a row's rounds (added to its ``note``), e.g. deals
        locked in a repeating cycle; none by default."""
        return []

    def extra_columns(self, stats: Stats) -> dict[str, float]:
        """Game-specific report columns."""
        return {}

    def exact_charts(self, rules: Any) -> dict[str, Any]:
        """Odds charts of the exact values (name -> matplotlib Figure)."""
        return {}

    def bench_cases(self) -> list[BenchCase]:
        """What ``houseedge bench`` measures for this game."""
        return []

    def bench_timings(self) -> list[BenchTiming]:
        """What ``houseedge bench`` times once per run (exact computations)."""
        return []

    def exact_tables(self, rules: Any) -> dict[str, pd.DataFrame]:
        """Exact odds tables for ``houseedge exact`` (name -> table)."""
        return {}

    def run_lines(self, frame: pd.DataFrame) -> list[str]:
        """Lines ``houseedge run`` prints after its table, from the report frame: the game's
        own figures where the edge columns do not carry them (a points game)."""
        return []

    def session_nets(self, rules: Any, strategy: Any, progression: ProgressionSpec,
                     sessions: int, rounds: int, seed: np.random.SeedSequence
                     ) -> np.ndarray | None:
        """The net result of each round of ``sessions`` sessions of ``rounds`` rounds, one row
        per session, each session starting afresh (a new pack, the progression at its base),
        played by the kernel from ``seed``; None where the game has no session play. The risk
        tracker (:mod:`sim.risk.montecarlo`) follows the bankroll through the rows."""
        return None

    def round_law(self, rules: Any, strategy: Any, progression: ProgressionSpec
                  ) -> tuple[np.ndarray, np.ndarray] | None:
        """The exact distribution of the net result of one round as (values, probabilities),
        where rounds are independent and alike and the exact code reaches; else None."""
        return None

    def extra_charts(self, stats: Mapping[tuple[str, str], Stats],
                     rules: Mapping[str, Any]) -> dict[str, Any]:
        """Game-specific charts of a run: file name -> matplotlib Figure, from the merged
        statistics of each (variant, strategy) and the rules of each variant."""
        return {}
