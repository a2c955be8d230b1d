"""The memory budget: how many bytes of search tree fit under the manager's ``max_memory`` for the whole process.

The tree is the only thing that grows; everything else (Python, numpy, numba and its compiled code, the rules'
tables, the threat searches' tables) is already resident when the tree is allocated, so the tree gets what is left
of the limit after a reserve. The tree holds itself to that budget (``brain.tree``: it reclaims rather than grow past
it), so the process's peak is about its RSS when the tree was sized + the budget + what a think adds besides the
tree.

The reserve is measured, not guessed: a 30 s think with a 512 KiB tree, which leaves the RSS growth to everything
but the tree, grew the process by 2.4-2.5 MiB in process (``brain.thinkprofile``) and by 1.9 MiB over the pipes
(``lab.longthink``: VmHWM against the RSS when the move was asked for), on two balanced openings at commit 8a82c83.
The reserve is six times that, plus a small share of the limit for the allocator's slack.
"""

from __future__ import annotations

import os

DEFAULT_TREE_BYTES = 256 * 1024 * 1024  # with no limit (max_memory 0): a budget like the one 350 MB leaves, and more
MIN_TREE_BYTES = 512 * 1024              # a limit too tight for anything still gets a small tree
RESERVE_BYTES = 16 * 1024 * 1024         # what a think adds besides its tree, several times over (see above)
RESERVE_SHARE = 0.02                     # of the limit: the allocator's slack
MARGIN_BYTES = 48 * 1024 * 1024
"""What ``brain.loading`` keeps below ``max_memory`` while child processes compile (their memory is polled, so a
compile may grow past the last reading before the next)."""


def resident_bytes() -> int:
    """This process's resident set size now (Linux /proc; 0 where unknown)."""
    try:
        with open("/proc/self/statm") as f:
            pages = int(f.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def reserve_bytes(max_memory: int) -> int:
    """What a process limited to `max_memory` bytes keeps out of its tree (see the module docstring)."""
    return RESERVE_BYTES + int(RESERVE_SHARE * max_memory)


def tree_bytes(max_memory: int, resident: int | None = None) -> int:
    """The bytes a tree may take when the process must stay under `max_memory` bytes (0 = no limit: the default).
    `resident` defaults to the current RSS."""
    if max_memory <= 0:
        return DEFAULT_TREE_BYTES
    resident = resident_bytes() if resident is None else resident
    return max(MIN_TREE_BYTES, max_memory - resident - reserve_bytes(max_memory))
