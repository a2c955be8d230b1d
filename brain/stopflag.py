"""The stop flag of a move: set by YXSTOP, END or the end of input, it stops the searches linked to it at once.

It lives apart from ``brain.limits`` (the compiled side of search limits) so that the protocol can make and set
flags without loading numba: ``pbrain-monte`` answers ``START`` before its compiled code is loaded.
"""

from __future__ import annotations

import threading

import numpy as np

STOP_SLOT = 0
"""The slot of a search's limits array (``brain.limits``) that a set flag writes 1 into."""


class StopFlag(threading.Event):
    """A ``threading.Event`` (YXSTOP and END set it; anyone may wait on it) that also stops the searches linked to it:
    ``set`` writes the stop slot of every linked limits array, so a running kernel sees it at its next node."""

    def __init__(self) -> None:
        super().__init__()
        self._links_lock = threading.Lock()
        self._linked: list[np.ndarray] = []

    def set(self) -> None:
        with self._links_lock:
            super().set()
            for limits in self._linked:
                limits[STOP_SLOT] = 1

    def link(self, limits: np.ndarray) -> None:
        """Stop `limits` when this flag is set (at once if it is set already)."""
        with self._links_lock:
            self._linked.append(limits)
            if self.is_set():
                limits[STOP_SLOT] = 1

    def unlink(self, limits: np.ndarray) -> None:
        """Forget `limits` (its search is over)."""
        with self._links_lock:
            self._linked = [linked for linked in self._linked if linked is not limits]
