"""What an output folder holds, and whether a run may write into it.

A folder is empty, holds a finished run (``manifest.json``), an unfinished one (``chunks/run.json``
without a manifest of the same run), or files that are not a run at all. A run

* writes into an empty folder, or into the finished run of its own experiment (replacing it);
* finishes an unfinished run only with ``--resume``, and only if everything that decides the
  numbers is unchanged (else it says what changed);
* replaces anything else only with ``--force``;

and refuses otherwise, in one line, having deleted nothing. Replacing removes every file the old
run wrote (its manifest lists them) and its checkpoints, so no stale file survives beside the new
ones; files the folder held that no run wrote are never touched.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sim.core.errors import InputError
from sim.core.files import writable_folder
from sim.engine.checkpoints import CHUNK_DIR, FORMAT, RUN_FILE, CheckpointStore, total_chunks
from sim.engine.experiment import Experiment

MANIFEST = "manifest.json"
LEGACY_MARKER = "experiment.json"  # the checkpoint marker of earlier versions


@dataclass(frozen=True)
class FolderState:
    """What a folder holds: ``kind`` is "empty", "finished", "unfinished" or "foreign"."""

    kind: str
    name: str | None = None  # the experiment of the run it holds
    saved: Mapping[str, Any] | None = None  # its run.json
    files: tuple[str, ...] = ()  # files its manifest lists
    # Why the chunks' run.json cannot be used ("is empty", "was written by an older
    # houseedge ..."), where there are chunks; None where it is this houseedge's.
    problem: str | None = None


def _read(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None


def _run_record(chunks: Path) -> tuple[Mapping[str, Any] | None, str | None]:
    """A chunks folder's run.json (None if unread), and why the chunks cannot be resumed
    from it (None where they can, or where there is no chunks folder)."""
    path = chunks / RUN_FILE
    if not path.exists():
        if not chunks.is_dir():
            return None, None
        if (chunks / LEGACY_MARKER).exists():
            return None, f"is missing (the chunks are an older houseedge's, with {LEGACY_MARKER})"
        return None, "is missing"
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        return None, f"cannot be read ({exc.strerror if isinstance(exc, OSError) else exc})"
    if not text.strip():
        return None, "is empty"
    try:
        saved = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, f"is not valid JSON ({exc.msg}, line {exc.lineno})"
    if not isinstance(saved, Mapping):
        return None, f"is not a JSON object (got {type(saved).__name__})"
    form = saved.get("format")
    if form != FORMAT:
        if not isinstance(form, int) or isinstance(form, bool):
            return saved, f"is not a houseedge run record (format {form!r})"
        who = "an older" if form < FORMAT else "a newer"
        return saved, (f"was written by {who} houseedge (checkpoint format {form}; this one "
                       f"reads {FORMAT})")
    return saved, None


def inspect(out_dir: Path) -> FolderState:
    """What ``out_dir`` holds."""
    out_dir = Path(out_dir)
    if not out_dir.is_dir() or not any(out_dir.iterdir()):
        return FolderState("empty")
    manifest = _read(out_dir / MANIFEST)
    manifest = manifest if isinstance(manifest, Mapping) else None
    saved, problem = _run_record(out_dir / CHUNK_DIR)
    files = tuple(str(f) for f in (manifest or {}).get("files", ()) if "/" not in str(f))
    if saved is not None:
        finished = manifest is not None and manifest.get("fingerprint") == saved.get("fingerprint")
        return FolderState("finished" if finished else "unfinished", saved.get("name"), saved,
                           files, problem)
    if (out_dir / CHUNK_DIR).is_dir():
        return FolderState("unfinished", None, None, files, problem)
    if manifest is not None:
        name = (manifest.get("experiment") or {}).get("name")
        return FolderState("finished", name, None, files)
    return FolderState("foreign")


def _clear(out_dir: Path, state: FolderState) -> None:
    """Remove what the run held in ``out_dir`` wrote: its listed files and its checkpoints."""
    for name in (*state.files, MANIFEST):
        (out_dir / name).unlink(missing_ok=True)
    shutil.rmtree(out_dir / CHUNK_DIR, ignore_errors=True)


def _changes(saved: Any, now: Any, path: str = "") -> list[str]:
    """Where two identities differ, as key paths (first differences first)."""
    if isinstance(saved, Mapping) and isinstance(now, Mapping):
        found = []
        for key in sorted(set(saved) | set(now), key=str):
            where = f"{path}.{key}" if path else str(key)
            if key not in saved:
                found.append(f"{where} added")
            elif key not in now:
                found.append(f"{where} removed")
            else:
                found += _changes(saved[key], now[key], where)
        return found
    if isinstance(saved, list) and isinstance(now, list) and len(saved) == len(now):
        return [change for i, (a, b) in enumerate(zip(saved, now))
                for change in _changes(a, b, f"{path}[{i}]")]
    return [] if saved == now else [f"{path} changed (was {saved!r}, now {now!r})"]


def describe_change(saved: Mapping[str, Any], experiment: Experiment) -> str:
    """What differs between a saved run's identity and this experiment's, in words."""
    old = saved.get("identity") or {}
    new = experiment.identity()
    parts = []
    files_old, files_new = old.get("files", {}), new["files"]
    for path in sorted(set(files_old) | set(files_new)):
        if files_old.get(path) != files_new.get(path):
            parts.append(f"the file {path} "
                         + ("changed" if path in files_old and path in files_new else
                            "is new" if path in files_new else "is no longer read"))
    parts += _changes(old.get("experiment"), new["experiment"])
    engine_old, engine_new = old.get("houseedge", {}), new["houseedge"]
    if engine_old.get("version") != engine_new["version"]:
        parts.append(f"houseedge {engine_old.get('version')} -> {engine_new['version']}")
    elif engine_old.get("source") != engine_new["source"]:
        parts.append("the houseedge code changed")
    if len(parts) > 3:
        parts = [*parts[:3], f"and {len(parts) - 3} more"]
    return "; ".join(parts) or "a checkpoint of an older format"


def open_run(out_dir: Path, experiment: Experiment, resume: bool, force: bool
             ) -> tuple[CheckpointStore, list[str]]:
    """Check that this run may write into ``out_dir`` and open its checkpoints.

    Returns:
        The checkpoint store (holding the finished chunks on resume) and one line per
        checkpoint file that could not be read and will be computed again.

    Raises:
        InputError: one line saying why the run may not write there, and how to go on.
    """
    if resume and force:
        raise InputError("--resume and --force: choose one (--resume finishes a run, "
                         "--force starts it over)")
    out_dir = Path(out_dir)
    state = inspect(out_dir)
    store = CheckpointStore(out_dir, experiment)
    if resume:
        if state.kind in ("empty", "foreign"):
            raise InputError(f"--resume: {out_dir} holds no run to finish")
        if state.problem is not None:
            raise InputError(f"--resume: {out_dir / CHUNK_DIR / RUN_FILE} {state.problem}, "
                             "so the chunks beside it cannot be resumed; --force starts the run "
                             "over")
        if state.saved.get("fingerprint") != experiment.fingerprint():
            raise InputError(
                f"--resume: {out_dir} holds chunks of a different experiment: "
                f"{describe_change(state.saved, experiment)}; --force starts it over, or "
                "undo the change to finish the run")
        return store, store.load(repair=True)
    if state.kind == "unfinished" and not force and state.problem is not None:
        raise InputError(f"{out_dir} holds chunks of an unfinished run, and its "
                         f"{CHUNK_DIR}/{RUN_FILE} {state.problem}; --force starts it over")
    if state.kind == "unfinished" and not force:
        done = _done_chunks(out_dir, experiment, state)
        raise InputError(f"{out_dir} holds an unfinished run{_of(state)}{done}; --resume "
                         "finishes it, --force starts over")
    if state.kind == "finished" and state.name != experiment.name and not force:
        raise InputError(f"{out_dir} holds the report of another experiment"
                         f"{f' ({state.name!r})' if state.name else ''}; --force replaces it, or "
                         "choose another --out")
    if state.kind == "foreign" and not force:
        raise InputError(f"{out_dir} holds files that are not a houseedge run; choose an empty "
                         "or new folder, or --force to write beside them")
    writable_folder(out_dir)
    if state.kind in ("finished", "unfinished"):
        _clear(out_dir, state)
    store.start()
    return store, []


def _of(state: FolderState) -> str:
    return f" of experiment {state.name!r}" if state.name else ""


def _done_chunks(out_dir: Path, experiment: Experiment, state: FolderState) -> str:
    if state.saved is None or state.saved.get("fingerprint") != experiment.fingerprint():
        return ""
    store = CheckpointStore(out_dir, experiment)
    try:
        store.load(repair=False)
    except InputError:
        return ""
    return f" ({store.done_chunks():,} of {total_chunks(experiment):,} chunks done)"
