"""A finished run read back from its folder: the experiment and the chunks it saved.

``houseedge report DIR`` and ``houseedge charts DIR`` rebuild a run's outputs from here
without simulating. The experiment comes from the run's manifest (the resolved experiment and
where its files are found), the statistics from the checkpoints (:mod:`sim.engine.checkpoints`), and
what the chunks do not hold (time taken, jobs, backend, finish time) from the same manifest.
Everything read is plain JSON: loading a folder runs no code from it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sim import games
from sim.core.errors import InputError
from sim.core.progression import ProgressionSpec
from sim.engine.checkpoints import CHUNK_DIR, CheckpointStore
from sim.engine.experiment import Experiment, StrategySpec, VariantSpec, _files_read
from sim.engine.run_folder import MANIFEST
from sim.engine.runner import RunResult

# What write_outputs takes from the old manifest rather than recomputing.
RUN_INFO_KEYS = ("seconds", "jobs", "finished", "charts")


def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise InputError(f"{path}: file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read: {exc}") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: not valid JSON ({exc.msg}, line {exc.lineno})") from None


def experiment_from_resolved(resolved: Mapping[str, Any], source: str, base_dir: str
                             ) -> Experiment:
    """The experiment a run recorded (its resolved form), rebuilt without re-validating the
    strategies by play: they were checked when the run started."""
    try:
        game = games.get(resolved["game"])
        variants = tuple(
            VariantSpec(name, own["preset"], {k: v for k, v in own.items() if k != "preset"},
                        game.make_rules(own["preset"],
                                        {k: v for k, v in own.items() if k != "preset"}))
            for name, own in resolved["variants"].items())
        strategies = tuple(
            StrategySpec(s["name"], s["use"], dict(s["params"]),
                         ProgressionSpec(**s["progression"]), base_dir, s.get("rounds"))
            for s in resolved["strategies"])
        session = None
        if resolved.get("session"):
            from sim.risk.spec import SessionSpec

            raw = dict(resolved["session"])
            session = SessionSpec(**{k: tuple(v) if isinstance(v, list) else v
                                     for k, v in raw.items()})
        return Experiment(resolved["name"], resolved["game"], resolved.get("description", ""),
                          int(resolved["rounds"]), int(resolved["seed"]),
                          int(resolved["chunk_rounds"]), variants, strategies, source,
                          dict(resolved), _files_read(game, variants, strategies), session)
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(f"{source}: experiment: not a run's record ({exc})") from None


def load(folder: str | Path) -> tuple[RunResult, dict[str, Any]]:
    """The run saved in ``folder`` and the run facts of its manifest.

    Raises:
        InputError: not a finished run's folder, a checkpoint unreadable (named).
    """
    folder = Path(folder)
    chunks = folder / CHUNK_DIR
    if not chunks.is_dir() or not (folder / MANIFEST).exists():
        raise InputError(f"{folder}: no {CHUNK_DIR}/ and {MANIFEST}: not the output folder "
                         "of a finished run")
    old = _json(folder / MANIFEST)
    resolved = old.get("experiment") if isinstance(old, dict) else None
    if not isinstance(resolved, dict):
        raise InputError(f"{folder / MANIFEST}: experiment: missing")
    source = old.get("source") or str(folder / MANIFEST)
    base_dir = old.get("base_dir") or str(Path(source).resolve().parent)
    exp = experiment_from_resolved(resolved, source, base_dir)
    store = CheckpointStore(folder, exp)
    store.load(repair=False)
    if not store.finished():
        raise InputError(f"{chunks}: the run did not finish ({store.done_chunks()} chunks "
                         "kept); finish it with houseedge run --resume")
    info = {k: old[k] for k in RUN_INFO_KEYS if k in old}
    execution = {k: old[k] for k in ("jobs", "backend", "scheduler") if k in old}
    return RunResult.from_store(store, execution), info
