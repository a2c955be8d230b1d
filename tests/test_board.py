"""Board bookkeeping: coordinates, placing and taking back stones, whose turn it is, copies and diagrams. The rules
themselves are in test_rules.py."""

from __future__ import annotations

import pytest

from monte.brain.board import BLACK, EMPTY, MOVE_WINS, WALL, WHITE, Board, IllegalMove, Move, opponent


@pytest.mark.parametrize("width, height", [(5, 5), (32, 5), (5, 32), (15, 20)], ids=lambda v: str(v))
def test_index_and_coords_round_trip_on_every_cell(width: int, height: int) -> None:
    board = Board(width, height)
    seen = set()
    for y in range(height):
        for x in range(width):
            idx = board.index(x, y)
            assert board.coords(idx) == (x, y)
            assert board.cells[idx] == EMPTY
            seen.add(idx)
    assert len(seen) == width * height


def test_cells_outside_the_board_are_walls() -> None:
    """The frame lets the kernels scan without bounds checks: every non-board cell must be a wall."""
    board = Board(6, 5)
    inside = {board.index(x, y) for x in range(6) for y in range(5)}
    assert all(board.cells[i] == WALL for i in range(len(board.cells)) if i not in inside)


def test_place_records_the_stone_and_passes_the_turn() -> None:
    board = Board(9)
    board.place(4, 4, BLACK)
    assert board.at(4, 4) == BLACK
    assert board.history == [Move(4, 4, BLACK)]
    assert board.to_move == WHITE
    assert board.stone_count == 1 and not board.is_empty(4, 4)


def test_play_alternates_colours() -> None:
    board = Board(9)
    board.play(0, 0)
    board.play(1, 1)
    board.play(2, 2)
    assert [m.color for m in board.history] == [BLACK, WHITE, BLACK]
    assert board.to_move == WHITE


@pytest.mark.parametrize("x, y", [(-1, 0), (0, -1), (9, 0), (0, 7)], ids=lambda v: str(v))
def test_placing_off_the_board_is_refused_and_changes_nothing(x: int, y: int) -> None:
    board = Board(9, 7)
    before = board.cells.copy()
    with pytest.raises(IllegalMove, match=f"{x},{y} is off the 9x7 board"):
        board.place(x, y, BLACK)
    assert (board.cells == before).all() and board.history == []


def test_placing_on_an_occupied_cell_is_refused_and_changes_nothing() -> None:
    board = Board(9)
    board.place(3, 3, BLACK)
    with pytest.raises(IllegalMove, match="3,3 is occupied"):
        board.place(3, 3, WHITE)
    assert board.at(3, 3) == BLACK and len(board.history) == 1 and board.to_move == WHITE


def test_judging_an_occupied_cell_is_refused() -> None:
    board = Board(9)
    board.place(3, 3, BLACK)
    with pytest.raises(IllegalMove):
        board.judge(3, 3)


def test_undo_takes_back_the_last_stone_and_the_turn() -> None:
    board = Board(9)
    board.play(1, 1)
    board.play(2, 2)
    assert board.undo() == Move(2, 2, WHITE)
    assert board.at(2, 2) == EMPTY and board.to_move == WHITE and board.history == [Move(1, 1, BLACK)]


def test_remove_takes_back_a_stone_from_anywhere_in_the_history() -> None:
    board = Board(9)
    for x in range(4):
        board.play(x, 0)
    assert board.remove(1, 0) == Move(1, 0, WHITE)
    assert board.at(1, 0) == EMPTY
    assert board.history == [Move(0, 0, BLACK), Move(2, 0, BLACK), Move(3, 0, WHITE)]


def test_remove_of_an_empty_cell_is_refused() -> None:
    board = Board(9)
    with pytest.raises(IllegalMove, match="4,4 holds no stone"):
        board.remove(4, 4)


def test_copy_is_independent() -> None:
    board = Board(9)
    board.play(4, 4)
    twin = board.copy()
    twin.play(5, 5)
    assert board.at(5, 5) == EMPTY and len(board.history) == 1 and board.to_move == WHITE
    assert twin.at(4, 4) == BLACK and len(twin.history) == 2


def test_board_fills_up() -> None:
    board = Board(5)
    for y in range(5):
        for x in range(5):
            assert not board.is_full()
            board.play(x, y)
    assert board.is_full() and board.empty_cells() == [] and board.legal_moves() == []


def test_legal_moves_are_the_empty_cells_outside_renju() -> None:
    board = Board(5)
    board.play(0, 0)
    board.play(4, 4)
    moves = board.legal_moves()
    assert len(moves) == 23 and (0, 0) not in moves and (4, 4) not in moves


def test_opponent_swaps_colours() -> None:
    assert opponent(BLACK) == WHITE and opponent(WHITE) == BLACK


def test_diagram_round_trips_through_str() -> None:
    text = """
        X . . . O
        . X . O .
        . . X . .
        . O . . .
        . . . . .
    """
    board = Board.from_diagram(text)
    assert Board.from_diagram(str(board)).history == board.history
    assert (board.at(0, 0), board.at(4, 0), board.at(1, 3)) == (BLACK, WHITE, WHITE)


@pytest.mark.parametrize("text, to_move", [
    (". . . . .\n" * 5, BLACK),
    ("X . . . .\n" + ". . . . .\n" * 4, WHITE),
    ("X O . . .\n" + ". . . . .\n" * 4, BLACK),
], ids=["empty board: black", "black ahead: white", "level: black"])
def test_diagram_side_to_move_follows_the_stone_count(text: str, to_move: int) -> None:
    assert Board.from_diagram(text).to_move == to_move


def test_diagram_side_to_move_can_be_given() -> None:
    assert Board.from_diagram(". . . . .\n" * 5, to_move=WHITE).to_move == WHITE


@pytest.mark.parametrize("text, message", [
    (". . . . .\n. . . .\n. . . . .\n. . . . .\n. . . . .", "row 1 has 4 cells"),
    (". . . . .\n. . Z . .\n. . . . .\n. . . . .\n. . . . .", "cell 2,1 is 'Z'"),
    (". . . .\n" * 4, "outside 5..32"),
], ids=["ragged row", "unknown mark", "too small"])
def test_bad_diagrams_are_refused_with_a_clear_message(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Board.from_diagram(text)


def test_block_puts_a_neutral_stone_that_keeps_the_turn_and_counts_in_the_history():
    board = Board(9)
    board.play(4, 4)
    board.block(5, 5)
    assert board.to_move == WHITE
    assert board.at(5, 5) == WALL and board.stone_count == 2
    board.undo()
    assert board.to_move == WHITE and board.is_empty(5, 5)


def test_a_blocked_cell_breaks_a_row_for_both_sides():
    board = Board.from_diagram("""
        X X . X X . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
    """)
    assert board.judge(2, 0, BLACK) == MOVE_WINS
    board.block(2, 0)
    board.place(5, 0, BLACK)
    assert board.judge(6, 0, BLACK) != MOVE_WINS
