"""The seed articles' plain UCT, kept faithful so that we can measure how far beyond it Monte is (``--engine uct``), and
the engine of the articles' small games (tic-tac-toe and Connect Four, see ``brain.board``'s `k` and `gravity`).

UCB1 (exploration constant c = 1.4 unless told otherwise) over every playable cell, children created all at once
when a node is first expanded (uniform expansion: unvisited children count as infinitely urgent and are tried in
random order), purely random playouts to the end of the game, and the most-visited move. It knows the rules (a row
of k per rule, exactly five, caro, gravity) only to see a game end; in playouts it knows nothing else -- which is
exactly the weakness the articles report. The Connect Four article's playouts that take a win and block the
opponent's win when they see one are a setting (`UctSettings.aware_playouts`, off by default). Under renju it never
plays a forbidden point at the root; inside playouts it ignores fouls, as the articles' code does.

Same machinery as Monte (numba, struct-of-arrays tree, time slices), so speed differences come from the algorithm.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from monte.brain.board import Board
from monte.brain.jit import Float32Array, Int8Array, Int32Array, Int64Array, njit
from monte.brain.memory import tree_bytes
from monte.brain.player import MoveChoice, ThinkLimits
from monte.brain.warmup import warm_up
from monte.brain.rules import EMPTY, WALL, is_playable, makes_line

UCB_C = 1.4
NODE_BYTES = 4 + 4 + 4 + 4 + 4
MAX_NODES = 4_000_000  # the arrays are written in full when made: more than a long think of this baseline fills


@dataclass(frozen=True)
class UctSettings:
    """What the articles vary: UCB1's exploration constant `c`, and whether a playout move takes a win, else blocks
    the opponent's win, when one is on the board (`aware_playouts`) instead of being purely random."""

    c: float = UCB_C
    aware_playouts: bool = False


@njit(cache=True)
def _winning_slot(cells: np.ndarray, stride: int, rule: int, k: int, playable: np.ndarray, n_playable: int,
                  color: int) -> int:
    """The first slot of playable[:n_playable] where a `color` stone wins at once, or -1."""
    for j in range(n_playable):
        if makes_line(cells, stride, playable[j], color, rule, k):
            return j
    return -1


@njit(cache=True)
def _playout(cells: np.ndarray, stride: int, rule: int, k: int, gravity: bool, aware: bool, playable: np.ndarray,
             n_playable: int, color: int, placed: np.ndarray) -> int:
    """Play moves from `cells` (side to move: color) to the end of the game; return the winner (0 for a draw).

    `playable[:n_playable]` holds every cell a stone may go on now; each move is one of them drawn at random (or,
    with `aware`, a win, else a block of the opponent's win). Under gravity the cell above a move becomes playable
    in its place. `cells` is restored; `playable` is left shuffled and `placed` is scratch space.
    """
    n_placed = 0
    winner = 0
    c = color
    while n_playable > 0:
        j = -1
        if aware:
            j = _winning_slot(cells, stride, rule, k, playable, n_playable, c)
            if j < 0:
                j = _winning_slot(cells, stride, rule, k, playable, n_playable, 3 - c)
        if j < 0:
            j = np.random.randint(n_playable)
        idx = playable[j]
        cells[idx] = c
        placed[n_placed] = idx
        n_placed += 1
        if makes_line(cells, stride, idx, c, rule, k):
            winner = c
            break
        if gravity and cells[idx - stride] == EMPTY:
            playable[j] = idx - stride
        else:
            n_playable -= 1
            playable[j] = playable[n_playable]
        c = 3 - c
    for i in range(n_placed):
        cells[placed[i]] = EMPTY
    return winner


@njit(cache=True)
def seed_random(seed: int) -> None:
    """Seed numba's own random generator (separate from numpy's in Python)."""
    np.random.seed(seed)


@njit(cache=True)
def uct_search(cells: Int8Array, stride: int, rule: int, k: int, gravity: bool, interior: Int32Array, color: int,
               c_ucb: float, aware: bool, move: Int32Array, first: Int32Array, count: Int32Array, visits: Int32Array,
               wins: Float32Array, meta: Int64Array, iterations: int) -> int:
    """Run UCT iterations from the root (slot 0) of the position `cells` (rows of `k` win under `rule`, with or
    without `gravity`; `interior` lists the board's cells), `color` to move. wins[n] is from the player who moved
    into node n; meta[0] is the next free slot. A node is expanded once the tree has room for all its children."""
    path = np.empty(interior.shape[0] + 1, dtype=np.int32)
    playable = np.empty(interior.shape[0], dtype=np.int32)
    placed = np.empty(interior.shape[0], dtype=np.int32)
    for it in range(iterations):
        node = 0
        c = color
        depth = 0
        path[0] = 0
        winner = 0
        finished = False
        while True:
            if first[node] < 0:
                if (visits[node] > 0 or node == 0) and not finished:
                    # expand: one child per playable cell
                    n = 0
                    for i in range(interior.shape[0]):
                        if is_playable(cells, stride, interior[i], gravity):
                            n += 1
                    start = meta[0]
                    if n > 0 and start + n <= move.shape[0]:
                        j = 0
                        for i in range(interior.shape[0]):
                            idx = interior[i]
                            if is_playable(cells, stride, idx, gravity):
                                s = start + j
                                move[s] = idx
                                first[s] = -1
                                count[s] = 0
                                visits[s] = 0
                                wins[s] = 0.0
                                j += 1
                        first[node] = start
                        count[node] = n
                        meta[0] = start + n
                if first[node] < 0:
                    break
            if finished:
                break
            # UCB1: an unvisited child first (in random order), else the best bound
            f = first[node]
            n = count[node]
            best = -1
            best_score = -1.0
            log_n = np.log(max(visits[node], 1))
            offset = np.random.randint(n)
            for j in range(n):
                ch = f + (j + offset) % n
                v = visits[ch]
                if v == 0:
                    best = ch
                    break
                score = wins[ch] / v + c_ucb * np.sqrt(log_n / v)
                if score > best_score:
                    best_score = score
                    best = ch
            idx = move[best]
            cells[idx] = c
            depth += 1
            path[depth] = best
            node = best
            if makes_line(cells, stride, idx, c, rule, k):
                winner = c
                finished = True
            c = 3 - c
        if not finished:
            n_playable = 0
            for i in range(interior.shape[0]):
                if is_playable(cells, stride, interior[i], gravity):
                    playable[n_playable] = interior[i]
                    n_playable += 1
            winner = _playout(cells, stride, rule, k, gravity, aware, playable, n_playable, c, placed)
        # back up: the player who moved into path[d] is the opposite of the side to move there
        mover = 3 - c
        for d in range(depth, -1, -1):
            nd = path[d]
            visits[nd] += 1
            if winner == 0:
                wins[nd] += 0.5
            elif winner == mover:
                wins[nd] += 1.0
            mover = 3 - mover
        for d in range(depth, 0, -1):
            cells[move[path[d]]] = EMPTY
    return iterations


class UctTree:
    """The arrays of a plain-UCT tree: one slot per node, a node's children in consecutive slots. Allocated once and
    cleared for each search, so that a player pays for them when a game is prepared, not in a move."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.move = np.full(capacity, -1, dtype=np.int32)
        self.first = np.full(capacity, -1, dtype=np.int32)
        self.count = np.zeros(capacity, dtype=np.int32)
        self.visits = np.zeros(capacity, dtype=np.int32)
        self.wins = np.zeros(capacity, dtype=np.float32)
        self.meta = np.zeros(2, dtype=np.int64)
        self.clear()

    @property
    def used(self) -> int:
        """How many slots hold nodes."""
        return int(self.meta[0])

    def clear(self) -> None:
        """Empty the tree down to a fresh root."""
        self.first[0] = -1
        self.count[0] = 0
        self.visits[0] = 0
        self.wins[0] = 0.0
        self.meta[0] = 1


@dataclass(frozen=True)
class RootChild:
    """A move at the root and what the search thinks of it: `value` is the mean playout result for the side to move
    at the root (win 1, draw 1/2, loss 0) over `visits`."""

    x: int
    y: int
    visits: int
    value: float


class UctSearch:
    """Plain UCT from one position, run in as many slices as the caller likes (the tree is cleared when it starts)."""

    def __init__(self, board: Board, tree: UctTree, settings: UctSettings = UctSettings()) -> None:
        tree.clear()
        self._board = board.copy()
        self._tree = tree
        self._settings = settings
        self._cells = board.cells.copy()
        self._interior = np.flatnonzero(board.cells != WALL).astype(np.int32)
        self.iterations = 0

    def run(self, iterations: int) -> int:
        """Run `iterations` more iterations; returns how many ran."""
        b, t, s = self._board, self._tree, self._settings
        done = int(uct_search(self._cells, b.stride, b.rule, b.k, b.gravity, self._interior, b.to_move, s.c,
                              s.aware_playouts, t.move, t.first, t.count, t.visits, t.wins, t.meta, iterations))
        self.iterations += done
        return done

    def children(self) -> list[RootChild]:
        """The root's moves in board order (row by row), with their visits and values; empty before the first
        iteration."""
        t = self._tree
        if t.first[0] < 0:
            return []
        out = []
        for c in range(t.first[0], t.first[0] + t.count[0]):
            x, y = self._board.coords(int(t.move[c]))
            visits = int(t.visits[c])
            out.append(RootChild(x, y, visits, float(t.wins[c]) / visits if visits else 0.0))
        return out

    def best(self, allowed: set[tuple[int, int]] | None = None) -> RootChild | None:
        """The most-visited root move (the first in board order on a tie), among `allowed` moves if given; None if
        no such move has been searched."""
        best = None
        for child in self.children():
            if (allowed is None or (child.x, child.y) in allowed) and (best is None or child.visits > best.visits):
                best = child
        return best


def run_uct(board: Board, iterations: int, settings: UctSettings = UctSettings()) -> UctSearch:
    """A search of exactly `iterations` iterations from `board`, in a tree just big enough (each iteration expands
    at most one node, into at most as many children as the root has moves). For the small games' experiments; seed
    the generator first (`seed_random`) for reproducible results."""
    tree = UctTree(1 + iterations * max(1, len(board.legal_moves())))
    search = UctSearch(board, tree, settings)
    search.run(iterations)
    return search


class UctPlayer:
    """Plain UCT (``--engine uct``); see the module docstring."""

    name = "uct"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = 12345 if seed is None else seed
        self._tree: UctTree | None = None

    def warm_up(self) -> None:
        """Compile or load the brain's compiled functions (``brain.warmup``)."""
        warm_up()

    def new_game(self, board: Board) -> None:
        """Nothing carries over between games (the articles' UCT keeps no tree between moves either)."""
        seed_random(self.seed)

    def prepare(self, board: Board, max_memory: int) -> None:
        """Allocate the tree for `max_memory` now rather than in the first move."""
        self._tree_for(max_memory)

    def choose(self, board: Board, limits: ThinkLimits) -> MoveChoice:
        """Search until the soft deadline; play the most-visited legal move."""
        started = time.monotonic()
        batch = 16
        search = UctSearch(board, self._tree_for(limits.max_memory))
        while not limits.expired() and time.monotonic() < limits.soft_deadline:
            t0 = time.monotonic()
            search.run(batch)
            spent = time.monotonic() - t0
            batch = int(min(max(batch * 0.01 / max(spent, 1e-4), 4), 50_000))
        legal = board.legal_moves()
        best = search.best(set(legal))
        x, y = (best.x, best.y) if best is not None else legal[0]
        seconds = time.monotonic() - started
        speed = search.iterations / seconds if seconds > 0 else 0.0
        return MoveChoice(x, y, f"uct iterations {search.iterations} speed {speed / 1000:.1f}k/s "
                                f"time {seconds * 1000:.0f}ms")

    def _tree_for(self, max_memory: int) -> UctTree:
        """The tree, allocated once per memory limit."""
        capacity = min(MAX_NODES, tree_bytes(max_memory) // NODE_BYTES)
        if self._tree is None or self._tree.capacity != capacity:
            self._tree = UctTree(capacity)
        return self._tree
