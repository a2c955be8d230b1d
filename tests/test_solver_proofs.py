"""MCTS-Solver's losses are proved over every move worth searching, not over the ones a node's block kept.

A node's block holds its best ``max_children`` moves; until a block cut at that limit was widened before its node
could be called lost, the search proved positions lost when those few lost and some move left out did not (2 of
the 40 losses proved in the first 30,000 iterations of the 20x20 benchmark position). The check here walks a grown
tree and, for every node proved lost where the opponent threatened nothing (a node that faces a winning threat with
no move that defends is lost by that alone), generates the node's moves again without a limit and asks that each
one lead to a child proved won for the opponent."""

from __future__ import annotations

import numpy as np

from monte.brain.bench import board_of
from monte.brain.limits import new_limits
from monte.brain.mcts import search
from monte.brain.position import State, make, new_state, unmake
from monte.brain.settings import Params
from monte.brain.threats import Workspace, generate_moves, new_workspace, threat_count
from monte.brain.tree import M_NODE_NEXT, M_RECLAIMS, Tree, new_tree
from monte.brain.vct import new_vct_space


def unproved_losses(st: State, tree: Tree, node: int, color: int, ws: Workspace) -> tuple[int, int]:
    """(losses proved over a quiet node, how many of them leave some move without a child proved won for the
    opponent) in the subtree of `node`, whose position `st` holds (side to move: `color`)."""
    h = int(tree.block[node])
    if h < 0:
        return 0, 0
    kids = {int(tree.e_move[e]): int(tree.e_child[e]) for e in range(h + 1, h + 1 + int(tree.e_move[h]))}
    proved = unproved = 0
    if tree.proven[node] == -1 and threat_count(st, 2 - color) == 0:
        out = np.empty(st.cells.shape[0], dtype=np.int32)
        values = np.empty(st.cells.shape[0], dtype=np.float64)
        n = generate_moves(st, color, out, values, out.shape[0], ws, True)
        proved = 1
        unproved = int(any(kids.get(int(m), -1) < 0 or tree.proven[kids[int(m)]] != 1 for m in out[:n]))
    for move, child in kids.items():
        if child >= 0 and tree.visits[child] > 0:
            make(st, move, color)
            p, u = unproved_losses(st, tree, child, 3 - color, ws)
            unmake(st, move)
            proved += p
            unproved += u
    return proved, unproved


def grown_tree(iterations: int) -> tuple[State, Tree, Workspace]:
    """The 20x20 benchmark position's tree after `iterations` iterations, and the state and scratch space it was
    grown with."""
    board = board_of("20x20 middle game")
    st = new_state(board)
    tree = new_tree(64 * 2**20)
    ws = new_workspace(st.cells.shape[0])
    search(st, tree, board.to_move, iterations, Params(), ws, new_vct_space(), new_limits())
    return st, tree, ws


def test_every_loss_the_solver_proves_covers_every_move():
    st, tree, ws = grown_tree(30_000)
    proved, unproved = unproved_losses(st, tree, 0, board_of("20x20 middle game").to_move, ws)
    assert proved > 20  # the position has losses to prove: the check checks something
    assert unproved == 0


def test_a_widened_block_keeps_its_edges_with_a_child_first():
    """The search scans a block's edges only up to the first without a child (``brain.mcts._select``): that holds
    only if every block, widened ones too, has its edges with a child first."""
    _, tree, _ = grown_tree(100_000)
    assert tree.meta[M_RECLAIMS] == 0  # every node below M_NODE_NEXT is in the tree
    widened = 0
    for node in range(int(tree.meta[M_NODE_NEXT])):
        h = int(tree.block[node])
        if h < 0:
            continue
        children = tree.e_child[h + 1:h + 1 + int(tree.e_move[h])] >= 0
        first_without = len(children) if children.all() else int(np.argmin(children))
        assert not children[first_without:].any(), f"node {node}: an edge with a child after one without"
        widened += len(children) > Params().max_children
    assert widened > 0  # blocks were widened (25 of them when this was written): the check checks them
