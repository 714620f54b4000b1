"""The house's import structure: no import cycle, and no edge up the data flow.

Every import of every module under ``sim/`` and ``strategies/`` is read with ``ast``, those
inside functions included (a lazy import is still a dependency). The layers below are the
flow of DESIGN.md, from the bottom: leaves anyone may import; charts; the games; the
strategies; the engine that runs games with strategies; the outputs built from its results;
the Python API and the command line. A module may import its own layer or any layer below it,
and nothing may form a cycle (a package's ``__init__`` counts as the module it is).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("sim", "strategies")

# Bottom to top; a module's layer is that of the longest prefix listed (exact names first).
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("leaf", ("sim", "sim.errors", "sim.files", "sim.cards", "sim.progression", "sim.rng",
              "sim.xoshiro", "sim.stats", "sim.compiling", "sim.interrupt", "sim.jit",
              "sim.ledger", "sim.headline", "sim.memo", "sim.tabulate", "sim.grid",
              "sim.histogram", "sim.memcpy")),
    ("charts", ("sim.charts",)),
    ("games", ("sim.games",)),
    ("strategies", ("strategies",)),
    ("engine", ("sim.experiment", "sim.compare", "sim.checkpoints",
                "sim.run_folder", "sim.workers", "sim.warm", "sim.session_play", "sim.runner",
                "sim.risk")),
    ("outputs", ("sim.report", "sim.html", "sim.rundir", "sim.exact_report", "sim.bench",
                 "sim.rulesdoc", "sim.studies")),
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


def imports_of(module: str, path: Path) -> set[str]:
    """The house's modules that ``module`` imports anywhere in its file."""
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
            targets = [f"{source}.{alias.name}" if f"{source}.{alias.name}" in MODULES
                       else source for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in MODULES:
                target = target.rpartition(".")[0]  # `import a.b.c` of a name inside a.b
            if target and target != module:
                found.add(target)
    return found


GRAPH = {module: imports_of(module, path) for module, path in MODULES.items()}


def test_every_module_has_a_layer():
    for module in MODULES:
        layer_of(module)


def test_no_edge_up_the_data_flow():
    upward = sorted(f"{m} ({layer_of(m)}) imports {t} ({layer_of(t)})"
                    for m, targets in GRAPH.items() for t in targets
                    if RANK[layer_of(t)] > RANK[layer_of(m)])
    assert not upward, "\n".join(upward)


def test_no_game_module_imports_strategies():
    edges = sorted(f"{m} imports {t}" for m, targets in GRAPH.items() for t in targets
                   if m.startswith("sim.games") and t.split(".")[0] == "strategies")
    assert not edges, "\n".join(edges)


def test_a_strategy_imports_only_games_leaves_and_the_strategy_base():
    allowed = ("sim.games", "strategies.base", "strategies.betting")
    edges = sorted(f"{m} imports {t}" for m, targets in GRAPH.items() for t in targets
                   if m.startswith("strategies.") and m not in allowed
                   and layer_of(t) not in ("leaf", "games")
                   and not t.startswith(allowed))
    assert not edges, "\n".join(edges)


def test_no_import_cycle():
    # Tarjan's strongly connected components: any component of two or more is a cycle.
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(GRAPH[node]):
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

    for node in sorted(GRAPH):
        if node not in index:
            visit(node)
    assert not cycles, "\n".join(" <-> ".join(c) for c in cycles)


@pytest.mark.parametrize("source, expected", [
    ("from sim.games.faro.rules import FaroRules", {"sim.games.faro.rules"}),
    ("from sim.games import faro", {"sim.games.faro"}),
    ("def f():\n    import strategies.faro", {"strategies.faro"}),
    ("from .rules import FaroRules", {"sim.games.faro.rules"}),
])
def test_the_walk_reads_every_kind_of_import(tmp_path, source, expected):
    path = tmp_path / "probe.py"
    path.write_text(source)
    assert imports_of("sim.games.faro.probe", path) == expected
