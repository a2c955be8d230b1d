"""A long think measured over the brain's pipes: the search's rate second by second, how full its tree is, and the
process's memory -- how one checks that a long move keeps learning inside ``max_memory``.

    python -m monte.lab.longthink [--seconds 30] [--max-memory 367001600] [--opening 0] [--engine pbrain-monte]

The brain gets ``START 15``, the memory limit, ``timeout_turn`` of the given seconds, and a 3-stone opening of
``tournaments/openings/freestyle15-3stone.txt`` as BOARD; while it thinks it sends a pair of MESSAGE lines every
second (``brain.engine.PROGRESS_SECONDS``). From the Rapfi line of each pair (``n`` iterations, ``tm`` ms since the
move began) comes the rate of each interval; the first interval is the search's first second (the first report comes
one second after MCTS starts, after the root's threat searches). The process's peak resident memory is read from
``/proc/PID/status`` (``VmHWM``, the kernel's high-water mark) when the answer comes.
"""

from __future__ import annotations

import argparse
import queue
import re
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

OPENINGS = Path(__file__).resolve().parent.parent / "tournaments" / "openings" / "freestyle15-3stone.txt"
SIZE = 15
PROGRESS_SECONDS = 1.0
"""How long the search runs before its first report (``brain.engine.PROGRESS_SECONDS``)."""
LATE_S = 18.0
"""The issue's target compares the rate after this many seconds of the move with the first second's."""
RAPFI = re.compile(r"^MESSAGE depth (\d+)-(\d+) ev (\S+) n (\d+) n/ms \d+ tm (\d+)")
TREE = re.compile(r"tree (\d+)%")


@dataclass
class Report:
    """One realtime report: ms since the move began, iterations so far, depth-seldepth, the evaluation, the tree's
    fill in per cent (-1: not said)."""

    ms: int
    iterations: int
    depth: int
    seldepth: int
    evaluation: str
    tree: int


def opening(index: int) -> list[tuple[int, int]]:
    """The `index`-th 3-stone opening, as board coordinates (the file's are offsets from the centre)."""
    lines = [line for line in OPENINGS.read_text().splitlines() if line.strip()]
    numbers = [int(v) for v in lines[index].replace(" ", "").split(",")]
    return [(SIZE // 2 + numbers[i], SIZE // 2 + numbers[i + 1]) for i in range(0, len(numbers), 2)]


def peak_rss_bytes(pid: int) -> int:
    """The process's peak resident set (VmHWM), in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0


def think(engine: list[str], seconds: float, max_memory: int, stones: list[tuple[int, int]]) -> tuple[list[Report], int]:
    """Run one think; the realtime reports and the peak RSS."""
    process = subprocess.Popen(engine, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               text=True, bufsize=1)
    lines: queue.Queue[str | None] = queue.Queue()

    def read() -> None:
        for line in process.stdout:
            lines.put(line.strip())
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()

    def send(*texts: str) -> None:
        process.stdin.write("".join(f"{t}\n" for t in texts))
        process.stdin.flush()

    def until(predicate) -> str:
        while True:
            line = lines.get(timeout=seconds + 120)
            if line is None:
                raise RuntimeError(f"the brain exited with status {process.wait()}")
            if predicate(line):
                return line

    reports = []
    previous = ""  # Monte's summary comes just before its Rapfi line, and carries the tree's fill
    try:
        send(f"START {SIZE}")
        until(lambda line: line == "OK")
        mover = len(stones) % 2  # the stones of the side to move are field 1
        board = [f"{x},{y},{1 if i % 2 == mover else 2}" for i, (x, y) in enumerate(stones)]
        send(f"INFO max_memory {max_memory}", f"INFO timeout_turn {int(seconds * 1000)}",
             "INFO timeout_match 0", "BOARD", *board, "DONE")
        while True:
            line = until(lambda text: not text.startswith("DEBUG"))
            if not line.startswith("MESSAGE"):
                break
            match = RAPFI.match(line)
            if match:
                tree = TREE.search(previous) if previous else None
                reports.append(Report(int(match[5]), int(match[4]), int(match[1]), int(match[2]), match[3],
                                      int(tree[1]) if tree else -1))
            previous = line
        peak = peak_rss_bytes(process.pid)
        send("END")
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return reports, peak


def rates(reports: list[Report]) -> list[tuple[float, float]]:
    """(seconds into the move at the interval's end, iterations a second over the interval) for each report; the
    first interval is the search's first second."""
    out = []
    for i, r in enumerate(reports):
        if i == 0:
            out.append((r.ms / 1000, r.iterations / PROGRESS_SECONDS))
        else:
            before = reports[i - 1]
            out.append((r.ms / 1000, (r.iterations - before.iterations) * 1000 / max(1, r.ms - before.ms)))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m monte.lab.longthink", description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", default="pbrain-monte", help="the brain's command (default: pbrain-monte)")
    parser.add_argument("--seconds", type=float, default=30.0, help="timeout_turn of the move (default 30)")
    parser.add_argument("--max-memory", type=int, default=367_001_600, help="INFO max_memory (default 350 MiB)")
    parser.add_argument("--opening", type=int, default=0, help="which 3-stone opening (line of the file, from 0)")
    args = parser.parse_args(argv)
    stones = opening(args.opening)
    reports, peak = think(args.engine.split(), args.seconds, args.max_memory, stones)
    # the last report is the move's own (its summary is not "searching"): its interval is not a full second
    timeline = rates(reports)
    print(f"opening {args.opening}: {stones}, {args.seconds:.0f} s, max_memory {args.max_memory}")
    print("   t(s)   iterations      it/s  depth     ev  tree")
    for r, (t, rate) in zip(reports, timeline):
        tree = f"{r.tree}%" if r.tree >= 0 else "-"
        print(f"{t:7.1f} {r.iterations:12d} {rate:9.0f} {r.depth:3d}-{r.seldepth:<3d} {r.evaluation:>5s}  {tree}")
    if len(timeline) >= 2:
        first = timeline[0][1]
        late = [rate for t, rate in timeline[:-1] if t > LATE_S]
        if late:
            worst = max(late, key=lambda rate: max(rate / first, first / rate))
            print(f"first second {first:.0f} it/s; after {LATE_S:.0f} s: {min(late):.0f}-{max(late):.0f} it/s, "
                  f"worst ratio {max(worst / first, first / worst):.2f}x")
    print(f"peak RSS {peak / 2**20:.1f} MiB of max_memory {args.max_memory / 2**20:.1f} MiB "
          f"({'under' if peak < args.max_memory else 'OVER'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
