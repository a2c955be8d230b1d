"""When every root move loses: measure how, and play the move whose refutation is longest.

One job: choose among lost moves. Engines that win positions often miss the win later, so the move to play is the
one after which the opponent's known win is longest -- or not found at all, a defence the opponent has yet to see
through.
"""

from __future__ import annotations

from monte.brain.codes import UNKNOWN_LOSS_PLIES
from monte.brain.limits import SearchLimits
from monte.brain.position import State
from monte.brain.root_filter import FILTER_SPLIT, root_children, root_moves
from monte.brain.slices import RESERVE_MIN_SECONDS
from monte.brain.threat_search import ThreatSearch
from monte.brain.tree import Tree


def measure_defences(threats: ThreatSearch, st: State, tree: Tree, color: int, loss_plies: dict[int, int],
                     limits: SearchLimits) -> None:
    """Every move loses: spend the time left on how. Each root move whose refutation is not measured yet (the tree
    proved it lost, or no check ran) is asked, most visited first, for the opponent's win by threats after it, each
    check with a share of the time before the hard deadline; its length goes to `loss_plies`. A move whose
    refutation is not found is a defence the opponent has yet to see through: the search stops there."""
    pending = sorted((c for c in root_children(tree) if c not in loss_plies), key=lambda c: -int(tree.visits[c]))
    moves = root_moves(tree)
    for i, c in enumerate(pending):
        if limits.stopped():
            return
        share = (limits.hard_deadline - RESERVE_MIN_SECONDS - limits.now()) / min(len(pending) - i, FILTER_SPLIT)
        nodes = threats.nodes_for(share, limits)
        if nodes <= 0:
            return
        plies = threats.opponent_vct_after(st, moves[c], color, nodes, limits)
        if plies == 0:
            return  # not found: UNKNOWN_LOSS_PLIES, the longest
        loss_plies[c] = plies


def longest_defence(tree: Tree, loss_plies: dict[int, int]) -> int:
    """When every move loses: the root child after which the opponent's known win is longest (a move whose
    refutation was never found counts as longest), the most visited among equals."""
    return max(root_children(tree), key=lambda c: (loss_plies.get(c, UNKNOWN_LOSS_PLIES), int(tree.visits[c])))


def loss_length(child: int, loss_plies: dict[int, int]) -> int:
    """How long the opponent's win after `child` was measured to be (UNKNOWN_LOSS_PLIES when never found)."""
    return loss_plies.get(child, UNKNOWN_LOSS_PLIES)
