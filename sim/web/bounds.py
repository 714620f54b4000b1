"""The page's bounds and the state's shape, without the engine: what the server's own process
needs to refuse a request before a worker sees it (:mod:`sim.web.state` makes the
experiment)."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path

from sim.core.errors import InputError

SOURCE = "page"  # how messages name the page's experiment (the CLI names the file)
WHAT_IF = "what-if"  # the variant the page's rules make, beside its preset
DEFAULT_SEED = 20261206
DEFAULT_ROUNDS = 2_000_000
DEFAULT_CHUNK = 50_000
DEFAULT_TARGET = 0.002
MAX_ROUNDS = 50_000_000  # rounds per row of one simulation
MAX_CHUNKS = 2_000  # chunks per row (a chunk is a unit of streaming and cancelling)
MAX_GRID_POINTS = 25
MAX_KEYS = 120  # settings in one state
MAX_VALUE_CHARS = 2_000
VIEWS = ("edge", "risk", "grid")
PAGE_KEYS = {"game", "preset", "strategy", "banker", "seed", "rounds", "chunk_rounds",
             "target_ci", "sweep", "sweep_values", "view", "file", "variant", "row", "mu",
             "sigma"}
PREFIXES = ("r.", "p.", "b.", "s.")
SESSION_DEFAULTS = {"bankroll": "100", "rounds": "300", "target_risks": "[0.01]"}


class StateError(InputError):
    """A state the page cannot make an experiment of, naming the control at fault."""

    def __init__(self, control: str, message: str) -> None:
        self.control = control
        super().__init__(message)


def check_size(query: Mapping[str, str]) -> None:
    """Refuse a state too large to be the page's (a bound on each request's work)."""
    if len(query) > MAX_KEYS:
        raise StateError("", f"too many settings ({len(query)}; at most {MAX_KEYS})")
    for key, value in query.items():
        if len(key) > 100 or len(value) > MAX_VALUE_CHARS:
            raise StateError(key, f"{key[:40]}: a value of at most {MAX_VALUE_CHARS:,} "
                             "characters")
        if key not in PAGE_KEYS and not key.startswith(PREFIXES):
            known = sorted(PAGE_KEYS) + [f"{p}<name>" for p in PREFIXES]
            raise StateError("", f"unknown setting {key!r} (known: {', '.join(known)})")


def experiment_files(folder: Path) -> list[dict[str, str]]:
    """The experiment files of the folder: name, game and description (unreadable ones are
    left out: opening one says why)."""
    found = []
    for path in sorted(folder.glob("*.toml")):
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8-sig"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            continue
        if isinstance(data.get("game"), str):
            found.append({"file": path.name, "game": data["game"],
                          "description": str(data.get("description", ""))})
    return found


