"""``monte bench``: search speed on fixed positions, for Monte's MCTS (each leaf evaluation) and for plain UCT.

Speed is measured on the compiled search kernels alone (no root VCF, no protocol), for a fixed time per run, the
median of several runs. The time is the measuring thread's CPU time (``time.thread_time``), not the wall clock: on a
machine shared with other jobs a run then counts only the time the search really ran, so the figures and their ratios
hold under load (cache and memory contention aside). Monte runs with each leaf evaluation (``Params.eval_model``: 1
the value network, the default; 0 the hand-set one), and the runs of the engines alternate, so that each ratio is
measured under the same conditions. The positions are move lists from Monte's own self-play, so anyone can rebuild
them.

``--iterations N`` measures the other way round: the CPU seconds of exactly N iterations from a fresh tree, with a
digest of the tree they grew. The search is deterministic, so two builds that print the same digest grew the same
tree, and the ratio of their seconds is the speed of the code alone, free of the tree a change also grows (a speed-only
change must keep the digest; one that changes the trees is judged by games).
"""

from __future__ import annotations

import hashlib
import json
import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import NamedTuple

from monte.brain.board import Board
from monte.brain.jit import Int64Array
from monte.brain.limits import new_limits
from monte.brain.mcts import search, search_state
from monte.brain.position import State
from monte.brain.settings import Params
from monte.brain.threats import Workspace, new_workspace
from monte.brain.tree import M_EDGE_NEXT, M_NODE_NEXT, Tree, fill, new_tree, reset_tree
from monte.brain.uct import MAX_NODES, UctSearch, UctTree, seed_random
from monte.brain.vct import VctSpace, new_vct_space

BENCH_TREE_BYTES = 64 * 1024 * 1024
BENCH_FILL = 0.45  # past this fill the tree is cleared, well before a reclaim would run

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
# nodes) and Monte's solver could not prove the result in 100k iterations then (a proven root ends the search, and a
# benchmark of a finished search measures nothing). The value network's search proves the 20x20 one -- white wins,
# as Rapfi says (mate in 23, G10) -- within 100k iterations since 2026-11-27 (63,392 with the focused VCT), so
# ``--iterations`` runs that many there.


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


def _timed(run_slice: Callable[[], int], seconds: float) -> float:
    """Call run_slice() (which returns iterations done) until `seconds` of this thread's CPU time pass; return
    iterations per CPU second."""
    done = 0
    start = time.thread_time()
    while True:
        done += run_slice()
        elapsed = time.thread_time() - start
        if elapsed >= seconds:
            return done / elapsed


class _Search(NamedTuple):
    """What one of Monte's searches needs besides its knobs, all fresh: the position's state, a tree, the scratch
    space, the df-pn table and the limits."""

    st: State
    tree: Tree
    ws: Workspace
    vs: VctSpace
    limits: Int64Array


def fresh_search(board: Board, params: Params, tree_bytes: int = BENCH_TREE_BYTES) -> _Search:
    """A search of `board` under `params` that has run nothing yet, in a tree of `tree_bytes`."""
    st = search_state(board, params)
    return _Search(st, new_tree(tree_bytes), new_workspace(st.cells.shape[0]), new_vct_space(), new_limits())


def run_iterations(run: _Search, to_move: int, iterations: int, params: Params) -> int:
    """Run up to `iterations` of `run`'s MCTS (side to move `to_move`) in slices, as the player does, stopping early
    once its root is proven; returns the iterations run."""
    done = 0
    while done < iterations and run.tree.proven[0] == 0:
        ran = int(search(run.st, run.tree, to_move, min(2000, iterations - done), params, run.ws, run.vs, run.limits))
        if ran == 0:
            break
        done += ran
    return done


def mcts_speed(board: Board, seconds: float, params: Params | None = None) -> float:
    """Monte's MCTS iterations per second from `board`, on a fresh tree."""
    params = params or Params()
    st, tree, ws, vs, limits = fresh_search(board, params)
    search(st, tree, board.to_move, 16, params, ws, vs, limits)  # compile / load
    reset_tree(tree)

    def run() -> int:
        # a tree about to be reclaimed starts again (the speed of a growing tree, not of reclaims), and so does a
        # proven root: its search ends at once, and a run that counted the idle time after it would measure nothing
        # (the logistic evaluation's search proved the 20x20 middle game in about 50k iterations)
        if fill(tree) > BENCH_FILL or tree.proven[0] != 0:
            reset_tree(tree)
        return int(search(st, tree, board.to_move, 2000, params, ws, vs, limits))

    return _timed(run, seconds)


@dataclass
class FixedRun:
    """Exactly ``iterations`` of Monte's MCTS from a fresh tree, run several times: the CPU seconds of each run and
    the tree they grew (the same in every run: the search is deterministic)."""

    engine: str
    position: str
    iterations: int
    tree_digest: str
    runs: list[float]

    @property
    def cpu_seconds(self) -> float:
        """The median run's CPU seconds."""
        return statistics.median(self.runs)

    def as_dict(self) -> dict[str, object]:
        """For JSON: the fields and the median."""
        return {**asdict(self), "cpu_seconds": self.cpu_seconds}

    def line(self) -> str:
        """Human-readable form."""
        each = ", ".join(f"{r:.3f}" for r in self.runs)
        return (f"{self.engine:5s} {self.position:18s} {self.iterations:8d} iterations, median {self.cpu_seconds:.3f}"
                f" CPU s ({each}), tree {self.tree_digest}")


def tree_digest(tree: Tree) -> str:
    """A short hash of every node and edge the tree has used: equal digests, equal trees."""
    nodes = int(tree.meta[M_NODE_NEXT])
    edges = int(tree.meta[M_EDGE_NEXT])
    h = hashlib.sha1()
    for array in (tree.visits[:nodes], tree.wsum[:nodes], tree.proven[:nodes],
                  tree.e_move[:edges], tree.e_prior[:edges], tree.e_child[:edges]):
        h.update(array.tobytes())
    return h.hexdigest()[:12]


def fixed_iterations(board: Board, iterations: int, params: Params | None = None) -> tuple[int, float, str]:
    """Run `iterations` of Monte's MCTS from `board` on a fresh tree, in slices as the player does; return the
    iterations run (fewer if the root got proven), this thread's CPU seconds for them, and the tree's digest."""
    params = params or Params()
    warm = fresh_search(board, params)  # compile / load, outside the timing, in objects of its own: the run is fresh
    search(warm.st, warm.tree, board.to_move, 16, params, warm.ws, warm.vs, warm.limits)
    run = fresh_search(board, params)
    start = time.thread_time()
    done = run_iterations(run, board.to_move, iterations, params)
    return done, time.thread_time() - start, tree_digest(run.tree)


def run_fixed(iterations: int, repeats: int = 3) -> list[FixedRun]:
    """Each Monte evaluation on each position, `iterations` iterations from a fresh tree, `repeats` times (the
    engines' runs interleaved); raises RuntimeError if a repeat grows another tree."""
    results = []
    for name in POSITIONS:
        board = board_of(name)
        engines = {"mcts": Params(eval_model=1), "mcts0": Params(eval_model=0)}
        seconds: dict[str, list[float]] = {engine: [] for engine in engines}
        seen: dict[str, tuple[int, str]] = {}
        for _ in range(max(repeats, 1)):
            for engine, params in engines.items():
                done, spent, digest = fixed_iterations(board, iterations, params)
                if seen.setdefault(engine, (done, digest)) != (done, digest):
                    raise RuntimeError(f"{engine} on the {name} grew another tree in a repeat")
                seconds[engine].append(spent)
        results += [FixedRun(engine, name, seen[engine][0], seen[engine][1], s) for engine, s in seconds.items()]
    return results


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


ENGINES: dict[str, Callable[[Board, float], float]] = {
    "mcts": lambda board, seconds: mcts_speed(board, seconds, Params(eval_model=1)),
    "mcts0": lambda board, seconds: mcts_speed(board, seconds, Params(eval_model=0)),
    "uct": uct_speed,
}
"""Monte with the value network (its default), Monte with the hand-set evaluation, plain UCT."""


def run_bench(seconds: float = 2.0, repeats: int = 3) -> list[BenchResult]:
    """Every engine on every position: median iterations/s over `repeats` runs of `seconds` each, the engines'
    runs interleaved."""
    results = []
    for name in POSITIONS:
        board = board_of(name)
        runs: dict[str, list[float]] = {engine: [] for engine in ENGINES}
        for _ in range(repeats):
            for engine, measure in ENGINES.items():
                runs[engine].append(measure(board, seconds))
        results += [BenchResult(engine, name, statistics.median(r), r) for engine, r in runs.items()]
    return results


def ratios_over_uct(results: list[BenchResult]) -> dict[str, dict[str, float]]:
    """Each MCTS engine's speed over plain UCT's, per position: {engine: {position: ratio}}."""
    uct = {r.position: r.iterations_per_second for r in results if r.engine == "uct"}
    ratios: dict[str, dict[str, float]] = {}
    for r in results:
        if r.engine != "uct":
            ratios.setdefault(r.engine, {})[r.position] = r.iterations_per_second / uct[r.position]
    return ratios


def report(seconds: float, repeats: int, as_json: bool, iterations: int = 0) -> int:
    """``monte bench``: print one line per engine and position, then each MCTS engine's speed over UCT's; with
    `iterations`, the CPU time and tree digest of that many iterations of each Monte evaluation instead."""
    if iterations > 0:
        fixed = run_fixed(iterations, repeats)
        if as_json:
            print(json.dumps({"fixed_iterations": [r.as_dict() for r in fixed]}, indent=2))
        else:
            print("CPU seconds of a fixed number of iterations from a fresh tree; equal tree digests, equal trees")
            for r in fixed:
                print(r.line())
        return 0
    results = run_bench(seconds, repeats)
    ratios = ratios_over_uct(results)
    if as_json:
        print(json.dumps({"results": [asdict(r) for r in results], "over_uct": ratios}, indent=2))
    else:
        print("mcts: Monte, value network (eval_model=1, the default); mcts0: hand-set evaluation (eval_model=0); "
              "iterations per CPU second")
        for r in results:
            print(r.line())
        for engine, by_position in ratios.items():
            for name, ratio in by_position.items():
                print(f"{engine}/uct {name:18s} {ratio:5.2f}x")
    return 0
