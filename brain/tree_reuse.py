"""Keeping a search tree from move to move of a game: the root moves down the moves played since it was searched.

One job, for every tree that is kept (the main thread's and each helper thread's, ``brain.threads``): when the game
went through the tree -- the same board and rule, and the moves played so far extend those of the last search --
the root moves to the new position and what it no longer reaches is reclaimed, so the search starts with the
subtree it had already grown there; otherwise the tree is cleared.
"""

from __future__ import annotations

from typing import NamedTuple

from monte.brain.board import Board
from monte.brain.mcts import find_child
from monte.brain.tree import M_ROOT, RECLAIM_TARGET, Tree, reclaim, reset_tree


class GamePath(NamedTuple):
    """Where a tree's root stands: the board's width, height and rule, and the moves (cells) played to reach it."""

    shape: tuple[int, int, int]
    moves: list[int]


def path_of(board: Board) -> GamePath:
    """The path to `board`'s position."""
    return GamePath((board.width, board.height, board.rule), [board.index(m.x, m.y) for m in board.history])


def keep_tree(tree: Tree, last: GamePath | None, board: Board) -> GamePath:
    """Move `tree`'s root, last searched at `last` (None: never, or forgotten), to `board`'s position when the game
    went through the tree (and reclaim what the new root does not reach), else clear the tree. Returns the path the
    tree's root now stands at."""
    path = path_of(board)
    old = last.moves if last is not None else []
    if last is not None and last.shape == path.shape and old and path.moves[:len(old)] == old:
        node = int(tree.meta[M_ROOT])
        for move in path.moves[len(old):]:
            node = int(find_child(tree, node, move)) if node >= 0 else -1
            if node < 0:
                break
        if node >= 0:
            if node != tree.meta[M_ROOT]:
                tree.meta[M_ROOT] = node
                reclaim(tree, RECLAIM_TARGET)
            return path
    reset_tree(tree)
    return path
