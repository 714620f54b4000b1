"""The page's state: its controls, generated from the engine, and the experiment they make.

The state is the page's URL query, a flat set of ``key=value`` strings: ``game``, ``preset``,
``r.<rule>`` (a rule override), ``strategy`` and ``p.<parameter>``, ``banker`` and
``b.<parameter>`` (a game whose punters take a banker), ``seed``, ``rounds``, ``chunk_rounds``,
``target_ci``, ``s.<session key>`` (the risk view), ``sweep`` and ``sweep_values`` (the grid
view), ``view``, and ``file``/``variant``/``row`` (where an experiment file was opened). Each
value is read as the command line reads an override (TOML, else a string), and the
experiment they make is validated by :func:`sim.engine.experiment.from_dict`: a bad value is the
command line's own message, which :func:`control_of` places beside the control it names.

The page takes no file path and no code: a strategy is a built-in, or a ``file.py:attr`` of a
file in the server's experiments folder; any other value that names a file must name one in
that folder (:func:`check_local`).
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sim import games
from sim.core.errors import InputError, RuleError
from sim.engine import experiment as experiment_module
from sim.outputs.html import field_meanings
from sim.web.bounds import (
    DEFAULT_CHUNK,
    DEFAULT_ROUNDS,
    DEFAULT_SEED,
    DEFAULT_TARGET,
    MAX_CHUNKS,
    MAX_GRID_POINTS,
    PAGE_KEYS,
    SESSION_DEFAULTS,
    SOURCE,
    VIEWS,
    WHAT_IF,
    StateError,
    check_size,
)
from sim.web.bounds import MAX_ROUNDS as MAX_ROUNDS
from sim.web.bounds import MAX_VALUE_CHARS as MAX_VALUE_CHARS
from strategies import base as strategy_registry

# A file a value may name is one of these kinds (a strategy file, a data table, a chart).
FILE_SUFFIXES = (".py", ".csv", ".toml", ".json")

# ------------------------------------------------------------------------- reading values
def value_of(raw: str) -> Any:
    """A setting's value as the command line reads an override's: TOML, else a string
    (``a,b,c`` is a sweep)."""
    return experiment_module.parse_override(f"v={raw}")[1]


def literal(value: Any) -> str:
    """A value as the page writes it back into its state (TOML)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, float) and value.is_integer():
        return f"{value:.1f}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{_key(str(k))} = {literal(v)}" for k, v in value.items()) + " }"
    return repr(value) if value is not None else '""'


def _prefixed(query: Mapping[str, str], prefix: str) -> dict[str, Any]:
    return {k[len(prefix):]: value_of(v) for k, v in query.items()
            if k.startswith(prefix) and v != ""}


# --------------------------------------------------------------------- files and code
def check_local(value: Any, folder: Path, key: str) -> None:
    """Refuse a value that would make the server read a file outside its experiments folder
    or import code: a strategy ``use`` is a built-in name or ``file.py:attr`` of a file in
    ``folder``; a string naming a file names one in ``folder`` (by its bare name)."""
    if isinstance(value, Mapping):
        for k, v in value.items():
            if k == "use" and isinstance(v, str):
                check_use(v, folder, f"{key}.use")
            else:
                check_local(v, folder, f"{key}.{k}")
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            check_local(v, folder, f"{key}[{i}]")
    elif isinstance(value, str) and _names_a_file(value):
        _check_file(value.split("#")[0], folder, key)


def _names_a_file(text: str) -> bool:
    return ("/" in text or "\\" in text or text.startswith("~")
            or text.split("#")[0].lower().endswith(FILE_SUFFIXES))


def _check_file(name: str, folder: Path, key: str) -> None:
    path = Path(name)
    inside = (not path.is_absolute() and ".." not in path.parts and not name.startswith("~")
              and (folder / path).resolve().is_relative_to(folder.resolve()))
    if not inside or not (folder / path).is_file():
        raise StateError(key, f"{key}: the page reads files of the experiments folder only, "
                         f"by their names there ({name!r} is not one)")


def check_use(use: str, folder: Path, key: str) -> None:
    """A strategy the page may run: a name (the registry checks it) or ``file.py:attr``."""
    if ":" not in use:
        return
    target, _, attr = use.rpartition(":")
    if not target.endswith(".py") or not attr.isidentifier():
        raise StateError(key, f"{key}: the page runs built-in strategies and strategy files "
                         f"of the experiments folder only, got {use!r}")
    _check_file(target, folder, key)


# ------------------------------------------------------------------------ the experiment
def game_of(query: Mapping[str, str]) -> Any:
    name = query.get("game") or "faro"
    try:
        return games.get(name)
    except InputError as exc:
        raise StateError("game", f"game: {exc}") from None


@functools.lru_cache(maxsize=64)
def _start_strategy(name: str, folder: Path, stamp: float) -> tuple[tuple[str, str], ...]:
    start: dict[str, str] = {}
    if stamp:
        try:
            query = open_file(folder, f"{name}.toml")["query"]
        except Exception:  # noqa: BLE001 - a file that does not load: the fallback below
            query = {}
        if query.get("game") == name and ":" not in query.get("strategy", ":"):
            start = {k: v for k, v in query.items()
                     if k in ("strategy", "banker") or k.startswith(("p.", "b."))}
    if not start:
        infos = strategy_registry.registered(name)
        plain = [i for i in infos if not i.name.startswith("banker-") and not i.counts_cards]
        start = {"strategy": (plain or infos)[0].name}
    return tuple(start.items())


def start_strategy(name: str, folder: Path) -> dict[str, str]:
    """The strategy a state without one plays: the first of the game's own experiment file
    in the folder where there is one (``faro.toml``: flat king), else the first punter's
    that remembers no cards."""
    path = folder / f"{name}.toml"
    return dict(_start_strategy(name, folder, path.stat().st_mtime if path.is_file() else 0.0))


def experiment_data(query: Mapping[str, str], folder: Path) -> dict[str, Any]:
    """The experiment (as an experiment file's tables) that the state describes.

    Two variants where rules are overridden: the preset itself and ``what-if`` (the preset
    with the overrides), compared paired (``baseline_variant``); one where none is. In the
    grid view the swept rule or parameter is a sweep of the what-if variant. In the risk view
    the session is its ``[session]`` table.
    """
    check_size(query)
    game = game_of(query)
    preset = query.get("preset") or next(iter(game.presets))
    rules = _prefixed(query, "r.")
    if not query.get("strategy"):
        query = {**query, **start_strategy(game.name, folder)}
    params = _prefixed(query, "p.")
    if query.get("banker"):
        params["banker"] = {"use": query["banker"], "params": _prefixed(query, "b.")}
    use = query["strategy"]
    check_use(use, folder, "strategy")
    check_local(rules, folder, "rules")
    check_local(params, folder, "params")
    view = query.get("view") or "edge"
    if view not in VIEWS:
        raise StateError("view", f"view: expected one of {', '.join(VIEWS)}, got {view!r}")
    data: dict[str, Any] = {"name": "what-if", "game": game.name}
    for key, default in (("seed", DEFAULT_SEED), ("rounds", DEFAULT_ROUNDS),
                         ("chunk_rounds", DEFAULT_CHUNK)):
        data[key] = value_of(query[key]) if query.get(key) else default
    target = query.get("target_ci", str(DEFAULT_TARGET))
    if target not in ("", "0"):
        data["target_ci"] = value_of(target)
    strategy = {"name": use.rpartition(":")[2], "use": use, "params": params}
    if view == "grid":
        key, values = sweep_of(query, game)
        if key.startswith("r."):
            rules[key[2:]] = {"grid": values}
        else:
            params[key[2:]] = {"grid": values}
        data["variants"] = {WHAT_IF: {"preset": preset, **rules}}
    elif rules:
        data["variants"] = {preset: {"preset": preset}, WHAT_IF: {"preset": preset, **rules}}
        data["baseline_variant"] = preset
    else:
        data["variants"] = {preset: {"preset": preset}}
    data["strategies"] = [strategy]
    if view == "risk":
        session = {k: value_of(v) for k, v in {**SESSION_DEFAULTS, **{
            k[2:]: v for k, v in query.items() if k.startswith("s.")}}.items() if v != ""}
        data["session"] = session
    _check_bounds(data)
    return data


def sweep_of(query: Mapping[str, str], game: Any) -> tuple[str, list[Any]]:
    """The grid view's swept key (``r.<rule>`` or ``p.<parameter>``) and its values."""
    key = query.get("sweep") or ""
    if not key.startswith(("r.", "p.")):
        raise StateError("sweep", "sweep: choose a rule or a strategy parameter to sweep")
    if key.startswith("r.") and key[2:] not in {f.name for f in
                                                 dataclasses.fields(game.rules_type)}:
        raise StateError("sweep", f"sweep: {InputError(f'unknown rule {key[2:]!r}')}")
    raw = query.get("sweep_values") or ""
    value = value_of(raw)
    values = value["grid"] if isinstance(value, Mapping) else (
        value if isinstance(value, list) else [value])
    if not raw or not values:
        raise StateError("sweep_values", "sweep_values: expected values such as 14,15,16")
    if len(values) > MAX_GRID_POINTS:
        raise StateError("sweep_values", f"sweep_values: at most {MAX_GRID_POINTS} points, "
                         f"got {len(values)}")
    return key, list(values)


def _check_bounds(data: Mapping[str, Any]) -> None:
    """The page's own bounds on a simulation's work (the experiment's checks come after)."""
    rounds, chunk = data["rounds"], data["chunk_rounds"]
    if isinstance(rounds, int) and not isinstance(rounds, bool) and rounds > MAX_ROUNDS:
        raise StateError("rounds", f"rounds: at most {MAX_ROUNDS:,} on this page, got "
                         f"{rounds:,} (houseedge run takes more)")
    if (isinstance(rounds, int) and isinstance(chunk, int) and chunk > 0
            and not isinstance(chunk, bool) and -(-rounds // chunk) > MAX_CHUNKS):
        raise StateError("chunk_rounds", f"chunk_rounds: at most {MAX_CHUNKS:,} chunks a row "
                         f"on this page; give at least {-(-rounds // MAX_CHUNKS):,}")


def load(query: Mapping[str, str], folder: Path) -> Any:
    """The validated experiment of a state (:class:`sim.engine.experiment.Experiment`).

    Raises:
        StateError: a bad setting, naming its control, in the command line's words.
    """
    data = experiment_data(query, folder)
    try:
        return experiment_module.from_dict(data, SOURCE, folder)
    except StateError:
        raise
    except InputError as exc:
        raise StateError(control_of(str(exc), query), message_of(str(exc))) from None


def message_of(text: str) -> str:
    """An experiment's message without the name of the page's experiment."""
    return text.removeprefix(f"{SOURCE}: ")


def control_of(text: str, query: Mapping[str, str]) -> str:
    """The control a message of :func:`load` is about ("" for the page as a whole)."""
    path = message_of(text).split(":", 1)[0].strip()
    parts = re.split(r"[.\[\]]+", path)
    parts = [p for p in parts if p]
    if not parts:
        return ""
    head = parts[0]
    if head in ("variants", "rules"):
        rest = parts[2:] if head == "variants" else parts[1:]
        if rest and rest[0] == "preset":
            return "preset"
        if rest and f"r.{rest[0]}" in query:
            return f"r.{rest[0]}"
        if rest and query.get("sweep") == f"r.{rest[0]}":
            return "sweep_values"
        return "rules" if not rest else f"r.{rest[0]}"
    if head == "strategies":
        rest = parts[2:]
        if rest[:1] == ["params"] and len(rest) > 1:
            if rest[1] == "banker":
                return "banker"
            if query.get("sweep") == f"p.{rest[1]}":
                return "sweep_values"
            return f"p.{rest[1]}"
        return "strategy"
    if head == "session":
        return f"s.{parts[1]}" if len(parts) > 1 else "session"
    if head == "max_rows":
        return "sweep_values"
    return head if head in PAGE_KEYS else ""


# ------------------------------------------------------------------------------ controls
def _probe(rules: Any, name: str, value: Any) -> str | None:
    """What a rule allows, in its own words: the message of a value it must refuse."""
    try:
        dataclasses.replace(rules, **{name: value})
    except RuleError as exc:
        return exc.allowed if exc.field == name else None
    except Exception:  # noqa: BLE001 - a rule that checks otherwise: no words to show
        return None
    return None


_NUMBER = r"-?\d[\d,_]*(?:\.\d+)?"


def _number(text: str) -> float:
    value = float(text.replace(",", "").replace("_", ""))
    return int(value) if value.is_integer() else value


def control(rules_type: type, preset: Any, field: dataclasses.Field, meaning: str
            ) -> dict[str, Any]:
    """One rule's control: its kind, range, step and choices (read from what the rule
    refuses), its preset value and the meaning the rules dataclass gives it."""
    value = getattr(preset, field.name)
    kind = ("bool" if isinstance(value, bool) else "int" if isinstance(value, int)
            else "float" if isinstance(value, float) else "str" if isinstance(value, str)
            else "value")
    spec: dict[str, Any] = {"name": field.name, "kind": kind, "help": meaning,
                            "type": str(field.type)}
    allowed = None
    if kind in ("int", "float"):
        allowed = _probe(preset, field.name, -10**9 - 0.25 if kind == "float" else -10**9)
    elif kind == "str":
        allowed = _probe(preset, field.name, "\x01")
    elif kind == "value":
        allowed = _probe(preset, field.name, ("\x01",))
    spec["allowed"] = allowed or ""
    text = allowed or ""
    if kind == "str":
        choices = re.findall(r"'([^']*)'", text)
        if choices and re.fullmatch(r"('[^']*'(, | or )?)+(\s*\(.*\))?", text.strip()):
            spec["kind"] = "choice"
            spec["choices"] = choices
    elif kind in ("int", "float"):
        head = text.split("(")[0].strip()
        if re.fullmatch(rf"{_NUMBER}((, | or ){_NUMBER})+", head):
            spec["kind"] = "choice"
            spec["choices"] = [_number(x) for x in re.findall(_NUMBER, head)]
        span = re.search(rf"({_NUMBER})\.\.({_NUMBER})", text)
        if span:
            spec["min"], spec["max"] = _number(span.group(1)), _number(span.group(2))
        elif re.search(r">= 0|non-negative|whole number|at least", text):
            spec["min"] = 0
        elif "positive" in text:
            spec["min"] = 0 if kind == "float" else 1
        step = re.search(rf"multiple of ({_NUMBER})", text)
        spec["step"] = _number(step.group(1)) if step else (1 if kind == "int" else "any")
    return spec


def _kind_of_default(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "str"
    return "value"


def strategy_controls(factory: Any) -> list[dict[str, Any]]:
    """A strategy's parameters as controls: name, kind and default (from its signature)."""
    params = []
    for p in strategy_registry._named(strategy_registry._signature(factory)):  # noqa: SLF001
        default = None if p.default is inspect.Parameter.empty else p.default
        params.append({"name": p.name, "kind": _kind_of_default(default),
                       "default": literal(default) if default is not None else ""})
    return params


def game_controls(name: str) -> dict[str, Any]:
    """Everything the page needs to draw a game's controls."""
    game = games.get(name)
    preset_name = next(iter(game.presets))
    preset = game.presets[preset_name]
    meanings = field_meanings(game.rules_type)
    rules = [control(game.rules_type, preset, f,
                     " ".join(meanings.get(f.name, "").replace("``", "").split()))
             for f in dataclasses.fields(game.rules_type)]
    presets = {p: {f.name: _plain(getattr(r, f.name)) for f in dataclasses.fields(r)}
               for p, r in game.presets.items()}
    infos = strategy_registry.registered(name)
    bankers = [i for i in infos if i.name.startswith("banker-")]
    strategies = []
    for info in infos:
        params = strategy_controls(info.factory)
        takes_banker = any(p["name"] == "banker" for p in params) and bool(bankers)
        strategies.append({
            "name": info.name, "description": info.description,
            "params": [p for p in params if p["name"] not in ("banker", "player")],
            "banker": takes_banker, "counts_cards": info.counts_cards,
            "banker_role": info.name.startswith("banker-")})
    return {
        "name": name, "description": game.description, "round_name": game.round_name,
        "headline_basis": bases(game)["headline"], "other_basis": bases(game)["other"],
        "percent": game.measure.percent,
        "rules_doc": game.rules_doc, "rules": rules, "presets": presets,
        "strategies": strategies,
        "bankers": [{"name": b.name, "description": b.description,
                     "params": [p for p in strategy_controls(b.factory)
                                if p["name"] != "player"]} for b in bankers],
    }


def bases(game: Any) -> dict[str, str]:
    """The game's headline measure and the other basis, as the report names them (a points
    game has no other)."""
    from sim.core.estimate import BASIS_LABELS

    measure = game.measure
    if not measure.percent:
        return {"headline": measure.label, "other": ""}
    other = "wagered" if measure.basis == "initial" else "initial"
    return {"headline": measure.label, "other": BASIS_LABELS[other]}


def _key(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else literal(name)


def toml_text(data: Mapping[str, Any], query: Mapping[str, str]) -> str:
    """An experiment (as :func:`experiment_data` makes it) as an experiment file."""
    view = query.get("view") or "edge"
    lines = ["# The what-if page's view as an experiment file: `houseedge run` reproduces its",
             "# numbers (the same seed, rounds and chunks), `houseedge exact` its exact values.",
             f"#   houseedge run {data['name']}.toml",
             f"# Made by `houseedge serve` ({view} view)."]
    tables = ("variants", "strategies", "session")
    for key, value in data.items():
        if key not in tables:
            lines.append(f"{_key(key)} = {literal(value)}")
    for name, variant in data.get("variants", {}).items():
        lines += ["", f"[variants.{_key(name)}]"]
        lines += [f"{_key(k)} = {literal(v)}" for k, v in variant.items()]
    if "session" in data:
        lines += ["", "[session]"]
        lines += [f"{_key(k)} = {literal(v)}" for k, v in data["session"].items()]
    for strategy in data.get("strategies", []):
        lines += ["", "[[strategies]]"]
        lines += [f"{_key(k)} = {literal(v)}" for k, v in strategy.items() if v != {}]
    return "\n".join(lines) + "\n"


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def open_file(folder: Path, name: str, variant: str | None = None, row: str | None = None
              ) -> dict[str, Any]:
    """The state of one variant and one strategy of an experiment file of the folder (the
    first of each unless named), with the file's variants and strategies to choose from.

    Raises:
        StateError: a name that is not an experiment file of the folder, or a file the
            command line would refuse (its message).
    """
    _check_file(name, folder, "file")
    if not name.endswith(".toml"):
        raise StateError("file", f"file: expected an experiment file (.toml), got {name!r}")
    try:
        exp = experiment_module.load(folder / name)
    except InputError as exc:
        raise StateError("file", str(exc).replace(str(folder) + "/", "")) from None
    variants = {v.name: v for v in exp.variants}
    rows = {s.name: s for s in exp.strategies}
    chosen = variants.get(variant or "", exp.variants[0])
    spec = rows.get(row or "", exp.strategies[0])
    game = games.get(exp.game)
    query: dict[str, str] = {"game": exp.game, "preset": chosen.preset, "file": name,
                             "variant": chosen.name, "row": spec.name,
                             "seed": str(exp.seed), "rounds": str(exp.rounds),
                             "chunk_rounds": str(exp.chunk_rounds)}
    target = exp.resolved.get("target_ci")
    query["target_ci"] = str(target) if target else "0"
    base = game.presets[chosen.preset]
    for f in dataclasses.fields(chosen.rules):
        value = getattr(chosen.rules, f.name)
        if value != getattr(base, f.name):
            if f.name in game.file_rules:
                value = chosen.overrides.get(f.name, value)
                if isinstance(value, str) and Path(value).is_absolute():
                    value = str(Path(value).resolve().relative_to(folder.resolve()))
            query[f"r.{f.name}"] = literal(_plain(value))
    query["strategy"] = spec.use
    for key, value in spec.params.items():
        if key == "banker" and isinstance(value, Mapping) and "use" in value:
            query["banker"] = str(value["use"])
            for k, v in (value.get("params") or {}).items():
                query[f"b.{k}"] = literal(v)
        elif key == "banker" and isinstance(value, str):
            query["banker"] = value if value.startswith("banker-") else f"banker-{value}"
        else:
            query[f"p.{key}"] = literal(value)
    if exp.session is not None:
        s = exp.session
        query.update({"s.bankroll": f"{s.bankroll:g}", "s.rounds": str(s.rounds)})
        if s.stop_win is not None:
            query["s.stop_win"] = f"{s.stop_win:g}"
        if s.stop_loss is not None:
            query["s.stop_loss"] = f"{s.stop_loss:g}"
    return {"query": query, "variants": list(variants), "strategies": list(rows)}
