"""What the player says about its move: the ``MoveChoice`` with its ``SearchInfo`` (main line, depth, win rate,
proof), and a legal fallback when the search has nothing sound to offer.

One job: turn the tree and the proofs into the report the protocol prints (``MESSAGE`` lines, Rapfi's realtime
format); it never changes the search.
"""

from __future__ import annotations

import time

import numpy as np

from monte.brain.board import Board
from monte.brain.mcts import best_child
from monte.brain.player import MoveChoice, SearchInfo
from monte.brain.tree import M_MAXDEPTH, M_ROOT, Tree, children_by_move, fill, move_to

MAX_PV_PLIES = 30             # the longest principal variation reported


def report(board: Board, tree: Tree, started: float, iterations: int, move: int, note: str,
           line: list[tuple[int, int]] | None = None, mate: int = 0) -> MoveChoice:
    """The chosen move with what the search found: its main line (or the proof's `line`), its depth and win rate;
    `mate` plies to a proven win (> 0) or loss (< 0), else what the tree has proven. A move that is not legal here
    is never sent: a fallback takes its place."""
    x, y = board.coords(move)
    if not board.is_empty(x, y) or board.is_forbidden(x, y) and board.to_move == 1:
        return fallback(board, started, f"search proposed {x},{y}")
    return MoveChoice(x, y, search=search_info(board, tree, started, iterations, (x, y), note, line, mate))


def search_info(board: Board, tree: Tree, started: float, iterations: int, move: tuple[int, int], note: str = "",
                line: list[tuple[int, int]] | None = None, mate: int = 0) -> SearchInfo:
    """What the search has found for `move`: its main line (or the proof's `line`), depth and win rate; `mate`
    plies to a proven win (> 0) or loss (< 0), else what the tree has proven. The main line and the win rate are
    `move`'s own when the search went into it (``brain.root_choice`` may play another than the most visited)."""
    root = int(tree.meta[M_ROOT])
    child = children_by_move(tree, root).get(board.index(*move), -1)
    main_line = principal_variation(board, tree, root)
    if main_line[:1] != [move] and child >= 0 and tree.visits[child] > 0:
        main_line = [move, *principal_variation(board, tree, child, MAX_PV_PLIES - 1)]
    pv = line or (main_line if main_line[:1] == [move] else [move])
    rate = winrate(tree, root, child)
    if mate == 0 and tree.proven[root] != 0:
        mate = len(pv) if tree.proven[root] > 0 else -len(pv)
    if mate != 0:
        rate = 1.0 if mate > 0 else 0.0
    return SearchInfo(depth=len(pv), seldepth=max(len(pv), int(tree.meta[M_MAXDEPTH])), winrate=rate,
                      nodes=iterations, seconds=time.monotonic() - started, pv=pv, mate=mate, note=note,
                      tree=fill(tree))


def progress_info(board: Board, tree: Tree, started: float, iterations: int) -> SearchInfo | None:
    """What a search still running has found so far (its favourite move), or None before it has one."""
    root = int(tree.meta[M_ROOT])
    child = int(best_child(tree, root))
    if child < 0:
        return None
    return search_info(board, tree, started, iterations, board.coords(move_to(tree, root, child)), "searching")


def winrate(tree: Tree, root: int, child: int = -1) -> float:
    """The root's win rate for the side to move: 1 or 0 when proven, else the mean value of `child` (a root child
    the search went into; -1: the favourite)."""
    if tree.proven[root] != 0:
        return 1.0 if tree.proven[root] > 0 else 0.0
    if child < 0 or tree.visits[child] == 0:
        child = int(best_child(tree, root))
    if child < 0 or tree.visits[child] == 0:
        return 0.5
    return float(0.5 + 0.5 * tree.wsum[child] / tree.visits[child])


def principal_variation(board: Board, tree: Tree, root: int, length: int = MAX_PV_PLIES) -> list[tuple[int, int]]:
    """The most-visited line below `root`, at most `length` moves."""
    line = []
    node = root
    while len(line) < length and tree.block[node] >= 0:
        child = int(best_child(tree, node))
        if child < 0 or tree.visits[child] == 0:
            break
        line.append(board.coords(move_to(tree, node, child)))
        node = child
    return line


def vcf_line(board: Board, pv: np.ndarray) -> list[tuple[int, int]]:
    """A VCF's moves (`pv`, -1 ends it) as board points."""
    line = []
    for m in pv:
        if m < 0:
            break
        line.append(board.coords(int(m)))
    return line


def fallback(board: Board, started: float, why: str) -> MoveChoice:
    """Any legal move (the position is lost or the search misbehaved): never an illegal one."""
    legal = board.legal_moves() or board.empty_cells()
    cx, cy = board.width // 2, board.height // 2
    x, y = min(legal, key=lambda m: (abs(m[0] - cx) + abs(m[1] - cy), m))
    return MoveChoice(x, y, f"fallback ({why}) in {(time.monotonic() - started) * 1000:.0f}ms")
