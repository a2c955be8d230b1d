"""A compile child: a process that compiles the brain's kernels into the cache for its parent brain
(``brain.loading``) and behaves as a part of it under the Gomocup judge.

The judge stops and resumes the brain's own process only, and scores the brain by the memory of its whole process
tree. So a compile child
- stops when its parent is stopped: a thread looks at the parent's state (``/proc/PPID/stat``) every
  FOLLOW_SECONDS and stops the child (``SIGSTOP`` to itself) when the parent is stopped; the parent, whenever it
  runs, resumes it (``brain.loading`` sends ``SIGCONT`` at every look it takes);
- dies with its parent (``PR_SET_PDEATHSIG``): nothing of the brain outlives it, END included;
- leaves its memory to its parent to watch: the parent kills it when the tree gets too big. What it had compiled
  stays (numba writes each function's cache files whole as soon as that function is compiled), so the next child
  goes on from there with less to hold.

This module imports no numba before the thread runs: a child started just before the judge stops the brain stops
within FOLLOW_SECONDS, not after the seconds numba takes to import. It needs Linux's /proc and prctl; elsewhere the
child compiles without following its parent.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time

from monte.brain.proctree import is_stopped

FOLLOW_SECONDS = 0.01
"""How often the child looks at its parent's state: at most this much of its CPU time falls in a stopped stretch."""
PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int) -> bool:
    """Ask the kernel to kill this process when its parent dies; False (and nothing asked) where it cannot, or when
    the parent is already gone."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
            return False
    except (OSError, AttributeError):
        return False
    return os.getppid() == parent  # the parent may have died before the request: then nobody would tell us


def follow_parent_stops(parent: int) -> threading.Thread:
    """Start the thread that stops this process whenever `parent` is stopped (see the module docstring)."""

    def follow() -> None:
        me = os.getpid()
        while True:
            if is_stopped(parent):
                os.kill(me, signal.SIGSTOP)  # the parent resumes us when it runs again
            time.sleep(FOLLOW_SECONDS)

    thread = threading.Thread(target=follow, name="follow-parent", daemon=True)
    thread.start()
    return thread


def main(parent: int) -> int:
    """Compile every kernel for `parent` into the cache (``brain.warmup``), as a part of it; the exit status."""
    if sys.platform.startswith("linux"):
        if not die_with_parent(parent):
            return 1
        follow_parent_stops(parent)
    from monte.brain import warmup  # numba loads here, with the thread already watching

    warmup.warm_up()
    return 0


if __name__ == "__main__":  # python -m monte.brain.compile_child PARENT_PID (brain.loading)
    sys.exit(main(int(sys.argv[1])))
