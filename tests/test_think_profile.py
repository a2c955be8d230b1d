"""The search's counters (``brain.tree`` M_STEPS...) and the long think's profile that reads them
(``brain.thinkprofile``, ``python -m monte.lab.longthink --in-process``)."""

from __future__ import annotations

import pytest

from monte.brain.bench import board_of
from monte.brain.limits import L_NODES, new_limits
from monte.brain.mcts import search
from monte.brain.position import new_state
from monte.brain.settings import Params
from monte.brain.thinkprofile import profile_think
from monte.brain.threats import new_workspace
from monte.brain.tree import (
    M_EXPANDED, M_MAKES, M_NODE_NEXT, M_PROVEN_ENDS, M_RECLAIMS, M_STEPS, M_VCF_NODES, M_VCT_NODES, new_tree, reset_tree,
)
from monte.brain.vct import new_vct_space
from monte.lab import longthink

MiB = 2**20


def test_the_counters_count_the_steps_moves_expansions_and_threat_nodes_of_a_search():
    board = board_of("15x15 middle game")
    st = new_state(board)
    tree = new_tree(16 * MiB)
    limits = new_limits()
    done = int(search(st, tree, board.to_move, 1, Params(), new_workspace(st.cells.shape[0]), new_vct_space(), limits))
    # the first iteration expands the root and goes one step, into its first child
    assert done == 1 and tree.meta[M_STEPS] == 1 and tree.meta[M_MAKES] == 1 and tree.meta[M_EXPANDED] == 1
    done += int(search(st, tree, board.to_move, 20_000, Params(), new_workspace(st.cells.shape[0]), new_vct_space(),
                       limits))
    assert done == 20_001 and tree.meta[M_RECLAIMS] == 0
    nodes = int(tree.meta[M_NODE_NEXT])
    # every iteration adds a visit to each node of its path below the root: the steps are those visits
    assert tree.meta[M_STEPS] == int(tree.visits[1:nodes].sum()) > 2 * done
    assert done < tree.meta[M_MAKES] < tree.meta[M_STEPS]  # the top of a path is kept from the iteration before
    assert 0 < tree.meta[M_EXPANDED] < done
    # what the limits counted beyond the iterations: the threat searches' nodes
    assert tree.meta[M_VCF_NODES] + tree.meta[M_VCT_NODES] == limits[L_NODES] - done
    assert tree.meta[M_VCF_NODES] > 0 and tree.meta[M_VCT_NODES] > 0
    assert 0 <= tree.meta[M_PROVEN_ENDS] < done
    reset_tree(tree)
    assert tree.meta[M_STEPS] == tree.meta[M_MAKES] == tree.meta[M_EXPANDED] == tree.meta[M_VCF_NODES] == 0


def test_a_profiled_think_samples_the_search_as_it_goes():
    profile = profile_think(board_of("15x15 opening"), 2.5, 350 * MiB)
    samples = profile.samples
    assert len(samples) >= 3 and samples[0].iterations == 0  # the start, the reports, the move
    for before, now in zip(samples, samples[1:]):
        assert now.seconds >= before.seconds and now.iterations >= before.iterations and now.steps >= before.steps
    last = samples[-1]
    assert last.steps > last.iterations > 0 and 0 < last.fill < 1 and last.resident > 0
    assert 0 < profile.budget < 350 * MiB and profile.reclaim_seconds > 0


def test_longthink_names_an_opening_it_does_not_have(capsys):
    with pytest.raises(SystemExit) as exit_:
        longthink.main(["--opening", "999"])
    assert exit_.value.code == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert "--opening 999" in error and "Traceback" not in error


def test_longthink_reads_openings_files_with_comments(tmp_path):
    path = tmp_path / "openings.txt"
    path.write_text("# a comment\n0,0, 1,1\n\n# another\n-1,2, 0,1, 2,2\n")
    assert longthink.opening(1, path) == [(6, 9), (7, 8), (9, 9)]


def test_longthink_says_which_way_a_rate_moved():
    assert longthink.ratio(100.0, [50.0, 80.0, 90.0]) == "median 1.25x slower, worst 2.00x slower"
    assert longthink.ratio(100.0, [150.0, 90.0, 200.0]) == "median 1.50x faster, worst 2.00x faster"
