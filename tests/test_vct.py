"""VCT (victory by continuous threats): it finds a win that needs threes, the win survives every reply, it claims
nothing in a quiet position, and it leaves the search state as it found it."""

from __future__ import annotations

import numpy as np
import pytest

from monte.brain.board import BLACK, WHITE, Board
from monte.brain.limits import new_limits
from monte.brain.position import class_count, make, new_state, unmake
from monte.brain.threats import find_vcf, new_workspace
from monte.brain.patterns import C_OPEN_FOUR
from monte.brain.vct import (V_FOCUS, V_NODES, V_PLIES, V_RESULT, _kills_open_fours, _related_threats, find_vct,
                             new_vct_space)

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
    space.info[V_FOCUS] = 0  # the check searches every threat: a focused one could miss a win that is there
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
    before = {name: getattr(st, name).copy() for name in ("cells", "keys", "cls", "kind_count", "score_sum", "hash")}
    find_vct(st, BLACK, 14, budget, new_vct_space(), new_limits())
    for name, array in before.items():
        assert np.array_equal(getattr(st, name), array), name


# From a game Monte lost to PentaZen (15x15 freestyle, 1 s a move): after Black's 4th move White, to move, wins by
# threats in 19 plies (PentaZen announced it and played it out). The depth-first VCT that came before df-pn needed
# ~490,000 nodes (4 s) to find it at 16 plies and gave up at 18 plies within ten million.
LONG_WIN_GAME = [(8, 9), (9, 7), (6, 9), (8, 8), (6, 10), (9, 10), (5, 8)]


def long_win_state():
    board = Board(15)
    for x, y in LONG_WIN_GAME:
        board.play(x, y)
    return board, new_state(board)


def test_df_pn_finds_a_long_threat_win_from_a_real_game_on_a_small_budget():
    board, st = long_win_state()
    space = new_vct_space()
    move = find_vct(st, WHITE, 30, 60_000, space, new_limits())
    assert move >= 0
    assert space.info[V_RESULT] == 1
    assert space.info[V_PLIES] >= 11  # a long win, not a four-three at hand


def test_a_shallow_disproof_does_not_hide_a_deeper_win():
    """Disproofs are stored with the plies they were searched to: one found at 8 plies must not stop a 30-ply search
    that uses the same table."""
    board, st = long_win_state()
    space = new_vct_space()
    assert find_vct(st, WHITE, 8, 60_000, space, new_limits()) == -1
    assert space.info[V_RESULT] == 0
    assert find_vct(st, WHITE, 30, 60_000, space, new_limits()) >= 0


def test_the_table_carries_results_from_one_search_to_the_next():
    board, st = long_win_state()
    space = new_vct_space()
    first = find_vct(st, WHITE, 30, 60_000, space, new_limits())
    cold_nodes = space.info[V_NODES]
    assert find_vct(st, WHITE, 30, 60_000, space, new_limits()) == first
    assert space.info[V_NODES] < cold_nodes


def test_a_budget_cut_is_unknown_not_disproved():
    board, st = long_win_state()
    space = new_vct_space()
    assert find_vct(st, WHITE, 30, 20, space, new_limits()) == -1
    assert space.info[V_RESULT] == -1


def _open_four_points(st, side):
    return [int(q) for q in st.interior if st.cells[q] == 0 and st.cls[side, q] == C_OPEN_FOUR]


@pytest.mark.parametrize("rule", [0, 1, 4, 8])
def test_the_defence_test_without_a_move_agrees_with_making_the_move(rule):
    """_kills_open_fours answers "does a defender stone here leave the attacker no open-four point?" from the
    patterns; it must agree with making the move and counting, on every empty cell of positions with open threes."""
    rng = np.random.default_rng(7 + rule)
    outcomes = []
    for _ in range(200):
        board = Board(15, rule=rule)
        for _ in range(int(rng.integers(6, 30))):
            empty = board.empty_cells()
            x, y = empty[int(rng.integers(len(empty)))]
            if abs(x - 7) > 4 or abs(y - 7) > 4:
                continue
            board.play(x, y)
        st = new_state(board)
        for a in (0, 1):
            points = _open_four_points(st, a)
            if not points:
                continue
            arr = np.array(points, dtype=np.int32)
            for x, y in board.empty_cells():
                m = board.index(x, y)
                make(st, m, 2 - a)
                expected = class_count(st, a, C_OPEN_FOUR) == 0
                unmake(st, m)
                assert _kills_open_fours(st, a, m, arr, len(points)) == expected, (board.history, a, x, y)
                outcomes.append(expected)
    assert len(outcomes) > 300 and any(outcomes) and not all(outcomes)


def test_a_win_proved_with_the_attacker_to_move_is_not_read_as_a_win_with_the_defender_to_move():
    """The table kept across searches holds results for the same stones with either side to move: a pass search
    (the opponent's threats asked while we are to move, or a quiet move's proof "if the defender passed") proves a
    position with the attacker to move that real play reaches with the defender to move. Here black's open three
    wins with black to move; black's two beside it does not (the three it makes is blocked). Read back under a key
    without the side to move, the first proof made the second search claim the three as a win (the false ``+M``
    of issue 19)."""
    board = Board(15)
    for x, y in [(5, 7), (6, 7), (7, 7)]:
        board.place(x, y, BLACK)
    for x, y in [(1, 1), (13, 1), (1, 13)]:
        board.place(x, y, WHITE)
    st = new_state(board)
    space = new_vct_space()
    assert find_vct(st, BLACK, 14, 60_000, space, new_limits()) >= 0  # black to move: the open four wins
    three = board.index(7, 7)
    unmake(st, three)
    fresh = new_vct_space()
    assert find_vct(st, BLACK, 14, 60_000, fresh, new_limits()) == -1  # a two wins nothing
    assert fresh.info[V_RESULT] == 0
    assert find_vct(st, BLACK, 14, 60_000, space, new_limits()) == -1, "the old proof was read with white to move"
    assert space.info[V_RESULT] == 0


def test_focus_keeps_the_attackers_threats_on_a_line_near_its_earlier_ones():
    """Past the first threat the focused search tries only threats that share a row, column or diagonal with one of
    the attacker's earlier threats of the sequence, within a window's half (5 cells); the defender's replies (odd
    levels) are never the attacker's earlier threats."""
    board = threat_win_board()
    st = new_state(board)
    space = new_vct_space()
    space.made[0] = board.index(7, 5)    # the attacker's first threat
    space.made[1] = board.index(7, 9)    # the defender's reply: not a threat of the attacker's
    space.made[2] = board.index(3, 3)    # its second threat
    kept_expected = [(7, 10), (12, 5), (9, 7), (6, 0), (3, 8)]  # column, row, diagonal of 7,5; anti-diagonal, column of 3,3
    dropped = [(8, 12), (13, 5), (10, 7), (10, 9), (12, 1)]     # off every line, too far, on the reply's line only
    cells = kept_expected + dropped
    for i, (x, y) in enumerate(cells):
        space.moves[4, i] = board.index(x, y)
    kept = _related_threats(st, space, 4, len(cells))
    assert [board.coords(int(m)) for m in space.moves[4, :kept]] == kept_expected


def test_the_focused_and_the_complete_search_prove_the_threat_win():
    board = threat_win_board()
    for focus in (1, 0):
        space = new_vct_space()
        space.info[V_FOCUS] = focus
        assert find_vct(new_state(board), BLACK, 14, 60_000, space, new_limits()) >= 0
        assert space.info[V_RESULT] == 1
