"""The exact odds charts of a run's variants, each drawn once however many variants share it.

A game names what each of its exact charts is drawn from
(:meth:`sim.games.base.Presentation.exact_chart_keys`); variants whose key is the same
(bridge's deal odds under each scoring) share one figure, drawn for the first and handed to the
others as the same object, or, once the caller has saved it, as a stand-in holding only its
saved bytes (a drawn figure holds its pixels, megabytes each).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator, Sequence
from typing import Any

from sim.core.plotting import mark_shared, saved_stand_in
from sim.games.base import Presentation


def variant_exact_charts(shown: Presentation, variants: Iterable[tuple[str, Any]],
                         strategies: Sequence[Any] | None = None
                         ) -> Iterator[tuple[str, str, Any]]:
    """(variant name, chart name, Figure) for the exact charts of each (name, rules), in
    order: with ``strategies`` (a run's, built), only those that belong to them
    (:meth:`~sim.games.base.Presentation.exact_chart_names`). A chart whose key an
    earlier variant had comes as that variant's Figure, not drawn again."""
    import matplotlib.pyplot as plt

    drawn: dict[tuple[str, Hashable], Any] = {}
    for variant, rules in variants:
        names = None if strategies is None else shown.exact_chart_names(rules, strategies)
        keys = shown.exact_chart_keys(rules)
        if names is not None:
            keys = {name: key for name, key in keys.items() if name in names}
        if keys and all((name, key) in drawn for name, key in keys.items()):
            figures = {name: drawn[(name, key)] for name, key in keys.items()}
        else:
            figures = shown.exact_charts(rules, names)
            for name, figure in figures.items():
                if name not in keys:
                    continue
                earlier = drawn.setdefault((name, keys[name]), figure)
                if earlier is figure:
                    mark_shared(figure)
                else:
                    plt.close(figure)  # drawn but not needed: the earlier one is the same
                    figures[name] = earlier
        for name, figure in figures.items():
            yield variant, name, figure
            if name in keys and drawn.get((name, keys[name])) is figure:
                drawn[(name, keys[name])] = saved_stand_in(figure)
