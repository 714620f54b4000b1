"""Piquet's exchange policies played as a strategy: the adapter that lets a
:class:`PiquetTable` answer on the reference path exactly as the kernel reads it."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from sim.games.piquet.deal import PiquetTable, policy_discard
from sim.games.piquet.rules import POLICIES, ExchangePolicy, PiquetRules, PiquetView


class ExchangePlayers:
    """Both hands exchanging by :class:`ExchangePolicy` data: the named ``policy`` (of
    :data:`POLICIES`) with the fields ``params`` changes, younger hand the same but for the
    fields ``younger`` changes. Playable on both paths: the kernel and the exact code read the
    policies as a :class:`PiquetTable` (:meth:`as_table`), the reference path asks
    :meth:`decide`, which discards as the kernel does (:func:`policy_discard`, sets counted
    from the rules the view carries)."""

    name = "exchange"

    def __init__(self, policy: str, younger: Mapping[str, Any] | None = None,
                 **params: Any) -> None:
        fields = {f.name for f in dataclasses.fields(ExchangePolicy)}
        for given in (params, younger or {}):
            unknown = set(given) - fields
            if unknown:
                raise TypeError(f"unknown key {sorted(unknown)[0]!r} (known: "
                                f"{', '.join(sorted(fields | {'younger'}))})")
        elder = dataclasses.replace(POLICIES[policy], **params)
        self.table = PiquetTable(elder, dataclasses.replace(elder, **(younger or {})))

    def as_table(self, rules: PiquetRules) -> PiquetTable:
        """The policies the compiled kernel runs (the same under every rules)."""
        return self.table

    def decide(self, view: PiquetView, rng: object) -> list[int]:
        return policy_discard(self.table.elder if view.seat == "elder" else self.table.younger,
                              view)
