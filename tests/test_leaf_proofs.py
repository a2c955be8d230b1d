"""The leaf evaluation's proofs: a four-three point wins when the opponent cannot make a four.

The side to move plays the four-three: the opponent must block the four, and with no point where a stone of its
makes a four, the block threatens nothing; the three then becomes an open four. ``brain.mcts.evaluate`` proves such
a leaf at once (the VCF would prove it a visit later, at a cost). These positions check the rule and its limits: an
opponent with a four point, and renju's black, whose open four may need a forbidden point.
"""

from __future__ import annotations

import pytest

from monte.brain.board import BLACK, WHITE, Board
from monte.brain.limits import new_limits
from monte.brain.mcts import evaluate
from monte.brain.position import State, new_state
from monte.brain.rules import RULE_EXACT_FIVE, RULE_FREESTYLE, RULE_RENJU
from monte.brain.settings import Params
from monte.brain.threats import find_vcf, new_workspace

MODELS = {"network": Params(eval_model=1), "hand-set": Params(eval_model=0)}
FOUR_THREE = [(4, 7), (5, 7), (6, 7), (7, 5), (7, 6)]
"""(7, 7) makes a four on row 7 (closed at (3, 7) by the opponent) and an open three on column 7."""
QUIET = [(3, 7), (11, 11), (12, 2), (2, 12), (12, 12)]
"""The opponent's stones: the one that closes the row and four far apart."""
SPARE = (1, 1)


def position(attacker: list[tuple[int, int]], defender: list[tuple[int, int]], attacker_color: int,
             rule: int) -> State:
    """The stones placed alternately, the attacker to move (a white attacker's opponent, black, has one stone more:
    ``SPARE``)."""
    board = Board(15, rule=rule)
    if attacker_color == WHITE:
        defender = defender + [SPARE]
        board.play(*defender[0])
        defender = defender[1:]
    for a, b in zip(attacker, defender):
        board.play(*a)
        board.play(*b)
    assert board.to_move == attacker_color
    return new_state(board)


@pytest.mark.parametrize("model", list(MODELS))
@pytest.mark.parametrize("rule", [RULE_FREESTYLE, RULE_EXACT_FIVE], ids=["freestyle", "exactly-five"])
@pytest.mark.parametrize("color", [BLACK, WHITE], ids=["black", "white"])
def test_a_four_three_point_against_an_opponent_without_four_points_is_a_proved_win(model, rule, color):
    st = position(FOUR_THREE, QUIET, color, rule)
    assert evaluate(st, color, MODELS[model]) == (1.0, 1)
    assert find_vcf(st, color, 20, 10_000, new_workspace(st.cells.shape[0]), False, new_limits())


@pytest.mark.parametrize("model", list(MODELS))
def test_an_opponent_four_point_leaves_the_four_three_unproved(model):
    defender = [(3, 7), (10, 1), (11, 1), (12, 1), (2, 12)]  # (13, 1) or (9, 1) makes the defender a four
    st = position(FOUR_THREE, defender, BLACK, RULE_FREESTYLE)
    _, proof = evaluate(st, BLACK, MODELS[model])
    assert proof == 0


@pytest.mark.parametrize("model", list(MODELS))
def test_in_renju_only_white_s_four_three_is_proved_at_the_leaf(model):
    white = position(FOUR_THREE, QUIET, WHITE, RULE_RENJU)
    assert evaluate(white, WHITE, MODELS[model]) == (1.0, 1)
    black = position(FOUR_THREE, QUIET, BLACK, RULE_RENJU)
    assert evaluate(black, BLACK, MODELS[model])[1] == 0
