"""``threat_count_after_block``: the opponent's winning threats after one of our stones, counted without making it.

Move generation's defence asks it of every candidate block; it must give exactly what making the stone, counting
and taking it back gives, or the search would drop real defences (or keep false ones). Checked on every empty cell
of random positions full of threats, under every rule (renju's forbidden points and caro's edges change the
classes), for both sides.
"""

from __future__ import annotations

import random

import pytest

from monte.brain.board import EMPTY, MOVE_WINS, Board
from monte.brain.position import make, new_state, unmake
from monte.brain.rules import RULE_CARO, RULE_EXACT_FIVE, RULE_FREESTYLE, RULE_RENJU
from monte.brain.threats import threat_count, threat_count_after_block

POSITIONS = 12


def crowded_board(rule: int, seed: int) -> Board:
    """A 15x15 board with 20-50 stones clustered near the centre (so that fours and open threes abound), no five."""
    rng = random.Random(seed)
    board = Board(15, rule=rule)
    for _ in range(rng.randint(20, 50)):
        for _attempt in range(50):
            x, y = rng.randint(3, 11), rng.randint(3, 11)
            if board.cells[board.index(x, y)] == EMPTY and board.judge(x, y) != MOVE_WINS:
                board.play(x, y)
                break
    return board


@pytest.mark.parametrize("rule", [RULE_FREESTYLE, RULE_EXACT_FIVE, RULE_RENJU, RULE_CARO])
def test_count_equals_make_count_unmake(rule):
    threatened = 0
    for seed in range(POSITIONS):
        st = new_state(crowded_board(rule, seed))
        for op in (0, 1):
            threatened += threat_count(st, op) > 0
            for idx in st.interior:
                if st.cells[idx] != EMPTY:
                    continue
                predicted = threat_count_after_block(st, int(idx), op)
                make(st, int(idx), 2 - op)  # a stone of op's opponent (colour 2 - op)
                actual = threat_count(st, op)
                unmake(st, int(idx))
                assert predicted == actual, (seed, op, int(idx))
    assert threatened > 0  # the positions did hold threats to block
