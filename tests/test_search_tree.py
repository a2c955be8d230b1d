"""The tree search's bookkeeping of the position: an iteration leaves its moves on the board and the next one takes
back only the part of the old path it leaves (``brain.mcts.search``). A slip there would evaluate nodes on the wrong
position, so the search is checked against itself run one iteration per call (each call starts and ends on the
root's position) and against the position it was given."""

from __future__ import annotations

import numpy as np
import pytest

from monte.brain.bench import board_of
from monte.brain.board import Board
from monte.brain.limits import new_limits
from monte.brain.mcts import search
from monte.brain.position import new_state
from monte.brain.settings import Params
from monte.brain.threats import new_workspace
from monte.brain.tree import M_EDGE_NEXT, M_MERGED, M_NODE_NEXT, new_tree
from monte.brain.vct import new_vct_space

GAMES = ["15x15 middle game", "20x20 middle game"]   # the benchmark's positions


def grown_tree(board: Board, iterations: int, per_call: int, params: Params = Params()):
    """The tree after `iterations` iterations run `per_call` at a time, and the state afterwards."""
    st = new_state(board)
    tree = new_tree(8 * 2**20)
    ws = new_workspace(st.cells.shape[0])
    vs = new_vct_space()
    for _ in range(iterations // per_call):
        search(st, tree, board.to_move, per_call, params, ws, vs, new_limits())
    return tree, st


@pytest.mark.parametrize("sticky", [0.0, 0.25])
@pytest.mark.parametrize("name", GAMES)
def test_one_long_search_grows_the_same_tree_as_one_iteration_per_call(name, sticky):
    """Also where a node keeps going where the last iteration went (``Params.sticky``): the search remembers that
    path from one call to the next, so how the player slices a search does not change the tree."""
    board = board_of(name)
    params = Params(sticky=sticky)
    long_tree, _ = grown_tree(board, 3000, 3000, params)
    short_tree, _ = grown_tree(board, 3000, 1, params)
    nodes, edges = int(long_tree.meta[M_NODE_NEXT]), int(long_tree.meta[M_EDGE_NEXT])
    assert (nodes, edges) == (int(short_tree.meta[M_NODE_NEXT]), int(short_tree.meta[M_EDGE_NEXT]))
    for field in ("block", "visits", "wsum", "proven"):
        assert np.array_equal(getattr(long_tree, field)[:nodes], getattr(short_tree, field)[:nodes]), field
    for field in ("e_move", "e_prior", "e_child"):
        assert np.array_equal(getattr(long_tree, field)[:edges], getattr(short_tree, field)[:edges]), field
    assert long_tree.meta[M_MERGED] > 0  # a graph: the path's positions were right where two move orders met
    for field in ("t_key", "t_node"):
        assert np.array_equal(getattr(long_tree, field), getattr(short_tree, field)), field


@pytest.mark.parametrize("name", GAMES)
def test_search_leaves_the_position_as_it_found_it(name):
    board = board_of(name)
    fresh = new_state(board)
    _, st = grown_tree(board, 2000, 500)
    for field in ("cells", "keys", "pat", "code", "cls", "score", "kind_count", "score_sum", "near", "hash", "info"):
        assert np.array_equal(getattr(st, field), getattr(fresh, field)), field
