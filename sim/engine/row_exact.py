"""What the exact code says of one row: a job of the runner, kept with the run's checkpoints.

For each (variant, strategy) the runner asks the game once for the row's exact value (or why
there is none), whether the variant offers the bet at all, which path plays the strategy,
and, for a run with a ``[session]`` table, the exact law of one round's net (or of the chain
that drives the rounds, a progression's unit). The record is
plain JSON in the run's ``chunks/`` folder (fractions as ``"p/q"``), so the report, the page
and ``houseedge report DIR`` read the numbers and never ask the game again;
``houseedge exact`` computes the same records (:func:`row_exact`), so both print one number.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from fractions import Fraction
from typing import Any

import numpy as np

from sim.core.markov import RoundChain
from sim.core.tabulate import path_columns
from sim.games.base import ExactValue, Game
from sim.risk.law import ChainLaw, RoundLaw


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
        chain: where rounds are not alike (a progression's unit carried from round to round)
            and the game gives it instead, the Markov chain that drives them.
    """

    value: ExactValue | None
    unavailable: str
    not_offered: str | None
    path: str
    path_note: str = ""
    law: tuple[tuple[float, ...], tuple[float, ...]] | None = None
    chain: RoundChain | None = None

    def session_law(self) -> RoundLaw | ChainLaw | None:
        """The exact law the risk programmes read: of a round, or of the chain of rounds."""
        if self.law is not None:
            return RoundLaw.from_pairs(np.array(self.law[0], dtype=np.float64),
                                       np.array(self.law[1], dtype=np.float64))
        return None if self.chain is None else ChainLaw.from_chain(self.chain)

    def to_json(self) -> dict[str, Any]:
        value = None
        if self.value is not None:
            value = {f.name: getattr(self.value, f.name) for f in fields(self.value)
                     if f.name != "fractions"}
            value["fractions"] = ({k: str(v) for k, v in self.value.fractions.items()}
                                  if self.value.fractions else None)
        law = None if self.law is None else [list(self.law[0]), list(self.law[1])]
        chain = None if self.chain is None else {
            "source": self.chain.source.tolist(), "target": self.chain.target.tolist(),
            "values": self.chain.values.tolist(), "probs": self.chain.probs.tolist(),
            "start": self.chain.start, "labels": list(self.chain.labels)}
        return {**{f.name: getattr(self, f.name) for f in fields(self)}, "value": value,
                "law": law, "chain": chain}

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
        chain = data["chain"]
        if chain is not None:
            chain = RoundChain(np.array(chain["source"], dtype=np.int64),
                               np.array(chain["target"], dtype=np.int64),
                               np.array(chain["values"], dtype=np.float64),
                               np.array(chain["probs"], dtype=np.float64), int(chain["start"]),
                               tuple(str(x) for x in chain["labels"]))
        not_offered = data["not_offered"]
        return cls(value, str(data["unavailable"]), None if not_offered is None
                   else str(not_offered), str(data["path"]), str(data["path_note"]), law,
                   chain)


def row_exact(game: Game, rules: Any, strategy: Any, progression: Any,
              with_law: bool = False) -> RowExact:
    """Ask the game once about one row (``with_law``: the round's exact law too)."""
    value = game.exact(rules, strategy, progression)
    not_offered = game.not_offered(rules, strategy)
    unavailable = ("" if value is not None or not_offered is not None
                   else game.exact_unavailable(rules, strategy, progression))
    path, note = path_columns(game.engine_path(rules, strategy), rules, strategy)
    law = chain = None
    if with_law:
        pairs = game.round_law(rules, strategy, progression)
        if pairs is not None:
            law = (tuple(float(x) for x in pairs[0]), tuple(float(x) for x in pairs[1]))
        else:
            chain = game.round_chain(rules, strategy, progression)
    return RowExact(value, unavailable, not_offered, path, note, law, chain)
