"""The move to play among the root's children once the search stops: the most visited, unless a well-visited other
move's value is clearly better.

One job: read the final choice off the root's statistics. Visits are the robust measure -- a move's mean value
after a few visits is noise -- but they lag: a move whose value rises late (found late, its prior low, or the
favourite's refutation found late) needs time to overtake the favourite's visits, and a 1 s move often ends before
it has. Measured on a held-out blunder position (``tournaments/reports/blunders/``, position 31): at 1 s the
favourite had 68,216 visits at 33.4% and the runner-up 42,952 at 46.0%; the favourite was played, and Rapfi found
the opponent's win after it (the runner-up: none). So, as Leela Chess Zero and KataGo do, a move with at least
``Options.choice_share`` of the favourite's visits takes its place when its value's lower confidence bound is
higher: mean value less ``Options.choice_z`` / sqrt(visits) (values lie in [-1, 1], so 1 bounds their standard
deviation and the bound is a cautious one). A proof decides first (``mcts.best_child``).
"""

from __future__ import annotations

import math

from monte.brain.mcts import best_child
from monte.brain.settings import Options
from monte.brain.tree import Tree, children


def lower_bound(tree: Tree, child: int, z: float) -> float:
    """The child's mean value for the side that moved into it, less `z` standard errors of at most 1 each."""
    visits = int(tree.visits[child])
    return float(tree.wsum[child]) / visits - z / math.sqrt(visits)


def root_choice(tree: Tree, root: int, options: Options) -> int:
    """The root child to play (-1 when the search has gone into none): ``best_child``'s -- a proven win, else the
    most visited move not proven lost -- unless an unproven child with at least ``choice_share`` of its visits has
    a higher lower bound on its value (``lower_bound``), the highest such then."""
    best = int(best_child(tree, root))
    if best < 0 or tree.proven[best] != 0 or tree.visits[best] == 0 or options.choice_share <= 0:
        return best
    floor = options.choice_share * int(tree.visits[best])
    choice, bound = best, lower_bound(tree, best, options.choice_z)
    for c in children(tree, root).tolist():
        if c == best or tree.proven[c] != 0 or tree.visits[c] == 0 or tree.visits[c] < floor:
            continue
        b = lower_bound(tree, c, options.choice_z)
        if b > bound:
            choice, bound = c, b
    return choice
