"""Where the cards come from: shuffled packs or given orders, and the stock of the reference
deal (drawn from the top, used cards returned to the bottom).

The reference stock draws exactly as the compiled kernel does, with the kernel's own generator
called from Python (:mod:`sim.core.xoshiro`): at each shuffle the generator is re-seeded from the
source's key and the shuffle's index (:func:`sim.core.xoshiro.round_state`), the pack is put back in
its sorted order, and each card is drawn when needed from the cards not yet dealt since the
shuffle (a lazy Fisher-Yates: swap a uniformly chosen undealt card to the top and take it).
So the same key gives the same cards on both paths, and every strategy meets the same cards
after the same shuffle, however many cards it took before. The order in which the used piles
go under the pack (``gathering = "varied"``) is drawn from the same stream.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from sim.core.xoshiro import bounded, round_states
from sim.games.pontoon.rules import PontoonRules

GIVEN_KEY = (1, 2, 3, 4)  # the generator key of given orders (the kernel's play_ordered_deals)


def card_key(rng: np.random.Generator | np.ndarray | Sequence[int]) -> np.ndarray:
    """Four 64-bit words keying the card stream: given as such, or drawn from ``rng``."""
    if isinstance(rng, np.random.Generator):
        return rng.integers(0, 2**64, size=4, dtype=np.uint64, endpoint=False)
    return np.asarray(rng, dtype=np.uint64).copy()


class RandomCards:
    """Shuffled packs (or infinite-deck draws), dealt lazily from the generator keyed by
    ``key`` (four 64-bit words, :func:`sim.core.rng.kernel_state`; a numpy generator is accepted
    and a key drawn from it)."""

    random = True

    def __init__(self, rules: PontoonRules, key: Any) -> None:
        self.pack = rules.pack_ranks().tolist()
        self.key = card_key(key)


class GivenCards:
    """Card orders given in advance (tests, enumeration): each shuffle takes the next row of
    ``orders``; in infinite-deck mode each deal draws the next row's cards in turn. The
    gathering order (where drawn) comes from the generator keyed by ``key``."""

    random = False

    def __init__(self, orders: Iterable[Iterable[int]], key: Sequence[int] = GIVEN_KEY) -> None:
        self._orders = iter(orders)
        self.key = card_key(key)

    def shuffled(self) -> list[int]:
        return [int(c) for c in next(self._orders)]

    def stream(self) -> Iterator[int]:
        return iter(self.shuffled())


class Pack:
    """The stock: drawn from the top, used cards returned to the bottom.

    Each card carries whether it is *fresh*: not dealt since the last shuffle. A card coming
    round again from the bottom was seen before, so memory counts each card once. The fresh
    cards are always the top of the stock (returned cards queue behind them); with a random
    source their order is not fixed until each is drawn.
    """

    def __init__(self, rules: PontoonRules, source: Any) -> None:
        self.infinite = rules.infinite_deck
        self.size = rules.n_cards
        self.source = source
        self.shuffles = 0
        self.state = np.zeros(4, dtype=np.uint64)
        self._undealt: list[int] = []  # the fresh cards of a random source, drawn lazily
        self._top = 0
        self._queue: deque[tuple[int, bool]] = deque()
        self._row: Iterator[int] = iter(())

    @property
    def _random(self) -> bool:
        return bool(getattr(self.source, "random", False))

    def shuffle(self) -> None:
        """Shuffle: re-seed the generator for this shuffle and take a fresh pack."""
        key = getattr(self.source, "key", None)
        if key is not None:
            self.state = round_states(key, self.shuffles)
        self.shuffles += 1
        if self.infinite:
            if not self._random:
                self._row = self.source.stream()
            return
        self._queue = deque()
        self._top = 0
        if self._random:
            self._undealt = list(self.source.pack)
        else:
            self._undealt = []
            self._queue.extend((c, True) for c in self.source.shuffled())

    def draw(self) -> tuple[int, bool] | None:
        """The top card and whether it is fresh, or None when the stock is empty."""
        if self.infinite:
            if self._random:
                pack = self.source.pack
                return pack[bounded(len(pack), self.state)], True
            return next(self._row), True
        left = len(self._undealt) - self._top
        if left > 0:
            top = self._top
            if left > 1:  # the kernel draws nothing for the last undealt card
                j = top + bounded(left, self.state)
                self._undealt[top], self._undealt[j] = self._undealt[j], self._undealt[top]
            self._top += 1
            return self._undealt[top], True
        return self._queue.popleft() if self._queue else None

    def gathering_order(self, piles: int, varied: bool) -> list[int]:
        """The order in which ``piles`` used piles go under the pack: as given, or (varied)
        uniformly random from the card stream (a forward Fisher-Yates, as the kernel draws)."""
        order = list(range(piles))
        if varied and not self.infinite:
            for i in range(piles - 1):
                j = i + bounded(piles - i, self.state)
                order[i], order[j] = order[j], order[i]
        return order

    def gather(self, piles: Sequence[Sequence[int]], varied: bool) -> None:
        """Put the used ``piles`` under the pack, in the gathering order."""
        for k in self.gathering_order(len(piles), varied):
            self.to_bottom(piles[k])

    def to_bottom(self, cards: Iterable[int]) -> None:
        if not self.infinite:
            self._queue.extend((c, False) for c in cards)

    @property
    def stock(self) -> list[tuple[int, bool]]:
        """The stock's cards and freshness, top first (the undealt part in no fixed order)."""
        return [(c, True) for c in self._undealt[self._top:]] + list(self._queue)

    @property
    def fresh(self) -> int:
        """Cards in the stock not dealt since the shuffle."""
        if self.infinite:
            return self.size
        return len(self._undealt) - self._top + sum(f for _, f in self._queue)

    @property
    def undealt(self) -> int:
        """Cards of a random source not yet drawn since the shuffle (their order is not yet
        fixed: what is left to chance)."""
        return 0 if self.infinite else len(self._undealt) - self._top

    def ranks(self) -> list[int]:
        """The stock's ranks, top first."""
        return [c for c, _ in self.stock]

    def __len__(self) -> int:
        return self.size if self.infinite else len(self._undealt) - self._top + len(self._queue)
