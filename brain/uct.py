"""The seed articles' plain UCT, kept faithful so that we can measure how far beyond it Monte is (``--engine uct``).

UCB1 with c = 1.4 over every empty cell, children created all at once when a node is first expanded (uniform
expansion: unvisited children count as infinitely urgent and are tried in random order), purely random playouts to
the end of the game, and the most-visited move. It knows the rules (five per rule, exactly five, caro) only to see a
game end; in playouts it knows nothing else -- which is exactly the weakness the articles report. Under renju it
never plays a forbidden point at the root; inside playouts it ignores fouls, as the articles' code does.

Same machinery as Monte (numba, struct-of-arrays tree, time slices), so speed differences come from the algorithm.
"""

from __future__ import annotations

import time

import numpy as np

from brain.board import Board
from brain.jit import Float32Array, Int8Array, Int32Array, Int64Array, njit
from brain.memory import tree_capacity
from brain.player import MoveChoice, ThinkLimits
from brain.warmup import warm_up
from brain.rules import EMPTY, RULE_RENJU, BLACK, forbidden_points, makes_five

UCB_C = 1.4
NODE_BYTES = 4 + 4 + 4 + 4 + 4


@njit(cache=True)
def _playout(cells: np.ndarray, stride: int, rule: int, empties: np.ndarray, n_empty: int, color: int) -> int:
    """Play random moves from `cells` (side to move: color) to the end; return the winner (0 for a draw).
    `cells` is restored; `empties[:n_empty]` is shuffled in place."""
    placed = 0
    winner = 0
    c = color
    while placed < n_empty:
        j = placed + np.random.randint(n_empty - placed)
        idx = empties[j]
        empties[j] = empties[placed]
        empties[placed] = idx
        placed += 1
        cells[idx] = c
        if makes_five(cells, stride, idx, c, rule):
            winner = c
            break
        c = 3 - c
    for i in range(placed):
        cells[empties[i]] = EMPTY
    return winner


@njit(cache=True)
def seed_random(seed: int) -> None:
    """Seed numba's own random generator (separate from numpy's in Python)."""
    np.random.seed(seed)


@njit(cache=True)
def uct_search(cells: Int8Array, stride: int, rule: int, interior: Int32Array, color: int,
               move: Int32Array, first: Int32Array, count: Int32Array, visits: Int32Array, wins: Float32Array,
               meta: Int64Array, iterations: int) -> int:
    """Run UCT iterations from the root (slot 0). wins[n] is from the player who moved into node n."""
    path = np.empty(interior.shape[0] + 1, dtype=np.int32)
    empties = np.empty(interior.shape[0], dtype=np.int32)
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
                    # expand: one child per empty cell
                    n = 0
                    for i in range(interior.shape[0]):
                        if cells[interior[i]] == EMPTY:
                            n += 1
                    start = meta[0]
                    if n > 0 and start + n <= move.shape[0]:
                        k = 0
                        for i in range(interior.shape[0]):
                            idx = interior[i]
                            if cells[idx] == EMPTY:
                                s = start + k
                                move[s] = idx
                                first[s] = -1
                                count[s] = 0
                                visits[s] = 0
                                wins[s] = 0.0
                                k += 1
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
                score = wins[ch] / v + UCB_C * np.sqrt(log_n / v)
                if score > best_score:
                    best_score = score
                    best = ch
            idx = move[best]
            cells[idx] = c
            depth += 1
            path[depth] = best
            node = best
            if makes_five(cells, stride, idx, c, rule):
                winner = c
                finished = True
            c = 3 - c
        if not finished:
            n_empty = 0
            for i in range(interior.shape[0]):
                if cells[interior[i]] == EMPTY:
                    empties[n_empty] = interior[i]
                    n_empty += 1
            winner = _playout(cells, stride, rule, empties, n_empty, c)
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


class UctPlayer:
    """Plain UCT (``--engine uct``); see the module docstring."""

    name = "uct"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = 12345 if seed is None else seed
        self._capacity = -1
        self._arrays: tuple[np.ndarray, ...] = ()

    def warm_up(self) -> None:
        """Compile or load the brain's compiled functions (``brain.warmup``)."""
        warm_up()

    def new_game(self, board: Board) -> None:
        """Nothing carries over between games (the articles' UCT keeps no tree between moves either)."""
        seed_random(self.seed)

    def prepare(self, board: Board, max_memory: int) -> None:
        """Allocate the tree for `max_memory` now rather than in the first move."""
        self._fresh(board, max_memory)

    def choose(self, board: Board, limits: ThinkLimits) -> MoveChoice:
        """Search until the soft deadline; play the most-visited legal move."""
        started = time.monotonic()
        total = 0
        batch = 16
        arrays = self._fresh(board, limits.max_memory)
        cells = board.cells.copy()
        interior = self._interior(board)
        while not limits.expired() and time.monotonic() < limits.soft_deadline:
            t0 = time.monotonic()
            total += uct_search(cells, board.stride, board.rule, interior, board.to_move, *arrays, batch)
            spent = time.monotonic() - t0
            batch = int(min(max(batch * 0.01 / max(spent, 1e-4), 4), 50_000))
        move, first, count, visits, wins, _ = arrays
        legal = self._legal_root(board)
        best, best_visits = -1, -1
        for c in range(first[0], first[0] + count[0]) if first[0] >= 0 else ():
            if int(move[c]) in legal and visits[c] > best_visits:
                best, best_visits = int(move[c]), int(visits[c])
        if best < 0:
            best = min(legal)
        x, y = board.coords(best)
        seconds = time.monotonic() - started
        speed = total / seconds if seconds > 0 else 0.0
        return MoveChoice(x, y, f"uct iterations {total} speed {speed / 1000:.1f}k/s time {seconds * 1000:.0f}ms")

    @staticmethod
    def _interior(board: Board) -> np.ndarray:
        return np.array([board.index(x, y) for y in range(board.height) for x in range(board.width)], dtype=np.int32)

    @staticmethod
    def _legal_root(board: Board) -> set[int]:
        legal = {board.index(x, y) for x, y in board.empty_cells()}
        if board.to_move == BLACK and board.rule & RULE_RENJU:
            banned = forbidden_points(board.cells, board.stride, board.rule)
            legal = {i for i in legal if not banned[i]}
        return legal

    def _fresh(self, board: Board, max_memory: int) -> tuple[np.ndarray, ...]:
        """The tree arrays, emptied (allocated once per memory limit)."""
        capacity = tree_capacity(max_memory, NODE_BYTES)
        if capacity != self._capacity:
            self._capacity = capacity
            self._arrays = (
                np.full(capacity, -1, dtype=np.int32), np.full(capacity, -1, dtype=np.int32),
                np.zeros(capacity, dtype=np.int32), np.zeros(capacity, dtype=np.int32),
                np.zeros(capacity, dtype=np.float32), np.zeros(2, dtype=np.int64),
            )
        move, first, count, visits, wins, meta = self._arrays
        first[0] = -1
        count[0] = 0
        visits[0] = 0
        wins[0] = 0.0
        meta[0] = 1
        return self._arrays
