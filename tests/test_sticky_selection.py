"""Sticky selection (``Params.sticky``): below the root, a node keeps sending the search into the child the last
iteration went into while that child's PUCT score, its exploration term raised by the share, is still the best --
so the iterations share more of their paths and make fewer moves, and no child overshoots its PUCT share by much
more than that share of its visits."""

from __future__ import annotations

import pytest

from monte.brain.bench import board_of, fresh_search, run_iterations
from monte.brain.mcts import _select
from monte.brain.settings import Params, configure
from monte.brain.tree import M_MAKES, M_STEPS, Tree, new_block, new_node, new_tree


def two_children(visits_a: int, visits_b: int) -> tuple[Tree, int, int]:
    """A root with two children of equal prior and equal mean value: (tree, child a, child b)."""
    tree = new_tree(2**20)
    h = new_block(tree, 0, 2)
    nodes = []
    for i, visits in enumerate((visits_a, visits_b)):
        child = new_node(tree)
        tree.e_move[h + 1 + i] = i
        tree.e_prior[h + 1 + i] = 0.5
        tree.e_child[h + 1 + i] = child
        tree.visits[child] = visits
        tree.wsum[child] = 0.0
        nodes.append(child)
    tree.block[0] = h
    tree.visits[0] = 1 + visits_a + visits_b
    tree.wsum[0] = 0.0
    return tree, nodes[0], nodes[1]


def chosen(tree: Tree, sticky: float, prev: int) -> int:
    return int(tree.e_child[_select(tree, 0, Params(sticky=sticky), prev)])


def test_plain_puct_turns_to_the_less_visited_child():
    tree, a, b = two_children(11, 10)
    assert chosen(tree, 0.0, a) == b
    assert chosen(tree, 0.25, -1) == b


def test_the_last_child_is_kept_within_the_share_and_left_beyond_it():
    # equal priors and values: a's exploration term is b's x 11/12 at 11 visits (kept with 0.25 more: 1.15 > 1),
    # 11/15 at 14 visits (0.92 < 1: the search turns to b)
    tree, a, b = two_children(11, 10)
    assert chosen(tree, 0.25, a) == a
    assert chosen(tree, 0.05, a) == b
    tree, a, b = two_children(14, 10)
    assert chosen(tree, 0.25, a) == b


def test_sticky_search_makes_fewer_moves_an_iteration():
    board = board_of("15x15 middle game")
    made = {}
    for sticky in (0.0, 0.25):
        params = Params(sticky=sticky)
        run = fresh_search(board, params)
        done = run_iterations(run, board.to_move, 5000, params)
        made[sticky] = run.tree.meta[M_MAKES] / done
        assert run.tree.meta[M_STEPS] / done > 5  # the search went deep all the same
    assert made[0.25] < 0.75 * made[0.0]


@pytest.mark.parametrize("text", ["-0.1", "nan"])
def test_a_negative_share_is_refused_by_name(text):
    with pytest.raises(ValueError, match="sticky"):
        configure({"sticky": text})
