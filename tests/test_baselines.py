"""The baseline players: greedy's tactics one move deep, random's legality, and both under every rule."""

from __future__ import annotations

import pytest

from monte.brain.baselines import (
    GreedyPlayer, NoLegalMove, RandomPlayer, shape_evaluation, winning_moves,
)
from monte.brain.board import BLACK, WHITE, Board
from monte.brain.player import ThinkLimits
from monte.brain.registry import DEFAULT_ENGINE, engine_names, make_player
from monte.brain.rules import RULE_CARO, RULE_EXACT_FIVE, RULE_FREESTYLE, RULE_RENJU

ALL_RULES = [RULE_FREESTYLE, RULE_EXACT_FIVE, RULE_RENJU, RULE_CARO, RULE_EXACT_FIVE | RULE_CARO]


def position(blacks, whites, to_move, rule=RULE_FREESTYLE, size=15) -> Board:
    """A board with the given stones and side to move."""
    board = Board(size, rule=rule)
    for x, y in blacks:
        board.place(x, y, BLACK)
    for x, y in whites:
        board.place(x, y, WHITE)
    board.to_move = to_move
    return board


def greedy_move(board: Board) -> tuple[int, int]:
    choice = GreedyPlayer().choose(board, ThinkLimits.seconds(1.0))
    return choice.x, choice.y


# --- greedy: tactics ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("rule", ALL_RULES)
def test_greedy_takes_an_open_win_in_one_under_every_rule(rule):
    board = position([(3, 7), (4, 7), (5, 7), (6, 7)], [(3, 9), (4, 9), (5, 9), (9, 2)], BLACK, rule)
    assert greedy_move(board) in {(2, 7), (7, 7)}


def test_greedy_prefers_its_own_five_to_blocking_the_opponents():
    board = position([(3, 7), (4, 7), (5, 7), (6, 7), (0, 0)], [(3, 9), (4, 9), (5, 9), (6, 9)], WHITE)
    assert greedy_move(board) in {(2, 9), (7, 9)}


def test_greedy_blocks_the_opponents_four():
    board = position([(3, 7), (4, 7), (5, 7), (6, 7)], [(2, 7), (10, 10), (11, 11)], WHITE)
    assert greedy_move(board) == (7, 7)


def test_greedy_blocks_a_broken_four_in_its_gap():
    board = position([(3, 7), (4, 7), (6, 7), (7, 7)], [(10, 10), (11, 11), (12, 1)], WHITE)
    assert greedy_move(board) == (5, 7)


def test_greedy_blocks_a_five_rather_than_making_its_own_open_four():
    board = position([(3, 7), (4, 7), (5, 7), (6, 7)], [(2, 7), (4, 10), (5, 10), (6, 10)], WHITE)
    assert greedy_move(board) == (7, 7)


def test_greedy_makes_an_open_four_from_its_open_three():
    board = position([(5, 7), (6, 7), (7, 7)], [(5, 9), (7, 10)], BLACK)
    assert greedy_move(board) in {(4, 7), (8, 7)}


def test_greedy_blocks_the_opponents_open_three():
    board = position([(5, 7), (6, 7), (7, 7), (1, 1)], [(6, 9), (8, 11), (13, 13)], WHITE)
    assert greedy_move(board) in {(4, 7), (8, 7)}


def test_greedy_plays_a_four_three_when_it_has_one():
    # (7,5) makes a four on row 5 (whose other end is blocked at (3,5)) and an open three on column 7.
    board = position([(4, 5), (5, 5), (6, 5), (7, 6), (7, 7)], [(3, 5), (12, 12), (12, 10), (0, 14), (14, 0)], BLACK)
    assert greedy_move(board) == (7, 5)


def test_greedy_plays_the_centre_of_an_empty_board():
    assert greedy_move(Board(15)) == (7, 7)
    assert greedy_move(Board(20, 10)) == (10, 5)


def test_greedy_is_deterministic():
    board = position([(7, 7), (8, 8)], [(7, 8)], WHITE)
    assert len({greedy_move(board) for _ in range(3)}) == 1


def test_greedy_reports_its_score_as_info():
    assert GreedyPlayer().choose(Board(9), ThinkLimits.seconds(1.0)).info.startswith("greedy score ")


def full_board() -> Board:
    """A 5x5 board with no empty cell."""
    board = Board(5)
    for y in range(5):
        for x in range(5):
            board.place(x, y, BLACK if (x + 2 * y) % 4 < 2 else WHITE)
    return board


def test_greedy_plays_the_last_empty_cell_of_a_nearly_full_board():
    board = full_board()
    board.remove(4, 4)
    board.to_move = BLACK
    assert greedy_move(board) == (4, 4)


def test_greedy_raises_no_legal_move_on_a_full_board():
    with pytest.raises(NoLegalMove):
        GreedyPlayer().choose(full_board(), ThinkLimits.seconds(1.0))


# --- rules -------------------------------------------------------------------------------------------------

DOUBLE_THREE_BLACKS = [(5, 7), (6, 7), (7, 5), (7, 6)]
DOUBLE_THREE_POINT = (7, 7)


def test_greedy_plays_the_double_three_point_in_freestyle():
    board = position(DOUBLE_THREE_BLACKS, [(1, 1), (13, 1), (1, 13), (13, 13)], BLACK)
    assert greedy_move(board) == DOUBLE_THREE_POINT


def test_greedy_black_never_plays_a_renju_forbidden_point():
    board = position(DOUBLE_THREE_BLACKS, [(1, 1), (13, 1), (1, 13), (13, 13)], BLACK, RULE_RENJU)
    assert board.is_forbidden(*DOUBLE_THREE_POINT)
    move = greedy_move(board)
    assert move != DOUBLE_THREE_POINT
    assert not board.is_forbidden(*move)


@pytest.mark.parametrize("rule, blocks", [(RULE_FREESTYLE, True), (RULE_RENJU, False)])
def test_greedy_white_blocks_a_double_three_point_only_where_black_may_play_it(rule, blocks):
    board = position(DOUBLE_THREE_BLACKS, [(2, 12), (3, 12), (13, 1), (13, 13)], WHITE, rule)
    assert (greedy_move(board) == DOUBLE_THREE_POINT) == blocks


OVERLINE_BLACKS = [(3, 7), (4, 7), (5, 7), (6, 7), (8, 7)]
OVERLINE_WHITES = [(2, 7), (12, 12), (12, 11), (12, 10)]
OVERLINE_GAP = (7, 7)


def test_greedy_completes_an_overline_where_it_wins_in_freestyle():
    assert greedy_move(position(OVERLINE_BLACKS, OVERLINE_WHITES, BLACK)) == OVERLINE_GAP


def test_greedy_does_not_count_an_overline_as_a_win_under_exactly_five():
    board = position(OVERLINE_BLACKS, OVERLINE_WHITES, BLACK, RULE_EXACT_FIVE)
    assert OVERLINE_GAP not in winning_moves(board, BLACK)
    assert greedy_move(board) != OVERLINE_GAP


def test_white_overline_wins_under_renju():
    board = position([(12, 12), (12, 11), (12, 10), (1, 1), (0, 0)], [(3, 7), (4, 7), (5, 7), (6, 7), (8, 7)],
                     WHITE, RULE_RENJU)
    assert greedy_move(board) == OVERLINE_GAP


CARO_BLACKS = [(3, 7), (4, 7), (5, 7), (6, 7)]
CARO_WHITES = [(2, 7), (8, 7), (12, 12), (12, 11)]


def test_greedy_completes_a_five_blocked_at_both_ends_in_freestyle():
    assert greedy_move(position(CARO_BLACKS, CARO_WHITES, BLACK)) == (7, 7)


def test_greedy_does_not_count_a_five_blocked_at_both_ends_as_a_win_under_caro():
    board = position(CARO_BLACKS, CARO_WHITES, BLACK, RULE_CARO)
    assert winning_moves(board, BLACK) == []
    assert greedy_move(board) != (7, 7)


# --- random ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("rule", ALL_RULES)
def test_random_takes_a_win_in_one_under_every_rule(rule):
    board = position([(3, 7), (4, 7), (5, 7), (6, 7)], [(3, 9), (4, 9), (5, 9), (9, 2)], BLACK, rule)
    for seed in range(5):
        choice = RandomPlayer(seed).choose(board, ThinkLimits.seconds(1.0))
        assert (choice.x, choice.y) in {(2, 7), (7, 7)}


def test_random_plays_the_centre_of_an_empty_board():
    choice = RandomPlayer(5).choose(Board(20, 10), ThinkLimits.seconds(1.0))
    assert (choice.x, choice.y) == (10, 5)


def test_random_is_reproducible_with_a_seed():
    board = position([(7, 7)], [], WHITE)
    first = [RandomPlayer(42).choose(board, ThinkLimits.seconds(1.0)) for _ in range(2)]
    assert first[0] == first[1]


def test_random_draws_only_from_legal_moves_under_renju(monkeypatch):
    board = position(DOUBLE_THREE_BLACKS, [(1, 1), (13, 1), (1, 13), (13, 13)], BLACK, RULE_RENJU)
    player = RandomPlayer(1)
    drawn_from = []
    original_choice = player._rng.choice

    def recording_choice(seq):
        drawn_from.append(list(seq))
        return original_choice(seq)

    monkeypatch.setattr(player._rng, "choice", recording_choice)
    choice = player.choose(board, ThinkLimits.seconds(1.0))
    assert DOUBLE_THREE_POINT not in drawn_from[-1]
    assert all(board.is_empty(x, y) for x, y in drawn_from[-1])
    assert board.is_empty(choice.x, choice.y)


def test_random_raises_no_legal_move_on_a_full_board():
    with pytest.raises(NoLegalMove):
        RandomPlayer(0).choose(full_board(), ThinkLimits.seconds(1.0))


# --- evaluation and registry -------------------------------------------------------------------------------

def test_shape_evaluation_favours_the_side_with_more_shape():
    board = position([(7, 7), (8, 7), (9, 7)], [(0, 0)], WHITE)
    assert shape_evaluation(board) < 0
    board.to_move = BLACK
    assert shape_evaluation(board) > 0


def test_shape_evaluation_is_zero_on_an_empty_board():
    assert shape_evaluation(Board(15)) == 0.0


def test_registry_builds_every_engine_and_the_default_is_one_of_them():
    assert DEFAULT_ENGINE in engine_names()
    for name in engine_names():
        assert make_player(name, seed=1).name == name


def test_registry_names_the_choices_for_an_unknown_engine():
    with pytest.raises(ValueError, match="unknown engine 'nope'; choose one of"):
        make_player("nope")
