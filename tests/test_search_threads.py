"""Helper search threads (``brain.threads``, ``INFO thread_num``): a move searched by two threads is legal and counts
both threads' nodes, a stop reaches every thread, the trees share the memory one tree had, and without
``thread_num`` (or under a node budget) the search stays single-threaded. No timed assertion: every wait is bounded
by behaviour with a generous timeout."""

from __future__ import annotations

import os
import threading
import time

import pytest

from monte.brain.bench import board_of
from monte.brain.board import MOVE_FORBIDDEN
from monte.brain.engine import MctsPlayer
from monte.brain.limits import new_limits
from monte.brain.memory import DEFAULT_TREE_BYTES
from monte.brain.mcts import expand_root
from monte.brain.player import MoveChoice, ThinkLimits
from monte.brain.position import new_state
from monte.brain.settings import Options, Params
from monte.brain.threads import merge_root, tree_share, usable_threads
from monte.brain.threats import new_workspace
from monte.brain.tree import M_BUDGET, M_ROOT, child_moves, children, move_to, new_tree
from monte.protocol.session import Session
from monte.protocol.stdio import Command

WAIT_S = 300.0  # how long a thread may take to react on a loaded machine before the test calls it hung

two_cores = pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two cores to run two search threads")


def limits_for(seconds: float, threads: int, max_nodes: int = 0) -> ThinkLimits:
    limits = ThinkLimits.seconds(seconds)
    limits.threads, limits.max_nodes = threads, max_nodes
    return limits


def legal(board, x: int, y: int) -> bool:
    return board.is_empty(x, y) and board.judge(x, y, board.to_move) != MOVE_FORBIDDEN


def test_the_threads_used_are_those_allowed_but_never_more_than_the_cores():
    cores = len(os.sched_getaffinity(0))
    assert usable_threads(1) == 1
    assert usable_threads(cores + 5) == cores
    assert usable_threads(0) == 1
    assert tree_share(1000, 2) == 500 and tree_share(1000, 1) == 1000


def stopped_once_the_helper_searched(player: MctsPlayer, board, iterations: int, new_game: bool = True) -> MoveChoice:
    """`player`'s move on `board`, with two threads and all the time in the world, stopped (as YXSTOP does) once its
    helper thread has run `iterations` MCTS iterations."""
    player.warm_up()
    if new_game:
        player.new_game(board)
    limits = limits_for(3600.0, threads=2)
    chosen: list[MoveChoice] = []
    worker = threading.Thread(target=lambda: chosen.append(player.choose(board, limits)), daemon=True)
    worker.start()
    waited = time.monotonic() + WAIT_S
    while time.monotonic() < waited and not (player.threads.helpers and player.threads.helpers[0].iterations
                                             >= iterations):
        time.sleep(0.01)
    assert player.threads.helpers[0].iterations >= iterations, "the helper did not search"
    limits.stop.set()
    worker.join(WAIT_S)
    assert not worker.is_alive(), "the move did not stop"
    return chosen[0]


@two_cores
def test_a_two_thread_search_plays_a_legal_move_and_reports_the_nodes_of_both():
    board = board_of("15x15 middle game")
    player = MctsPlayer(options=Options(vct_max_nodes=0))  # straight to MCTS, where the helper runs
    choice = stopped_once_the_helper_searched(player, board, 2000)
    assert legal(board, choice.x, choice.y)
    (helper,) = player.threads.helpers
    assert helper.iterations >= 2000 and player.helper_nodes >= helper.iterations
    assert choice.search.nodes > helper.iterations  # the main thread's iterations and the helper's
    assert player.last_nodes > player.helper_nodes
    root = int(player.tree.meta[M_ROOT])
    assert int(player.tree.visits[root]) >= helper.iterations  # the helper's root statistics joined the main tree's


@two_cores
def test_two_threads_split_the_memory_one_tree_had():
    board = board_of("15x15 middle game")
    player = MctsPlayer()
    player.new_game(board)
    player.prepare(board, 0)
    assert int(player.tree.meta[M_BUDGET]) == DEFAULT_TREE_BYTES and player.threads.helpers == []
    player.choose(board, limits_for(0.2, threads=2))
    (helper,) = player.threads.helpers
    assert int(player.tree.meta[M_BUDGET]) == int(helper.tree.meta[M_BUDGET]) == DEFAULT_TREE_BYTES // 2


def test_by_default_the_search_is_single_threaded():
    board = board_of("15x15 middle game")
    player = MctsPlayer()
    player.new_game(board)
    choice = player.choose(board, ThinkLimits.seconds(0.3))
    assert legal(board, choice.x, choice.y)
    assert player.threads.helpers == [] and player.helper_nodes == 0
    assert not any(t.name == "monte-helper" for t in threading.enumerate())


@two_cores
def test_under_a_node_budget_no_helper_searches():
    board = board_of("15x15 middle game")
    player = MctsPlayer()
    player.new_game(board)
    player.choose(board, limits_for(60.0, threads=2, max_nodes=3000))
    assert player.helper_nodes == 0 and player.threads.helpers[0].iterations == 0


@two_cores
def test_a_stop_reaches_the_helper_thread_too():
    board = board_of("15x15 middle game")
    player = MctsPlayer(options=Options(vct_max_nodes=0))
    choice = stopped_once_the_helper_searched(player, board, 1)
    assert legal(board, choice.x, choice.y)
    (helper,) = player.threads.helpers
    helper.join(WAIT_S)
    assert helper.thread is None  # the helper left its search too


@two_cores
def test_the_helper_keeps_its_tree_from_move_to_move():
    board = board_of("15x15 middle game")
    player = MctsPlayer(options=Options(vct_max_nodes=0))
    first = stopped_once_the_helper_searched(player, board, 5000)
    (helper,) = player.threads.helpers
    helper.join(WAIT_S)
    tree = helper.tree
    ours = helper.root_children[board.index(first.x, first.y)]
    reply = int(max(children(tree, ours), key=lambda c: tree.visits[c]))
    board.play(first.x, first.y)
    board.play(*board.coords(move_to(tree, ours, reply)))
    stopped_once_the_helper_searched(player, board, 1, new_game=False)
    helper.join(WAIT_S)  # the move may have been stopped before the helper even began it
    assert helper.thread is None and helper.path is not None and len(helper.path.moves) == len(board.history)
    assert int(tree.meta[M_ROOT]) == reply  # not a fresh tree: the root moved down the two moves played


def test_merging_adds_the_other_trees_root_visits_values_and_proofs():
    board = board_of("15x15 middle game")
    st = new_state(board)
    ws = new_workspace(st.cells.shape[0])
    main, other = new_tree(2**20), new_tree(2**20)
    for tree in (main, other):
        assert expand_root(st, tree, board.to_move, Params(), 10, ws, new_limits()) == 10
    main_kids = children(main, int(main.meta[M_ROOT])).tolist()
    other_kids = children(other, int(other.meta[M_ROOT])).tolist()
    other_moves = child_moves(other, int(other.meta[M_ROOT])).tolist()
    assert child_moves(main, int(main.meta[M_ROOT])).tolist() == other_moves
    for i, (c, o) in enumerate(zip(main_kids, other_kids)):
        main.visits[c], main.wsum[c] = 10, 5.0
        other.visits[o], other.wsum[o] = i, -float(i)
    main.visits[main.meta[M_ROOT]] = 100
    other.visits[other.meta[M_ROOT]], other.wsum[other.meta[M_ROOT]] = 45, 9.0
    other.proven[other_kids[3]] = 1
    merge_root(main, other, dict(zip(other_moves, other_kids)))
    for i, c in enumerate(main_kids):
        assert (int(main.visits[c]), float(main.wsum[c])) == (10 + i, 5.0 - i)
    assert int(main.visits[main.meta[M_ROOT]]) == 100 + 45
    assert float(main.wsum[main.meta[M_ROOT]]) == pytest.approx(9.0)
    assert int(main.proven[main_kids[3]]) == 1 and int(main.proven[main_kids[4]]) == 0


@two_cores
def test_info_thread_num_reaches_the_search_through_the_protocol():
    sent: list[str] = []
    player = MctsPlayer()
    script = ["START 15", "INFO timeout_turn 3000", "INFO thread_num 2", "BEGIN", "TURN 6,6"]
    Session(player, sent.append, [Command(line) for line in script]).run()
    answers = [line for line in sent if not line.startswith("MESSAGE")]
    assert answers[0] == "OK" and len(answers) == 3
    assert player.helper_nodes > 0 and player.threads.helpers[0].iterations > 0
