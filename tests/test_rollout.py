"""Tactical rollouts (``Params.rollout_plies``): they take fives, see lost positions, leave the state as they found
it, and drive a real search."""

from __future__ import annotations

import numpy as np

from monte.brain.board import BLACK, WHITE, Board
from monte.brain.limits import new_limits
from monte.brain.mcts import rollout, search
from monte.brain.position import new_state
from monte.brain.settings import Params
from monte.brain.threats import new_workspace
from monte.brain.tree import new_tree
from monte.brain.vct import new_vct_space

ROLLOUT = Params(rollout_plies=30)


def run_rollout(board: Board, color: int) -> tuple[float, object]:
    st = new_state(board)
    value = rollout(st, color, ROLLOUT, np.empty(512, np.int32), np.empty(512), new_workspace(st.cells.shape[0]),
                    np.empty(1100, np.int32))
    return value, st


def board_with(stones: list[tuple[int, int, int]], to_move: int) -> Board:
    board = Board(15)
    for x, y, color in stones:
        board.place(x, y, color)
    board.to_move = to_move
    return board


def test_a_rollout_takes_the_five_it_has():
    board = board_with([(3, 7, BLACK), (4, 7, BLACK), (5, 7, BLACK), (6, 7, BLACK), (3, 9, WHITE), (5, 9, WHITE),
                        (7, 9, WHITE), (9, 9, WHITE)], BLACK)
    for _ in range(20):  # random draws: every one of them must take the five
        assert run_rollout(board, BLACK)[0] == 1.0


def test_a_rollout_against_an_open_four_is_lost():
    board = board_with([(3, 7, WHITE), (4, 7, WHITE), (5, 7, WHITE), (6, 7, WHITE), (3, 9, BLACK), (5, 9, BLACK),
                        (7, 9, BLACK), (10, 10, BLACK)], BLACK)
    for _ in range(20):
        assert run_rollout(board, BLACK)[0] == -1.0


def test_a_rollout_leaves_the_search_state_as_it_found_it():
    board = board_with([(7, 7, BLACK), (8, 8, WHITE), (8, 6, BLACK), (6, 8, WHITE)], BLACK)
    before = new_state(board)
    _, after = run_rollout(board, BLACK)
    for name in ("cells", "keys", "cls", "kind_count", "score_sum", "hash", "near"):
        assert np.array_equal(getattr(before, name), getattr(after, name)), name


def test_a_search_with_rollouts_finds_the_win_in_one():
    board = board_with([(3, 7, BLACK), (4, 7, BLACK), (5, 7, BLACK), (6, 7, BLACK), (3, 9, WHITE), (5, 9, WHITE),
                        (7, 9, WHITE), (9, 9, WHITE)], BLACK)
    st = new_state(board)
    tree = new_tree(256 * 1024)
    search(st, tree, BLACK, 200, ROLLOUT, new_workspace(st.cells.shape[0]), new_vct_space(), new_limits())
    assert tree.proven[0] == 1  # the side to move wins
