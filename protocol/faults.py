"""How a brain can fail a request, as values: the manager side turns every failure into one `BrainFault`.

A tournament must credit a game to the right side and say why, so a crash, a hang, a garbage line and a bad move are
distinct `Fault` values rather than assorted exceptions (`BrokenPipeError`, `queue.Empty`, ...) leaking out of the
transport.
"""

from __future__ import annotations

import enum
import signal

__all__ = ["Fault", "BrainFault", "describe_exit"]


class Fault(enum.Enum):
    """Every way a brain can fail a request; the value is the short reason a results table shows."""

    CRASH = "crash"
    """The process exited, closed its output, or could not be started or written to."""
    TIMEOUT = "time"
    """No answer by the deadline; the client has already killed the brain."""
    GARBAGE = "garbage"
    """A line that is neither the answer nor MESSAGE/DEBUG/SUGGEST/OK (only under the "forfeit" garbage policy)."""
    ILLEGAL = "illegal"
    """A move onto an occupied cell."""
    OFF_BOARD = "off-board"
    """A move outside the board."""
    ERROR = "error"
    """The brain answered ERROR (e.g. to START) or UNKNOWN where an answer was owed."""


class BrainFault(Exception):
    """A brain failed a request: which way (`fault`), what was seen (`detail`), and after how long (`elapsed_ms`).

    `elapsed_ms` is the time from just before the request was written to the moment the fault was seen, or None
    when no request was timed (e.g. the program could not be started).
    """

    def __init__(self, fault: Fault, detail: str, elapsed_ms: float | None = None) -> None:
        self.fault = fault
        self.detail = detail
        self.elapsed_ms = elapsed_ms
        super().__init__(fault, detail, elapsed_ms)

    def __str__(self) -> str:
        when = "" if self.elapsed_ms is None else f" (after {self.elapsed_ms:.0f} ms)"
        return f"{self.fault.value}: {self.detail}{when}"


def describe_exit(returncode: int | None) -> str:
    """Say how a process ended, in words: "exited with code 3", "killed by SIGKILL", or "still running"."""
    if returncode is None:
        return "still running"
    if returncode >= 0:
        return f"exited with code {returncode}"
    try:
        name = signal.Signals(-returncode).name
    except ValueError:
        name = f"signal {-returncode}"
    return f"killed by {name}"
