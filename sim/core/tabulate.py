"""A user's plain-Python strategy built into a kernel table.

A strategy written as a plain class with ``decide(view, rng)`` plays on the reference path.
Where everything a game's table can tell apart is a small finite space of views, the engine
asks the strategy once for every view in that space and packs the answers into the game's
table, which the compiled kernel and the exact code read. That is only right when the answers
are a function of the view alone, so each view is asked twice, with an ``rng`` that records any
use and a view that records every field read:

- a strategy that touches its ``rng`` is stochastic: it stays on the reference path;
- one that reads a field the table cannot hold (the cards seen, the seat, a faro field it did
  not declare) would play differently from its table: it stays on the reference path;
- one that raises on a view, or answers the same view two ways, stays there too.

Each refusal carries a reason in words, shown in the report. This module is generic: each game
has a module (``sim/games/<game>/tabulate.py``) that enumerates its views and packs the answers
into its own table type. Tables are cached per (rules, strategy) so every chunk of a run does
not build them again.
"""

from __future__ import annotations

import pickle
from collections import OrderedDict
from collections.abc import Callable, Collection, Hashable, Iterable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

TableT = TypeVar("TableT")


class NotTabulable(Exception):
    """The strategy cannot be a table; ``reason`` says why in words a reader understands."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


# Raised through the strategy's own code, so they derive from BaseException: a strategy's
# ``except Exception`` must not swallow them and answer as if nothing had happened.
class _UsedRng(BaseException):
    pass


class _ReadBeyond(BaseException):
    def __init__(self, field: str) -> None:
        super().__init__(field)
        self.field = field


class RecordingRng:
    """An ``rng`` that stops the strategy at the first use of it (a draw, an attribute)."""

    def __getattr__(self, name: str) -> Any:
        raise _UsedRng(name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise _UsedRng("__call__")


class _RecordingSequence:
    """A tuple field of a view whose items are read one by one (faro's ``remaining``)."""

    def __init__(self, name: str, values: tuple, allowed: Collection[int]) -> None:
        self._name, self._values, self._allowed = name, values, allowed

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, int) and not isinstance(index, bool):
            position = index % len(self._values) if -len(self._values) <= index < 0 else index
            if position in self._allowed:
                return self._values[position]
            raise _ReadBeyond(f"{self._name}[{index}]")
        raise _ReadBeyond(f"{self._name}[{index!r}]")

    def __len__(self) -> int:
        return len(self._values)

    def __iter__(self) -> Any:  # reading every item: beyond any partial declaration
        raise _ReadBeyond(f"{self._name} (all of it)")


class RecordingView:
    """A view that passes on the fields a table holds and stops the strategy at any other.

    Args:
        view: the real view (its properties and methods are computed on it, unrecorded, so a
            derived field such as pontoon's ``visible_sum`` is read as one field).
        allowed: the field names the table holds.
        items: fields read item by item: name -> the item indices the table holds.
        overrides: fields answered by the enumeration rather than the view (e.g. pontoon's
            banker ``signal``): name -> value.
    """

    def __init__(self, view: Any, allowed: Collection[str],
                 items: dict[str, Collection[int]] | None = None,
                 overrides: dict[str, Any] | None = None) -> None:
        object.__setattr__(self, "_view", view)
        object.__setattr__(self, "_allowed", allowed)
        object.__setattr__(self, "_items", items or {})
        object.__setattr__(self, "_overrides", overrides or {})
        object.__setattr__(self, "reads", set())

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        if name in self._overrides:
            self.reads.add(name)
            return self._overrides[name]
        if not hasattr(self._view, name):  # asking what kind of view this is is no read
            raise AttributeError(name)
        self.reads.add(name)
        if name in self._items:
            return _RecordingSequence(name, getattr(self._view, name), self._items[name])
        if name not in self._allowed:
            raise _ReadBeyond(name)
        return getattr(self._view, name)

    @property  # type: ignore[misc]
    def __class__(self) -> type:  # isinstance(view, PunterView) sees the real view's type
        return type(self._view)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("a view is read-only")

    def __repr__(self) -> str:
        return f"RecordingView({self._view!r})"


def strategy_name(strategy: Any) -> str:
    """How a strategy is named in a reason."""
    return getattr(strategy, "name", None) or getattr(strategy, "__name__", None) or type(
        strategy).__name__


def ask(strategy: Any, method: str, view: Any, allowed: Collection[str], *,
        items: dict[str, Collection[int]] | None = None,
        overrides: dict[str, Any] | None = None,
        normalise: Callable[[Any], Hashable] = lambda answer: answer,
        describe: Callable[[Any], str] = repr) -> Hashable:
    """The strategy's answer on one view, asked twice, as a comparable value.

    Args:
        strategy: the strategy (an object with ``method``, or a plain function for decide).
        method: ``"decide"``, ``"stake"``, ...
        view: the real view; the strategy sees it through a :class:`RecordingView`.
        allowed, items, overrides: what the view lets through (see :class:`RecordingView`).
        normalise: the answer as a hashable value two answers are compared by.
        describe: the view in words, for a reason.

    Raises:
        NotTabulable: the strategy uses its rng, reads beyond ``allowed``, raises, or answers
            the same view two ways.
    """
    call = getattr(strategy, method, None)
    if call is None and method == "decide" and callable(strategy):
        call = strategy
    if call is None:
        raise NotTabulable(f"it has no {method} method")
    answers = []
    for _ in range(2):
        proxy = RecordingView(view, allowed, items, overrides)
        try:
            answers.append(normalise(call(proxy, RecordingRng())))
        except _UsedRng:
            raise NotTabulable("it uses its rng (a stochastic strategy)") from None
        except _ReadBeyond as beyond:
            raise NotTabulable(f"it reads view field {beyond.field}, which a table cannot "
                               "hold") from None
        except NotTabulable:
            raise
        except Exception as exc:  # the reference path reports the strategy's own error
            raise NotTabulable(f"it raises {type(exc).__name__} on {describe(view)}") from None
    if answers[0] != answers[1]:
        raise NotTabulable(f"it answers {describe(view)} two ways ({answers[0]!r}, then "
                           f"{answers[1]!r})")
    return answers[0]


@dataclass(frozen=True)
class Tabulation(Generic[TableT]):
    """What came of tabulating a strategy: the table, or the reason there is none."""

    table: TableT | None
    reason: str = ""

    @property
    def ok(self) -> bool:
        return self.table is not None


def tabulation(build: Callable[[], TableT]) -> Tabulation[TableT]:
    """Run ``build``; a :class:`NotTabulable` becomes a refusal with its reason."""
    try:
        return Tabulation(build())
    except NotTabulable as refused:
        return Tabulation(None, refused.reason)


_CACHE: OrderedDict[Hashable, tuple[Any, Tabulation]] = OrderedDict()
_CACHE_SIZE = 64


def _key(rules: Hashable, strategy: Any) -> Hashable:
    # A strategy's pickle names it by content: the copies a run's workers unpickle for each
    # chunk share one entry. One that cannot be pickled is keyed by its identity (the entry
    # keeps it alive so the identity is not reused).
    try:
        return rules, type(strategy), pickle.dumps(strategy)
    except Exception:
        return rules, "id", id(strategy)


def cached(rules: Hashable, strategy: Any,
           build: Callable[[], Tabulation[TableT]]) -> Tabulation[TableT]:
    """The tabulation of ``strategy`` under ``rules``, built once per process."""
    key = _key(rules, strategy)
    hit = _CACHE.get(key)
    if hit is not None:
        _CACHE.move_to_end(key)
        return hit[1]
    result = build()
    _CACHE[key] = (strategy, result)
    while len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return result


def known(rules: Hashable, strategy: Any) -> Tabulation | None:
    """The cached tabulation of ``strategy`` under ``rules`` if one was tried, else None."""
    hit = _CACHE.get(_key(rules, strategy))
    return None if hit is None else hit[1]


def path_columns(path: str, rules: Hashable, strategy: Any) -> tuple[str, str]:
    """The report's ``path`` and ``path_note`` for a row played on ``path``: a table built
    from a plain-Python strategy says ``kernel (tabulated)``; a strategy left on the reference
    path after a try says why."""
    tried = known(rules, strategy)
    if tried is None:
        return path, ""
    if tried.ok:
        # The game's template may name the path already (``kernel (tabulated)``).
        tabulated = path == "reference" or path.endswith("(tabulated)")
        return (path if tabulated else f"{path} (tabulated)"), ""
    return path, f"not tabulated: {tried.reason}"


def first_refusal(results: Iterable[Tabulation]) -> str:
    """The first reason among refusals ("" when none refused)."""
    return next((r.reason for r in results if not r.ok), "")
