"""The Gomocup judge's way with a brain, played here: ``START`` and the ``INFO`` lines, then the brain's process
stopped at once without waiting for ``OK``; for each move ``INFO time_left`` and ``TURN``/``BOARD`` written, the
process resumed, the move awaited (1000 ms + min(time_left, timeout_turn) from the resume, the judge's limit),
the memory of the whole process tree added up (USS, ``brain.proctree``) and the process stopped again while the
opponent thinks. GomocupJudge's client works this way (read from its source); it stops and resumes the brain's own
process only, never its children.

On top of what the judge checks, this stand-in records the CPU time the brain's descendants use in every stopped
stretch (the judge cannot see it: Gomocup forbids thinking on the opponent's time), and who of the brain is still
alive 2 s after ``END``. The opponent is the quick player (``brain.quick``, interpreted: no compiled code in this
process); a game that ends goes on as a new one (``RESTART``) in the same process, which the judge would start
anew: the point is the brain's first moves after its start, cold cache included.
"""

from __future__ import annotations

import os
import queue
import signal
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from monte.brain.board import MOVE_WINS, Board
from monte.brain.player import ThinkLimits
from monte.brain.proctree import cpu_seconds, descendants, is_gone, tree_uss_bytes
from monte.brain.quick import QuickPlayer
from monte.lab.clockcheck import PipeBrain

TOLERANCE_MS = 1000
"""What the judge forgives on top of a move's limit."""
OPPONENT_SECONDS = 0.3
"""The opponent's think: the stretch the brain stays stopped between two moves."""
AFTER_END_S = 2.0
"""How long after END nothing of the brain may be left."""


@dataclass
class JudgedMove:
    """One move as the judge saw it."""

    number: int
    ms: float
    """From the resume to the answer."""
    limit_ms: int
    """The judge's limit: TOLERANCE_MS + min(time_left, timeout_turn)."""
    tree_uss: int
    """Bytes: the brain's and its descendants' USS after the move."""
    descendants: int
    """How many descendants the brain had after the move."""
    stopped_cpu: float
    """CPU seconds the descendants used in the stopped stretch before this move."""
    message: str
    """The move's last MESSAGE line (``quick: ...`` or the engine's search line)."""


@dataclass
class JudgedRun:
    """A run of moves: each move, and who of the brain outlived it."""

    moves: list[JudgedMove] = field(default_factory=list)
    survivors: list[int] = field(default_factory=list)
    """Processes of the brain alive AFTER_END_S after END."""
    exit_status: int | None = None


class SuspendingJudge:
    """One brain process run the judge's way (see the module docstring)."""

    def __init__(self, command: Sequence[str], env: Mapping[str, str] | None = None, size: int = 15,
                 timeout_turn_ms: int = 2000, timeout_match_ms: int = 1_000_000, max_memory: int = 350 * 2**20,
                 rule: int = 0) -> None:
        self.size, self.rule = size, rule
        self.timeout_turn_ms, self.time_left_ms, self.max_memory = timeout_turn_ms, timeout_match_ms, max_memory
        self.brain = PipeBrain(command, env)
        self.pid = self.brain.process.pid
        self.seen: set[int] = set()
        """Every descendant of the brain seen so far."""
        self.run = JudgedRun()
        self.brain.send(f"START {size}", f"INFO timeout_turn {timeout_turn_ms}",
                        f"INFO timeout_match {timeout_match_ms}", f"INFO max_memory {max_memory}",
                        "INFO game_type 1", f"INFO rule {rule}", "INFO folder .")
        self._stop()

    def _members(self) -> list[int]:
        found = descendants(self.pid)
        self.seen.update(found)
        return found

    def _descendants_cpu(self) -> dict[int, float]:
        return {pid: cpu_seconds(pid) for pid in self._members()}

    def _stop(self) -> None:
        os.kill(self.pid, signal.SIGSTOP)
        self._stopped_cpu = self._descendants_cpu()

    def move(self, request: Sequence[str]) -> tuple[int, int]:
        """Write ``INFO time_left`` and `request` to the stopped brain, resume it, wait for its move, weigh the tree
        and stop it again; its move. TimeoutError when it does not answer within the judge's limit."""
        resumed_cpu = self._descendants_cpu()
        stopped_cpu = sum(max(0.0, cpu - self._stopped_cpu.get(pid, 0.0)) for pid, cpu in resumed_cpu.items())
        limit_ms = TOLERANCE_MS + min(self.time_left_ms, self.timeout_turn_ms)
        self.brain.send(f"INFO time_left {self.time_left_ms}", *request)
        os.kill(self.pid, signal.SIGCONT)
        started = time.monotonic()
        move = None
        while move is None:
            try:
                stamp, line = self.brain.answer(max(0.0, started + limit_ms / 1000 - time.monotonic()))
            except queue.Empty:
                raise TimeoutError(f"move {len(self.run.moves) + 1}: no answer within {limit_ms} ms") from None
            words = line.split(",")
            if len(words) == 2 and all(word.strip().lstrip("-").isdigit() for word in words):
                move = int(words[0]), int(words[1])
        ms = (stamp - started) * 1000
        self.time_left_ms -= int(ms)
        members = self._members()
        self.run.moves.append(JudgedMove(len(self.run.moves) + 1, ms, limit_ms, tree_uss_bytes(self.pid, members),
                                         len(members), stopped_cpu, (self.brain.messages or [""])[-1]))
        self._stop()
        return move

    def end(self) -> JudgedRun:
        """Resume the brain, send END, and note who of it is alive AFTER_END_S later (then kill them)."""
        self._members()
        os.kill(self.pid, signal.SIGCONT)
        self.brain.send("END")
        time.sleep(AFTER_END_S)
        self.run.exit_status = self.brain.process.poll()
        self.run.survivors = [pid for pid in [self.pid, *sorted(self.seen)] if _alive(pid, self.brain.process)]
        for pid in self.run.survivors:
            os.kill(pid, signal.SIGKILL)
        self.brain.process.wait()
        return self.run

    def kill(self) -> None:
        """Kill the brain and every descendant seen (after a failure)."""
        for pid in [self.pid, *self._members(), *self.seen]:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.brain.process.wait()


def _alive(pid: int, brain_process) -> bool:
    """Whether `pid` lives (the brain, our child, is alive until it exits: its exit status is read)."""
    if pid == brain_process.pid:
        return brain_process.poll() is None
    return not is_gone(pid)


def play(command: Sequence[str], moves: int, env: Mapping[str, str] | None = None, **options) -> JudgedRun:
    """`moves` moves of the brain run by `command` against the quick player, the judge's way (see the module
    docstring); the brain is black in every game (its first move answers an empty ``BOARD``)."""
    judge = SuspendingJudge(command, env, **options)
    opponent = QuickPlayer()
    board = None
    try:
        while len(judge.run.moves) < moves:
            if board is None:
                board = Board(judge.size, rule=judge.rule)
                request = ["BOARD", "DONE"] if not judge.run.moves else ["RESTART", "BOARD", "DONE"]
            x, y = judge.move(request)
            if board.play(x, y) == MOVE_WINS or board.is_full():
                board = None
                continue
            reply = opponent.choose(board, ThinkLimits.seconds(OPPONENT_SECONDS))
            if board.play(reply.x, reply.y) == MOVE_WINS or board.is_full():
                board = None
                continue
            request = [f"TURN {reply.x},{reply.y}"]
    except BaseException:
        judge.kill()
        raise
    return judge.end()

