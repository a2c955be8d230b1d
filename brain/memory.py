"""The memory budget: how many bytes of search tree fit under the manager's ``max_memory`` for the whole process.

The tree is the only thing that grows; everything else (Python, numpy, numba and its compiled code) is already
resident when the tree is allocated, so the tree gets what is left of the limit after a safety margin. The tree
holds itself to that budget (``brain.tree``: it reclaims rather than grow past it).
"""

from __future__ import annotations

import os

DEFAULT_TREE_BYTES = 256 * 1024 * 1024  # with no limit (max_memory 0): a budget like the one 350 MB leaves, and more
MIN_TREE_BYTES = 512 * 1024              # a limit too tight for anything still gets a small tree
MARGIN_BYTES = 48 * 1024 * 1024  # transient arrays, VCF tables, interpreter growth, allocator slack
MARGIN_SHARE = 0.1


def resident_bytes() -> int:
    """This process's resident set size now (Linux /proc; 0 where unknown)."""
    try:
        with open("/proc/self/statm") as f:
            pages = int(f.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def tree_bytes(max_memory: int, resident: int | None = None) -> int:
    """The bytes a tree may take when the process must stay under `max_memory` bytes (0 = no limit: the default).
    `resident` defaults to the current RSS."""
    if max_memory <= 0:
        return DEFAULT_TREE_BYTES
    resident = resident_bytes() if resident is None else resident
    return max(MIN_TREE_BYTES, max_memory - resident - MARGIN_BYTES - int(MARGIN_SHARE * max_memory))

