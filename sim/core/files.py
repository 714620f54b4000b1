"""Writing files: atomically, with the user's permissions, and with a record of what was written.

A leaf module: anyone may import it.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

from sim.core.errors import InputError

# The folders being recorded (see :func:`recording`) and the names written into each.
_RECORDS: ContextVar[tuple[tuple[Path, set[str]], ...]] = ContextVar("records", default=())


def _umask() -> int:
    # os.umask can only be read by setting it; set it straight back.
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_atomic(path: Path, data: bytes | str) -> None:
    """Write a file so that readers see either nothing or all of it.

    The file gets the permissions of any file the user creates (0666 less the umask), not the
    0600 of the temporary file it is renamed from.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode() if isinstance(data, str) else data)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    for folder, names in _RECORDS.get():
        if path.parent.resolve() == folder:
            names.add(path.name)


@contextmanager
def recording(folder: Path) -> Iterator[set[str]]:
    """Collect the names of the files :func:`write_atomic` writes directly into ``folder``."""
    names: set[str] = set()
    token = _RECORDS.set((*_RECORDS.get(), (Path(folder).resolve(), names)))
    try:
        yield names
    finally:
        _RECORDS.reset(token)


def writable_folder(path: Path, what: str = "--out") -> Path:
    """Create ``path`` (and its parents) if needed and check that files can be written in it.

    Raises:
        InputError: naming the path and the problem (a file in the way, no permission, a
            read-only or virtual file system such as /proc).
    """
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise InputError(f"{what} {path}: exists and is not a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=path, prefix=".houseedge-probe.")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise InputError(f"{what} {path}: cannot write there ({exc.strerror or exc})") from None
    return path
