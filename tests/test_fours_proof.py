"""The in-tree VCF of a side with fours but no four-three point, asked when a node's visits reach ``vcf_visits``
(``brain.mcts``): it must still prove such nodes, and only then.

The root is LONG_VCF of the tactics tests with White to move: after most White moves Black, to move at the child,
has four four points, no four-three point and a nine-ply VCF that the tree's chain VCF finds.
"""

from __future__ import annotations

import sys
from pathlib import Path

from monte.brain.board import WHITE
from monte.brain.limits import new_limits
from monte.brain.mcts import search
from monte.brain.position import new_state
from monte.brain.settings import Params
from monte.brain.threats import new_workspace
from monte.brain.tree import M_ROOT, children, new_tree
from monte.brain.vct import new_vct_space

sys.path.insert(0, str(Path(__file__).parent))
from test_tactics import LONG_VCF, position  # noqa: E402

ITERATIONS = 3000


def proven_children(vcf_visits: int) -> tuple[int, int, bool]:
    """(children proven won for Black, the fewest visits among them, whether the board came back unchanged) after
    ITERATIONS iterations from the root, in-tree VCT off so that only the VCF proves, and the hand-set priors: the
    learned policy sends the search down Black's fours deep enough to prove some children by the solver alone (a
    four-three point reached below them), which is not the mechanism under test."""
    board, _, _ = position(LONG_VCF, WHITE)
    st = new_state(board)
    before = int(st.hash[0])
    tree = new_tree(16 * 1024 * 1024)
    params = Params(vct_ratio=0.0, vcf_visits=vcf_visits, policy_model=0)
    search(st, tree, WHITE, ITERATIONS, params, new_workspace(st.cells.shape[0]), new_vct_space(), new_limits())
    kids = children(tree, int(tree.meta[M_ROOT]))
    won = [int(tree.visits[c]) for c in kids if tree.proven[c] == 1]
    return len(won), min(won, default=0), int(st.hash[0]) == before


def test_nodes_with_fours_only_are_proven_once_they_earn_the_visits():
    proven, fewest, restored = proven_children(vcf_visits=4)
    assert restored
    assert proven >= 3
    # each proof came on the visit after the fourth (which counts too): never at expansion, the second visit
    assert fewest == 5


def test_without_the_visits_no_proof_comes_from_the_vcf():
    proven, _, restored = proven_children(vcf_visits=10 ** 9)
    assert restored
    assert proven == 0
