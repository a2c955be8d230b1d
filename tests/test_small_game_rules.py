"""The rules the small games add to the board: the winning row's length k (3 for tic-tac-toe, 4 for Connect Four)
and gravity (a stone rests on the bottom edge or on another stone) -- wins in every line direction, nothing one
stone short, a column filling up, full boards that end drawn -- and the boards that are refused."""

from __future__ import annotations

import pytest

from monte.brain.board import BLACK, MOVE_OK, MOVE_WINS, WHITE, Board, IllegalMove

DIRECTIONS = {"horizontal": (1, 0), "vertical": (0, 1), "diagonal": (1, 1), "anti-diagonal": (1, -1)}


@pytest.mark.parametrize("k,size", [(3, 3), (4, 7), (4, 6)])
@pytest.mark.parametrize("direction", DIRECTIONS)
def test_a_row_of_k_wins_and_a_row_of_k_minus_one_does_not_in_every_direction(k: int, size: int, direction: str):
    dx, dy = DIRECTIONS[direction]
    board = Board(size, size, k=k)
    y0 = 0 if dy >= 0 else k - 1
    cells = [(i * dx, y0 + i * dy) for i in range(k)]
    for x, y in cells[:-2]:
        board.place(x, y, BLACK)
    assert board.judge(*cells[-2], BLACK) == MOVE_OK  # k - 1 in a row
    board.place(*cells[-2], BLACK)
    assert board.judge(*cells[-1], BLACK) == MOVE_WINS


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_connect_four_wins_in_every_direction_under_gravity(direction: str):
    """Four in a row on a 7x6 board with gravity; stones rest on fillers of the other colour where needed."""
    dx, dy = DIRECTIONS[direction]
    board = Board(7, 6, k=4, gravity=True)
    y0 = 5 if dy <= 0 else 2
    cells = sorted([(1 + i * dx, y0 + i * dy) for i in range(4)], key=lambda cell: -cell[1])  # bottom first
    for x, y in cells:
        while board.drop_row(x) != y:  # fill the column below with the other colour
            board.place(x, board.drop_row(x), WHITE)
        if (x, y) != cells[-1]:
            board.place(x, y, BLACK)
    assert board.judge(*cells[-1], BLACK) == MOVE_WINS


def test_gravity_allows_only_the_lowest_empty_cell_and_a_column_fills_up():
    board = Board(7, 6, k=4, gravity=True)
    assert board.legal_moves() == [(x, 5) for x in range(7)]
    with pytest.raises(IllegalMove, match="above an empty cell"):
        board.play(3, 2)
    for y in range(5, -1, -1):  # six stones, alternating colours: column 4 fills with no row of four
        assert board.drop_row(3) == y
        assert board.play(3, y) == MOVE_OK
    assert board.drop_row(3) is None
    assert (3, 0) not in board.legal_moves() and len(board.legal_moves()) == 6
    with pytest.raises(IllegalMove, match="occupied"):
        board.play(3, 0)


def test_a_drawn_tictactoe_game_fills_the_board_without_a_winner():
    board = Board(3, 3, k=3)
    # X O X / X O O / O X X: a full board, no row of three
    for x, y in [(0, 0), (1, 0), (2, 0), (1, 1), (0, 1), (2, 1), (1, 2), (0, 2), (2, 2)]:
        assert board.play(x, y) == MOVE_OK
    assert board.is_full() and board.legal_moves() == []


def test_a_full_connect_four_board_without_a_row_of_four_is_a_draw():
    """Stones in pairs, X X O O X X up the first column and shifted by one colour each column: no row of four in any
    direction, so every stone, judged as it drops, is an ordinary move and the board ends full."""
    board = Board(7, 6, k=4, gravity=True)
    verdicts = []
    for row in range(6):
        for x in range(7):
            color = BLACK if (x + row // 2) % 2 == 0 else WHITE
            y = board.drop_row(x)
            verdicts.append(board.judge(x, y, color))
            board.place(x, y, color)
    assert set(verdicts) == {MOVE_OK}
    assert board.is_full() and board.legal_moves() == []


def test_from_diagram_builds_gravity_positions_from_the_bottom_up():
    board = Board.from_diagram("""
        .......
        .......
        .......
        ...O...
        ...X...
        ..XOX..
    """, k=4, gravity=True)
    assert board.at(3, 3) == WHITE and board.to_move == WHITE
    assert board.drop_row(3) == 2 and board.drop_row(0) == 5


@pytest.mark.parametrize("args,kwargs,message", [
    ((3,), {"k": 2}, "winning line of 2"),
    ((3,), {"k": 6}, "winning line of 6"),
    ((3,), {}, "outside 5..32"),
    ((7, 3), {"k": 4}, "outside 4..32"),
    ((7, 6, 4), {"k": 4}, "Gomoku rule"),
])
def test_boards_that_cannot_be_played_are_refused_with_the_reason(args, kwargs, message):
    with pytest.raises(ValueError, match=message):
        Board(*args, **kwargs)
