"""The strategy protocol and the registry of strategies.

A strategy answers ``decide(view, rng) -> action`` on what a player at the table may see (a
frozen view, never the pack or the generator's state). A plain function ``f(view, rng)`` is
accepted too. Strategies come from three sources, merged:

* built-ins, registered with :func:`register` in ``strategies/<game>.py``;
* the entry-point group ``houseedge.strategies`` (entry name ``<game>.<name>``);
* a ``"module:attr"`` or ``"path/to/file.py:attr"`` reference in an experiment file.

Strategies must be picklable; the engine passes references and parameters to its workers and
resolves them there, so a strategy loaded from a file works with any number of jobs.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import importlib.util
import inspect
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from sim.core.errors import UnknownName, UnknownParameter

ENTRY_POINT_GROUP = "houseedge.strategies"


@runtime_checkable
class Strategy(Protocol):
    """What every strategy offers. Games document their view and action types."""

    def decide(self, view: Any, rng: Any) -> Any:
        """The action for this situation; ``rng`` is the engine's numpy Generator."""


@dataclass(frozen=True)
class StrategyInfo:
    """A registered strategy and its metadata (used for listing and filtering)."""

    game: str
    name: str
    factory: Callable[..., Any]
    description: str
    counts_cards: bool = False
    stochastic: bool = False


_REGISTRY: dict[tuple[str, str], StrategyInfo] = {}


def register(
    game: str, name: str, *, counts_cards: bool = False, stochastic: bool = False
) -> Callable[[Any], Any]:
    """Class decorator registering a built-in strategy under ``game`` and ``name``.

    The first line of the class docstring is its one-line description.
    """

    def decorate(factory: Any) -> Any:
        doc = inspect.getdoc(factory) or ""
        _REGISTRY[(game, name)] = StrategyInfo(
            game, name, factory, doc.splitlines()[0] if doc else "", counts_cards, stochastic
        )
        return factory

    return decorate


def configuration(game: str, name: str, adapter: type, description: str, *,
                  counts_cards: bool = False, stochastic: bool = False,
                  class_name: str | None = None, **settings: Any) -> type:
    """Register ``adapter`` (a game's player, from its ``players.py``) given ``settings`` as
    the built-in strategy ``name`` of ``game``, and return the class that is it.

    Built-ins that differ only in what they hand their adapter are data, not a class each
    written out: the class is a subclass of ``adapter`` described by ``description``, whose
    constructor passes ``settings`` to the adapter's and takes the rest of its parameters
    (and only those) from the user. It is called ``class_name``, by default ``name`` in
    CamelCase (``"first-cards"``: ``FirstCards``), and belongs to the module that asks for
    it, as a class written there would; that module binds it to that name
    (``Longest = configuration(...)``), where pickle looks a strategy's class up.
    """
    class_name = class_name or "".join(
        part.capitalize() for part in re.split(r"[^0-9A-Za-z]+", name))
    adapter_init = adapter.__init__

    def __init__(self: Any, **params: Any) -> None:
        adapter_init(self, **settings, **params)

    # What the user may give, by name (as the engine gives a strategy's params).
    (own, *rest) = inspect.signature(adapter_init).parameters.values()
    __init__.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [own] + [p if p.kind is p.VAR_KEYWORD else p.replace(kind=p.KEYWORD_ONLY)
                 for p in rest if p.name not in settings])
    __init__.__qualname__ = f"{class_name}.__init__"
    module = sys._getframe(1).f_globals["__name__"]  # as collections.namedtuple finds it
    cls = type(class_name, (adapter,), {"__doc__": description, "__init__": __init__,
                                        "__module__": module, "__qualname__": class_name,
                                        "name": name})
    return register(game, name, counts_cards=counts_cards, stochastic=stochastic)(cls)


def _load_builtins(game: str) -> None:
    try:
        importlib.import_module(f"strategies.{game}")
    except ModuleNotFoundError as exc:
        if exc.name != f"strategies.{game}":
            raise


@functools.cache
def _installed_entry_points() -> tuple[EntryPoint, ...]:
    # Read once per process: every lookup of a strategy by name asks for them, and reading
    # them scans every installed package's metadata (a millisecond or more a time).
    return tuple(entry_points(group=ENTRY_POINT_GROUP))


def _load_entry_points(game: str) -> None:
    for ep in _installed_entry_points():
        ep_game, _, ep_name = ep.name.partition(".")
        if ep_game == game and (game, ep_name) not in _REGISTRY:
            factory = ep.load()
            doc = inspect.getdoc(factory) or ""
            _REGISTRY[(game, ep_name)] = StrategyInfo(
                game, ep_name, factory, doc.splitlines()[0] if doc else ""
            )


def registered(game: str) -> list[StrategyInfo]:
    """Every strategy known for ``game`` (built-ins and entry points), sorted by name."""
    _load_builtins(game)
    _load_entry_points(game)
    return sorted((i for (g, _), i in _REGISTRY.items() if g == game), key=lambda i: i.name)


def _load_file(path: Path) -> Any:
    # A stable module name per file and content: the same file is one module in every worker,
    # and a file edited between two runs of one process is loaded afresh.
    digest = hashlib.sha1(str(path).encode() + b"\0" + path.read_bytes()).hexdigest()[:12]
    name = f"houseedge_user_{path.stem}_{digest}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def load_reference(ref: str, base_dir: Path | None = None) -> Any:
    """The object named by ``"module:attr"`` or ``"path/to/file.py:attr"``.

    A relative path is taken from ``base_dir`` (the experiment file's folder), then from the
    working directory.

    Raises:
        LookupError: the module, file or attribute does not exist.
        Exception: whatever importing the module raised.
    """
    target, sep, attr = ref.rpartition(":")
    if not sep or not target or not attr:
        raise LookupError(f"expected 'module:attr' or 'file.py:attr', got {ref!r}")
    if target.endswith(".py"):
        path = Path(target)
        candidates = [path] if path.is_absolute() else [(base_dir or Path()) / path, path]
        found = next((p.resolve() for p in candidates if p.is_file()), None)
        if found is None:
            raise LookupError(f"strategy file {target!r} does not exist")
        module = _load_file(found)
    else:
        try:
            module = importlib.import_module(target)
        except ModuleNotFoundError as exc:
            raise LookupError(f"module {target!r} not found") from exc
    try:
        return getattr(module, attr)
    except AttributeError as exc:
        raise LookupError(f"{target!r} has no attribute {attr!r}") from exc


class FunctionStrategy:
    """Wraps a plain ``decide(view, rng)`` function as a strategy."""

    def __init__(self, function: Callable[[Any, Any], Any]) -> None:
        self.function = function
        self.name = getattr(function, "__name__", "function")
        self.__doc__ = function.__doc__

    def decide(self, view: Any, rng: Any) -> Any:
        return self.function(view, rng)


def build(obj: Any, params: Mapping[str, Any], owner: str | None = None) -> Any:
    """A strategy instance from a class (called with ``params``), an instance or a function.

    Raises:
        UnknownParameter: a parameter the class does not take (named with those it takes;
            ``owner`` is how the user named the strategy, by default the class's name).
    """
    if inspect.isclass(obj):
        check_parameters(obj, params, owner or obj.__name__)
        return obj(**params)
    if params:
        raise TypeError("parameters given, but the strategy is an instance or a function")
    if hasattr(obj, "decide"):
        return obj
    if callable(obj):
        return FunctionStrategy(obj)
    raise TypeError(f"{obj!r} is neither a strategy class, an instance nor a function")


def _factory(game: str, ref: str, base_dir: Path | None) -> Any:
    if ":" in ref:
        return load_reference(ref, base_dir)
    known = {i.name: i for i in registered(game)}
    if ref not in known:
        raise UnknownName(f"{game} strategy", ref, known)
    return known[ref].factory


def _file_params(factory: Any, params: Mapping[str, Any], base_dir: Path | None
                 ) -> dict[str, Any]:
    """``params`` with each file a strategy reads (named in its ``file_params``) found beside
    the experiment file, as every path in an experiment file is."""
    fixed = dict(params)
    for key in getattr(factory, "file_params", ()):
        value = fixed.get(key)
        if isinstance(value, str) and value and not Path(value).expanduser().is_absolute():
            fixed[key] = str((base_dir or Path()) / value)
    return fixed


def files_read(game: str, ref: str, params: Mapping[str, Any], base_dir: Path | None
               ) -> list[Path]:
    """The files outside the engine whose content decides what this strategy does: the user's
    strategy file (or module) and any file it is given as a parameter."""
    found: list[Path] = []
    target = ref.rpartition(":")[0]
    if target.endswith(".py"):
        path = Path(target)
        candidates = [path] if path.is_absolute() else [(base_dir or Path()) / path, path]
        found += next(([p.resolve()] for p in candidates if p.is_file()), [])
    elif target:
        spec = importlib.util.find_spec(target)
        origin = Path(spec.origin).resolve() if spec and spec.origin else None
        engine = Path(__file__).resolve().parents[1]
        if origin and origin.is_file() and engine not in origin.parents:
            found.append(origin)
    factory = _factory(game, ref, base_dir)
    for key, value in _file_params(factory, params, base_dir).items():
        if key in getattr(factory, "file_params", ()) and isinstance(value, str) and value:
            found.append(Path(value).expanduser().resolve())
    return found


def resolve(
    game: str, ref: str, params: Mapping[str, Any] | None = None, base_dir: Path | None = None
) -> Any:
    """A strategy instance from a built-in name or a reference, with its parameters.

    Raises:
        LookupError: unknown name, missing module, file or attribute.
        TypeError: parameters the strategy does not take.
        Exception: whatever the strategy's module or constructor raised.
    """
    factory = _factory(game, ref, base_dir)
    return build(factory, _file_params(factory, params or {}, base_dir), ref)


def _signature(factory: Any) -> inspect.Signature | None:
    try:
        return inspect.signature(factory)
    except (TypeError, ValueError):
        return None


def _named(signature: inspect.Signature | None) -> list[inspect.Parameter]:
    """The parameters a user gives by name in ``params``."""
    return [p for p in (signature.parameters.values() if signature else ())
            if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
            and p.name not in ("self", "view", "rng")]


def check_parameters(factory: Any, params: Mapping[str, Any], owner: str) -> None:
    """Refuse a parameter ``factory`` does not take (a strategy's or a progression's class),
    before Python's ``unexpected keyword argument`` would, which names neither what it takes
    nor the closest. A factory that takes ``**kwargs`` passes them on, and checks them there.

    Raises:
        UnknownParameter: naming ``owner``, the parameter and those it takes.
    """
    signature = _signature(factory)
    if signature is None or any(p.kind is p.VAR_KEYWORD for p in signature.parameters.values()):
        return
    names = [p.name for p in _named(signature)]
    for key in params:
        if key not in names:
            raise UnknownParameter(owner, key, names)


def parameters(factory: Any) -> str:
    """A strategy's parameters with their defaults, as one would write them in ``params``."""
    return ", ".join(p.name if p.default is p.empty else f"{p.name}={p.default!r}"
                     for p in _named(_signature(factory)))
