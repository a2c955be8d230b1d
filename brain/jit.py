"""One place that prepares numba for every compiled module of the brain.

numba's ``cache=True`` writes compiled code beside the source by default, which fails (at import time) when the
package is installed in a read-only folder. We point numba's cache folder (``numba.config.CACHE_DIR``) at a per-user
writable folder before anything is compiled; every compiled module imports ``njit`` from here so that this always
happens first. A ``NUMBA_CACHE_DIR`` set by the user wins. The setting is made in numba's config, not in
``os.environ``: a program that imports the brain (the tournament runner) must not hand it down to the engines it
starts, each of which (other revisions of Monte included) picks the folder for its own sources. The folder is
``brain.cachedir.BRAIN_CACHE_DIR``, one per source version. What the brain takes from numba beyond its public
interface comes through ``brain.numba_private``.

numba files a function's cache under a folder named after the absolute path of its source's folder, stamped with a
hash of the source (of the executable, in a frozen program): a cache compiled in one folder is not found in
another. The brain's cache folder already belongs to one version of its sources, so the brain's functions are filed
by a locator of its own (``BrainCacheLocator``, first in numba's list): in that folder whatever the install path, and
stamped with the sources' fingerprint. A packaged brain (``monte package``) ships its cache that way: compiled where
it was built, found wherever it is unzipped.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any

import numpy as np

import numba

from monte.brain.cachedir import BRAIN_CACHE_DIR, SOURCE_FINGERPRINT
from monte.brain.numba_private import CacheLocator, add_cache_locator  # compiles nothing: before the set-up is fine

BRAIN_FOLDER = Path(__file__).resolve().parent
KERNELS = "kernels"
"""The subfolder of the brain's cache folder that holds numba's files."""


class BrainCacheLocator(CacheLocator):
    """numba's cache of a function of the brain: in ``BRAIN_CACHE_DIR/kernels``, stamped with the sources'
    fingerprint (see the module docstring)."""

    def __init__(self, py_func, py_file: str) -> None:
        self._lineno = py_func.__code__.co_firstlineno

    def get_cache_path(self) -> str:
        return os.path.join(BRAIN_CACHE_DIR, KERNELS)

    def get_source_stamp(self) -> str:
        return SOURCE_FINGERPRINT

    def get_disambiguator(self) -> str:
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func, py_file: str) -> "BrainCacheLocator | None":
        """A locator for a function defined in the brain's folder (None for any other: numba's own locators)."""
        if Path(py_file).resolve().parent != BRAIN_FOLDER:
            return None
        locator = cls(py_func, py_file)
        try:
            locator.ensure_cache_path()
        except OSError:
            return None
        return locator


if not os.environ.get("NUMBA_CACHE_DIR"):
    numba.config.CACHE_DIR = BRAIN_CACHE_DIR  # kept: numba re-reads its config only when a NUMBA_ variable changes
    add_cache_locator(BrainCacheLocator)

from numba import typeof, types  # noqa: E402  (must follow the cache set-up above)

from monte.brain.numba_private import Dispatcher, njit_without_refcounts, prefetch, shared_read  # noqa: E402


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


BoolArray = array(types.boolean)
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
    return njit_without_refcounts(function, cache=True, nogil=True)


def inline_kernel(function):
    """A ``kernel`` that numba copies into each function that calls it (``inline="always"``, at numba's IR level)
    instead of calling it: for a helper that takes the whole State (or Workspace) and runs in a hot loop.

    numba passes a tuple of arrays by value, each array as its full descriptor (pointer, sizes and strides): a call
    with a State pushes about 200 machine words, and LLVM inlines only small functions. The move generation's
    defence check ran such calls for each of about 27 candidates a node under threat (``brain.threats._defends``),
    and they cost more than the checks they made (README, Speed). Each caller compiles its own copy, which numba
    types anew: for hot helpers only (with the move generation's, the VCF's and the makes' inlined, the brain's cold
    compile took the same 96 s)."""
    return njit_without_refcounts(function, cache=True, nogil=True, inline="always")


__all__ = ["njit", "kernel", "inline_kernel", "array", "types", "typeof", "Dispatcher", "prefetch", "shared_read",
           "BRAIN_CACHE_DIR", "BoolArray", "Int8Array", "UInt8Array", "Int32Array", "Int64Array", "Float32Array"]
