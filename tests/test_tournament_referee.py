"""The referee ends games by the rules: five per rule, renju fouls, occupied and off-board cells, full boards and the
stone limits (renju's width*height - 25, and the optional draw_after)."""

from __future__ import annotations

import pytest

from monte.brain.rules import BLACK, RULE_EXACT_FIVE, RULE_RENJU, WHITE
from monte.tournaments.records import Termination
from monte.tournaments.referee import Referee


def play(referee: Referee, moves):
    """Play `moves` in turn; the ruling of the last one (every earlier one must leave the game open)."""
    for x, y in moves[:-1]:
        assert referee.move(x, y) is None, (x, y)
    return referee.move(*moves[-1])


# Black builds a row on y=0 from x=0, white answers on y=2; black's 5th stone completes five.
BLACK_FIVE = [(0, 0), (0, 2), (1, 0), (1, 2), (2, 0), (2, 2), (3, 0), (3, 2), (4, 0)]


def test_five_in_a_row_wins_for_the_side_that_made_it():
    ruling = play(Referee(15, 15, 0), BLACK_FIVE)
    assert (ruling.termination, ruling.winner) == (Termination.FIVE, BLACK)
    assert "black made five with 4,0" == ruling.detail


def test_an_overline_does_not_win_under_exactly_five():
    # Black: 0,1,2 and 4,5 on y=0, then 3,0 joins six in a row.
    moves = [(0, 0), (0, 2), (1, 0), (1, 2), (2, 0), (2, 2), (4, 0), (9, 9), (5, 0), (9, 10), (3, 0)]
    assert play(Referee(15, 15, RULE_EXACT_FIVE), list(moves)) is None
    ruling = play(Referee(15, 15, 0), list(moves))
    assert (ruling.termination, ruling.winner) == (Termination.FIVE, BLACK)


def test_a_renju_foul_loses_for_black():
    # Black's 7,7 makes two open threes (a double three): forbidden, so white wins.
    moves = [(6, 7), (0, 0), (5, 7), (0, 14), (7, 6), (14, 0), (7, 5), (14, 14), (7, 7)]
    ruling = play(Referee(15, 15, RULE_RENJU), moves)
    assert (ruling.termination, ruling.winner) == (Termination.FOUL, WHITE)
    assert play(Referee(15, 15, 0), list(moves)) is None  # the same move is fine in freestyle


def test_an_occupied_cell_or_a_cell_off_the_board_loses():
    referee = Referee(15, 15, 0)
    referee.move(7, 7)
    occupied = referee.move(7, 7)
    assert (occupied.termination, occupied.winner) == (Termination.ILLEGAL, BLACK)
    off = Referee(15, 15, 0).move(15, 3)
    assert (off.termination, off.winner) == (Termination.OFF_BOARD, WHITE)


def test_a_full_board_is_a_draw():
    rows = ["XXOOX", "OOXXO", "XXOOX", "OOXXO", "XXOOX"]  # 13 black, 12 white, no five anywhere
    black = [(x, y) for y, row in enumerate(rows) for x, c in enumerate(row) if c == "X"]
    white = [(x, y) for y, row in enumerate(rows) for x, c in enumerate(row) if c == "O"]
    moves = [stone for pair in zip(black, white) for stone in pair] + [black[-1]]
    ruling = play(Referee(5, 5, 0), moves)
    assert (ruling.termination, ruling.winner) == (Termination.DRAW_FULL, None)


def test_renju_is_drawn_with_25_cells_left():
    # On 6x6 that is after 11 stones; freestyle plays on.
    moves = [(0, 0), (5, 5), (2, 0), (3, 5), (4, 0), (1, 5), (0, 2), (5, 3), (0, 4), (5, 1), (2, 2)]
    ruling = play(Referee(6, 6, RULE_RENJU), list(moves))
    assert (ruling.termination, ruling.winner) == (Termination.DRAW_MOVES, None)
    assert play(Referee(6, 6, 0), list(moves)) is None
    assert Referee(15, 15, RULE_RENJU).stone_limit == 200


def test_draw_after_counts_the_opening_stones():
    referee = Referee(15, 15, 0, draw_after=5)
    referee.set_up([(7, 7), (8, 8), (9, 9)])
    assert referee.move(0, 0) is None
    ruling = referee.move(14, 14)
    assert (ruling.termination, ruling.winner) == (Termination.DRAW_MOVES, None)


def test_an_opening_that_does_not_fit_or_already_wins_is_refused():
    with pytest.raises(ValueError, match="off the board or on an occupied cell"):
        Referee(15, 15, 0).set_up([(7, 7), (7, 7)])
    with pytest.raises(ValueError, match="already ends the game"):
        Referee(15, 15, 0).set_up(BLACK_FIVE)
