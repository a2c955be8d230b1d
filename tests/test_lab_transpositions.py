"""``python -m monte.lab.transpositions``: it finds the positions a search tree holds twice, and only those; the
search graph holds each once."""

from __future__ import annotations

from monte.brain.bench import board_of
from monte.brain.board import Board
from monte.lab.transpositions import main, sharing


def test_a_tree_holds_some_positions_twice_and_each_node_is_counted_once():
    s = sharing(board_of("15x15 middle game"), 3000)
    assert s.iterations == 3000 and s.nodes == s.made  # the walk counts every node the search made, once
    assert 0.9 * 3000 < s.made <= 3000 + 1  # an iteration makes one node at most (none if it ends at a proof)
    assert s.positions < s.nodes  # the search is deterministic: this tree holds transpositions
    assert 0.0 < s.shared_nodes < 1.0 and 0.0 < s.pooled_visits < s.shared_nodes


def test_the_graph_holds_each_position_once():
    s = sharing(board_of("15x15 middle game"), 3000, graph=1)
    assert s.iterations == 3000 and s.nodes < 3000 + 1  # some iterations went into a position reached before
    assert s.positions == s.nodes and s.shared_nodes == 0.0  # a table of 1 GiB's slots: no collision this small


def test_a_tree_of_single_moves_holds_no_position_twice():
    board = Board(15)
    board.place(7, 7, 1)
    s = sharing(board, 30)  # 30 iterations: the root's children and a few grandchildren, no two paths alike
    assert s.positions == s.nodes and s.shared_nodes == 0.0 and s.pooled_visits == 0.0


def test_the_command_prints_a_line_a_position_and_count(capsys):
    assert main(["--iterations", "200"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 6 and all("200 iterations" in line and "share their position" in line for line in lines)
    assert [" graph " in line for line in lines] == [False, True] * 3
