"""One set of search limits for every compiled search: a stop flag, a node count and a node budget.

They live in one small int64 array that every search kernel (MCTS, VCF, VCT) takes as its last argument and checks
at every node with ``charge``. The kernels do not hold the GIL (``brain.jit``), so Python threads can write the stop
slot while a kernel runs and the kernel sees it at its next node: a timer thread at the move's hard deadline, and the
protocol's reader thread through a ``StopFlag`` (YXSTOP, END, the end of input). A search that is cut returns what it
has so far, exactly as when its own node budget runs out.

``SearchLimits`` gives one move's search its array, its deadline timer and its clock. With a node budget
(``ThinkLimits.max_nodes``, ``INFO max_node``) that clock counts nodes, not seconds, so that the same position and
budget give the same move whatever the machine's load (see ``SearchLimits``).
"""

from __future__ import annotations

import threading
import time
from types import TracebackType
from typing import TYPE_CHECKING

import numpy as np

from monte.brain.jit import Int64Array, kernel, shared_read
from monte.brain.stopflag import STOP_SLOT

if TYPE_CHECKING:
    from monte.brain.player import ThinkLimits

# slots of a limits array
L_STOP = STOP_SLOT  # nonzero: stop now (what a StopFlag writes)
L_NODES = 1       # nodes searched so far
L_MAX_NODES = 2   # stop once L_NODES reaches this
LIMITS_SLOTS = 4

NO_NODE_LIMIT = 1 << 62
NODES_PER_VIRTUAL_SECOND = 100_000
"""Under a node budget the move's clock reads ``nodes / NODES_PER_VIRTUAL_SECOND`` seconds: about Monte's search
speed on 15x15 here, so that a stage given a share of the move's time gets a like share of its nodes."""


def new_limits(max_nodes: int = 0) -> np.ndarray:
    """A limits array: not stopped, no node counted, a budget of `max_nodes` (0: no budget)."""
    limits = np.zeros(LIMITS_SLOTS, dtype=np.int64)
    limits[L_MAX_NODES] = max_nodes if max_nodes > 0 else NO_NODE_LIMIT
    return limits


@kernel
def charge(limits: Int64Array) -> bool:
    """Whether the search must stop now (stopped, or the node budget is spent); if not, count the node it is about
    to search. A few loads and a store: cheap enough for every node of every search. The stop slot, which another
    thread writes, is read with ``shared_read``: anew at every node, never once for a whole loop."""
    if shared_read(limits, L_STOP) != 0 or limits[L_NODES] >= limits[L_MAX_NODES]:
        return True
    limits[L_NODES] += 1
    return False


class SearchLimits:
    """The limits of one move's search, used as a context manager around it: the array the kernels poll (``array``),
    linked to the move's ``StopFlag`` and stopped by a timer at the hard deadline; and the move's clock.

    Without a node budget the clock is ``time.monotonic()`` and the deadlines are the ``ThinkLimits`` ones. With one,
    the clock reads the nodes searched (``NODES_PER_VIRTUAL_SECOND``) from the move's start and both deadlines are
    where the budget ends: every decision the player takes by the clock -- how many nodes a stage gets, whether the
    choice is settled -- then depends on the position alone. The real hard deadline still stops the search (the
    timer), so a node budget never makes a move late.
    """

    def __init__(self, think: "ThinkLimits") -> None:
        self.think = think
        self.array = new_limits(think.max_nodes)
        self.started = time.monotonic()
        self._timer: threading.Timer | None = None
        if think.max_nodes > 0:
            self.soft_deadline = self.hard_deadline = self.started + think.max_nodes / NODES_PER_VIRTUAL_SECOND
        else:
            self.soft_deadline, self.hard_deadline = think.soft_deadline, think.hard_deadline

    def __enter__(self) -> "SearchLimits":
        self.think.stop.link(self.array)
        delay = self.think.hard_deadline - time.monotonic()
        if delay <= 0:
            self.array[L_STOP] = 1
        else:
            self._timer = threading.Timer(delay, self._expire)
            self._timer.daemon = True
            self._timer.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self.think.stop.unlink(self.array)

    def _expire(self) -> None:
        self.array[L_STOP] = 1

    @property
    def nodes(self) -> int:
        """Nodes searched so far in this move."""
        return int(self.array[L_NODES])

    def now(self) -> float:
        """The move's clock (see the class docstring), comparable with ``soft_deadline`` and ``hard_deadline``."""
        if self.think.max_nodes > 0:
            return self.started + self.nodes / NODES_PER_VIRTUAL_SECOND
        return time.monotonic()

    def nodes_in(self, seconds: float, rate: float) -> int:
        """How many nodes of a search running at `rate` nodes a second fit in `seconds` of this move's clock: under a
        node budget the clock runs at NODES_PER_VIRTUAL_SECOND whatever the search, so a stage given a share of the
        time gets that share of the budget."""
        return int(seconds * (NODES_PER_VIRTUAL_SECOND if self.think.max_nodes > 0 else rate))

    def stopped(self) -> bool:
        """Whether the search was told to stop (YXSTOP, END, the real hard deadline) or spent its node budget."""
        return bool(self.array[L_STOP] != 0 or self.array[L_NODES] >= self.array[L_MAX_NODES])

    def expired(self) -> bool:
        """Whether the player must answer now."""
        return self.stopped() or time.monotonic() >= self.think.hard_deadline
