"""Gin rummy strategies: the dealt hand takes no decision, so there is one, ``as-dealt``."""

from __future__ import annotations

from strategies.base import register


@register("gin_rummy", "as-dealt")
class AsDealt:
    """The hand as dealt: no draw, no discard (the odds of the deal itself)."""

    name = "as-dealt"

    def decide(self, view: object, rng: object) -> None:
        return None
