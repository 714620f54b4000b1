"""A finished run read back from its folder: the experiment and the chunks it saved.

``houseedge report DIR`` and ``houseedge charts DIR`` rebuild a run's outputs from here
without simulating. The experiment comes from the checkpoint's record of the resolved
experiment (``chunks/experiment.json``), the statistics from the chunk files, and what the
chunks do not hold (time taken, jobs, finish time) from the old ``manifest.json``. Everything
read is plain JSON: loading a folder runs no code from it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sim import games
from sim.errors import InputError
from sim.experiment import Experiment, StrategySpec, VariantSpec
from sim.progression import ProgressionSpec
from sim.runner import CHUNK_DIR, FINGERPRINT_FILE, RunResult, plan
from sim.stats import Stats

# What write_outputs takes from the old manifest rather than recomputing.
RUN_INFO_KEYS = ("seconds", "jobs", "finished", "backend", "scheduler")


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
        return Experiment(resolved["name"], resolved["game"], resolved.get("description", ""),
                          int(resolved["rounds"]), int(resolved["seed"]),
                          int(resolved["chunk_rounds"]), variants, strategies, source,
                          dict(resolved))
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(f"{source}: experiment: not a run's record ({exc})") from None


def load(folder: str | Path) -> tuple[RunResult, dict[str, Any]]:
    """The run saved in ``folder`` and the run facts of its old manifest.

    Raises:
        InputError: not a run folder, a chunk missing or unreadable (the message names it).
    """
    folder = Path(folder)
    chunks = folder / CHUNK_DIR
    if not chunks.is_dir():
        raise InputError(f"{folder}: no {CHUNK_DIR}/ folder: not the output folder of a run")
    record = _json(chunks / FINGERPRINT_FILE)
    old = {}
    if (folder / "manifest.json").exists():
        old = _json(folder / "manifest.json")
    resolved = record.get("experiment") if isinstance(record, dict) else None
    if not isinstance(resolved, dict):
        raise InputError(f"{chunks / FINGERPRINT_FILE}: experiment: missing")
    source = old.get("source") or str(chunks / FINGERPRINT_FILE)
    base_dir = old.get("base_dir") or str(Path(source).resolve().parent)
    exp = experiment_from_resolved(resolved, source, base_dir)
    by_pair: dict[tuple[int, int], list[Stats]] = {}
    missing = []
    for chunk in plan(exp):
        path = chunks / chunk.filename
        if not path.exists():
            missing.append(chunk.filename)
            continue
        data = _json(path)
        try:
            stats = Stats.from_json(data)
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"{path}: not a chunk's statistics ({exc})") from None
        by_pair.setdefault((chunk.variant, chunk.strategy), []).append(stats)
    if missing:
        raise InputError(f"{chunks}: {len(missing)} chunk(s) missing (first: {missing[0]}): "
                         "the run did not finish; finish it with houseedge run --resume")
    info = {k: old[k] for k in RUN_INFO_KEYS if k in old}
    return RunResult(exp, by_pair), info
