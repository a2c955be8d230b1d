"""Move generation: the tree search keeps only the best few moves of a quiet node as children, so the selection of
those few must be right -- the `limit` best by value (the hand-set cell value, or the learned policy's logit), best
first, equal values in board order; and against the opponent's winning threats every defence must be there, since
the solver counts a node lost when all its children are."""

from __future__ import annotations

import random

import numpy as np
import pytest

from monte.brain.board import Board
from monte.brain.patterns import C_FIVE, C_FOUR, C_FOUR_THREE, C_OPEN_FOUR, C_THREE_THREE
from monte.brain.position import class_count, make, new_state, unmake
from monte.brain.policy import move_logit, recent_moves, threat_context
from monte.brain.threats import _keep_best, cell_value, generate_moves, new_workspace, playable, threat_count
from monte.protocol.notation import parse_moves


@pytest.mark.parametrize("seed", range(60))
def test_keep_best_keeps_the_limit_best_in_descending_order_ties_in_first_order(seed):
    rng = random.Random(seed)
    n = rng.randint(0, 120)
    limit = rng.randint(1, 40)
    # few distinct values, so that ties are common
    values = np.array([rng.choice([0.0, 1.0, 2.5, 7.0, rng.random()]) for _ in range(n)], dtype=np.float64)
    moves = np.arange(100, 100 + n, dtype=np.int32)
    expected = sorted(range(n), key=lambda i: (-values[i], i))[:limit]
    want_values = [float(values[i]) for i in expected]
    kept = _keep_best(moves, values, n, limit, np.zeros(max(n, 2 * limit)))
    assert kept == min(n, limit)
    assert [int(m) - 100 for m in moves[:kept]] == expected
    assert [float(v) for v in values[:kept]] == want_values


def test_keep_best_of_equal_values_keeps_the_first_ones_in_their_order():
    moves = np.arange(50, dtype=np.int32)
    values = np.full(50, 0.5)
    assert _keep_best(moves, values, 50, 10, np.zeros(50)) == 10
    assert list(moves[:10]) == list(range(10)) and list(values[:10]) == [0.5] * 10


def test_keep_best_with_a_limit_of_zero_keeps_nothing_and_moves_nothing():
    moves = np.array([5, 6, 7], dtype=np.int32)
    values = np.array([1.0, 3.0, 2.0])
    assert _keep_best(moves, values, 3, 0, np.zeros(3)) == 0
    assert list(moves) == [5, 6, 7] and list(values) == [1.0, 3.0, 2.0]


@pytest.mark.parametrize("learned", [False, True])
def test_quiet_node_children_are_the_best_valued_cells_near_the_stones(learned):
    board = Board(15)
    for x, y in ((7, 7), (8, 8), (8, 6), (6, 8), (9, 7)):
        board.play(x, y)
    st = new_state(board)
    me = board.to_move - 1
    last, own = recent_moves(st)
    context = threat_context(st, me)

    def value(i: int) -> float:
        return move_logit(st, i, me, last, own, context) if learned else cell_value(st, i, me)

    near = [int(i) for i in st.interior if st.cells[i] == 0 and st.near[i] > 0]
    best_first = sorted(near, key=lambda i: -value(i))
    out = np.empty(512, dtype=np.int32)
    values = np.empty(512, dtype=np.float64)
    n = generate_moves(st, board.to_move, out, values, 10, new_workspace(st.cells.shape[0]), learned)
    assert n == 10
    assert list(values[:n]) == sorted(values[:n], reverse=True)
    assert list(values[:n]) == [value(int(m)) for m in out[:n]]
    # the kept ones are worth at least as much as every cell left out
    assert min(values[:n]) >= value(best_first[10])
    assert set(int(m) for m in out[:n]) <= set(near)


def test_recent_moves_are_the_last_move_and_the_side_to_moves_previous_one():
    board = Board(15)
    for x, y in ((7, 7), (8, 8), (3, 3)):
        board.play(x, y)
    st = new_state(board)
    assert recent_moves(st) == (board.index(3, 3), board.index(8, 8))
    assert recent_moves(new_state(Board(15))) == (-1, -1)


def _node_facing_a_threat(seed: int, rule: int):
    """A random position (moves near the centre) where the side to move has no five, open four or five to block, and
    the opponent has an open-four or four-three point: generate_moves' defence branch. None if the game got there
    otherwise."""
    rng = random.Random(seed)
    board = Board(15, rule=rule)
    for _ in range(60):
        st = new_state(board)
        me, op = board.to_move - 1, 2 - board.to_move
        if (threat_count(st, op) > 0 and class_count(st, me, C_FIVE) == 0 and class_count(st, op, C_FIVE) == 0
                and class_count(st, me, C_OPEN_FOUR) == 0):
            return board, st
        if class_count(st, me, C_FIVE) or class_count(st, op, C_FIVE):
            return None
        legal = set(board.legal_moves())
        empty = [(x, y) for x in range(4, 11) for y in range(4, 11) if (x, y) in legal]
        board.play(*rng.choice(empty))
    return None


def test_a_four_three_point_is_defended_by_closing_its_three_as_well():
    """From a game against PentaZen: white's G9 would make a four (G7-G10, five point G6) and an open three (F9 G9
    H9). I9 closes the three -- G9 is then a four and a closed three -- and makes black's own three; Rapfi's move.
    Black's moves were G9 and G6 alone, I9 (no four of white's) was not among them, and white's H9 looked won."""
    board = Board(15)
    for x, y in parse_moves("H10 G7 F6 F9 G11 G8 E10 G10 H11 H9", 15, 15):
        board.play(x, y)
    st = new_state(board)
    out = np.empty(512, dtype=np.int32)
    values = np.empty(512, dtype=np.float64)
    n = generate_moves(st, board.to_move, out, values, 40, new_workspace(st.cells.shape[0]), True)
    moves = {int(m) for m in out[:n]}
    assert {board.index(x, y) for x, y in parse_moves("I9 E9 G9 G6", 15, 15)} <= moves


def _answered_in_time(st, t: int, op: int, color: int) -> bool:
    """The opponent's four-three point t threatens nothing: its stone there makes a four whose one block makes a four
    (or five) of ours, found by making the stone and looking at every cell."""
    make(st, t, op + 1)
    fives = [int(c) for c in st.interior if st.cells[int(c)] == 0 and st.cls[op, int(c)] == C_FIVE]
    held = (len(fives) == 1 and st.cls[color - 1, fives[0]] in (C_FOUR, C_FOUR_THREE, C_OPEN_FOUR, C_FIVE)
            and playable(st, fives[0], color))
    unmake(st, t)
    return held


def _unanswered(st, op: int, color: int) -> bool:
    """Whether the opponent has a winning threat we cannot answer in time: an open-four point it may play, or a
    four-three point not answered in time."""
    for c in st.interior:
        c = int(c)
        if st.cells[c] != 0:
            continue
        if st.cls[op, c] == C_OPEN_FOUR and playable(st, c, op + 1):
            return True
        if st.cls[op, c] == C_FOUR_THREE and not _answered_in_time(st, c, op, color):
            return True
    return False


@pytest.mark.parametrize("rule,seed", [(0, seed) for seed in range(40)]
                         + [(rule, seed) for rule in (1, 4, 8) for seed in range(15)])
def test_the_defences_generated_are_every_cell_that_leaves_no_winning_threat(rule, seed):
    """Against the opponent's open-four and four-three points every move after which it has none we cannot answer in
    time is generated (found by making each cell the side to move may play in turn), and every move generated is one
    of those or a four of our own -- unless there is neither: then the node is lost and its ordinary moves are
    searched. A four-three point is answered in time when the block of its four makes a four of ours (the opponent
    must answer it before its three becomes an open four); when every threat is, the node is quiet. Under every rule
    (freestyle, exactly five, renju with black's forbidden points, caro): each has its own class table."""
    found = _node_facing_a_threat(seed, rule)
    if found is None:
        pytest.skip("this seed's game did not reach a defence")
    board, st = found
    color = board.to_move
    me, op = color - 1, 2 - color
    legal = {board.index(x, y) for x, y in board.legal_moves()}
    cells = [int(c) for c in st.interior if st.cells[int(c)] == 0 and int(c) in legal]
    out = np.empty(512, dtype=np.int32)
    values = np.empty(512, dtype=np.float64)
    n = generate_moves(st, color, out, values, 400, new_workspace(st.cells.shape[0]), False)
    moves = {int(m) for m in out[:n]}
    if not _unanswered(st, op, color):
        assert moves == {c for c in cells if st.near[c] > 0}  # quiet: every cell near the stones
        return
    defences = set()
    for c in cells:
        make(st, c, color)
        if not _unanswered(st, op, color):
            defences.add(c)
        unmake(st, c)
    own_fours = {c for c in cells if C_FOUR <= st.cls[me, c] <= C_FIVE and st.cls[me, c] != C_THREE_THREE}
    assert defences <= moves
    assert moves <= defences | own_fours or not defences | own_fours


def test_a_four_three_point_is_answered_in_time_by_a_three_whose_four_blocks_it():
    """From a game against PentaZen (the blunder positions' set, spar-d6e3863 game 36, and two moves of a search's
    tree): black's K4 leaves white facing black's four-three point, and white's D4 makes a three whose four point D3
    is where black's four would have to be blocked: black must answer the three first. D4 was not among white's
    moves -- the solver proved white lost, where Rapfi at 3 million nodes sees white hold -- and now it is."""
    board = Board(15)
    line = ("H10 I9 F6 I11 I10 G10 H9 G8 F9 H8 F8 F7 E9 G7 G9 D9 E7 D6 D8 C9 H11 G12 J10 E10 F11 F10 G6 K10 J7 I6 "
            "E4 H4 E5 E6 F5 H7 C5 D5 C4 C10 D10 H6 H5 J5 K4")
    for x, y in parse_moves(line, 15, 15):
        board.play(x, y)
    st = new_state(board)
    out = np.empty(512, dtype=np.int32)
    values = np.empty(512, dtype=np.float64)
    n = generate_moves(st, board.to_move, out, values, 40, new_workspace(st.cells.shape[0]), True)
    assert board.index(*parse_moves("D4", 15, 15)[0]) in {int(m) for m in out[:n]}
