"""The walk of a faro deal over the cards of the ranks bet on, shared by the exact laws.

A bet on single ranks is decided by the cards of its ranks only, so a deal can be walked with
the state (cards of each followed rank left; the others are the rest of the box, whose size is
fixed by the turn): the soda removes one card, then each turn draws the losing card and the
winning card without replacement, by category. What a turn does to what is carried (a net
result, a sequence of decisions) is the caller's; here each state carries the law of it, and
states that meet are merged.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Hashable, Iterator
from typing import Any

from sim.games.faro.rules import FaroRules

OTHER = -1  # a card of no followed rank
Counts = tuple[int, ...]


def draws(counts: Counts, box: int, fraction: Callable[[int, int], Any]
          ) -> Iterator[tuple[int, Any, Counts]]:
    """(category, probability, counts after) of the next card of a box of ``box`` cards."""
    rest = box - sum(counts)
    for i, c in enumerate(counts):
        if c:
            yield i, fraction(c, box), counts[:i] + (c - 1,) + counts[i + 1:]
    if rest:
        yield OTHER, fraction(rest, box), counts


def walk_deal(rules: FaroRules, start: Counts, first: Hashable,
              fraction: Callable[[int, int], Any],
              turn: Callable[[Counts, int, int, bool], Callable[[Any], Hashable]],
              limit: int | None = None) -> dict[Hashable, Any] | None:
    """The law of what a deal carries at its end, from ``first`` with the followed ranks'
    counts ``start``: ``turn(counts, lose, win, void)`` says what a turn that draws the
    categories ``lose`` and ``win`` (the winning card void on old pharo's last turn) does to
    what is carried. Probabilities are ``fraction(c, box)`` (floats or exact fractions);
    None where a turn leaves more than ``limit`` (state, carried) pairs."""
    kind = type(fraction(1, 1))
    n = int(rules.n_cards)
    layer: dict[Counts, dict[Hashable, Any]] = {start: {first: fraction(1, 1)}}
    if rules.soda:
        nxt: dict = defaultdict(lambda: defaultdict(kind))
        for counts, dist in layer.items():
            for _, p, after in draws(counts, n, fraction):
                for carried, q in dist.items():
                    nxt[after][carried] += p * q
        layer, n = nxt, n - 1
    for t in range(rules.n_turns):
        void = rules.last_winner_void and t == rules.n_turns - 1  # old pharo
        nxt = defaultdict(lambda: defaultdict(kind))
        for counts, dist in layer.items():
            for lose, p1, mid in draws(counts, n, fraction):
                for win, p2, after in draws(mid, n - 1, fraction):
                    step = turn(counts, lose, win, void)
                    target = nxt[after]
                    p = p1 * p2
                    for carried, q in dist.items():
                        target[step(carried)] += p * q
        if limit is not None and sum(len(d) for d in nxt.values()) > limit:
            return None
        layer, n = nxt, n - 2
    law: dict[Hashable, Any] = defaultdict(kind)
    for dist in layer.values():
        for carried, q in dist.items():
            law[carried] += q
    return dict(law)
