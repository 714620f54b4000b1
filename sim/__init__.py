"""houseedge: the house edge of banking and betting games, by Monte Carlo and exactly."""

import os as _os

# numba writes its compiled-kernel cache next to the sources by default, which may be
# read-only (a system install); a per-user cache keeps start-up and loky workers fast.
_os.environ.setdefault(
    "NUMBA_CACHE_DIR",
    _os.path.join(_os.path.expanduser("~"), ".cache", "houseedge", "numba"),
)

__version__ = "0.1.0"
