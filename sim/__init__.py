"""houseedge: the house edge of banking and betting games, by Monte Carlo and exactly."""

import hashlib as _hashlib
import os as _os
from pathlib import Path as _Path


def _kernel_sources_digest() -> str:
    """A digest of every engine module that holds compiled code.

    numba checks a cached kernel against its own source file only, while the kernels inline
    helpers from other modules (the generator, hand arithmetic): after a change there, a cache
    keyed by file would hand back a stale kernel. Keyed by this digest, changed code compiles
    afresh and unchanged code is loaded.
    """
    sha = _hashlib.sha256()
    root = _Path(__file__).resolve().parent
    for path in sorted(root.rglob("*.py")):
        text = path.read_bytes()
        if b"numba" in text:
            sha.update(path.relative_to(root).as_posix().encode() + b"\0" + text)
    return sha.hexdigest()[:16]


# numba writes its compiled-kernel cache next to the sources by default, which may be
# read-only (a system install); a per-user cache keeps start-up and loky workers fast.
_os.environ.setdefault(
    "NUMBA_CACHE_DIR",
    _os.path.join(_os.path.expanduser("~"), ".cache", "houseedge", "numba",
                  _kernel_sources_digest()),
)

__version__ = "0.1.0"
