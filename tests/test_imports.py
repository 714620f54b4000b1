"""The house's import structure: the folders are the layers, nothing flows up, nothing cycles.

Every import of every module under ``sim/`` and ``strategies/`` is read with ``ast``, those
inside functions included (a lazy import is still a dependency), and so is every string that
names one of the house's modules (``importlib.import_module`` and registries such as
:mod:`sim.games`). Importing ``a.b.c`` runs ``a`` and ``a.b`` too, so a module also depends on
each package above what it imports (its own ancestors aside: Python runs those first).

The layers are the folders of DESIGN.md, from the bottom: ``sim.core`` (leaves anyone may
import); ``sim.risk`` (the mathematics of ruin); ``sim.games`` (each game an island: it imports
the core, the contract, the registry and its own files, never another game); ``strategies``;
``sim.engine`` (experiments, the runner, checkpoints, workers); ``sim.outputs`` (report, page,
charts, exact tables, bench, studies); ``sim.web`` (the what-if page); and the interface
(``sim.api``, ``sim.cli``). A module may import its own layer or one below it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("sim", "strategies")

# Bottom to top; a module's layer is that of the longest prefix listed.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("root", ("sim",)),
    ("core", ("sim.core",)),
    ("risk", ("sim.risk",)),
    ("games", ("sim.games",)),
    ("strategies", ("strategies",)),
    ("engine", ("sim.engine",)),
    ("outputs", ("sim.outputs",)),
    ("web", ("sim.web",)),
    ("interface", ("sim.api", "sim.cli", "sim.__main__")),
]
RANK = {name: i for i, (name, _) in enumerate(LAYERS)}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def all_modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            found[module_name(path)] = path
    return found


MODULES = all_modules()


def layer_of(module: str) -> str:
    best, length = None, -1
    for name, prefixes in LAYERS:
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > length:
                best, length = name, len(prefix)
    assert best is not None, f"{module} is in no layer: add it to LAYERS"
    return best


def ancestors(module: str) -> list[str]:
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def _house_module(name: str) -> str | None:
    while name and name not in MODULES:
        name = name.rpartition(".")[0]  # `import a.b.c` of a name inside a.b
    return name or None


def imports_of(module: str, path: Path, modules: dict[str, Path] = MODULES) -> set[str]:
    """The house's modules that ``module`` imports anywhere in its file, by an import
    statement or by a string naming a module, with the packages above each (bar its own)."""
    tree = ast.parse(path.read_text(), str(path))
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base[:len(base) - node.level + (1 if is_package else 0)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            # `from package import submodule` imports the submodule.
            targets = [f"{source}.{alias.name}" if f"{source}.{alias.name}" in modules
                       else source for alias in node.names]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and node.value in modules:
            targets = [node.value]  # importlib.import_module("sim.games.faro"), a registry
        else:
            continue
        for target in targets:
            target = _house_module(target) if target not in modules else target
            if target is None:
                continue
            for name in (*ancestors(target), target):
                if name in modules and name != module and name not in ancestors(module):
                    found.add(name)
            if target in ancestors(module):
                found.add(target)  # its own package's registry (`from sim import games`)
    return found


GRAPH = {module: imports_of(module, path) for module, path in MODULES.items()}


def test_every_module_has_a_layer():
    for module in MODULES:
        layer_of(module)


def test_no_edge_up_the_layers():
    upward = sorted(f"{m} ({layer_of(m)}) imports {t} ({layer_of(t)})"
                    for m, targets in GRAPH.items() for t in targets
                    if RANK[layer_of(t)] > RANK[layer_of(m)])
    assert not upward, "\n".join(upward)


def test_the_root_package_imports_nothing_of_the_house():
    assert GRAPH["sim"] == set()


def _game_of(module: str) -> str | None:
    parts = module.split(".")
    if len(parts) >= 3 and parts[:2] == ["sim", "games"] and parts[2] != "base":
        return parts[2]
    return None


def test_a_game_imports_the_core_the_contract_the_registry_and_its_own_files_only():
    edges = []
    for m, targets in GRAPH.items():
        game = _game_of(m)
        if game is None:
            continue
        for t in targets:
            allowed = (t.startswith("sim.core") or t in ("sim", "sim.games", "sim.games.base")
                       or _game_of(t) == game)
            if not allowed:
                edges.append(f"{m} imports {t}")
    assert not edges, "\n".join(sorted(edges))


def test_the_contract_imports_only_the_core():
    assert {t for t in GRAPH["sim.games.base"] if not t.startswith("sim.core")} <= {"sim"}


def test_a_strategy_imports_only_games_the_core_and_the_strategy_base():
    allowed = ("sim.games", "sim.core", "strategies.base", "strategies.betting", "strategies")
    edges = sorted(f"{m} imports {t}" for m, targets in GRAPH.items() for t in targets
                   if m.startswith("strategies.") and m not in allowed
                   and not t.startswith(allowed) and t != "sim")
    assert not edges, "\n".join(edges)


def test_no_import_cycle():
    # Tarjan's strongly connected components: any component of two or more is a cycle. An
    # edge to one's own package (its registry, used by name) is no cycle: Python runs the
    # package first, and the registry imports the module by name only when asked.
    graph = {m: {t for t in targets if t not in ancestors(m)} for m, targets in GRAPH.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    assert not cycles, "\n".join(" <-> ".join(c) for c in cycles)


PROBE = {name: Path() for name in ("sim", "sim.games", "sim.games.base", "sim.games.faro",
                                   "sim.games.faro.rules", "sim.games.faro.probe",
                                   "sim.engine", "sim.engine.runner", "strategies",
                                   "strategies.faro")}


@pytest.mark.parametrize("source, expected", [
    ("from sim.games.faro.rules import FaroRules", {"sim.games.faro.rules"}),
    ("from sim.games import faro", {"sim.games.faro"}),  # its own package, by name
    ("def f():\n    import strategies.faro", {"strategies", "strategies.faro"}),
    ("from .rules import FaroRules", {"sim.games.faro.rules"}),
    ("from sim.engine.runner import run", {"sim.engine", "sim.engine.runner"}),
    ("import importlib\nimportlib.import_module('sim.engine.runner')",
     {"sim.engine", "sim.engine.runner"}),
    ("from sim import games", {"sim.games"}),
])
def test_the_walk_reads_every_kind_of_import(tmp_path, source, expected):
    path = tmp_path / "probe.py"
    path.write_text(source)
    assert imports_of("sim.games.faro.probe", path, PROBE) == expected


def test_the_walk_finds_an_edge_up_through_a_parent_package(tmp_path):
    """A module of the core that imports ``sim.engine.x`` depends on ``sim.engine`` too."""
    path = tmp_path / "probe.py"
    path.write_text("from sim.engine.runner import run\n")
    modules = {**PROBE, "sim.core": Path(), "sim.core.probe": path}
    found = imports_of("sim.core.probe", path, modules)
    assert {t for t in found if RANK[layer_of(t)] > RANK["core"]} == {"sim.engine",
                                                                       "sim.engine.runner"}
