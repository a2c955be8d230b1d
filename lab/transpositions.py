"""How much of a search tree holds positions that another of its nodes holds too -- what the search graph (one node
for a position however its moves were ordered, ``Params.graph``) saves -- and what the graph still holds twice.

    python -m monte.lab.transpositions [--iterations N,N,...]

For each of ``monte bench``'s positions and each iteration count, two fresh searches of the value network's MCTS are
run, a tree (``graph=0``) and the graph, and each walked from its root, each node's position hashed from the moves of
its path (the state's Zobrist keys). Printed for each: the nodes, the distinct positions, the share of the nodes
whose position another node holds too, and the share of the visits that went to any node but each position's most
visited one -- the search effort a graph pools. The graph's copies are its transposition table's collisions.
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from typing import NamedTuple

import numpy as np

from monte.brain.bench import POSITIONS, board_of, fresh_search, run_iterations
from monte.brain.board import Board
from monte.brain.settings import Params
from monte.brain.tree import M_MADE, M_RECLAIMS, M_ROOT, Tree

TREE_BYTES = 1024 * 1024 * 1024
"""Room for a million iterations and more without a reclaim (which would collapse what it counts); memory is taken
only as the tree grows."""


class Sharing(NamedTuple):
    """What one tree holds twice."""

    iterations: int
    made: int
    """The nodes the search made, the root's included (none was freed: no reclaim ran)."""
    nodes: int
    """The nodes the walk from the root counted: each once, however many parents it has."""
    positions: int
    shared_nodes: float
    """The share of the nodes whose position another node holds too."""
    pooled_visits: float
    """The share of the visits that went to any node but its position's most visited one."""


def positions_of(tree: Tree, zobrist: np.ndarray, to_move: int) -> dict[int, set[int]]:
    """Each position the search reaches from its root (as a Zobrist hash relative to the root's) and its nodes; a
    node two parents share is gone into once."""
    held: dict[int, set[int]] = defaultdict(set)
    seen: set[int] = set()
    stack = [(int(tree.meta[M_ROOT]), 0, to_move)]
    while stack:
        node, key, color = stack.pop()
        held[key].add(node)
        if node in seen:
            continue
        seen.add(node)
        h = int(tree.block[node])
        if h < 0:
            continue
        for e in range(h + 1, h + 1 + int(tree.e_move[h])):
            child = int(tree.e_child[e])
            if child >= 0:
                stack.append((child, key ^ int(zobrist[color - 1, int(tree.e_move[e])]), 3 - color))
    return held


def sharing(board: Board, iterations: int, graph: int = 0) -> Sharing:
    """Search `board` for `iterations` MCTS iterations (fewer if it is proved first), as a tree (`graph` 0) or a
    graph (1), and count what it holds twice."""
    params = Params(graph=graph)
    run = fresh_search(board, params, TREE_BYTES)
    done = run_iterations(run, board.to_move, iterations, params)
    st, tree = run.st, run.tree
    if tree.meta[M_RECLAIMS]:
        raise RuntimeError(f"the tree was reclaimed after {done} iterations: give it more room than {TREE_BYTES}")
    held = positions_of(tree, st.zobrist, board.to_move)
    nodes = sum(len(group) for group in held.values())
    visits = [[int(tree.visits[n]) for n in group] for group in held.values()]
    shared = sum(len(group) for group in held.values() if len(group) > 1)
    pooled = sum(sum(v) - max(v) for v in visits)
    total = max(1, sum(sum(v) for v in visits))
    return Sharing(done, int(tree.meta[M_MADE]), nodes, len(held), shared / nodes, pooled / total)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m monte.lab.transpositions", description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", default="150000,600000", help="iteration counts (default 150000,600000)")
    args = parser.parse_args(argv)
    counts = [int(part) for part in args.iterations.split(",") if part]
    for name in POSITIONS:
        for count in counts:
            for graph, kind in ((0, "tree"), (1, "graph")):
                s = sharing(board_of(name), count, graph)
                print(f"{name:18s} {kind:5s} {s.iterations:8d} iterations: {s.nodes} nodes, {s.positions} positions;"
                      f" {s.shared_nodes:.1%} of the nodes share their position, {s.pooled_visits:.1%} of the visits"
                      " went to another node than their position's most visited one")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
