"""Experiment files (TOML) -> validated specs, with command-line ``key=value`` overrides.

Everything is checked before any work starts: the game, presets and rule values, the
strategies (imported, built with their parameters and played for a deal), the progressions
and the numbers. A problem is an :class:`~sim.core.errors.InputError` naming the file, the key path
and what was expected.

A file looks like::

    name = "faro"                    # optional, default: the file's stem
    game = "faro"
    rounds = 1_000_000               # per variant and strategy
    seed = 2026
    chunk_rounds = 100_000           # fixed: the same seed gives the same report for any jobs
    [rules]                          # shared by every variant
    preset = "faro"
    [variants.stuss]                 # named variants: a preset plus overrides of [rules]
    preset = "stuss"
    [[strategies]]
    use = "flat-rank"                # built-in, "module:attr" or "path/file.py:attr"
    name = "flat king"               # optional label
    params = { ranks = "K" }
    progression = "martingale"       # or { name = "martingale", cap = 64 }
    rounds = 50_000                  # optional: this strategy's own count (a slow one)

An experiment has at most :data:`MAX_ROWS` rows (variants x strategies, after its grids are
expanded) unless it says more are meant (``max_rows = 20_000``, or ``--max-rows`` on the
command line): a grid of ten thousand points by a slip of a digit is refused in one line
before anything is built, not found out from a report that will not finish.
"""

from __future__ import annotations

import copy
import hashlib
import json
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from sim import games
from sim.core.errors import InputError, RuleError, UnknownName, UnknownParameter
from sim.core.progression import ProgressionSpec
from sim.risk.spec import ALTERNATIVES as SESSION_ALTERNATIVES
from sim.risk.spec import check_sessions, parse_session
from strategies import base as strategy_registry
from strategies.betting import progression_spec

TOP_KEYS = {"name", "description", "game", "rounds", "seed", "chunk_rounds", "rules",
            "variants", "strategies", "session",
            # paired comparisons and target precision (sim.engine.compare)
            "baseline", "baseline_variant", "target_ci", "target_diff_ci",
            "max_rows"}
STRATEGY_KEYS = {"use", "name", "params", "progression", "rounds"}
DEFAULT_CHUNK = 100_000
# Tables whose keys include two ways to say one thing: an override of one replaces the others.
ALTERNATIVES = {("session",): SESSION_ALTERNATIVES}
MAX_SEED = 2**63 - 1
MAX_ROWS = 1_000  # rows (variants x strategies) an experiment may have unless it sets max_rows


@dataclass(frozen=True)
class VariantSpec:
    """A named rule variant: a preset plus overrides, and the rules object they make."""

    name: str
    preset: str
    overrides: Mapping[str, Any]
    rules: Any


@dataclass(frozen=True)
class StrategySpec:
    """A strategy as plain data: what workers need to rebuild it anywhere."""

    name: str
    use: str
    params: Mapping[str, Any]
    progression: ProgressionSpec
    base_dir: str
    rounds: int | None = None  # overrides the experiment's rounds for this strategy

    def build(self, game: str) -> Any:
        """The strategy instance (import and construct)."""
        return strategy_registry.resolve(game, self.use, self.params, Path(self.base_dir))


@dataclass(frozen=True)
class Experiment:
    """A validated experiment."""

    name: str
    game: str
    description: str
    rounds: int
    seed: int
    chunk_rounds: int
    variants: tuple[VariantSpec, ...]
    strategies: tuple[StrategySpec, ...]
    source: str
    resolved: Mapping[str, Any] = field(repr=False)
    files: Mapping[str, str] = field(default_factory=dict, repr=False)  # path -> sha256
    session: Any = None  # a sim.risk.SessionSpec: bankroll and session length ([session])
    # The experiment as given (the file's tables after overrides and --rounds), before it was
    # validated: what a further override is applied to (sim.api.load). Empty for one rebuilt
    # from a run's record.
    given: Mapping[str, Any] = field(default_factory=dict, repr=False)

    def identity(self) -> dict[str, Any]:
        """Everything that decides the numbers of a run's chunks, as plain data: the resolved
        experiment (less its name and description, and the [session] table, which decides only
        the risk files, computed afresh by every run, or max_rows, which allows a size and
        decides nothing), the content of every file it reads (user
        strategy files, prize tables, observed coups, charts) and the engine's version and code."""
        return {
            "experiment": json.loads(json.dumps(
                {k: v for k, v in self.resolved.items()
                 if k not in ("name", "description", "session", "max_rows")},
                sort_keys=True, default=str)),
            "files": dict(sorted(self.files.items())),
            "houseedge": engine_identity(),
        }

    def fingerprint(self) -> str:
        """A digest of :meth:`identity`."""
        text = json.dumps(self.identity(), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@lru_cache(maxsize=1)
def engine_identity() -> dict[str, str]:
    """The engine's version and a digest of its own source (sim/ and strategies/), so that a
    checkpoint made by other code is never resumed by this one."""
    try:
        release = version("houseedge")
    except PackageNotFoundError:
        release = "unknown"
    root = Path(__file__).resolve().parents[2]
    sha = hashlib.sha256()
    for package in ("sim", "strategies"):
        for path in sorted((root / package).rglob("*.py")):
            sha.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return {"version": release, "source": sha.hexdigest()}


def _files_read(game: Any, variants: Sequence[VariantSpec], strategies: Sequence[StrategySpec]
                ) -> dict[str, str]:
    """path -> sha256 of every file outside the engine that the experiment's numbers read."""
    paths: set[Path] = set()
    for variant in variants:
        for rule in game.file_rules:
            paths.update(game.data_files(rule, getattr(variant.rules, rule, "")))
    for spec in strategies:
        paths.update(strategy_registry.files_read(game.name, spec.use, spec.params,
                                                   Path(spec.base_dir)))
    return {str(p): _digest(p) for p in sorted(paths) if p.is_file()}


class _Checker:
    """Builds error messages that name the file and the key path."""

    def __init__(self, source: str) -> None:
        self.source = source

    def error(self, key: str, message: str) -> InputError:
        return InputError(f"{self.source}: {key}: {message}")

    def integer(self, data: Mapping[str, Any], key: str, default: int | None, low: int,
                high: int | None = None, path: str | None = None) -> int:
        value = data.get(key, default)
        path = path or key
        if value is None:
            raise self.error(path, "missing (expected an integer)")
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(path, f"expected an integer, got {value!r}")
        if value < low or (high is not None and value > high):
            bound = f"{low}..{high}" if high is not None else f">= {low}"
            raise self.error(path, f"expected an integer {bound}, got {value}")
        return value

    def string(self, data: Mapping[str, Any], key: str, path: str, default: str | None = None
               ) -> str:
        value = data.get(key, default)
        if not isinstance(value, str) or not value:
            raise self.error(path, f"expected a non-empty string, got {value!r}")
        return value

    def table(self, value: Any, path: str) -> Mapping[str, Any]:
        if not isinstance(value, Mapping):
            raise self.error(path, f"expected a table, got {value!r}")
        return value

    def unknown(self, data: Mapping[str, Any], allowed: set[str], path: str) -> None:
        extra = sorted(set(data) - allowed)
        if extra:
            where = f"{path}.{extra[0]}" if path else extra[0]
            raise self.error(where, str(UnknownName("key", extra[0], allowed)))


def parse_override(text: str) -> tuple[list[str], Any]:
    """``"a.b.c=value"`` -> (["a", "b", "c"], value); the value is read as TOML, else a string."""
    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        raise InputError(f"override {text!r}: expected key=value")
    try:
        value = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw
    from sim.engine.sweep import override_value  # "a,b,c": a sweep

    return [part.strip() for part in key.strip().split(".")], override_value(raw, value)


def _check_override_path(data: Mapping[str, Any], path: list[str], text: str) -> list[str]:
    """The override's path with a strategy named by name turned into its index.

    An override sets a value; it never adds a variant, a strategy or a key that an experiment
    file cannot have (a typo would otherwise run as a new, silently added row).
    """
    top = path[0]
    if top not in TOP_KEYS:
        raise InputError(f"override {text!r}: {UnknownName('key', top, TOP_KEYS)}")
    if top in ("variants", "strategies") and len(path) < 3:
        raise InputError(f"override {text!r}: expected {top}.<name>.<key>=value")
    if top == "variants":
        known = data.get("variants") or {}
        if path[1] not in known:
            raise InputError(f"override {text!r}: {UnknownName('variant', path[1], known)}")
    elif top == "strategies":
        entries = data.get("strategies") or []
        names = {str(e.get("name", e.get("use"))): i for i, e in enumerate(entries)
                 if isinstance(e, Mapping)}
        if path[1].isdigit() and int(path[1]) < len(entries):
            index = int(path[1])
        elif path[1] in names:
            index = names[path[1]]
        else:
            known = [*names, *(str(i) for i in range(len(entries)))]
            raise InputError(f"override {text!r}: {UnknownName('strategy', path[1], known)}")
        if path[2] not in STRATEGY_KEYS:
            raise InputError(f"override {text!r}: "
                             f"{UnknownName('strategy key', path[2], STRATEGY_KEYS)}")
        path = [top, str(index), *path[2:]]
    return path


def apply_overrides(data: dict[str, Any], overrides: Sequence[str]) -> dict[str, Any]:
    """A copy of ``data`` with each ``key.path=value`` set (strategies by index or name).

    An override of one of two alternative keys (``session.hours`` for ``session.rounds``,
    :data:`ALTERNATIVES`) replaces the other.

    Raises:
        InputError: an override naming a variant, strategy or key the file does not have (with
            the closest known name), or a path through something that is not a table.
    """
    data = copy.deepcopy(data)
    for text in overrides:
        path, value = parse_override(text)
        path = _check_override_path(data, path, text)
        node: Any = data
        for i, part in enumerate(path[:-1]):
            if isinstance(node, list):
                if not part.isdigit() or int(part) >= len(node):
                    raise InputError(f"override {text!r}: no item {part} in {'.'.join(path[:i])}")
                node = node[int(part)]
            else:
                node = node.setdefault(part, {})
            if not isinstance(node, (dict, list)):
                raise InputError(f"override {text!r}: {'.'.join(path[:i + 1])} is not a table")
        last = path[-1]
        if isinstance(node, list):
            if not last.isdigit() or int(last) >= len(node):
                raise InputError(f"override {text!r}: no item {last}")
            node[int(last)] = value
        else:
            for group in ALTERNATIVES.get(tuple(path[:-1]), ()):
                if last in group:
                    for other in group:
                        if other != last:
                            node.pop(other, None)
            node[last] = value
    return data


def _variant(game: Any, chk: _Checker, name: str, base: Mapping[str, Any],
             own: Mapping[str, Any], path: str, base_dir: Path) -> VariantSpec:
    merged = {**base, **own}
    preset = merged.pop("preset", next(iter(game.presets)))
    if preset not in game.presets:
        raise chk.error(f"{path}.preset", str(UnknownName("preset", preset, game.presets)))
    for key in game.file_rules:
        # A file named in an experiment is found beside the experiment, from any folder.
        if key in merged:
            merged[key] = game.locate(key, merged[key], base_dir)
    try:
        rules = game.make_rules(preset, merged)
    except UnknownName as exc:
        raise chk.error(f"{path}.{exc.name}", str(exc)) from None
    except RuleError as exc:
        raise chk.error(f"{path}.{exc.field}", exc.detail) from None
    except (ValueError, TypeError) as exc:  # a rules type that names no field
        raise chk.error(path, str(exc)) from None
    return VariantSpec(name, preset, dict(merged), rules)


def _strategy(game: Any, chk: _Checker, entry: Any, index: int, base_dir: Path,
              variants: Sequence[VariantSpec]) -> StrategySpec:
    path = f"strategies[{index}]"
    entry = chk.table(entry, path)
    chk.unknown(entry, STRATEGY_KEYS, path)
    use = chk.string(entry, "use", f"{path}.use")
    params = chk.table(entry.get("params", {}), f"{path}.params")
    try:
        progression = progression_spec(entry.get("progression"))
    except UnknownParameter as exc:
        raise chk.error(f"{path}.progression.{exc.name}", str(exc)) from None
    except (LookupError, TypeError, ValueError) as exc:
        raise chk.error(f"{path}.progression", str(exc).strip("'\"")) from None
    name = entry.get("name", use if ":" not in use else use.rpartition(":")[2])
    if not isinstance(name, str) or not name:
        raise chk.error(f"{path}.name", f"expected a non-empty string, got {name!r}")
    rounds = (chk.integer(entry, "rounds", None, 1, path=f"{path}.rounds")
              if "rounds" in entry else None)
    spec = StrategySpec(name, use, dict(params), progression, str(base_dir), rounds)
    try:
        strategy = spec.build(game.name)
    except UnknownParameter as exc:
        raise chk.error(f"{path}.params.{exc.name}", str(exc)) from None
    except LookupError as exc:
        raise chk.error(f"{path}.use", str(exc).strip("'\"")) from None
    except TypeError as exc:
        raise chk.error(f"{path}.params", f"rejected by {use!r}: {exc}") from None
    except RuleError as exc:  # a policy's own field, rejected by its constructor
        raise chk.error(f"{path}.use", f"loading {use!r} raised ValueError: {exc}") from None
    except InputError:
        raise
    except Exception as exc:  # the user's module or constructor failed
        raise chk.error(f"{path}.use", f"loading {use!r} raised {type(exc).__name__}: {exc}"
                        ) from None
    for variant in variants:
        try:
            game.check(variant.rules, strategy, progression)
        except InputError as exc:
            raise chk.error(path, f"{exc} [variant {variant.name!r}]") from None
        except Exception as exc:
            raise chk.error(path, f"playing {name!r} raised {type(exc).__name__}: {exc}"
                            ) from None
    return spec


def from_dict(data: Mapping[str, Any], source: str, base_dir: Path,
              rounds: int | None = None, on_game: Callable[[str], Any] | None = None
              ) -> Experiment:
    """Validate a parsed experiment; ``source`` names it in messages.

    ``rounds`` (the command line's ``--rounds``) sets every row's count, a strategy's own
    ``rounds`` included; without it a strategy's own ``rounds`` wins over the file's.
    ``on_game`` is called with the game's name as soon as it is known, before the rows
    are checked (the command line compiles the game's kernel meanwhile: :mod:`sim.engine.warm`).
    """
    chk = _Checker(source)
    chk.unknown(data, TOP_KEYS, "")
    game_name = chk.string(data, "game", "game")
    try:
        game = games.get(game_name)
    except UnknownName as exc:
        raise chk.error("game", str(exc)) from None
    if on_game is not None:
        on_game(game_name)
    from sim.engine import compare
    from sim.engine import sweep as grid

    if rounds is not None:
        data = {**data, "rounds": rounds,
                "strategies": [{k: v for k, v in e.items() if k != "rounds"}
                               if isinstance(e, Mapping) else e
                               for e in data.get("strategies") or []]}
    given = copy.deepcopy(dict(data))
    data, swept = grid.expand(data, chk.error)  # sweeps -> one row per point (sim.engine.sweep)
    _check_size(data, swept, chk)
    rounds = chk.integer(data, "rounds", None, 1)
    seed = chk.integer(data, "seed", 0, 0, MAX_SEED)
    chunk = chk.integer(data, "chunk_rounds", min(DEFAULT_CHUNK, rounds), 1)
    description = data.get("description", "")
    if not isinstance(description, str):
        raise chk.error("description", f"expected a string, got {description!r}")
    base_rules = dict(chk.table(data.get("rules", {}), "rules"))
    variants_data = chk.table(data.get("variants", {}), "variants")
    if variants_data:
        variants = tuple(
            _variant(game, chk, str(name), base_rules, chk.table(own, f"variants.{name}"),
                     f"variants.{name}", base_dir)
            for name, own in variants_data.items())
    else:
        preset = base_rules.get("preset", next(iter(game.presets)))
        variants = (_variant(game, chk, str(preset), base_rules, {}, "rules", base_dir),)
    entries = data.get("strategies")
    if not isinstance(entries, list) or not entries:
        raise chk.error("strategies", "expected a non-empty array of tables [[strategies]]")
    strategies = tuple(_strategy(game, chk, e, i, base_dir, variants)
                       for i, e in enumerate(entries))
    names = [s.name for s in strategies]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise chk.error("strategies", f"names must be unique; give a name to {dupes[0]!r}")
    session = parse_session(data["session"], source) if "session" in data else None
    if session is not None:
        check_sessions(game, variants, strategies, source)
    name = data.get("name", Path(source).stem)
    if not isinstance(name, str) or not name or "/" in name:
        raise chk.error("name", f"expected a plain name, got {name!r}")
    resolved = {
        "name": name, "description": description, "game": game_name, "rounds": rounds,
        "seed": seed, "chunk_rounds": chunk,
        "variants": {v.name: {"preset": v.preset, **v.overrides} for v in variants},
        "strategies": [{"name": s.name, "use": s.use, "params": dict(s.params),
                        "progression": s.progression.__dict__,
                        **({"rounds": s.rounds} if s.rounds else {})} for s in strategies],
        **({"session": session.__dict__} if session else {}),
        **compare.compare_settings(data, chk.error, [v.name for v in variants], names),
        **({"grid": swept} if swept else {}),
        **({"max_rows": data["max_rows"]} if "max_rows" in data else {}),
    }
    return Experiment(name, game_name, description, rounds, seed, chunk, variants,
                      strategies, source, resolved, _files_read(game, variants, strategies),
                      session, given)


def _check_size(data: Mapping[str, Any], swept: Mapping[str, Any], chk: _Checker) -> None:
    """Refuse more rows than :data:`MAX_ROWS` (or the file's ``max_rows``), before a strategy
    is built: each row is built and played for a deal here, then simulated, reported and
    drawn, so a slip of a digit in a grid would cost hours before anything showed it."""
    limit = chk.integer(data, "max_rows", MAX_ROWS, 1)
    variants = data.get("variants")
    strategies = data.get("strategies")
    n_variants = len(variants) if isinstance(variants, Mapping) and variants else 1
    n_strategies = len(strategies) if isinstance(strategies, list) else 0
    rows = n_variants * n_strategies
    if rows <= limit:
        return
    swept = f"; swept: {', '.join(swept['columns'])}" if swept else ""
    raise chk.error("max_rows", f"{rows:,} rows ({n_variants:,} variant"
                    f"{'s' if n_variants != 1 else ''} x {n_strategies:,} strateg"
                    f"{'ies' if n_strategies != 1 else 'y'}{swept}) is more than the limit "
                    f"of {limit:,}; if that is meant, set max_rows = {rows} at the top of the "
                    f"file or pass --max-rows {rows}")


def _from_working_directory(data: Mapping[str, Any], overrides: Sequence[str]) -> list[str]:
    """The overrides, with a relative file named on the command line made absolute: a path
    typed at a shell is taken from where the shell is (one in the file, from the file)."""
    try:
        game = games.get(str(data.get("game")))
    except UnknownName:
        return list(overrides)  # reported when the file is validated
    fixed = []
    for text in overrides:
        path, parsed = parse_override(text)
        key, _, raw = text.partition("=")
        if path[-1] in game.file_rules and path[0] in ("rules", "variants"):
            # A list (a bonus's games) as read; anything else as the text typed.
            value = parsed if isinstance(parsed, list) else raw.strip().strip("\"'")
            text = f"{key}={json.dumps(game.locate(path[-1], value, Path.cwd()))}"
        fixed.append(text)
    return fixed


def load(path: str | Path, overrides: Sequence[str] = (), rounds: int | None = None,
         on_game: Callable[[str], Any] | None = None) -> Experiment:
    """Read, override and validate an experiment file (``rounds``, ``on_game``: see
    :func:`from_dict`)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")  # a byte-order mark is no statement
    except FileNotFoundError:
        raise InputError(f"{path}: file not found") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a folder, not an experiment file") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text (byte {exc.start}: "
                         f"{exc.object[exc.start:exc.start + 1]!r}); save it as UTF-8") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{path}: not valid TOML: {exc}") from None
    try:
        data = apply_overrides(data, _from_working_directory(data, overrides))
    except InputError as exc:
        raise InputError(f"{path}: {exc}") from None
    return from_dict(data, str(path), path.parent.resolve(), rounds, on_game)
