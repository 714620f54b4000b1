"""Grids: an experiment sweeping rule keys and strategy parameters.

Any value of a rule (in ``[rules]`` or a variant's table) or of a strategy's ``params`` (at any
depth: a pontoon punter's banker is itself a table) may be a sweep instead of a value::

    [rules]
    soda = { grid = [true, false] }                       # every variant, both ways
    [[strategies]]
    use = "threshold"
    [strategies.params]
    stick = { grid = [14, 15, 16, 17, 18] }
    banker.use = "banker-stand-on"
    banker.params.total = { grid = { from = 15, to = 18 }, name = "banker_stands" }

``grid`` is a list of values, or ``{ from, to, step }`` (integers, both ends included); an
optional ``name`` labels the swept parameter (default: its key). On the command line
``key=a,b,c`` is the list ``[a, b, c]``. Several sweeps in one table make their cartesian
product: each variant becomes one variant per point of its rule sweeps, and each strategy one
strategy per point of its parameter sweeps.

An expanded row is named by its point: ``"<name> <label>=<value> ..."`` (``"<label>=<value>"``
for the single implicit variant of a file without ``[variants]``). Names decide the random
streams, so a row keeps its numbers when the grid around it grows or shrinks. The report gets
one column per swept parameter, holding each row's value (tidy: ready for ``pivot_table``).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from typing import Any

GRID_KEYS = {"grid", "name"}
Error = Callable[[str, str], Exception]


def is_sweep(value: Any) -> bool:
    """A table holding a ``grid`` (and at most a ``name``)."""
    return isinstance(value, Mapping) and "grid" in value and set(value) <= GRID_KEYS


def _values(spec: Any, path: str, error: Error) -> list[Any]:
    if isinstance(spec, list):
        values = spec
    elif isinstance(spec, Mapping) and set(spec) <= {"from", "to", "step"} and \
            {"from", "to"} <= set(spec):
        low, high, step = spec["from"], spec["to"], spec.get("step", 1)
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in (low, high, step)) \
                or step < 1 or high < low:
            raise error(f"{path}.grid", "expected from <= to and step >= 1, integers, got "
                                        f"{dict(spec)!r}")
        values = list(range(low, high + 1, step))
    else:
        raise error(f"{path}.grid", f"expected a list of values or {{ from, to, step }}, "
                                    f"got {spec!r}")
    if not values:
        raise error(f"{path}.grid", "expected at least one value")
    if len({repr(v) for v in values}) != len(values):
        raise error(f"{path}.grid", f"a value is listed twice in {values!r}")
    return list(values)


def find_sweeps(table: Mapping[str, Any], path: str, error: Error
                ) -> list[tuple[tuple[str, ...], str, list[Any]]]:
    """Every sweep in a table, depth first: (key path within it, label, values)."""
    found = []
    for key, value in table.items():
        where = f"{path}.{key}" if path else str(key)
        if is_sweep(value):
            label = value.get("name", key)
            if not isinstance(label, str) or not label:
                raise error(f"{where}.name", f"expected a non-empty string, got {label!r}")
            found.append(((key,), label, _values(value["grid"], where, error)))
        elif isinstance(value, Mapping):
            found += [((key, *sub), label, values)
                      for sub, label, values in find_sweeps(value, where, error)]
    return found


def _set(table: Mapping[str, Any], keys: tuple[str, ...], value: Any) -> dict[str, Any]:
    out = dict(table)
    out[keys[0]] = value if len(keys) == 1 else _set(table[keys[0]], keys[1:], value)
    return out


def format_value(value: Any) -> str:
    """A value as a row's name shows it (TOML spelling for booleans)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return f"{value:g}"
    return str(value)


def _points(table: Mapping[str, Any], sweeps: list[tuple[tuple[str, ...], str, list[Any]]]
            ) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(the table at each point, {label: value}) over the product of the sweeps."""
    out = []
    for combo in itertools.product(*(values for _, _, values in sweeps)):
        point_table = dict(table)
        point = {}
        for (keys, label, _), value in zip(sweeps, combo):
            point_table = _set(point_table, keys, value)
            point[label] = value
        out.append((point_table, point))
    return out


def _name(base: str | None, point: Mapping[str, Any]) -> str:
    text = " ".join(f"{k}={format_value(v)}" for k, v in point.items())
    return f"{base} {text}" if base else text


def expand(data: Mapping[str, Any], error: Error) -> tuple[dict[str, Any], dict[str, Any]]:
    """The experiment with every sweep expanded into rows, and the grid it swept.

    Args:
        data: a parsed experiment (after overrides).
        error: builds the error for a key path and a message (naming the file).

    Returns:
        (data with plain values only, ``{"columns": [...], "variants": {name: point},
        "strategies": {name: point}}``; empty when nothing is swept).

    Raises:
        The ``error`` built for a malformed sweep, two sweeps with one label, or an expanded
        name that clashes with another row's.
    """
    out = dict(data)
    grid: dict[str, Any] = {"columns": [], "variants": {}, "strategies": {}}
    rules = data.get("rules")
    rule_sweeps = find_sweeps(rules, "rules", error) if isinstance(rules, Mapping) else []
    variants = data.get("variants")
    if rule_sweeps or (isinstance(variants, Mapping) and any(
            isinstance(v, Mapping) and find_sweeps(v, f"variants.{k}", error)
            for k, v in variants.items())):
        plain_rules = dict(rules or {})
        for keys, _, _ in rule_sweeps:
            plain_rules.pop(keys[0], None)
        out["rules"] = plain_rules
        named = isinstance(variants, Mapping) and bool(variants)
        expanded: dict[str, Any] = {}
        for vname, own in (variants.items() if named else [(None, {})]):
            if not isinstance(own, Mapping):
                expanded[vname] = own  # reported when the variants are validated
                continue
            own_sweeps = find_sweeps(own, f"variants.{vname}", error)
            shadowed = {keys[0] for keys, _, _ in own_sweeps} | set(own)
            table = {**{k: v for k, v in (rules or {}).items() if k in dict.fromkeys(
                keys[0] for keys, _, _ in rule_sweeps) and k not in shadowed}, **own}
            sweeps = [s for s in rule_sweeps if s[0][0] not in shadowed] + own_sweeps
            if not sweeps:
                expanded[vname] = own
                continue
            _check_labels(sweeps, f"variants.{vname}" if named else "rules", error)
            for point_table, point in _points(table, sweeps):
                name = _name(vname, point)
                if name in expanded:
                    raise error(f"variants.{vname}", f"two rows are named {name!r}")
                expanded[name] = point_table
                grid["variants"][name] = point
                _add_columns(grid, point)
        out["variants"] = expanded
    strategies = data.get("strategies")
    if isinstance(strategies, list):
        entries = []
        for i, entry in enumerate(strategies):
            params = entry.get("params") if isinstance(entry, Mapping) else None
            sweeps = find_sweeps(params, f"strategies[{i}].params", error) \
                if isinstance(params, Mapping) else []
            if not sweeps:
                entries.append(entry)
                continue
            _check_labels(sweeps, f"strategies[{i}].params", error)
            base = entry.get("name", entry.get("use"))
            for point_table, point in _points(params, sweeps):
                name = _name(str(base), point)
                entries.append({**entry, "name": name, "params": point_table})
                grid["strategies"][name] = point
                _add_columns(grid, point)
        out["strategies"] = entries
    return out, (grid if grid["columns"] else {})


def _check_labels(sweeps: list[tuple[tuple[str, ...], str, list[Any]]], path: str,
                  error: Error) -> None:
    labels = [label for _, label, _ in sweeps]
    for label in labels:
        if labels.count(label) > 1:
            raise error(path, f"two sweeps are labelled {label!r}; give one a name "
                              "(e.g. { grid = [...], name = \"banker_stands\" })")


def _add_columns(grid: dict[str, Any], point: Mapping[str, Any]) -> None:
    for label in point:
        if label not in grid["columns"]:
            grid["columns"].append(label)


def override_value(raw: str, value: Any) -> Any:
    """An override's value: ``a,b,c`` (not a TOML value by itself) is the sweep
    ``{ grid = [a, b, c] }``, each item read as TOML, else as a string."""
    if not isinstance(value, str) or "," not in raw or value != raw:
        return value
    import tomllib

    items = []
    for part in raw.split(","):
        part = part.strip()
        try:
            items.append(tomllib.loads(f"v = {part}")["v"])
        except tomllib.TOMLDecodeError:
            items.append(part)
    return {"grid": items}
