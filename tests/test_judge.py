"""Monte under the Gomocup judge's rules (``lab.judge``): stopped between moves, its process tree's memory added up
after each, nothing of it running while it is stopped, nothing left after END -- from an empty cache, where it
compiles in child processes (``brain.compile_child``, ``brain.loading``).

Only the judge's own limits are checked: a move within 1000 ms + min(time_left, timeout_turn) of the resume, the
tree's USS under max_memory. The CPU its descendants use while it is stopped is held to 0.25 s a stretch (the issue's
bound; the follow thread looks every 10 ms).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
from tournament_support import wait_for

from monte.brain import kernels, loading
from monte.brain.proctree import cpu_seconds, descendants, is_gone, is_stopped, tree_uss_bytes, uss_bytes
from monte.lab.judge import play

MAX_MEMORY = 350 * 2**20
STOPPED_CPU_S = 0.25


@pytest.fixture
def held():
    """The referee's rules interpreted in this process, as in a brain that is compiling: no compile here."""
    kernels.hold()
    yield
    kernels.release()


def test_a_brain_on_an_empty_cache_keeps_the_judges_rules_while_it_compiles(pbrain_executable, tmp_path, held):
    env = {**os.environ, "MONTE_CACHE_DIR": str(tmp_path)}
    run = play([pbrain_executable], 10, env, timeout_turn_ms=1000, max_memory=MAX_MEMORY)  # late: TimeoutError
    assert len(run.moves) == 10
    assert any(move.descendants for move in run.moves)  # a compile child ran: what is being checked
    worst = max(run.moves, key=lambda move: move.tree_uss)
    assert worst.tree_uss < MAX_MEMORY, worst
    assert max(move.stopped_cpu for move in run.moves) <= STOPPED_CPU_S, run.moves
    assert run.exit_status == 0 and run.survivors == []


FOLLOWER = r"""
import os
from monte.brain.compile_child import die_with_parent, follow_parent_stops
assert die_with_parent(os.getppid())
follow_parent_stops(os.getppid())
while True:
    pass  # a compile's CPU
"""
PARENT = r"""
import subprocess, sys
child = subprocess.Popen([sys.executable, "-c", sys.argv[1]])
print(child.pid, flush=True)
child.wait()
"""


def test_a_compile_child_stops_while_its_parent_is_stopped_and_dies_with_it():
    parent = subprocess.Popen([sys.executable, "-c", PARENT, FOLLOWER], stdout=subprocess.PIPE, text=True)
    child = int(parent.stdout.readline())
    try:
        wait_for(lambda: cpu_seconds(child) > 0.05, "the child to run")
        os.kill(parent.pid, signal.SIGSTOP)
        wait_for(lambda: is_stopped(child), "the child to stop with its parent")
        before = cpu_seconds(child)
        time.sleep(0.5)
        assert cpu_seconds(child) == before
        os.kill(child, signal.SIGCONT)  # what brain.loading does whenever it runs; the parent is still stopped...
        wait_for(lambda: is_stopped(child), "the child to stop again")  # ...so it stops again
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait()
        wait_for(lambda: is_gone(child), "the child to die with its parent")
    finally:
        if not is_gone(child):
            os.kill(child, signal.SIGKILL)
        parent.kill()
        parent.wait()


def test_a_compile_child_over_the_memory_cap_is_killed_and_one_that_adds_nothing_ends_the_compile():
    with pytest.raises(MemoryError, match="within the memory limit"):
        loading.compile_in_children(lambda: 1)  # 1 byte: killed at the loader's first look
    wait_for(lambda: all(is_gone(pid) for pid in descendants(os.getpid())), "no child left")


def test_the_judges_memory_figure_adds_up_the_unique_memory_of_a_process_and_its_descendants():
    child = subprocess.Popen([sys.executable, "-c", "import time; x = bytearray(64 * 2**20); time.sleep(60)"])
    try:
        wait_for(lambda: uss_bytes(child.pid) > 64 * 2**20, "the child's 64 MiB")
        assert child.pid in descendants(os.getpid())
        assert tree_uss_bytes(os.getpid()) >= uss_bytes(os.getpid()) + 64 * 2**20
    finally:
        child.kill()
        child.wait()
