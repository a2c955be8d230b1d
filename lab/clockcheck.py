"""``monte clock``: how late a brain answers, path by path, measured over its pipes as a manager measures it.

Each *path* is one way a move (or an exit) is asked for -- the first move of a fresh process, a later move of a game,
``timeout_turn 0``, a small ``time_left``, a match clock, renju and caro, BOARD with field-3 stones, SWAP2BOARD with
0/3/5 stones, YXSTOP, END, a closed stdin -- and each is measured from writing the request's last line to reading the
answer's line (or to the process's exit), the way Piskvork and the Gomocup judge time a brain. The report gives, per
path, the limit the manager holds the brain to, the median and worst reply, and the worst lateness (reply minus
limit; negative means always early). The opponent in games is the greedy baseline, so games get tactical.

The tests run each path a few times against the installed ``pbrain-monte`` (tests/test_pbrain_clock.py); the
README's table is this command's output over 100 replies a path.
"""

from __future__ import annotations

import os
import queue
import random
import select
import statistics
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from monte.brain.baselines import GreedyPlayer
from monte.brain.bench import POSITIONS
from monte.brain.board import MOVE_WINS, Board
from monte.brain.player import ThinkLimits
from monte.protocol.client import line_kind

REPLY_S = 30.0
"""How long to wait for any answer before calling the brain hung (not a limit the brain is held to)."""
TURN_MS = 200
"""The per-move limit of the timed games."""
THINK_MS = 60_000
"""The per-move limit when the brain is to be stopped (YXSTOP, END, closed stdin): it must not answer by itself."""
STOP_AFTER_S = (0.05, 0.4)
"""A stop comes this long (drawn at random in the range) after the move request: in whichever stage it falls."""
SIZE = 15
MATCH_MS = 6_000
"""The match clock of the ``timeout_match`` path: short enough that it, not timeout_turn, binds."""
SMALL_TIME_LEFT_MS = 300
NO_LIMIT_MS = 2147483647

_BENCH_MOVES = POSITIONS["15x15 middle game"][1]
MIDDLE_GAME = [(x, y, 1 if (i - len(_BENCH_MOVES)) % 2 == 0 else 2) for i, (x, y) in enumerate(_BENCH_MOVES)]
"""``monte bench``'s 15x15 middle game as BOARD lines (field 1: the side to move's stones): no forced win for either
side in sight."""
SWAP2_STONES = {0: [], 3: [(0, 0), (7, 7), (10, 10)], 5: [(0, 0), (7, 7), (14, 14), (8, 8), (0, 14)]}
"""Openings on which Monte's SWAP2 answer searches (the 3-stone one for two stones, the 5-stone one for the 6th
move) rather than swapping at once."""


class PipeBrain:
    """One brain process on pipes: lines written, answers read with the time each was read."""

    def __init__(self, command: Sequence[str], env: Mapping[str, str] | None = None, own_group: bool = False) -> None:
        """Start `command` (with `env`, and in a process group of its own if `own_group`)."""
        self.process = subprocess.Popen(list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, env=env, start_new_session=own_group)
        self._lines: queue.Queue[tuple[float, str | None]] = queue.Queue()
        self.messages: list[str] = []
        """The MESSAGE lines that came with the last answer."""
        self._pidfd = os.pidfd_open(self.process.pid)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for raw in iter(self.process.stdout.readline, b""):
            self._lines.put((time.monotonic(), raw.decode("utf-8", errors="replace").strip()))
        self._lines.put((time.monotonic(), None))

    def send(self, *lines: str) -> float:
        """Write lines; the time just before the last one went out."""
        for line in lines[:-1]:
            self.process.stdin.write(line.encode() + b"\n")
        self.process.stdin.flush()
        sent = time.monotonic()
        self.process.stdin.write(lines[-1].encode() + b"\n")
        self.process.stdin.flush()
        return sent

    def answer(self, timeout: float = REPLY_S) -> tuple[float, str]:
        """The next line that is not MESSAGE or DEBUG, with the time it was read; queue.Empty after `timeout`
        seconds without one."""
        messages = []
        deadline = time.monotonic() + timeout
        while True:
            stamp, line = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
            if line is None:
                raise RuntimeError(f"the brain exited with status {self.process.wait()} instead of answering")
            if line_kind(line) != "chat":
                self.messages = messages
                return stamp, line
            if line.startswith("MESSAGE "):
                messages.append(line)

    def ask(self, *lines: str) -> tuple[str, float]:
        """Send a request; its answer and the milliseconds it took."""
        sent = self.send(*lines)
        stamp, line = self.answer()
        if stamp < sent:
            raise RuntimeError(f"the brain answered {line!r} before {lines[-1]!r} was sent")
        return line, (stamp - sent) * 1000

    def exit_ms(self, since: float) -> float:
        """Wait for the process to exit; milliseconds from `since`. (A process file descriptor becomes readable the
        moment it exits; ``Popen.wait`` with a timeout would poll in growing steps.)"""
        exited = select.select([self._pidfd], [], [], REPLY_S)[0]
        stamp = time.monotonic()
        if not exited:
            raise RuntimeError(f"the brain did not exit within {REPLY_S:.0f} s")
        self.process.wait(REPLY_S)
        return (stamp - since) * 1000

    def close_input(self) -> float:
        """Close the brain's stdin; the time it was closed."""
        closed = time.monotonic()
        self.process.stdin.close()
        return closed

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(REPLY_S)
        os.close(self._pidfd)


@dataclass
class PathResult:
    """The replies measured on one path, each with the limit it had (None: no limit, only a measure)."""

    name: str
    replies: list[tuple[float, float | None]]

    @property
    def worst(self) -> float:
        return max(ms for ms, _ in self.replies)

    @property
    def lateness(self) -> float | None:
        """The worst reply minus its limit, over the replies that had one."""
        late = [ms - limit for ms, limit in self.replies if limit is not None]
        return max(late) if late else None

    def row(self) -> str:
        limits = sorted({limit for _, limit in self.replies if limit is not None})
        shown = "-" if not limits else (f"{limits[0]:.0f}" if len(limits) == 1 else f"{limits[0]:.0f}-{limits[-1]:.0f}")
        lateness = "-" if self.lateness is None else f"{self.lateness:+.0f}"
        median = statistics.median(ms for ms, _ in self.replies)
        return f"| {self.name} | {shown} | {len(self.replies)} | {median:.0f} | {self.worst:.0f} | {lateness} |"


def game_replies(brain: PipeBrain, settings: Sequence[str], count: int, clock: Callable[[int], int] | None = None,
                 seed: int = 0) -> Iterator[tuple[str, float, int]]:
    """Play games (the brain first, the greedy baseline second; a new START after each) until the brain has
    answered `count` requests after the first of a game; yield (the request, its milliseconds, the time_left sent
    with it) for every request, the first of each game included.

    `clock(ms_used_this_game)` gives the ``INFO time_left`` to send before each request (none: no match clock);
    every game's first request is BEGIN and the greedy player's first reply is drawn at random."""
    rng = random.Random(seed)
    opponent = GreedyPlayer()
    answered = 0
    while answered < count:
        start(brain, *settings)
        board = Board(SIZE)
        request, used = "BEGIN", 0.0
        while answered < count:
            time_left = clock(int(used)) if clock else NO_LIMIT_MS
            brain.send(f"INFO time_left {time_left}")
            line, ms = brain.ask(request)
            used += ms
            if request != "BEGIN":
                answered += 1
            yield request, ms, time_left
            x, y = (int(v) for v in line.split(","))
            if board.play(x, y) == MOVE_WINS or board.is_full():
                break
            if board.stone_count == 1:
                reply = rng.choice([(x + dx, y + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy])
            else:
                choice = opponent.choose(board, ThinkLimits.seconds(1.0))
                reply = (choice.x, choice.y)
            if board.play(*reply) == MOVE_WINS or board.is_full():
                break
            request = f"TURN {reply[0]},{reply[1]}"


def start(brain: PipeBrain, *settings: str) -> None:
    """A new game (START) with the default settings but `settings` (INFO lines): whatever an earlier game of the
    process set is reset."""
    assert brain.ask(f"START {SIZE}")[0] == "OK"
    brain.send("INFO rule 0", "INFO timeout_match 0", f"INFO time_left {NO_LIMIT_MS}", *settings)


def board_request(stones: Sequence[tuple[int, int, int]]) -> list[str]:
    return ["BOARD", *(f"{x},{y},{field}" for x, y, field in stones), "DONE"]


def random_position(rng: random.Random, stones: int, blocks: int) -> list[tuple[int, int, int]]:
    """A BOARD block: `stones` stones near the centre, alternating from the opponent's (field 2), and `blocks`
    field-3 stones anywhere."""
    cells = rng.sample([(x, y) for x in range(4, 11) for y in range(4, 11)], stones)
    position = [(x, y, 2 - i % 2) for i, (x, y) in enumerate(cells)]
    taken = set(cells)
    free = [(x, y) for x in range(SIZE) for y in range(SIZE) if (x, y) not in taken]
    return position + [(x, y, 3) for x, y in rng.sample(free, blocks)]


# --- the paths ------------------------------------------------------------------------------------------------

def fresh_processes(command: Sequence[str], count: int) -> Iterator[PipeBrain]:
    """`count` brain processes, one after another, each killed when the caller is done with it."""
    for _ in range(count):
        brain = PipeBrain(command)
        try:
            yield brain
        finally:
            brain.kill()


def first_moves(command: Sequence[str], count: int, rule: int, seed: int) -> PathResult:
    """The first move of a fresh process (START, INFO, BOARD), `count` processes."""
    rng = random.Random(seed)
    replies = []
    for brain in fresh_processes(command, count):
        start(brain, f"INFO rule {rule}", f"INFO timeout_turn {TURN_MS}")
        _, ms = brain.ask(*board_request(random_position(rng, 4, 0)))
        replies.append((ms, TURN_MS))
    name = {0: "first move of a process", 4: "first move of a process, renju", 8: "first move of a process, caro"}
    return PathResult(name.get(rule, f"first move of a process, rule {rule}"), replies)


def timed_game(brain: PipeBrain, count: int, name: str, settings: Sequence[str], limit_ms: int | None,
               clock: Callable[[int], int] | None = None, seed: int = 0) -> list[PathResult]:
    """Every reply of games under `settings` until `count` later moves: the first move of each game and the later
    ones as two paths. The limit of a reply is `limit_ms`, or (under a clock) the smaller of it and the time_left
    sent with the reply."""
    first, later = [], []
    for request, ms, time_left in game_replies(brain, settings, count, clock, seed=seed):
        limit = limit_ms if clock is None else min(time_left, limit_ms or time_left)
        (first if request == "BEGIN" else later).append((ms, limit))
    return [PathResult(f"{name}, first move of a game", first), PathResult(f"{name}, later moves", later)]


def board_with_blocks(brain: PipeBrain, count: int, seed: int) -> PathResult:
    """BOARD with two field-3 stones among a few others, a new game each time."""
    rng = random.Random(seed)
    replies = []
    for _ in range(count):
        start(brain, f"INFO timeout_turn {TURN_MS}")
        _, ms = brain.ask(*board_request(random_position(rng, rng.randrange(2, 9), 2)))
        replies.append((ms, TURN_MS))
    return PathResult("BOARD with field-3 stones", replies)


def swap2(brain: PipeBrain, count: int, stones: int) -> PathResult:
    """SWAP2BOARD with 0, 3 or 5 stones, a new game each time."""
    replies = []
    for _ in range(count):
        start(brain, f"INFO timeout_turn {TURN_MS}")
        _, ms = brain.ask("SWAP2BOARD", *(f"{x},{y}" for x, y in SWAP2_STONES[stones]), "DONE")
        replies.append((ms, TURN_MS))
    return PathResult(f"SWAP2BOARD, {stones} stones", replies)


def _thinking(brain: PipeBrain, rng: random.Random) -> None:
    """Start a long think on the middle game and wait a random moment into it."""
    start(brain, f"INFO timeout_turn {THINK_MS}")
    brain.send(*board_request(MIDDLE_GAME))
    time.sleep(rng.uniform(*STOP_AFTER_S))


def yxstop(brain: PipeBrain, count: int, seed: int) -> PathResult:
    """YXSTOP during a long think on an undecided position: from YXSTOP to the move."""
    rng = random.Random(seed)
    replies = []
    for _ in range(count):
        _thinking(brain, rng)
        line, ms = brain.ask("YXSTOP")
        assert line_kind(line) == "move", line
        replies.append((ms, None))
    return PathResult("YXSTOP while thinking (to the move)", replies)


def exits(command: Sequence[str], count: int, seed: int, how: str) -> PathResult:
    """END, or a closed stdin, during a long think: from it to the process's exit, a fresh process each time."""
    rng = random.Random(seed)
    replies = []
    for brain in fresh_processes(command, count):
        _thinking(brain, rng)
        since = brain.send("END") if how == "END" else brain.close_input()
        replies.append((brain.exit_ms(since), None))
    return PathResult("END while thinking (to the exit)" if how == "END" else
                      "stdin closed while thinking (to the exit)", replies)


def match_clock(used_ms: int) -> int:
    """The time_left of a game of MATCH_MS after `used_ms`."""
    return MATCH_MS - used_ms


def small_time_left(used_ms: int) -> int:
    """The same small time_left before every move."""
    return SMALL_TIME_LEFT_MS


def timed_games(brain: PipeBrain, count: int, seed: int) -> Iterator[PathResult]:
    """Games under each clock setting, on one process (a new START each): the manager's limits, each path's."""
    yield from timed_game(brain, count, f"timeout_turn {TURN_MS}", [f"INFO timeout_turn {TURN_MS}"], TURN_MS,
                          seed=seed)
    yield from timed_game(brain, count, "timeout_turn 0", ["INFO timeout_turn 0"], None, seed=seed)
    yield from timed_game(brain, count, f"time_left {SMALL_TIME_LEFT_MS}", ["INFO timeout_turn 5000"], 5000,
                          clock=small_time_left, seed=seed)
    yield from timed_game(brain, count, f"timeout_match {MATCH_MS}",
                          [f"INFO timeout_turn {THINK_MS}", f"INFO timeout_match {MATCH_MS}"], THINK_MS,
                          clock=match_clock, seed=seed)
    for rule, name in ((4, "renju"), (8, "caro")):
        yield from timed_game(brain, count, f"{name}, timeout_turn {TURN_MS}",
                              [f"INFO timeout_turn {TURN_MS}", f"INFO rule {rule}"], TURN_MS, seed=seed)


def every_path(command: Sequence[str], count: int, seed: int = 1) -> Iterator[PathResult]:
    """Every path, `count` replies each (the paths that need a fresh process per reply start `count` processes;
    the others share one)."""
    for rule in (0, 4, 8):
        yield first_moves(command, count, rule, seed)
    brain = PipeBrain(command)
    try:
        yield from timed_games(brain, count, seed)
        yield board_with_blocks(brain, count, seed)
        for stones in (0, 3, 5):
            yield swap2(brain, count, stones)
        yield yxstop(brain, count, seed)
    finally:
        brain.kill()
    yield exits(command, count, seed, "END")
    yield exits(command, count, seed, "EOF")


HEADER = ("| path | limit (ms) | replies | median (ms) | worst (ms) | worst lateness (ms) |\n"
          "|---|---|---|---|---|---|")


def report(command: Sequence[str], count: int) -> int:
    """``monte clock``: print the table, a row per path as it is measured."""
    print(HEADER, flush=True)
    for result in every_path(command, count):
        print(result.row(), flush=True)
    return 0
