"""The memory budget: how many tree nodes fit under the manager's ``max_memory`` for the whole process.

The tree is the only thing that grows; everything else (Python, numpy, numba and its compiled code) is already
resident when the tree is allocated, so the tree gets what is left of the limit after a safety margin.
"""

from __future__ import annotations

import os

DEFAULT_NODES = 4_000_000       # with no limit: ~92 MB of tree, far more than a few seconds of search fills
MIN_NODES = 20_000
MAX_NODES = 16_000_000
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


def tree_capacity(max_memory: int, node_bytes: int, resident: int | None = None) -> int:
    """How many nodes of `node_bytes` the tree may hold when the process must stay under `max_memory` bytes
    (0 = no limit). `resident` defaults to the current RSS."""
    if max_memory <= 0:
        return DEFAULT_NODES
    resident = resident_bytes() if resident is None else resident
    free = max_memory - resident - MARGIN_BYTES - int(MARGIN_SHARE * max_memory)
    return max(MIN_NODES, min(MAX_NODES, DEFAULT_NODES, free // node_bytes))
