"""VCT (victory by continuous threats): it finds a win that needs threes, the win survives every reply, it claims
nothing in a quiet position, and it leaves the search state as it found it."""

from __future__ import annotations

import numpy as np
import pytest

from brain.board import BLACK, WHITE, Board
from brain.limits import new_limits
from brain.position import make, new_state, unmake
from brain.threats import find_vcf, new_workspace
from brain.vct import find_vct, new_vct_space

# From a real game (runs of the A/B tournaments): black to move has three stones against three, no VCF, and wins by
# threats starting with 7,5 -- a column three that forces white, then more threes until a four-three.
THREAT_WIN = [((7, 6), BLACK), ((7, 7), BLACK), ((8, 7), BLACK), ((9, 8), WHITE), ((6, 9), WHITE), ((8, 9), WHITE)]


def threat_win_board() -> Board:
    board = Board(15)
    for (x, y), color in THREAT_WIN:
        board.place(x, y, color)
    board.to_move = BLACK
    return board


def test_vct_finds_a_win_that_vcf_cannot():
    board = threat_win_board()
    st = new_state(board)
    assert not find_vcf(st, BLACK, 40, 100_000, new_workspace(st.cells.shape[0]), False, new_limits())
    move = find_vct(st, BLACK, 14, 60_000, new_vct_space(), new_limits())
    assert move >= 0 and board.is_empty(*board.coords(move))


def test_every_reply_to_the_first_threat_still_loses():
    """Soundness where it can be checked by brute force: after the claimed move, each of White's replies (any empty
    cell within three of a stone) leaves Black a VCT again."""
    board = threat_win_board()
    st = new_state(board)
    space = new_vct_space()
    move = find_vct(st, BLACK, 14, 60_000, space, new_limits())
    make(st, move, BLACK)
    for x, y in board.empty_cells():
        reply = board.index(x, y)
        if reply == move or st.near[reply] == 0:
            continue
        make(st, reply, WHITE)
        space.tt_keys[:] = 0
        assert find_vct(st, BLACK, 14, 60_000, space, new_limits()) >= 0, f"white escapes with {x},{y}"
        unmake(st, reply)


def test_no_win_is_claimed_for_the_side_without_threats():
    board = threat_win_board()
    board.to_move = WHITE
    assert find_vct(new_state(board), WHITE, 14, 60_000, new_vct_space(), new_limits()) == -1


@pytest.mark.parametrize("budget", [0, 50, 60_000])
def test_the_search_state_is_restored_whatever_the_budget(budget):
    board = threat_win_board()
    st = new_state(board)
    before = {name: getattr(st, name).copy() for name in ("cells", "keys", "cls", "cls_count", "score_sum", "hash")}
    find_vct(st, BLACK, 14, budget, new_vct_space(), new_limits())
    for name, array in before.items():
        assert np.array_equal(getattr(st, name), array), name
