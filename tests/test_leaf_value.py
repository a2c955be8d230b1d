"""The search's leaf value read from the incrementally kept state equals the value computed afresh.

The value network (``brain.evaluation``) reads counts -- line patterns and cell classes per side, and the stones
-- that ``brain.position`` keeps up to date on every make and unmake; the hand-set evaluation reads the same state's
class counts and score sums. Neither rescans the board at a leaf, so a count gone stale would silently change every
value the search backs up. Random games, played forward and taken back, under every rule and on a board that is not
square, check at every ply that ``evaluate`` on the kept state gives what it gives on a state built from the stones
alone, and that the network's logit is what the fitting tool computes from its inputs (plain numpy).
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from monte.brain.board import BLACK, MOVE_OK, WHITE, Board
from monte.brain.evaluation import network_inputs, network_logit, network_weights
from monte.brain.mcts import evaluate
from monte.brain.position import State, make, new_state, unmake
from monte.brain.rules import RULE_CARO, RULE_EXACT_FIVE, RULE_FREESTYLE, RULE_RENJU
from monte.brain.settings import Params

RULES = {RULE_FREESTYLE: "freestyle", RULE_EXACT_FIVE: "exactly-five", RULE_RENJU: "renju", RULE_CARO: "caro"}
LEARNED = Params(eval_model=1)
HAND_SET = Params(eval_model=0)


def assert_leaf_values_match_a_rebuild(st: State, board: Board) -> None:
    """For either side to move and either evaluation, the kept state's value and proof are the rebuilt state's."""
    fresh = new_state(board)
    for color in (BLACK, WHITE):
        me = color - 1
        logit = network_logit(st, me)
        assert logit == pytest.approx(network_logit(fresh, me), abs=1e-9)
        vw = network_weights(board.rule)  # renju's own network, the freestyle one for every other rule
        hidden = np.maximum(network_inputs(fresh, me) @ vw.W1 + vw.B1, 0.0)
        assert logit == pytest.approx(float(hidden @ vw.W2 + vw.B2), abs=1e-9)
        for params in (LEARNED, HAND_SET):
            value, proof = evaluate(st, color, params)
            fresh_value, fresh_proof = evaluate(fresh, color, params)
            assert proof == fresh_proof
            assert value == pytest.approx(fresh_value, abs=1e-12)


def random_game_move(board: Board, rng: random.Random) -> tuple[int, int]:
    """A legal move, most often beside the last few stones (so that threats build up), sometimes anywhere."""
    moves = board.legal_moves()
    if board.history and rng.random() < 0.85:
        recent = board.history[-4:]
        near = [(x, y) for x, y in moves for m in recent if max(abs(x - m.x), abs(y - m.y)) <= 1]
        if near:
            return rng.choice(near)
    return rng.choice(moves)


@pytest.mark.parametrize("shape", [(15, 15), (13, 9)], ids=["15x15", "13x9"])
@pytest.mark.parametrize("rule", list(RULES), ids=RULES.get)
def test_the_leaf_value_of_the_kept_state_equals_a_rebuild_at_every_ply(rule, shape):
    rng = random.Random(rule * 7 + shape[1])
    for _game in range(2):
        board = Board(*shape, rule)
        st = new_state(board)
        while board.legal_moves():
            x, y = random_game_move(board, rng)
            color = board.to_move
            verdict = board.play(x, y)
            make(st, board.index(x, y), color)
            assert_leaf_values_match_a_rebuild(st, board)
            if verdict != MOVE_OK:  # a five (or a renju foul) ends the game
                break
        # and back to the empty board, ply by ply
        while board.history:
            move = board.undo()
            unmake(st, board.index(move.x, move.y))
            assert_leaf_values_match_a_rebuild(st, board)
