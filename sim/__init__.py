"""houseedge: the house edge of banking and betting games, by Monte Carlo and exactly."""

import ctypes as _ctypes
import hashlib as _hashlib
import os as _os
import sys as _sys
from pathlib import Path as _Path


def _return_large_frees() -> None:
    """Have glibc give every freed block of 1 MB or more back to the system at once.

    glibc serves a block above its mmap threshold by mmap and returns it on free, but it
    raises that threshold (up to 32 MB) each time such a block is freed, so later tables and
    temporaries of a few megabytes come from the heap and stay resident after they are freed:
    a bonus run of 21 policy tables (16-80 MB each, built and dropped in turn) ended 50 MB
    higher for it. Setting the threshold fixes it and stops the raising.
    """
    if not _sys.platform.startswith("linux"):
        return
    try:
        _ctypes.CDLL(None).mallopt(-3, 1 << 20)  # M_MMAP_THRESHOLD
    except (OSError, AttributeError):  # not glibc
        pass


_return_large_frees()


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
        if b"import numba" in text or b"from numba" in text:
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
