"""Where numba caches the house's compiled code: a folder per digest of the compiled sources.

numba checks a cached function against its own source file only, while the kernels inline
helpers from other modules (the generator, hand arithmetic): after a change there, a cache
keyed by file would hand back a stale kernel. So the cache folder is named by a digest of
every module that holds compiled code: changed code compiles afresh, unchanged code loads.

Every module that compiles with ``cache=True`` imports this one (a test checks it), which
points numba there before the module's functions are decorated. The folder is
``$NUMBA_CACHE_DIR/<digest>`` where that is set, else ``~/.cache/houseedge/numba/<digest>``
(a per-user folder: the sources may be read-only, a system install).
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys
from pathlib import Path

PACKAGE_ROOT = Path(__file__).resolve().parents[1]  # sim/
_BASE = os.environ.get("NUMBA_CACHE_DIR") or str(Path.home() / ".cache" / "houseedge" / "numba")


def sources_digest(root: Path = PACKAGE_ROOT) -> str:
    """A digest of every module under ``root`` that holds compiled code (16 hex digits)."""
    sha = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        text = path.read_bytes()
        if b"import numba" in text or b"from numba" in text:
            sha.update(path.relative_to(root).as_posix().encode() + b"\0" + text)
    return sha.hexdigest()[:16]


@functools.cache
def folder() -> Path:
    """The cache folder of this code (a child process inherits it already named)."""
    base, digest = Path(_BASE), sources_digest()
    return base if base.name == digest else base / digest


def _point_numba_here() -> None:
    os.environ["NUMBA_CACHE_DIR"] = str(folder())
    config = sys.modules.get("numba.core.config")
    if config is not None:  # numba read its settings when it was imported: read them again
        config.reload_config()


_point_numba_here()
