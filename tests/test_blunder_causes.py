"""``monte.lab.blunder_causes``: which search sees the opponent's win after a blunder, and the judge's line classed
move by move (the judge scripted here: the tool's searches are Monte's own)."""

from __future__ import annotations

import pytest

from monte.brain.board import Board
from monte.brain.quiet_threats import QuietBudget
from monte.lab.blunder_causes import (
    FIVE, FOUR, QUIET, THREE, attacker_quiet_moves, judged_line, main, move_kind, quiet_win, vct_budget)
from monte.lab.position_judge import Verdict


def open_three_for_white() -> Board:
    """Black to move; white holds an open three (F8 G8 H8 as x 5-7, row 7) that black has not blocked."""
    board = Board(15)
    for black, white in [((3, 3), (5, 7)), ((3, 11), (6, 7)), ((11, 3), (7, 7))]:
        board.play(*black)
        board.play(*white)
    return board


def test_a_move_that_leaves_an_open_three_is_refuted_by_the_smallest_vct_budget():
    board = open_three_for_white()
    assert vct_budget(board, (11, 11), budgets=(2_000, 20_000)) == 2_000
    assert vct_budget(board, (8, 7), budgets=(2_000, 20_000)) is None  # blocked: no VCT for white at once


def test_a_block_that_leaves_a_quiet_win_is_told_apart_from_a_move_that_leaves_nothing():
    board = open_three_for_white()
    # after the block at (8, 7) white wins by a quiet move and then a VCT (Rapfi at 1M nodes: mate in 13)
    assert quiet_win(board, (8, 7), QuietBudget(moves=4, vct_nodes=2_000)) > 2
    lone = Board(15)
    lone.play(7, 7)
    assert quiet_win(lone, (0, 0), QuietBudget(moves=4, vct_nodes=2_000)) is None


def test_moves_are_classed_by_what_they_make_for_their_player():
    board = open_three_for_white()
    board.play(11, 11)  # white to move
    assert move_kind(board, (8, 7)) == FOUR  # the open four (a four or more)
    assert move_kind(board, (0, 0)) == QUIET
    board.play(8, 7)
    board.play(12, 12)
    assert move_kind(board, (9, 7)) == FIVE
    fresh = Board(15)
    fresh.play(7, 7)
    fresh.play(0, 0)
    fresh.play(8, 7)
    fresh.play(0, 2)
    assert move_kind(fresh, (9, 7)) == THREE


def test_the_judges_line_is_played_and_classed_until_the_five():
    board = open_three_for_white()
    board.play(11, 11)
    script = iter([(0, 14), (12, 12), (8, 7), (4, 7), (9, 7)])  # a quiet move, a reply, the four, a block, five

    def ask(stones: list[tuple[int, int]]) -> Verdict:
        return Verdict(0, 0, 1000, next(script))

    line = judged_line(board, ask)
    assert [kind for _, kind in line] == [QUIET, QUIET, FOUR, QUIET, FIVE]
    assert attacker_quiet_moves(line) == 1


def test_unreadable_inputs_get_a_one_line_answer(tmp_path, capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["--positions", str(tmp_path / "none.jsonl"), "--count", str(tmp_path / "none.json"), "--judge", "x"])
    assert stopped.value.code == 2
    assert "cannot read the positions or the count" in capsys.readouterr().err
