"""The root filter: which of the root's moves let the opponent win by force, marked lost before and after MCTS.

One job: keep the tree's root from playing into a proved loss. Before the search, every root move is checked against
the opponent's VCF (cheap), then -- only when the opponent threatens a VCT at all, since a stone of ours never helps
its threats -- against its VCT, in order of promise; after the search the chosen move is checked once more. A move
found lost is marked proven in the tree (``tree.proven[child] = 1``: the opponent wins there), so the search and
the final choice pass it over; how long the opponent's win is after it is kept for the longest defence
(``brain.defence``) when every move loses.
"""

from __future__ import annotations

from collections.abc import Callable

from monte.brain.limits import SearchLimits
from monte.brain.position import State
from monte.brain.quiet_threats import QuietBudget, QuietThreats
from monte.brain.root_choice import root_choice
from monte.brain.settings import Options
from monte.brain.slices import RESERVE_MIN_SECONDS
from monte.brain.threat_search import ThreatSearch, pv_plies
from monte.brain.threats import Workspace, opponent_vcf_after
from monte.brain.tree import M_ROOT, Tree, child_moves, child_priors, children

SAFETY_VCF_PLIES = 30
SAFETY_VCF_NODES = 6_000
FILTER_SPLIT = 6              # a root move's check against the opponent's VCT may use 1/6 of the filter's time left


def root_children(tree: Tree) -> list[int]:
    """The root's children (their nodes: ``mcts.expand_root`` gives each one)."""
    return children(tree, int(tree.meta[M_ROOT])).tolist()


def root_moves(tree: Tree) -> dict[int, int]:
    """The move into each root child, by node (a node has no move of its own: ``brain.tree``)."""
    root = int(tree.meta[M_ROOT])
    return dict(zip(children(tree, root).tolist(), child_moves(tree, root).tolist()))


def root_priors(tree: Tree) -> dict[int, float]:
    """The prior of each root child, by node."""
    root = int(tree.meta[M_ROOT])
    return dict(zip(children(tree, root).tolist(), child_priors(tree, root).tolist()))


def mark_refuted(tree: Tree, order: list[int], refuted: Callable[[int], int], budget_end: float,
                 limits: SearchLimits, loss_plies: dict[int, int]) -> bool:
    """One pass of a filter: ask `refuted` about each root child in `order` not proven yet, until the move's clock
    reaches `budget_end`, and mark lost (``tree.proven = 1``) those after which it finds the opponent's win (its
    length goes to `loss_plies`). A pass that would leave no move standing is undone: when everything loses, the
    moves that lose only to the deeper threat are the ones to choose among (the opponent still has to find the
    win). Returns whether it was undone (no later pass can help)."""
    marked = []
    for c in order:
        if limits.now() > budget_end or limits.stopped():
            break
        if tree.proven[c] == 0:
            plies = refuted(c)
            if plies > 0:
                tree.proven[c] = 1
                marked.append(c)
                loss_plies[c] = plies
    if all(tree.proven[c] == 1 for c in root_children(tree)):
        for c in marked:
            tree.proven[c] = 0
        return True
    return False


class RootFilter:
    """Marks the root moves after which the opponent wins by VCF or VCT (see the module docstring)."""

    def __init__(self, options: Options, threats: ThreatSearch) -> None:
        self.options = options
        self.threats = threats

    def filter(self, st: State, tree: Tree, color: int, threatened: bool, zone: set[int], budget_end: float,
               ws: Workspace, limits: SearchLimits) -> dict[int, int]:
        """Mark root moves after which the opponent wins by force as lost: first every move against the opponent's
        VCF, then -- when the opponent threatens a VCT at all -- the moves against its VCT until the move's clock
        reaches `budget_end`: the cells of its proof (`zone`) first, then the others, each in order of promise and
        each check given a share of the time left. Returns the refuted children with the length of the opponent's
        win after each (for the longest defence when every move loses).

        A pass that would leave no move standing is undone: when everything loses, the moves that lose only to the
        deeper threat are the ones to choose among (the opponent still has to find the win)."""
        children = root_children(tree)
        moves = root_moves(tree)
        loss_plies: dict[int, int] = {}

        def refuted_by_vcf(c: int) -> int:
            lost = opponent_vcf_after(st, moves[c], color, SAFETY_VCF_PLIES, SAFETY_VCF_NODES, ws,
                                      limits.array)
            return pv_plies(ws.pv) if lost else 0

        prior = root_priors(tree)
        by_promise = sorted(children, key=lambda c: (moves[c] not in zone, -prior[c]))

        def refuted_by_vct(c: int) -> int:
            left = by_promise.index(c)
            share = (budget_end - limits.now()) / max(1, min(len(by_promise) - left, FILTER_SPLIT))
            return self.threats.opponent_vct_after(st, moves[c], color,
                                                   self.threats.nodes_for(share, limits), limits)

        if not mark_refuted(tree, children, refuted_by_vcf, budget_end, limits, loss_plies) and threatened:
            mark_refuted(tree, by_promise, refuted_by_vct, budget_end, limits, loss_plies)
        return loss_plies

    def filter_quiet(self, st: State, tree: Tree, color: int, quiet: QuietThreats, budget: QuietBudget,
                     budget_end: float, limits: SearchLimits, loss_plies: dict[int, int]) -> None:
        """Mark lost the root moves after which the opponent wins by a quiet move and then a VCT
        (``brain.quiet_threats``), the most visited first (then by prior), until the move's clock reaches
        `budget_end`; a pass that would leave no move standing is undone (``mark_refuted``)."""
        prior = root_priors(tree)
        moves = root_moves(tree)
        order = sorted(root_children(tree), key=lambda c: (-int(tree.visits[c]), -prior[c]))

        def refuted_by_quiet(c: int) -> int:
            return quiet.opponent_win_after(st, moves[c], color, budget, limits, budget_end)

        mark_refuted(tree, order, refuted_by_quiet, budget_end, limits, loss_plies)

    def checked_choice(self, st: State, tree: Tree, color: int, threatened: bool, loss_plies: dict[int, int],
                       limits: SearchLimits) -> int:
        """The root child to play (``brain.root_choice``) after the opponent's VCT has had its say: when the
        opponent threatens one, a move after which it wins by threats is marked lost and the next choice takes its
        place (a few times, each check sized to the time left before the hard deadline)."""
        root = int(tree.meta[M_ROOT])
        child = root_choice(tree, root, self.options)
        if not threatened:
            return child
        moves = root_moves(tree)
        for _ in range(self.options.checked_choices):
            if tree.proven[child] != 0 or tree.proven[root] != 0 or limits.stopped():
                break
            nodes = self.threats.nodes_for(0.5 * (limits.hard_deadline - limits.now()) - RESERVE_MIN_SECONDS, limits)
            plies = self.threats.opponent_vct_after(st, moves[child], color, nodes, limits)
            if plies == 0:
                break
            tree.proven[child] = 1
            loss_plies[child] = plies
            child = root_choice(tree, root, self.options)
        return child
