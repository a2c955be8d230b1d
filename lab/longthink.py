"""A long think measured over the brain's pipes: the search's rate second by second, how full its tree is, and the
process's memory -- how one checks that a long move keeps learning inside ``max_memory``.

    python -m monte.lab.longthink [--seconds 30] [--max-memory 367001600] [--opening 0] [--engine pbrain-monte]
        [--openings tournaments/openings/freestyle15-balanced-test.txt] [--in-process]

The brain gets ``START 15`` (and answers once its kernels are loaded: ``MONTE_LOAD_BEFORE_OK``), the memory limit,
``timeout_turn`` of the given seconds, and an opening (default: of ``tournaments/openings/freestyle15-3stone.txt``)
as BOARD; while it thinks it sends a pair of MESSAGE lines every second (``brain.engine.PROGRESS_SECONDS``). From
the Rapfi line of each pair (``n`` iterations, ``tm`` ms since the move began) comes the rate of each interval; the first interval is the search's first second (the first report comes
one second after MCTS starts, the root's threat searches before it taking a few ms here). Each rate is given per
second of the clock and per second of the brain's CPU (``/proc/PID/stat``, read as each line arrives): on a busy
machine the clock rate moves with the other jobs, the CPU rate with the search alone. The process's peak resident
memory is the kernel's high-water mark (``VmHWM``), read when the move comes, beside its RSS when the move was
asked for (the tree sized, not yet written): their difference is what the think added.

``--in-process`` thinks in this process instead (``brain.thinkprofile``) and says why the rate moves: tree steps a
second beside iterations a second, and what an iteration did on average (its depth, the moves it made, its threat
searches' nodes), the reclaims of each second, and how long one reclaim of the final tree takes.
"""

from __future__ import annotations

import argparse
import os
import queue
import re
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from monte.brain.board import Board
from monte.brain.thinkprofile import Profile, profile_think
from monte.protocol.client import LOAD_BEFORE_OK

OPENINGS = Path(__file__).resolve().parent.parent / "tournaments" / "openings" / "freestyle15-3stone.txt"
SIZE = 15
PROGRESS_SECONDS = 1.0
"""How long the search runs before its first report (``brain.engine.PROGRESS_SECONDS``)."""
LATE_S = 18.0
"""The issue's target compares the rate after this many seconds of the move with the first second's."""
RAPFI = re.compile(r"^MESSAGE depth (\d+)-(\d+) ev (\S+) n (\d+) n/ms \d+ tm (\d+)")
TREE = re.compile(r"tree (\d+)%")
TICKS = os.sysconf("SC_CLK_TCK")


@dataclass
class Report:
    """One realtime report: ms since the move began, iterations so far, depth-seldepth, the evaluation, the tree's
    fill in per cent (-1: not said), and the brain's CPU seconds when the line came."""

    ms: int
    iterations: int
    depth: int
    seldepth: int
    evaluation: str
    tree: int
    cpu: float


@dataclass
class Interval:
    """The search between two reports: where it ends (seconds into the move) and its rates."""

    end: float
    per_second: float
    per_cpu_second: float


def opening(index: int, path: Path = OPENINGS) -> list[tuple[int, int]]:
    """The `index`-th opening of the file at `path` (its lines that are not blank or comments), as board
    coordinates (the file's are offsets from the centre)."""
    lines = [line for line in path.read_text().splitlines() if line.strip() and not line.startswith("#")]
    numbers = [int(v) for v in lines[index].replace(" ", "").split(",")]
    return [(SIZE // 2 + numbers[i], SIZE // 2 + numbers[i + 1]) for i in range(0, len(numbers), 2)]


def cpu_seconds(pid: int) -> float:
    """The process's user and system CPU time so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def rss_bytes(pid: int, field: str = "VmHWM") -> int:
    """The process's resident set, in bytes: its peak (VmHWM) or now (VmRSS)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) * 1024
    return 0


def think(engine: list[str], seconds: float, max_memory: int,
          stones: list[tuple[int, int]]) -> tuple[list[Report], float, int, int]:
    """Run one think; its realtime reports, the brain's CPU seconds when the move was asked for, its RSS then (the
    tree sized but not yet written) and its peak RSS."""
    process = subprocess.Popen(engine, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               text=True, bufsize=1, env={**os.environ, LOAD_BEFORE_OK: "1"})  # loaded at OK
    lines: queue.Queue[tuple[str, float] | None] = queue.Queue()

    def read() -> None:
        for line in process.stdout:
            lines.put((line.strip(), cpu_seconds(process.pid)))
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()

    def send(*texts: str) -> None:
        process.stdin.write("".join(f"{t}\n" for t in texts))
        process.stdin.flush()

    def next_line() -> tuple[str, float]:
        item = lines.get(timeout=seconds + 120)
        if item is None:
            raise RuntimeError(f"the brain exited with status {process.wait()}")
        return item

    reports = []
    try:
        send(f"START {SIZE}")
        while next_line()[0] != "OK":
            pass
        mover = len(stones) % 2  # the stones of the side to move are field 1
        board = [f"{x},{y},{1 if i % 2 == mover else 2}" for i, (x, y) in enumerate(stones)]
        send(f"INFO max_memory {max_memory}", f"INFO timeout_turn {int(seconds * 1000)}", "INFO timeout_match 0")
        time.sleep(0.5)  # the brain sizes its tree at INFO max_memory: not part of the move's CPU
        asked = cpu_seconds(process.pid)
        sized = rss_bytes(process.pid, "VmRSS")
        send("BOARD", *board, "DONE")
        summary = ""  # Monte's summary comes just before its Rapfi line, and carries the tree's fill
        while True:
            line, cpu = next_line()
            if line.startswith("DEBUG"):
                continue
            if not line.startswith("MESSAGE"):
                break
            match = RAPFI.match(line)
            if match:
                tree = TREE.search(summary)
                reports.append(Report(int(match[5]), int(match[4]), int(match[1]), int(match[2]), match[3],
                                      int(tree[1]) if tree else -1, cpu))
            summary = line
        peak = rss_bytes(process.pid)
        send("END")
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return reports, asked, sized, peak


def intervals(reports: list[Report], asked: float) -> list[Interval]:
    """The search between consecutive reports; the first interval is the search's first second (its CPU counted
    from the move's request, so it includes the root's threat searches)."""
    out = []
    for i, r in enumerate(reports):
        if i == 0:
            out.append(Interval(r.ms / 1000, r.iterations / PROGRESS_SECONDS, r.iterations / max(r.cpu - asked, 1e-3)))
        else:
            before = reports[i - 1]
            done = r.iterations - before.iterations
            out.append(Interval(r.ms / 1000, done * 1000 / max(1, r.ms - before.ms), done / max(r.cpu - before.cpu,
                                                                                                1e-3)))
    return out


def ratio(first: float, rates: list[float]) -> str:
    """How the rates compare with the first: their median's ratio and the one furthest from it, as 'x' factors,
    each said slower or faster."""
    def factor(rate: float) -> float:
        return max(rate / first, first / rate)

    def said(rate: float) -> str:
        return f"{factor(rate):.2f}x {'slower' if rate < first else 'faster'}"
    return f"median {said(statistics.median(rates))}, worst {said(max(rates, key=factor))}"


def print_profile(profile: Profile, max_memory: int) -> None:
    """The in-process think's table: each second's rates -- iterations and tree steps per second of the clock and
    of CPU -- and what each iteration did on average: its depth, the moves it made on the way down, its expansions,
    the nodes of the threat searches inside the tree (VCF, VCT), and the share that ended at a proven node."""
    print(f"tree budget {profile.budget / 2**20:.1f} MiB")
    print("   t(s)      it/s  it/cpu-s  steps/cpu-s  depth  makes  expand  vcf-nodes  vct-nodes  proven%  reclaims  tree  RSS(MiB)")
    samples = profile.samples
    for before, now in zip(samples, samples[1:]):
        done = max(now.iterations - before.iterations, 1)
        cpu = max(now.cpu - before.cpu, 1e-3)
        steps = now.steps - before.steps
        print(f"{now.seconds:7.1f} {done / max(now.seconds - before.seconds, 1e-3):9.0f} {done / cpu:9.0f} "
              f"{steps / cpu:12.0f} {steps / done:6.1f} {(now.makes - before.makes) / done:6.2f} "
              f"{(now.expanded - before.expanded) / done:7.3f} {(now.vcf_nodes - before.vcf_nodes) / done:9.2f} "
              f"{(now.vct_nodes - before.vct_nodes) / done:9.2f} "
              f"{100 * (now.proven_ends - before.proven_ends) / done:8.1f} {now.reclaims - before.reclaims:9d} "
              f"{100 * now.fill:4.0f}% {now.resident / 2**20:9.0f}")
    spans = [(b, n) for b, n in zip(samples, samples[1:-1]) if n.seconds > LATE_S]
    first_cpu = max(samples[1].cpu, 1e-3)
    if spans:
        for name, count in (("iterations", lambda s: s.iterations), ("tree steps", lambda s: s.steps)):
            first = count(samples[1]) / first_cpu
            late = [(count(n) - count(b)) / max(n.cpu - b.cpu, 1e-3) for b, n in spans]
            print(f"after {LATE_S:.0f} s against the first second, {name} per CPU second: {first:.0f}, then "
                  f"{ratio(first, late)}")
    print(f"a reclaim of the final tree took {1000 * profile.reclaim_seconds:.0f} ms; "
          f"peak RSS seen {max(s.resident for s in samples) / 2**20:.1f} MiB of max_memory {max_memory / 2**20:.1f} MiB")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m monte.lab.longthink", description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", default="pbrain-monte", help="the brain's command (default: pbrain-monte)")
    parser.add_argument("--seconds", type=float, default=30.0, help="timeout_turn of the move (default 30)")
    parser.add_argument("--max-memory", type=int, default=367_001_600, help="INFO max_memory (default 350 MiB)")
    parser.add_argument("--opening", type=int, default=0, help="which opening of the file (from 0, comments skipped)")
    parser.add_argument("--openings", type=Path, default=OPENINGS, help=f"the openings file (default {OPENINGS.name})")
    parser.add_argument("--in-process", action="store_true",
                        help="think in this process instead, and say what each iteration did (brain.thinkprofile)")
    args = parser.parse_args(argv)
    try:
        stones = opening(args.opening, args.openings)
    except (OSError, IndexError, ValueError) as error:
        parser.error(f"--opening {args.opening} of {args.openings}: {error}")
    if args.in_process:
        board = Board(SIZE)
        for x, y in stones:
            board.play(x, y)
        print(f"opening {args.opening}: {stones}, {args.seconds:.0f} s, max_memory {args.max_memory}, in process")
        print_profile(profile_think(board, args.seconds, args.max_memory), args.max_memory)
        return 0
    reports, asked, sized, peak = think(args.engine.split(), args.seconds, args.max_memory, stones)
    timeline = intervals(reports, asked)
    print(f"opening {args.opening}: {stones}, {args.seconds:.0f} s, max_memory {args.max_memory}")
    print("   t(s)   iterations      it/s  it/cpu-s  depth     ev  tree")
    for r, span in zip(reports, timeline):
        tree = f"{r.tree}%" if r.tree >= 0 else "-"
        print(f"{span.end:7.1f} {r.iterations:12d} {span.per_second:9.0f} {span.per_cpu_second:9.0f} "
              f"{r.depth:3d}-{r.seldepth:<3d} {r.evaluation:>5s}  {tree}")
    # the last report is the move's own (its summary is not "searching"): its interval is not a full second
    late = [span for span in timeline[1:-1] if span.end > LATE_S]
    if late:
        first = timeline[0]
        print(f"after {LATE_S:.0f} s against the first second: per clock second {first.per_second:.0f} it/s, then "
              f"{ratio(first.per_second, [s.per_second for s in late])}; per CPU second {first.per_cpu_second:.0f}, "
              f"then {ratio(first.per_cpu_second, [s.per_cpu_second for s in late])}")
    print(f"RSS {sized / 2**20:.1f} MiB when the move was asked for (the tree sized, not yet written); "
          f"peak RSS {peak / 2**20:.1f} MiB of max_memory {args.max_memory / 2**20:.1f} MiB "
          f"({'under' if peak < args.max_memory else 'OVER'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
