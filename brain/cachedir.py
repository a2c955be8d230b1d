"""The brain's cache folder: numba's compiled code, the pattern tables and the warm-up's notes, one folder per
source version -- and the lock that lets processes sharing it take turns.

numba checks only the defining file of a cached function, not the files of the functions it calls (and inlines):
after an edit to ``position.py``, a cached kernel of ``mcts.py`` would still run the old code (we saw it crash). So
the folder is named after a hash of every source file of the brain: any change gives a fresh cache. This module
imports no numba: ``pbrain-monte`` reads it before it loads the compiler (``brain.loading``).
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: no lock; a packaged brain ships its cache warm (``monte package``)
    fcntl = None


def source_fingerprint() -> str:
    """A short hash of the brain package's Python sources (see the module docstring)."""
    digest = hashlib.sha1()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


FROZEN_CACHE = "cache"
"""The cache folder of a packaged brain (``monte package``), beside its executable: shipped full."""


def cache_dir(fingerprint: str) -> str:
    """The writable folder for numba's compile cache: under $MONTE_CACHE_DIR, else ~/.cache/monte (a packaged
    brain: its own folder's FROZEN_CACHE instead, so that it writes nothing elsewhere), else the system's temporary
    folder; one subfolder per source fingerprint."""
    candidates = []
    if os.environ.get("MONTE_CACHE_DIR"):
        candidates.append(os.environ["MONTE_CACHE_DIR"])
    if getattr(sys, "frozen", False):
        candidates.append(os.path.join(os.path.dirname(os.path.abspath(sys.executable)), FROZEN_CACHE))
    else:
        xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        candidates.append(os.path.join(xdg, "monte"))
    candidates.append(os.path.join(tempfile.gettempdir(), f"monte-{os.getuid() if hasattr(os, 'getuid') else 0}"))
    candidates = [os.path.join(c, "numba-" + fingerprint) for c in candidates]
    for folder in candidates:
        try:
            os.makedirs(folder, exist_ok=True)
        except OSError:
            continue
        if os.access(folder, os.W_OK):
            return folder
    return candidates[-1]


SOURCE_FINGERPRINT = source_fingerprint()
BRAIN_CACHE_DIR = cache_dir(SOURCE_FINGERPRINT)
"""This source version's folder: numba's compile cache (unless NUMBA_CACHE_DIR says otherwise) and pattern tables."""

WARM_MARKER = "warm"
"""The file a finished warm-up leaves in the folder, naming the Python and numba it compiled for."""


def compiled_count() -> int:
    """How many compiled functions numba's cache holds for this source version (its data files): it grows as a
    compile goes on, function by function."""
    folders = {BRAIN_CACHE_DIR, os.environ.get("NUMBA_CACHE_DIR") or BRAIN_CACHE_DIR}
    return sum(1 for folder in folders for _ in Path(folder).rglob("*.nbc"))


def _toolchain() -> str:
    from importlib import metadata  # here: pbrain-monte asks only on its loader thread, after its first OK

    return f"python {sys.version_info.major}.{sys.version_info.minor} numba {metadata.version('numba')}"


def cache_is_warm() -> bool:
    """Whether a warm-up finished in this folder for this Python and numba: the brain then loads in about a second
    instead of compiling for a minute."""
    try:
        return Path(BRAIN_CACHE_DIR, WARM_MARKER).read_text(encoding="utf-8") == _toolchain()
    except OSError:
        return False


def mark_warm() -> None:
    """Leave the marker of a finished warm-up (written whole or not at all)."""
    fd, temporary = tempfile.mkstemp(dir=BRAIN_CACHE_DIR, suffix=".part")
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(_toolchain())
    os.replace(temporary, os.path.join(BRAIN_CACHE_DIR, WARM_MARKER))


@contextmanager
def folder_lock(folder: str | Path) -> Iterator[None]:
    """Hold an exclusive lock on `folder` itself (no lock file to leave behind) for the block; a process that dies
    holding it releases it."""
    if fcntl is None:
        yield
        return
    handle = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        os.close(handle)  # closing releases the lock
