"""Where the cards come from: shuffled packs or given orders, and the stock of the reference
deal (drawn from the top, used cards returned to the bottom)."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from sim.games.pontoon.rules import PontoonRules


class RandomCards:
    """Shuffled packs (or infinite-deck draws) from the engine's generator."""

    def __init__(self, rules: PontoonRules, rng: np.random.Generator) -> None:
        self.pack = rules.pack_ranks()
        self.rng = rng

    def shuffled(self) -> list[int]:
        return self.rng.permutation(self.pack).tolist()

    def stream(self) -> Iterator[int]:
        """Infinite-deck draws: each card uniform over the pack, with replacement."""
        while True:
            yield int(self.pack[self.rng.integers(len(self.pack))])


class GivenCards:
    """Card orders given in advance (tests, enumeration): each shuffle takes the next row of
    ``orders``; in infinite-deck mode each deal draws the next row's cards in turn."""

    def __init__(self, orders: Iterable[Iterable[int]]) -> None:
        self._orders = iter(orders)

    def shuffled(self) -> list[int]:
        return [int(c) for c in next(self._orders)]

    def stream(self) -> Iterator[int]:
        return iter(self.shuffled())


class Pack:
    """The stock: drawn from the top, used cards returned to the bottom.

    Each card carries whether it is *fresh*: not dealt since the last shuffle. A card coming
    round again from the bottom was seen before, so memory counts each card once.
    """

    def __init__(self, rules: PontoonRules, source: Any) -> None:
        self.infinite = rules.infinite_deck
        self.size = rules.n_cards
        self.source = source
        self.stock: deque[tuple[int, bool]] = deque()
        self.stream: Iterator[int] = iter(())

    def shuffle(self) -> None:
        if self.infinite:
            self.stream = self.source.stream()
        else:
            self.stock = deque((c, True) for c in self.source.shuffled())

    def draw(self) -> tuple[int, bool] | None:
        """The top card and whether it is fresh, or None when the stock is empty."""
        if self.infinite:
            return next(self.stream), True
        return self.stock.popleft() if self.stock else None

    def to_bottom(self, cards: Iterable[int]) -> None:
        if not self.infinite:
            self.stock.extend((c, False) for c in cards)

    @property
    def fresh(self) -> int:
        """Cards in the stock not dealt since the shuffle."""
        return self.size if self.infinite else sum(f for _, f in self.stock)

    def ranks(self) -> list[int]:
        """The stock's ranks, top first."""
        return [c for c, _ in self.stock]

    def __len__(self) -> int:
        return self.size if self.infinite else len(self.stock)
