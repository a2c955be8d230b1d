"""The memory limit of the INSTALLED ``pbrain-monte --engine mcts``, measured from outside the way a manager measures
it: from /proc, while the brain answers move requests over pipes. (Its clock, path by path: test_pbrain_clock.py.)

The brain plays against the one-ply greedy baseline, run here in the test, so that games get tactical (fours, threes,
forced replies) rather than staying quiet. When a game ends a new one starts on the same process with ``START``,
as c-gomoku-cli does.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from pexpect.popen_spawn import PopenSpawn

from monte.brain.baselines import GreedyPlayer
from monte.brain.board import MOVE_WINS, Board
from monte.protocol.client import LOAD_BEFORE_OK
from monte.brain.player import ThinkLimits

pytestmark = pytest.mark.filterwarnings("ignore:setDaemon:DeprecationWarning")  # inside pexpect 4.8

SIZE = 15
REPLY_S = 20.0            # how long to wait for any reply before calling the brain hung (not a speed assertion)
TIME_LEFT_MS = 1_000_000  # a match clock far larger than the turn limit: timeout_turn is what binds

MEMORY_TURN_MS = 500
MEMORY_MOVES = 8
MEMORY_HEADROOM = 32 * 1024 * 1024
"""``max_memory`` is set this far above the brain's RSS at start-up (interpreter and imports, measured before START):
room to load the compiled search and keep a small tree, not room for a tree sized before the limit was known."""

MOVE = re.compile(r"^(\d+),(\d+)$")


class Manager:
    """The manager's side of one ``pbrain-monte`` process: requests, timed answers, and its memory from /proc."""

    def __init__(self, executable: str, stderr_path: Path) -> None:
        def stderr_to_file() -> None:  # runs in the child between fork and exec
            fd = os.open(stderr_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(fd, 2)
            os.close(fd)

        self.child = PopenSpawn([executable, "--engine", "mcts"], timeout=REPLY_S, encoding="utf-8",
                                preexec_fn=stderr_to_file, env={**os.environ, LOAD_BEFORE_OK: "1"})

    @property
    def pid(self) -> int:
        return self.child.proc.pid

    def send(self, *lines: str) -> None:
        for line in lines:
            self.child.send(line + "\n")

    def answer(self) -> str:
        """The next line that is not a MESSAGE."""
        while True:
            self.child.expect("\n")
            line = self.child.before.rstrip("\r")
            if not line.startswith("MESSAGE "):
                return line

    def timed_move(self, request: str) -> tuple[tuple[int, int], float]:
        """Send a move request; the move and the seconds from writing the request to reading the move."""
        started = time.monotonic()
        self.send(request)
        line = self.answer()
        elapsed = time.monotonic() - started
        match = MOVE.match(line)
        assert match, f"expected a move after {request!r}, got {line!r}"
        return (int(match.group(1)), int(match.group(2))), elapsed

    def memory_kib(self, field: str) -> int:
        """A /proc memory field (VmRSS, VmHWM) in KiB, summed over the brain and any processes it started."""
        return sum(status_kib(pid, field) for pid in process_tree(self.pid))

    def close(self) -> None:
        if self.child.proc.poll() is None:
            self.send("END")
            try:
                self.child.proc.wait(REPLY_S)
            except subprocess.TimeoutExpired:
                self.child.proc.kill()
                self.child.proc.wait(REPLY_S)


def process_tree(pid: int) -> list[int]:
    """`pid` and all its descendants (Linux /proc). A thread or process that ends while it is read (the brain's
    loader threads and compile children come and go) is passed over."""
    found = [pid]
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except FileNotFoundError:
        return found
    for task in tasks:
        try:
            children = (task / "children").read_text().split()
        except FileNotFoundError:
            continue
        for child in children:
            found += process_tree(int(child))
    return found


def status_kib(pid: int, field: str) -> int:
    """One ``kB`` field of /proc/PID/status."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise KeyError(f"{field} not in /proc/{pid}/status")


@pytest.fixture
def manager(warm_pbrain: str, tmp_path: Path) -> Iterator[Manager]:
    """A fresh ``pbrain-monte --engine mcts`` (compiled code already cached by ``warm_pbrain``), ended afterwards."""
    m = Manager(warm_pbrain, tmp_path / "stderr.txt")
    yield m
    m.close()


def brain_moves(m: Manager, turn_ms: int, count: int, settings: tuple[str, ...] = ()) -> Iterator[float]:
    """Play games (the brain black, greedy white) until the brain has answered `count` move requests; yield the
    seconds each took. Every answer must be a legal move."""
    opponent = GreedyPlayer()
    answered = 0
    while answered < count:
        m.send(f"START {SIZE}")
        assert m.answer() == "OK"
        m.send(f"INFO timeout_turn {turn_ms}", f"INFO timeout_match {TIME_LEFT_MS}", *settings)
        board = Board(SIZE)
        request = "BEGIN"
        while answered < count:
            m.send(f"INFO time_left {TIME_LEFT_MS}")
            (x, y), seconds = m.timed_move(request)
            answered += 1
            yield seconds
            assert board.is_empty(x, y), f"{x},{y} is not an empty cell"
            if board.play(x, y) == MOVE_WINS or board.is_full():
                break
            reply = opponent.choose(board, ThinkLimits.seconds(1.0))
            if board.play(reply.x, reply.y) == MOVE_WINS or board.is_full():
                break
            request = f"TURN {reply.x},{reply.y}"


@pytest.mark.parametrize("threads", [1, 2])
def test_peak_memory_stays_under_a_max_memory_just_above_start_up_rss(manager, threads):
    manager.send("START 15")
    assert manager.answer() == "OK"  # the engine loaded (before OK: LOAD_BEFORE_OK), no move played yet
    start_up = manager.memory_kib("VmRSS") * 1024
    limit = start_up + MEMORY_HEADROOM
    settings = (f"INFO max_memory {limit}", f"INFO thread_num {threads}")
    for _ in brain_moves(manager, MEMORY_TURN_MS, MEMORY_MOVES, settings):
        pass
    peak = manager.memory_kib("VmHWM") * 1024
    assert peak < limit, (f"peak RSS {peak / 2**20:.1f} MiB is over max_memory {limit / 2**20:.1f} MiB "
                          f"(start-up RSS {start_up / 2**20:.1f} MiB)")


FILL_HEADROOM = 64 * 1024 * 1024
"""``max_memory`` this far above the loaded brain's RSS gives the tree about 40 MiB (it got 512 KiB when the tree's
reserve was 48 MiB and a tenth of the limit)."""
FILL_NODES = 1_500_000  # iterations enough to fill a 40 MiB tree more than once (about 200 bytes an iteration)
TREE = re.compile(r"tree (\d+)%")


def test_a_think_that_fills_its_tree_stays_under_max_memory(manager):
    """The tree takes what the limit leaves and no more: one think, bounded by its node count, that fills the tree
    and reclaims it (its fill falls between two reports) peaks above what the old reserve let it grow, under the
    limit."""
    manager.send("START 15")
    assert manager.answer() == "OK"
    start_up = manager.memory_kib("VmRSS") * 1024
    limit = start_up + FILL_HEADROOM
    manager.send(f"INFO max_memory {limit}", "INFO timeout_turn 3600000", f"INFO timeout_match {TIME_LEFT_MS}",
                 f"INFO max_node {FILL_NODES}", "BOARD", "7,5,2", "6,8,1", "5,9,2", "DONE")
    fills = []
    while True:
        manager.child.expect("\n")
        line = manager.child.before.rstrip("\r")
        if not line.startswith("MESSAGE"):
            break
        match = TREE.search(line)
        if match:
            fills.append(int(match[1]))
    assert MOVE.match(line), f"expected a move, got {line!r}"
    assert any(later < before for before, later in zip(fills, fills[1:])), f"the tree never filled: {fills}"
    peak = manager.memory_kib("VmHWM") * 1024
    assert peak < limit, f"peak RSS {peak / 2**20:.1f} MiB is over max_memory {limit / 2**20:.1f} MiB"
    assert peak - start_up > FILL_HEADROOM / 3  # the tree got much of the room (512 KiB with the old reserve)
