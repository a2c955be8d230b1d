"""A process and its descendants as the Gomocup judge sees them: their unique memory (USS), their CPU time, their
stop state -- read from Linux's /proc, without psutil.

The judge adds up the USS of the brain and of every descendant after each move and scores a total over
``max_memory`` as a crash; it stops and resumes the brain's own process only (``SIGSTOP``/``SIGCONT``). The brain
reads these figures to keep its compile children inside its memory (``brain.loading``) and to stop them while it is
stopped itself (``brain.compile_child``); the judge's stand-in (``lab.judge``) reads them to check both.
Everywhere else (no /proc) every figure is 0 and no process is ever seen stopped.
"""

from __future__ import annotations

import os
import time

PROC = "/proc"
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _stat_fields(pid: int) -> list[str]:
    """The fields of /proc/PID/stat after the command name (which may hold spaces): state first; [] when gone."""
    try:
        with open(f"{PROC}/{pid}/stat", "rb") as stat:
            text = stat.read().decode("ascii", "replace")
    except OSError:
        return []
    return text[text.rfind(")") + 2:].split()


def state(pid: int) -> str:
    """The state letter of `pid` (R running, S sleeping, T stopped, Z dead but not yet reaped, ...); "" when gone."""
    fields = _stat_fields(pid)
    return fields[0] if fields else ""


def is_stopped(pid: int) -> bool:
    """Whether `pid` is stopped by a signal (state T), as a process the judge suspended is."""
    return state(pid) == "T"


def is_gone(pid: int) -> bool:
    """Whether `pid` has ended (reaped, or dead and waiting to be)."""
    return state(pid) in ("", "Z")


def cpu_seconds(pid: int) -> float:
    """The CPU time (user + system) `pid` has used so far; 0 when it is gone."""
    fields = _stat_fields(pid)
    return (int(fields[11]) + int(fields[12])) / _TICKS if len(fields) > 12 else 0.0


def age_seconds(pid: int) -> float:
    """How long ago `pid` started (its start time since boot, against the boot-time clock); 0 when unknown."""
    fields = _stat_fields(pid)
    if len(fields) <= 19 or not hasattr(time, "CLOCK_BOOTTIME"):
        return 0.0
    return max(0.0, time.clock_gettime(time.CLOCK_BOOTTIME) - int(fields[19]) / _TICKS)


def uss_bytes(pid: int) -> int:
    """The unique set size of `pid`: the memory only it maps (Private_* of smaps_rollup, as psutil's ``uss``); 0
    when it is gone or unreadable."""
    total = 0
    try:
        with open(f"{PROC}/{pid}/smaps_rollup", encoding="ascii") as rollup:
            for line in rollup:
                if line.startswith("Private_"):
                    total += int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return 0
    return total


def descendants(pid: int) -> list[int]:
    """Every living descendant of `pid` (children, their children, ...), read from the parent field of every
    process."""
    children: dict[int, list[int]] = {}
    try:
        entries = os.listdir(PROC)
    except OSError:
        return []
    for entry in entries:
        if entry.isdigit():
            fields = _stat_fields(int(entry))
            if len(fields) > 1:
                children.setdefault(int(fields[1]), []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def tree_uss_bytes(pid: int, members: list[int] | None = None) -> int:
    """The judge's memory figure: the USS of `pid` and of its descendants (or of `members`, when the caller knows
    them) added up."""
    return sum(uss_bytes(member) for member in [pid, *(descendants(pid) if members is None else members)])
