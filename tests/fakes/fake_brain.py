"""A small configurable pbrain program for testing managers: it plays legal moves, and misbehaves as told.

    python tests/fakes/fake_brain.py --mode MODE [--at N] [--delay-ms MS]

Modes: good; crash (a line on stderr, then exit 3, when asked for move N); hang (never answer move N, ignore
SIGTERM); garbage (a garbage line, then a legal move, at move N); occupied (answer an occupied cell at move N, or at
the first later move when the board is still empty); offboard (answer x = width at move N); slow (sleep --delay-ms
before answering move N); refuse (answer ERROR to move N, and UNKNOWN to ABOUT); complain (an ERROR line, then a
legal move, at move N, as a brain reports a setting it cannot meet); gate (answer move N only once the file --gate
exists); start-error (answer ERROR to START); crash-on-start (a line on stderr, then exit 4, on START); spawn-child
(start a sleeping child process and announce its pid as ``MESSAGE child <pid>``, to prove that a manager kills the
whole process group); judge (before each move, Rapfi's realtime line with ``Eval`` ten times the stones on the
board, then, like Rapfi winding its search down, drop the next command). Each legal move comes after a ``MESSAGE
fake move <n>`` line.
Moves are counted per game from 1; BEGIN, TURN and BOARD each ask for one. Stdlib only, so it starts fast.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time

MOVE_MODES = ("crash", "hang", "garbage", "occupied", "offboard", "slow", "refuse", "complain", "gate")
MODES = ("good", *MOVE_MODES, "start-error", "crash-on-start", "spawn-child", "judge")


class FakeBrain:
    """The protocol state of one fake brain: board size, occupied cells, the move count, and its mode."""

    def __init__(self, mode: str, at: int, delay_ms: int, gate: str = "") -> None:
        self.mode = mode
        self.at = at
        self.delay_s = delay_ms / 1000.0
        self.gate = gate
        self.width = self.height = 0
        self.stones: set[tuple[int, int]] = set()
        self.moves_asked = 0
        self.misbehaved = False
        self.deaf = False

    def reply(self, line: str) -> None:
        """One protocol line to stdout, flushed (a manager reads it at once)."""
        print(line, flush=True)

    def new_game(self, width: int, height: int) -> None:
        """START/RECTSTART/RESTART: an empty board and a fresh move count, unless the mode refuses or dies."""
        if self.mode == "crash-on-start":
            print("fake brain: told to exit at START", file=sys.stderr, flush=True)
            sys.exit(4)
        if self.mode == "start-error":
            self.reply("ERROR the fake brain refuses every board")
            return
        self.width, self.height = width, height
        self.stones = set()
        self.moves_asked = 0
        self.misbehaved = False
        self.reply("OK")

    def legal_move(self) -> tuple[int, int]:
        """The empty cell nearest the centre (ties: top row first, then left)."""
        cx, cy = self.width // 2, self.height // 2
        cells = ((x, y) for y in range(self.height) for x in range(self.width) if (x, y) not in self.stones)
        return min(cells, key=lambda c: ((c[0] - cx) ** 2 + (c[1] - cy) ** 2, c[1], c[0]))

    def move(self) -> None:
        """Answer a move request: legally, unless this is the move to misbehave at."""
        self.moves_asked += 1
        due = not self.misbehaved and self.moves_asked >= self.at and (self.mode != "occupied" or self.stones)
        if due and self.mode in MOVE_MODES:
            self.misbehaved = True
            if self.misbehave():
                return
        if self.mode == "judge":
            self.reply(f"MESSAGE Speed 1K | Depth 3-5 | Eval {10 * len(self.stones)} | Node 100 | Time 1ms")
            self.deaf = True
        x, y = self.legal_move()
        self.stones.add((x, y))
        self.reply(f"MESSAGE fake move {self.moves_asked}")
        self.reply(f"{x},{y}")

    def misbehave(self) -> bool:
        """Act out the mode at its move; True if that was the whole answer, False if a legal move follows."""
        if self.mode == "crash":
            print(f"fake brain: told to crash at move {self.at}", file=sys.stderr, flush=True)
            sys.exit(3)
        while self.mode == "hang":
            time.sleep(60)
        if self.mode == "garbage":
            self.reply("this is not a move")
        elif self.mode == "slow":
            time.sleep(self.delay_s)
        elif self.mode == "occupied":
            self.reply("{},{}".format(*min(self.stones)))
        elif self.mode == "offboard":
            self.reply(f"{self.width},0")
        elif self.mode == "refuse":
            self.reply(f"ERROR the fake brain refuses move {self.moves_asked}")
        elif self.mode == "complain":
            self.reply("ERROR the fake brain cannot meet this max_memory")
        while self.mode == "gate" and not os.path.exists(self.gate):
            time.sleep(0.01)
        return self.mode in ("occupied", "offboard", "refuse")

    def read_board(self) -> None:
        """Read ``x,y,field`` lines up to DONE into the stones."""
        self.stones = set()
        for line in iter(sys.stdin.readline, ""):
            if line.strip().upper() == "DONE":
                return
            x, y, _ = (int(v) for v in line.split(","))
            self.stones.add((x, y))
        sys.exit(0)

    def handle(self, line: str) -> None:
        """Act on one command line."""
        words = line.split(maxsplit=1)
        if not words:
            return
        if self.deaf:
            self.deaf = False
            return
        command, arg = words[0].upper(), (words[1] if len(words) > 1 else "")
        if command == "START":
            self.new_game(int(arg), int(arg))
        elif command == "RECTSTART":
            width, height = (int(v) for v in arg.split(","))
            self.new_game(width, height)
        elif command == "RESTART":
            self.new_game(self.width, self.height)
        elif command == "BEGIN":
            self.move()
        elif command == "TURN":
            x, y = (int(v) for v in arg.split(","))
            self.stones.add((x, y))
            self.move()
        elif command == "BOARD":
            self.read_board()
            self.move()
        elif command == "ABOUT" and self.mode == "refuse":
            self.reply("UNKNOWN ABOUT")
        elif command == "ABOUT":
            self.reply(f'name="fake-{self.mode}", version="1.0", author="Monte tests", country="CZ"')
        elif command == "END":
            sys.exit(0)
        elif command not in ("INFO", "YXSTOP"):
            self.reply(f"UNKNOWN {line}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=MODES, default="good")
    parser.add_argument("--at", type=int, default=1, help="the move number (per game, from 1) to misbehave at")
    parser.add_argument("--delay-ms", type=int, default=2000, help="how long the slow mode sleeps")
    parser.add_argument("--gate", default="", help="the file the gate mode waits for")
    args = parser.parse_args()
    if args.mode == "hang":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if args.mode == "spawn-child":
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        print(f"MESSAGE child {child.pid}", flush=True)
    brain = FakeBrain(args.mode, args.at, args.delay_ms, args.gate)
    for line in iter(sys.stdin.readline, ""):
        brain.handle(line.strip())


if __name__ == "__main__":
    main()
