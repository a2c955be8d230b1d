"""``monte bench``: search speed on fixed positions, for Monte's MCTS and for the plain-UCT baseline.

Speed is measured on the compiled search kernels alone (no root VCF, no protocol), a fixed wall time per run, the
median of several runs. The positions are move lists from Monte's own self-play, so anyone can rebuild them.
"""

from __future__ import annotations

import json
import statistics
import time
from dataclasses import asdict, dataclass


from monte.brain.board import Board
from monte.brain.limits import new_limits
from monte.brain.mcts import search
from monte.brain.position import new_state
from monte.brain.settings import Params
from monte.brain.threats import new_workspace
from monte.brain.tree import fill, new_tree, reset_tree
from monte.brain.uct import MAX_NODES, UctSearch, UctTree, seed_random
from monte.brain.vct import new_vct_space

BENCH_TREE_BYTES = 64 * 1024 * 1024
BENCH_FILL = 0.45  # the tree is cleared before a reclaim would run: the speed of a growing tree, not of reclaims

POSITIONS: dict[str, tuple[int, list[tuple[int, int]]]] = {
    "15x15 opening": (15, [(7, 7), (8, 8), (8, 6)]),
    "15x15 middle game": (15, [
        (7, 7), (5, 5), (9, 6), (8, 7), (9, 8), (9, 7), (10, 8), (10, 7), (11, 7), (8, 8), (10, 6), (8, 6),
        (8, 5), (9, 5), (8, 10), (9, 9), (6, 4), (5, 6)]),
    "20x20 middle game": (20, [
        (3, 2), (4, 1), (7, 1), (5, 4), (6, 2), (4, 4), (4, 5), (5, 6), (6, 4), (6, 5), (5, 5), (4, 6), (6, 6),
        (3, 5), (2, 6), (4, 2), (2, 4), (4, 3), (4, 0), (7, 3), (8, 3), (2, 5), (1, 6), (4, 8), (4, 7), (3, 8),
        (7, 6), (4, 9), (5, 8)]),
}
# The middle games come from games against pela and Rapfi, cut where neither side wins by threats (VCT, 300k
# nodes) and Monte's solver cannot prove the result in 100k iterations (a proven root ends the search, and a
# benchmark of a finished search measures nothing).


@dataclass
class BenchResult:
    """One line of the benchmark: an engine on a position."""

    engine: str
    position: str
    iterations_per_second: float
    runs: list[float]

    def line(self) -> str:
        """Human-readable form."""
        runs = ", ".join(f"{r / 1000:.1f}k" for r in self.runs)
        return f"{self.engine:5s} {self.position:18s} {self.iterations_per_second / 1000:8.1f}k it/s  (runs: {runs})"


def board_of(name: str) -> Board:
    """The named benchmark position."""
    size, moves = POSITIONS[name]
    board = Board(size)
    for x, y in moves:
        board.play(x, y)
    return board


def _timed(run_slice, seconds: float) -> float:
    """Call run_slice() (which returns iterations done) until `seconds` pass; return iterations per second."""
    done = 0
    start = time.perf_counter()
    while True:
        done += run_slice()
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return done / elapsed


def mcts_speed(board: Board, seconds: float, params: Params | None = None) -> float:
    """Monte's MCTS iterations per second from `board`, on a fresh tree."""
    params = params or Params()
    st = new_state(board)
    tree = new_tree(BENCH_TREE_BYTES)
    ws = new_workspace(st.cells.shape[0])
    vs = new_vct_space()
    limits = new_limits()
    search(st, tree, board.to_move, 16, params, ws, vs, limits)  # compile / load
    reset_tree(tree)

    def run() -> int:
        if fill(tree) > BENCH_FILL:
            reset_tree(tree)
        return int(search(st, tree, board.to_move, 2000, params, ws, vs, limits))

    return _timed(run, seconds)


def uct_speed(board: Board, seconds: float) -> float:
    """Plain UCT iterations (playouts) per second from `board`."""
    seed_random(1)
    tree = UctTree(MAX_NODES)
    search = UctSearch(board, tree)

    def run() -> int:
        nonlocal search
        if tree.used > tree.capacity - 200_000:
            search = UctSearch(board, tree)
        return search.run(500)

    run()
    return _timed(run, seconds)


def run_bench(seconds: float = 2.0, repeats: int = 3) -> list[BenchResult]:
    """Every engine on every position: median iterations/s over `repeats` runs of `seconds` each."""
    results = []
    for engine, measure in (("mcts", mcts_speed), ("uct", uct_speed)):
        for name in POSITIONS:
            board = board_of(name)
            runs = [measure(board, seconds) for _ in range(repeats)]
            results.append(BenchResult(engine, name, statistics.median(runs), runs))
    return results


def report(seconds: float, repeats: int, as_json: bool) -> int:
    """``monte bench``: print one line per engine and position, then the MCTS/UCT speed ratios."""
    results = run_bench(seconds, repeats)
    ratios = {}
    for r in results:
        if r.engine == "mcts":
            uct = next(u for u in results if u.engine == "uct" and u.position == r.position)
            ratios[r.position] = r.iterations_per_second / uct.iterations_per_second
    if as_json:
        print(json.dumps({"results": [asdict(r) for r in results], "mcts_over_uct": ratios}, indent=2))
    else:
        for r in results:
            print(r.line())
        for name, ratio in ratios.items():
            print(f"mcts/uct {name:18s} {ratio:5.2f}x")
    return 0
