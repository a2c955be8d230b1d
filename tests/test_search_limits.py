"""The search limits every compiled search obeys (``brain.limits``): a node budget counted across MCTS, VCF and VCT, a
stop flag that cuts a search already running in another thread, and a node-limited move that depends on the position
alone. No timed assertion: a broken stop shows as a search that ran all its iterations, never as a slow one."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from monte.brain.bench import board_of
from monte.brain.board import BLACK
from monte.brain.engine import MctsPlayer
from monte.brain.limits import L_NODES, L_STOP, new_limits
from monte.brain.mcts import search
from monte.brain.settings import Params
from monte.brain.player import ThinkLimits
from monte.brain.position import new_state
from monte.brain.stopflag import StopFlag
from monte.brain.threats import find_vcf, new_workspace
from monte.brain.tree import new_tree
from monte.brain.vct import find_vct, new_vct_space

from test_tactics import LONG_VCF, position
from test_vct import threat_win_board

JOIN_S = 300.0   # how long a stopped search may take to come back before the test calls it hung (never a speed bound)


def stopped_limits() -> np.ndarray:
    limits = new_limits()
    limits[L_STOP] = 1
    return limits


def test_a_node_budget_caps_the_mcts_iterations_exactly():
    board = board_of("15x15 middle game")
    st = new_state(board)
    limits = new_limits(max_nodes=300)
    done = search(st, new_tree(256 * 1024), board.to_move, 100_000, Params(vcf_nodes=0, vct_ratio=0.0),
                  new_workspace(st.cells.shape[0]), new_vct_space(), limits)
    assert done == 300 and limits[L_NODES] == 300


def test_the_in_tree_vcf_counts_against_the_same_budget():
    board = board_of("15x15 middle game")
    st = new_state(board)
    limits = new_limits(max_nodes=3000)
    done = search(st, new_tree(2**20), board.to_move, 100_000, Params(vct_ratio=0.0),
                  new_workspace(st.cells.shape[0]), new_vct_space(), limits)
    assert limits[L_NODES] == 3000
    assert done < 3000  # some of the budget went to VCF nodes inside the tree


def test_vcf_and_vct_stop_at_a_node_budget_short_of_their_win():
    board, _, _ = position(LONG_VCF, BLACK)
    vcf_state, vct_state = new_state(board), new_state(threat_win_board())
    ws = new_workspace(vcf_state.cells.shape[0])

    def vcf(limits):
        ws.tt_keys[:] = 0
        return find_vcf(vcf_state, BLACK, 40, 1_000_000, ws, False, limits)

    def vct(limits):
        return find_vct(vct_state, BLACK, 14, 1_000_000, new_vct_space(), limits)

    for search_for, no_win in ((vcf, False), (vct, -1)):
        unlimited = new_limits()
        assert search_for(unlimited) != no_win
        needed = int(unlimited[L_NODES])
        for budget in (1, needed // 2, needed - 1):
            limits = new_limits(max_nodes=budget)
            assert search_for(limits) == no_win, (search_for.__name__, budget)
            assert limits[L_NODES] == budget
        assert search_for(new_limits(max_nodes=needed)) != no_win


def test_a_set_stop_flag_cuts_every_search_and_leaves_the_position_as_it_was():
    board, _, _ = position(LONG_VCF, BLACK)
    st = new_state(board)
    cells, hashes = st.cells.copy(), st.hash.copy()
    ws = new_workspace(st.cells.shape[0])
    assert find_vcf(st, BLACK, 40, 1_000_000, ws, False, new_limits())  # the win is there...
    assert not find_vcf(st, BLACK, 40, 1_000_000, ws, False, stopped_limits())  # ...but not when stopped
    tree = new_tree(256 * 1024)
    assert search(st, tree, BLACK, 1000, Params(), ws, new_vct_space(), stopped_limits()) == 0
    vct_state = new_state(threat_win_board())
    assert find_vct(vct_state, BLACK, 14, 1_000_000, new_vct_space(), new_limits()) >= 0
    assert find_vct(vct_state, BLACK, 14, 1_000_000, new_vct_space(), stopped_limits()) == -1
    assert np.array_equal(st.cells, cells) and np.array_equal(st.hash, hashes)


def test_a_stop_flag_set_from_another_thread_cuts_a_running_search():
    """The search runs in a worker thread; the main thread waits until it has started, then sets the flag. Were the
    kernel holding the GIL, the main thread could not even look before the search ended with all its iterations."""
    board = board_of("15x15 middle game")
    st = new_state(board)
    flag = StopFlag()
    limits = new_limits()
    flag.link(limits)
    asked = 2_000_000
    done: list[int] = []
    worker = threading.Thread(target=lambda: done.append(search(
        st, new_tree(2 * 2**20), board.to_move, asked, Params(), new_workspace(st.cells.shape[0]), new_vct_space(),
        limits)))
    worker.start()
    while limits[L_NODES] == 0 and worker.is_alive():
        threading.Event().wait(0.001)
    flag.set()
    worker.join(JOIN_S)
    assert not worker.is_alive()
    assert done[0] < asked


def test_a_flag_set_before_the_link_stops_the_search_at_once():
    flag = StopFlag()
    flag.set()
    limits = new_limits()
    flag.link(limits)
    assert limits[L_STOP] == 1
    flag.unlink(limits)
    other = new_limits()
    flag.unlink(other)  # unlinking what was never linked is harmless
    assert other[L_STOP] == 0


@pytest.fixture(scope="module")
def warm_player() -> MctsPlayer:
    player = MctsPlayer()
    player.warm_up()
    return player


def node_limited_move(player: MctsPlayer, max_nodes: int) -> tuple[int, int, str]:
    board = board_of("15x15 middle game")
    player.new_game(board)
    limits = ThinkLimits.seconds(60.0)
    limits.max_nodes = max_nodes
    choice = player.choose(board, limits)
    search = choice.search
    return choice.x, choice.y, (search.nodes, search.depth, search.seldepth, search.winrate, search.pv)  # not the time


def test_a_node_limited_move_is_the_same_every_time(warm_player):
    first = node_limited_move(warm_player, 20_000)
    assert node_limited_move(warm_player, 20_000) == first
    assert node_limited_move(MctsPlayer(), 20_000) == first  # a fresh engine too
    iterations = first[2][0]
    assert 0 < iterations <= 20_000
