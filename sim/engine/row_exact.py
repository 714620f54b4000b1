"""What the exact code says of one row: a job of the runner, kept with the run's checkpoints.

For each (variant, strategy) the runner asks the game once for the row's exact value (or why
there is none), whether the variant offers the bet at all, which path plays the strategy,
and, for a run with a ``[session]`` table, the exact law of one round's net. The record is
plain JSON in the run's ``chunks/`` folder (fractions as ``"p/q"``), so the report, the page
and ``houseedge report DIR`` read the numbers and never ask the game again;
``houseedge exact`` computes the same records (:func:`row_exact`), so both print one number.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from fractions import Fraction
from typing import Any

import numpy as np

from sim.core.tabulate import path_columns
from sim.games.base import ExactValue, Game


@dataclass(frozen=True)
class RowExact:
    """One row's exact facts.

    Attributes:
        value: the exact expectations (None: no exact value).
        unavailable: why there is no exact value, in a reader's words ("" where there is one,
            or where the bet is not offered).
        not_offered: why the variant does not offer what the strategy bets on (None: it
            does).
        path: which path plays the strategy (``kernel``, ``kernel (tabulated)``,
            ``reference``...), and ``path_note`` why a strategy stayed on the reference path.
        law: the exact law of one round's net as (values, probabilities), where the run has
            a ``[session]`` table and the game gives it.
    """

    value: ExactValue | None
    unavailable: str
    not_offered: str | None
    path: str
    path_note: str = ""
    law: tuple[tuple[float, ...], tuple[float, ...]] | None = None

    def law_arrays(self) -> tuple[np.ndarray, np.ndarray] | None:
        """:attr:`law` as the arrays the risk programmes read."""
        if self.law is None:
            return None
        return np.array(self.law[0], dtype=np.float64), np.array(self.law[1], dtype=np.float64)

    def to_json(self) -> dict[str, Any]:
        value = None
        if self.value is not None:
            value = {f.name: getattr(self.value, f.name) for f in fields(self.value)
                     if f.name != "fractions"}
            value["fractions"] = ({k: str(v) for k, v in self.value.fractions.items()}
                                  if self.value.fractions else None)
        law = None if self.law is None else [list(self.law[0]), list(self.law[1])]
        return {**asdict(self), "value": value, "law": law}

    @classmethod
    def from_json(cls, data: Any) -> RowExact:
        """The record :meth:`to_json` wrote.

        Raises:
            KeyError, TypeError, ValueError: not such a record.
        """
        value = data["value"]
        if value is not None:
            fractions = value.get("fractions")
            value = ExactValue(**{**value, "fractions": None if fractions is None else {
                k: Fraction(v) for k, v in fractions.items()}})
        law = data["law"]
        if law is not None:
            law = (tuple(float(x) for x in law[0]), tuple(float(x) for x in law[1]))
            if len(law[0]) != len(law[1]):
                raise ValueError("a round's law of unequal values and probabilities")
        not_offered = data["not_offered"]
        return cls(value, str(data["unavailable"]), None if not_offered is None
                   else str(not_offered), str(data["path"]), str(data["path_note"]), law)


def row_exact(game: Game, rules: Any, strategy: Any, progression: Any,
              with_law: bool = False) -> RowExact:
    """Ask the game once about one row (``with_law``: the round's exact law too)."""
    value = game.exact(rules, strategy, progression)
    not_offered = game.not_offered(rules, strategy)
    unavailable = ("" if value is not None or not_offered is not None
                   else game.exact_unavailable(rules, strategy, progression))
    path, note = path_columns(game.engine_path(rules, strategy), rules, strategy)
    law = None
    if with_law:
        pairs = game.round_law(rules, strategy, progression)
        if pairs is not None:
            law = (tuple(float(x) for x in pairs[0]), tuple(float(x) for x in pairs[1]))
    return RowExact(value, unavailable, not_offered, path, note, law)
