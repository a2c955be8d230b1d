"""One place that prepares numba for every compiled module of the brain.

numba's ``cache=True`` writes compiled code beside the source by default, which fails (at import time) when the
package is installed in a read-only folder. We point numba's cache folder (``numba.config.CACHE_DIR``) at a per-user
writable folder before anything is compiled; every compiled module imports ``njit`` from here so that this always
happens first. A ``NUMBA_CACHE_DIR`` set by the user wins. The setting is made in numba's config, not in
``os.environ``: a program that imports the brain (the tournament runner) must not hand it down to the engines it
starts, each of which (other revisions of Monte included) picks the folder for its own sources.

numba checks only the defining file of a cached function, not the files of the functions it calls (and inlines):
after an edit to ``position.py``, a cached kernel of ``mcts.py`` would still run the old code (we saw it crash). So
the folder is named after a hash of every source file of the brain: any change gives a fresh cache.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path
from typing import Annotated, Any

import numpy as np


def source_fingerprint() -> str:
    """A short hash of the brain package's Python sources (see the module docstring)."""
    digest = hashlib.sha1()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def cache_dir() -> str:
    """The writable folder for numba's compile cache: under $MONTE_CACHE_DIR, else ~/.cache/monte, else /tmp;
    one subfolder per source fingerprint."""
    candidates = []
    if os.environ.get("MONTE_CACHE_DIR"):
        candidates.append(os.environ["MONTE_CACHE_DIR"])
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    candidates.append(os.path.join(xdg, "monte"))
    candidates.append(os.path.join(tempfile.gettempdir(), f"monte-{os.getuid()}"))
    fingerprint = source_fingerprint()
    candidates = [os.path.join(c, "numba-" + fingerprint) for c in candidates]
    for folder in candidates:
        try:
            os.makedirs(folder, exist_ok=True)
        except OSError:
            continue
        if os.access(folder, os.W_OK):
            return folder
    return candidates[-1]


BRAIN_CACHE_DIR = cache_dir()
"""This source version's folder: numba's compile cache (unless NUMBA_CACHE_DIR says otherwise) and pattern tables."""

import numba  # noqa: E402

if not os.environ.get("NUMBA_CACHE_DIR"):
    numba.config.CACHE_DIR = BRAIN_CACHE_DIR  # kept: numba re-reads its config only when a NUMBA_ variable changes

from numba import typeof, types  # noqa: E402  (must follow the cache set-up above)
from numba.core.dispatcher import Dispatcher  # noqa: E402


def njit(*args, **options):
    """numba's ``njit`` (used bare, with options, or with an explicit signature), releasing the GIL by default, so
    that Python threads run while compiled code does (see ``kernel``)."""
    options.setdefault("nogil", True)
    return numba.njit(*args, **options)


def array(dtype: types.Type, ndim: int = 1) -> Any:
    """The annotation of a C-contiguous numpy array parameter of a compiled function, e.g. ``cells: Int8Array``:
    ``numpy.ndarray`` to readers and type checkers, and the exact numba type to the warm-up (``brain.warmup``), which
    compiles every entry point from its annotations."""
    return Annotated[np.ndarray, types.Array(dtype, ndim, "C")]


Int8Array = array(types.int8)
UInt8Array = array(types.uint8)
Int32Array = array(types.int32)
Int64Array = array(types.int64)
Float32Array = array(types.float32)


def kernel(function):
    """Compile a hot kernel that allocates nothing: ``njit(cache=True)`` without numba's reference-counting runtime,
    and without holding the GIL while it runs.

    numba increments and decrements (atomically) the reference count of every array a function reads out of a tuple
    argument, and its pass that prunes those pairs skips functions taking tuples -- which every kernel here does
    (State, Tree, Workspace). perf put 20% of the search's time in those atomic operations. A kernel that only reads
    and writes arrays made elsewhere needs no reference counts; one that allocates must stay a plain ``njit`` (numba
    refuses to compile an allocation here, so a kernel that starts to allocate fails loudly, not silently).

    Without the GIL (``nogil``), Python threads run while a search does: the protocol's reader thread acts on END and
    YXSTOP at once, and a timer can stop the search at its deadline (``brain.limits``).
    """
    return numba.njit(cache=True, _nrt=False, nogil=True)(function)


__all__ = ["njit", "kernel", "array", "types", "typeof", "Dispatcher", "cache_dir", "BRAIN_CACHE_DIR", "Int8Array",
           "UInt8Array", "Int32Array", "Int64Array", "Float32Array"]
