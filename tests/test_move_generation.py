"""Move generation's ordering: the tree search keeps only the best few moves of a quiet node as children, so the
selection of those few must be right -- the `limit` best by value (the hand-set cell value, or the learned policy's
logit), best first, equal values in board order."""

from __future__ import annotations

import random

import numpy as np
import pytest

from monte.brain.board import Board
from monte.brain.position import new_state
from monte.brain.policy import move_logit, recent_moves
from monte.brain.threats import _keep_best, cell_value, generate_moves, new_workspace


@pytest.mark.parametrize("seed", range(20))
def test_keep_best_keeps_the_limit_best_in_descending_order_ties_in_first_order(seed):
    rng = random.Random(seed)
    n = rng.randint(0, 80)
    limit = rng.randint(1, 40)
    # few distinct values, so that ties are common
    values = np.array([rng.choice([0.0, 1.0, 2.5, 7.0, rng.random()]) for _ in range(n)], dtype=np.float64)
    moves = np.arange(100, 100 + n, dtype=np.int32)
    expected = sorted(range(n), key=lambda i: (-values[i], i))[:limit]
    want_values = [float(values[i]) for i in expected]
    kept = _keep_best(moves, values, n, limit)
    assert kept == min(n, limit)
    assert [int(m) - 100 for m in moves[:kept]] == expected
    assert [float(v) for v in values[:kept]] == want_values


def test_keep_best_with_a_limit_of_zero_keeps_nothing_and_moves_nothing():
    moves = np.array([5, 6, 7], dtype=np.int32)
    values = np.array([1.0, 3.0, 2.0])
    assert _keep_best(moves, values, 3, 0) == 0
    assert list(moves) == [5, 6, 7] and list(values) == [1.0, 3.0, 2.0]


@pytest.mark.parametrize("learned", [False, True])
def test_quiet_node_children_are_the_best_valued_cells_near_the_stones(learned):
    board = Board(15)
    for x, y in ((7, 7), (8, 8), (8, 6), (6, 8), (9, 7)):
        board.play(x, y)
    st = new_state(board)
    me = board.to_move - 1
    last, own = recent_moves(st)

    def value(i: int) -> float:
        return move_logit(st, i, me, last, own) if learned else cell_value(st, i, me)

    near = [int(i) for i in st.interior if st.cells[i] == 0 and st.near[i] > 0]
    best_first = sorted(near, key=lambda i: -value(i))
    out = np.empty(512, dtype=np.int32)
    values = np.empty(512, dtype=np.float64)
    n = generate_moves(st, board.to_move, out, values, 10, new_workspace(st.cells.shape[0]), learned)
    assert n == 10
    assert list(values[:n]) == sorted(values[:n], reverse=True)
    assert list(values[:n]) == [value(int(m)) for m in out[:n]]
    # the kept ones are worth at least as much as every cell left out
    assert min(values[:n]) >= value(best_first[10])
    assert set(int(m) for m in out[:n]) <= set(near)


def test_recent_moves_are_the_last_move_and_the_side_to_moves_previous_one():
    board = Board(15)
    for x, y in ((7, 7), (8, 8), (3, 3)):
        board.play(x, y)
    st = new_state(board)
    assert recent_moves(st) == (board.index(3, 3), board.index(8, 8))
    assert recent_moves(new_state(Board(15))) == (-1, -1)
