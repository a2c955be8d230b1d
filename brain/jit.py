"""One place that prepares numba for every compiled module of the brain.

numba's ``cache=True`` writes compiled code beside the source by default, which fails (at import time) when the
package is installed in a read-only folder. We point ``NUMBA_CACHE_DIR`` at a per-user writable folder before numba
is imported; every compiled module imports ``njit`` from here so that this always happens first.
"""

from __future__ import annotations

import os
import tempfile


def cache_dir() -> str:
    """The writable folder for numba's compile cache: $MONTE_CACHE_DIR, else ~/.cache/monte/numba, else /tmp."""
    candidates = []
    if os.environ.get("MONTE_CACHE_DIR"):
        candidates.append(os.environ["MONTE_CACHE_DIR"])
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    candidates.append(os.path.join(xdg, "monte", "numba"))
    candidates.append(os.path.join(tempfile.gettempdir(), f"monte-numba-{os.getuid()}"))
    for folder in candidates:
        try:
            os.makedirs(folder, exist_ok=True)
        except OSError:
            continue
        if os.access(folder, os.W_OK):
            return folder
    return candidates[-1]


os.environ.setdefault("NUMBA_CACHE_DIR", cache_dir())

from numba import njit  # noqa: E402  (must follow the cache set-up above)

__all__ = ["njit", "cache_dir"]
