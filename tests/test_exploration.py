"""The exploration schedule (``Params.c_puct_log``): with it a node's c_puct grows with the node's visits, so a big
tree spreads its root's visits over more moves than a constant c_puct does; without it (0, the default) the search
is the constant-c_puct search it always was."""

from __future__ import annotations

import numpy as np
import pytest

from monte.brain.bench import board_of
from monte.brain.limits import new_limits
from monte.brain.mcts import search
from monte.brain.position import new_state
from monte.brain.settings import Params, configure
from monte.brain.threats import new_workspace
from monte.brain.tree import M_ROOT, children, new_tree
from monte.brain.vct import new_vct_space


def root_visits(params: Params, iterations: int = 20_000) -> np.ndarray:
    """The visits of the root's children after `iterations` iterations on the bench's 15x15 middle game."""
    board = board_of("15x15 middle game")
    st = new_state(board)
    tree = new_tree(8 * 2**20)
    search(st, tree, board.to_move, iterations, params, new_workspace(st.cells.shape[0]), new_vct_space(),
           new_limits())
    return tree.visits[children(tree, int(tree.meta[M_ROOT]))]


def test_a_growing_c_puct_spreads_the_roots_visits():
    constant = root_visits(Params())
    growing = root_visits(Params(c_puct_log=2.0, c_puct_base=200.0))
    assert growing.max() / growing.sum() < constant.max() / constant.sum()
    assert np.count_nonzero(growing >= 20) > np.count_nonzero(constant >= 20)


def test_no_schedule_is_the_constant_search():
    assert np.array_equal(root_visits(Params(c_puct_log=0.0, c_puct_base=1.0), 3000), root_visits(Params(), 3000))


@pytest.mark.parametrize("text", ["0", "-5", "nan"])
def test_a_base_the_search_would_divide_by_is_refused_by_name(text):
    with pytest.raises(ValueError, match="c_puct_base"):
        configure({"c_puct_log": "0.3", "c_puct_base": text})
