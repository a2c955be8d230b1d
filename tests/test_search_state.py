"""The search's incremental state (``brain.position``) and the line patterns it is made of (``brain.patterns``).

The state is updated on every make and unmake instead of being recomputed; a single stale window key would feed the
search wrong threats. So random make/unmake walks under every rule are checked against a fresh rebuild of the same
stones, and the window keys against a key computed from scratch in plain Python. The pattern tables are then checked
on hand-made lines (open three, broken three, four, straight four, five, overline, caro's blocked five), read
through the state along every direction.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from monte.brain.board import BLACK, EMPTY, MOVE_WINS, WALL, WHITE, Board
from monte.brain.patterns import (
    C_FIVE, C_FORBIDDEN, C_FOUR, C_FOUR_THREE, C_OPEN_FOUR, C_THREE, C_THREE_THREE, CLASS_COUNT, COMBO_WEIGHT,
    F_NONE, F_OPEN_THREE_TWO, F_THREE_TWO, FORK_COUNT, P_FIVE, P_FOUR, P_FOUR_OPEN, P_NONE, P_OVERLINE, P_THREE,
    P_THREE_C, P_TWO, P_TWO_C, PATTERN_COUNT, TABLE_SIZE, WINDOW_HALF,
    NARROW_HALF, cell_fork, cell_tables, offset_weight, pattern_tables, window,
)
from monte.brain.position import (
    I_LAST, I_STONES, State, cell_score, class_count, fork_count, make, make_lean, new_state, score_difference, unmake,
    unmake_lean,
)
from monte.brain.rules import RULE_CARO, RULE_CONTINUOUS, RULE_EXACT_FIVE, RULE_FREESTYLE, RULE_RENJU

RULES = {RULE_FREESTYLE: "freestyle", RULE_EXACT_FIVE: "exactly-five", RULE_RENJU: "renju", RULE_CARO: "caro"}
WALK_STEPS = 150
SCRATCH_EVERY = 25


# --- incremental state == fresh rebuild ------------------------------------------------------------------------

def assert_matches_rebuild(st: State, board: Board, scored: bool = True, lean: bool = False) -> None:
    """Everything the search reads from `st` equals a state built afresh from `board`'s stones (an unscored `st`:
    everything but the scores and their sums, which stay 0; with `lean` stones on the board, ``make_lean``'s: what
    the threat searches read, not the scores, pattern counts or neighbour counts)."""
    fresh = new_state(board)
    inner = fresh.interior
    empty = inner[board.cells[inner] == EMPTY]
    stones = int(fresh.info[I_STONES])
    np.testing.assert_array_equal(st.cells, fresh.cells)
    np.testing.assert_array_equal(st.keys[:, inner], fresh.keys[:, inner], "window keys")
    np.testing.assert_array_equal(st.pat[:, empty], fresh.pat[:, empty], "line patterns")
    np.testing.assert_array_equal(st.code[:, empty], fresh.code[:, empty], "cell codes")
    np.testing.assert_array_equal(st.cls[:, empty], fresh.cls[:, empty], "cell classes")
    if scored and not lean:
        np.testing.assert_array_equal(st.score[:, empty], fresh.score[:, empty], "cell scores")
        np.testing.assert_array_equal(st.score_sum, fresh.score_sum, "score sums")
    elif not scored:
        assert not st.score.any() and not st.score_sum.any(), "an unscored state's scores"
    np.testing.assert_array_equal(st.kind[:, empty], fresh.kind[:, empty], "cell kinds")
    np.testing.assert_array_equal(st.kind_count, fresh.kind_count, "kind counts")
    if not lean:
        np.testing.assert_array_equal(st.pat_count, fresh.pat_count, "pattern counts")
        np.testing.assert_array_equal(st.near[inner], fresh.near[inner], "neighbour counts")
    assert st.hash[0] == fresh.hash[0], "Zobrist hash"
    assert st.info[I_STONES] == stones and st.info[I_LAST] == fresh.info[I_LAST]
    np.testing.assert_array_equal(st.history[:stones], fresh.history[:stones], "move history")


def scratch_key(board: Board, idx: int, step: int, color: int, weights: np.ndarray | None = None) -> int:
    """The window key of cell idx along `step` for `color`, from the cells alone (0 empty, 1 own, 2 anything else):
    with every offset's full weight (the key of ``pattern_tables``), or with `weights` (a state's, which under
    freestyle reads four cells a side: ``brain.patterns.window``)."""
    key = 0
    for offset in range(-WINDOW_HALF, WINDOW_HALF + 1):
        if offset == 0:
            continue
        cell = board.cells[idx + offset * step]
        digit = 0 if cell == EMPTY else 1 if cell == color else 2
        key += digit * (offset_weight(offset) if weights is None else int(weights[offset + WINDOW_HALF]))
    return key


def scratch_edge(board: Board, idx: int, step: int) -> int:
    """The caro edge code of idx's window along `step` (board cells before the wall on each side, 0..5, as one
    number), times TABLE_SIZE: the part of a caro key that says where the wall is. 0 but caro."""
    if not board.rule & RULE_CARO:
        return 0
    reach = []
    for sign in (-1, 1):
        k = 0
        while k < WINDOW_HALF and board.cells[idx + sign * (k + 1) * step] != WALL:
            k += 1
        reach.append(k)
    return (reach[0] * (WINDOW_HALF + 1) + reach[1]) * TABLE_SIZE


def assert_matches_scratch(st: State, board: Board) -> None:
    """Keys, patterns, classes and the per-side sums of `st` agree with a from-scratch reading of `board`."""
    tables = pattern_tables(board.rule)
    classes, scores, kinds = cell_tables(board.rule)
    steps = (1, board.stride, board.stride + 1, board.stride - 1)
    counts = np.zeros((2, CLASS_COUNT), dtype=np.int64)
    fork_counts = np.zeros((2, FORK_COUNT), dtype=np.int64)
    patterns = np.zeros((2, PATTERN_COUNT), dtype=np.int64)
    sums = np.zeros(2, dtype=np.int64)
    for x, y in board.empty_cells():
        idx = board.index(x, y)
        for side in (0, 1):
            code = 0
            lines = []
            for d, step in enumerate(steps):
                key = scratch_key(board, idx, step, side + 1) + scratch_edge(board, idx, step)
                state_key = scratch_key(board, idx, step, side + 1, st.weights) + scratch_edge(board, idx, step)
                assert st.keys[side, idx, d] == state_key, f"key of {x},{y} side {side} direction {d}"
                assert st.pat[side, idx, d] == tables[side, key], f"pattern of {x},{y} side {side} direction {d}"
                code += int(tables[side, key]) * COMBO_WEIGHT[d]
                lines.append(int(tables[side, key]))
                patterns[side, tables[side, key]] += 1
            fork = cell_fork(*lines)
            assert st.cls[side, idx] == classes[side, code] and st.score[side, idx] == scores[side, code]
            assert st.kind[side, idx] == kinds[side, code] == classes[side, code] * FORK_COUNT + fork
            counts[side, classes[side, code]] += 1
            fork_counts[side, fork] += 1
            sums[side] += scores[side, code]
    for side in (0, 1):
        assert [class_count(st, side, c) for c in range(CLASS_COUNT)] == list(counts[side]), f"class counts {side}"
        assert [fork_count(st, side, f) for f in range(FORK_COUNT)] == list(fork_counts[side]), f"fork counts {side}"
    np.testing.assert_array_equal(st.pat_count, patterns)
    np.testing.assert_array_equal(st.score_sum, sums)


@pytest.mark.parametrize("rule", [RULE_FREESTYLE, RULE_CONTINUOUS])
def test_under_freestyle_the_fifth_cell_a_side_never_changes_a_pattern(rule):
    """What a freestyle state's four-a-side window rests on (``brain.patterns.window``): over every 10-digit key,
    the digits of offsets -5 and +5 change no pattern; and the narrow table holds the full table's patterns."""
    full = pattern_tables(rule)
    keys = np.arange(TABLE_SIZE)
    outer = [offset_weight(-WINDOW_HALF), offset_weight(WINDOW_HALF)]
    stripped = keys - sum((keys // w) % 3 * w for w in outer)
    np.testing.assert_array_equal(full[:, keys], full[:, stripped])
    lines = window(rule)
    assert lines.half == NARROW_HALF and lines.tables.shape == (2, 3 ** (2 * NARROW_HALF))
    rng = np.random.default_rng(1)
    for key in rng.integers(0, TABLE_SIZE, 2000):
        digits = {o: key // offset_weight(o) % 3 for o in range(-WINDOW_HALF, WINDOW_HALF + 1) if o != 0}
        narrow = sum(digits[o] * lines.weights[o + WINDOW_HALF] for o in digits)
        assert list(lines.tables[:, narrow]) == list(full[:, key])


@pytest.mark.parametrize("rule", [RULE_EXACT_FIVE, RULE_RENJU, RULE_CARO])
def test_rules_that_need_the_fifth_cell_read_five_a_side(rule):
    """Exactly five, renju and caro read what ends a row of five: five cells a side, the full tables."""
    lines = window(rule)
    assert lines.half == WINDOW_HALF
    np.testing.assert_array_equal(lines.tables, pattern_tables(rule))


def walk_move(board: Board, rng: random.Random) -> tuple[int, int]:
    """A random empty cell, most often next to a stone (so that lines build up), sometimes anywhere (edges too)."""
    if board.history and rng.random() < 0.8:
        last = rng.choice(board.history)
        near = [(last.x + dx, last.y + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)]
        near = [p for p in near if board.is_empty(*p)]
        if near:
            return rng.choice(near)
    return rng.choice(board.empty_cells())


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("rule", list(RULES), ids=RULES.get)
def test_random_make_unmake_walk_keeps_the_state_equal_to_a_rebuild(rule, seed):
    rng = random.Random(seed * 100 + rule)
    board = Board(11, 9, rule) if seed == 2 else Board(15, rule=rule)
    st = new_state(board)
    for step in range(1, WALK_STEPS + 1):
        if board.history and rng.random() < 0.35:
            move = board.undo()
            unmake(st, board.index(move.x, move.y))
        else:
            x, y = walk_move(board, rng)
            color = rng.choice((BLACK, WHITE))  # not alternating: any mix of stones must stay consistent
            make(st, board.index(x, y), color)
            board.place(x, y, color)
        assert_matches_rebuild(st, board)
        if step % SCRATCH_EVERY == 0:
            assert_matches_scratch(st, board)


@pytest.mark.parametrize("rule", list(RULES), ids=RULES.get)
def test_lean_makes_keep_what_the_threat_searches_read_and_leave_the_rest_as_it_was(rule):
    """``make_lean`` and ``unmake_lean`` (the threat searches', on top of the tree search's stones): through a random
    walk of lean stones everything the threat searches read equals a rebuild, while the scores, pattern counts and
    neighbour counts stay those of the position below; once they are all taken back, the whole state equals it."""
    rng = random.Random(23 + rule)
    board = Board(15, rule=rule)
    st = new_state(board)
    for _ in range(30):
        x, y = walk_move(board, rng)
        color = rng.choice((BLACK, WHITE))
        make(st, board.index(x, y), color)
        board.place(x, y, color)
    below = [array.copy() for array in (st.score, st.score_sum, st.pat_count, st.near)]
    lean = 0
    for _ in range(60):
        if lean and rng.random() < 0.35:
            move = board.undo()
            unmake_lean(st, board.index(move.x, move.y))
            lean -= 1
        else:
            x, y = walk_move(board, rng)
            color = rng.choice((BLACK, WHITE))
            make_lean(st, board.index(x, y), color)
            board.place(x, y, color)
            lean += 1
        assert_matches_rebuild(st, board, lean=True)
        for kept, now in zip(below, (st.score, st.score_sum, st.pat_count, st.near)):
            np.testing.assert_array_equal(now, kept, "upkeep a lean make skips")
    for _ in range(lean):
        move = board.undo()
        unmake_lean(st, board.index(move.x, move.y))
    assert_matches_rebuild(st, board)
    assert_matches_scratch(st, board)


@pytest.mark.parametrize("rule", list(RULES), ids=RULES.get)
def test_an_unscored_state_skips_the_scores_and_still_reads_them(rule):
    """A state made with ``scored=False`` (the value network's searches) spares make and unmake the cells' scores and
    their sums: through a random walk they stay 0 and everything else equals a scored rebuild, while ``cell_score``
    and ``score_difference`` -- what the hand-set priors and evaluation read -- give the scored state's values."""
    rng = random.Random(11 + rule)
    board = Board(15, rule=rule)
    st = new_state(board, scored=False)
    for _ in range(60):
        if board.history and rng.random() < 0.35:
            move = board.undo()
            unmake(st, board.index(move.x, move.y))
        else:
            x, y = walk_move(board, rng)
            make(st, board.index(x, y), board.to_move)
            board.place(x, y, board.to_move)
        assert_matches_rebuild(st, board, scored=False)
        fresh = new_state(board)
        for me in (0, 1):
            kept = fresh.score_sum[me] - fresh.score_sum[1 - me]
            assert score_difference(st, me) == score_difference(fresh, me) == kept
            assert [cell_score(st, me, int(c)) for c in fresh.interior if fresh.cells[c] == EMPTY] == \
                [int(fresh.score[me, c]) for c in fresh.interior if fresh.cells[c] == EMPTY]


@pytest.mark.parametrize("rule", list(RULES), ids=RULES.get)
def test_unmaking_every_stone_gives_back_the_empty_boards_state(rule):
    rng = random.Random(rule)
    board = Board(15, rule=rule)
    st = new_state(board)
    empty_hash = st.hash[0]
    moves = []
    for _ in range(40):
        x, y = walk_move(board, rng)
        board.place(x, y, board.to_move)
        make(st, board.index(x, y), board.history[-1].color)
        moves.append((x, y))
    for x, y in reversed(moves):
        unmake(st, board.index(x, y))
    assert st.hash[0] == empty_hash
    assert_matches_rebuild(st, Board(15, rule=rule))


# --- line patterns of hand-made lines ------------------------------------------------------------------------
# A line is a row of cells: X black, O white, . empty, * the (empty) cell whose pattern for black is read. It is laid
# through the centre of a 15x15 board along one direction, so every direction must give the same pattern.

DIRECTIONS = {"horizontal": (1, 0), "vertical": (0, 1), "diagonal": (1, 1), "anti-diagonal": (1, -1)}
CENTRE = 7


def line_board(line: str, direction: str, rule: int) -> tuple[Board, int, int]:
    """The board with `line` laid along `direction` (X black, O white, M a continuous game's marker stone), the ``*``
    cell's flat index, and the direction's number."""
    dx, dy = DIRECTIONS[direction]
    star = line.index("*")
    board = Board(15, rule=rule)
    for i, ch in enumerate(line):
        x, y = CENTRE + (i - star) * dx, CENTRE + (i - star) * dy
        if ch in "XO":
            board.place(x, y, BLACK if ch == "X" else WHITE)
        elif ch == "M":
            board.block(x, y)
    return board, board.index(CENTRE, CENTRE), list(DIRECTIONS).index(direction)


def pattern_of(line: str, direction: str, rule: int, color: int = BLACK) -> int:
    """The line pattern `color` makes by playing the ``*`` cell of `line`."""
    board, idx, d = line_board(line, direction, rule)
    return int(new_state(board).pat[color - 1, idx, d])


LINES = [
    # (what, line, rule, expected pattern for black)
    ("two", "....X*.....", RULE_FREESTYLE, P_TWO),
    ("closed two", "...OX*.....", RULE_FREESTYLE, P_TWO_C),
    ("open three", "...XX*.....", RULE_FREESTYLE, P_THREE),
    ("broken three", "...X.X*....", RULE_FREESTYLE, P_THREE),
    ("closed three", "..OXX*.....", RULE_FREESTYLE, P_THREE_C),
    ("three with no room", "..OXX*..O..", RULE_FREESTYLE, P_THREE_C),
    ("straight four", "...XXX*....", RULE_FREESTYLE, P_FOUR_OPEN),
    ("closed four", "..OXXX*....", RULE_FREESTYLE, P_FOUR),
    ("broken four", "..XX.X*....", RULE_FREESTYLE, P_FOUR),
    ("two fours on one line", "..X.X*X.X..", RULE_FREESTYLE, P_FOUR_OPEN),
    ("five", "..XXXX*....", RULE_FREESTYLE, P_FIVE),
    ("overline wins in freestyle", ".XXXXX*....", RULE_FREESTYLE, P_FIVE),
    ("overline is nothing under exactly five", "OXXXXX*O...", RULE_EXACT_FIVE, P_NONE),
    ("overline is a foul for renju black", ".XXXXX*....", RULE_RENJU, P_OVERLINE),
    ("five point through an overline is a four in freestyle", "..XX*.XX...", RULE_FREESTYLE, P_FOUR),
    ("overline point is no five point under exactly five", "..XX*.XX...", RULE_EXACT_FIVE, P_THREE_C),
    ("exactly five wins under exactly five", ".OXXXX*O...", RULE_EXACT_FIVE, P_FIVE),
    ("caro five blocked at both ends", "OXXXX*O....", RULE_CARO, P_NONE),
    ("caro five blocked at one end", "OXXXX*.....", RULE_CARO, P_FIVE),
    ("caro four whose five would be blocked", "OXXX*.O....", RULE_CARO, P_NONE),
    ("caro four whose five stays open", "OXXX*......", RULE_CARO, P_FOUR),
    ("freestyle four between two stones", "OXXX*.O....", RULE_FREESTYLE, P_FOUR),
]


@pytest.mark.parametrize("direction", list(DIRECTIONS))
@pytest.mark.parametrize("what, line, rule, expected", LINES, ids=[case[0] for case in LINES])
def test_line_pattern_of_a_hand_made_line(what, line, rule, expected, direction):
    assert pattern_of(line, direction, rule) == expected


@pytest.mark.parametrize("what, line, rule, expected",
                         [case for case in LINES if case[2] != RULE_RENJU], ids=[case[0] for case in LINES
                                                                                  if case[2] != RULE_RENJU])
def test_white_makes_what_black_makes_with_the_colours_swapped(what, line, rule, expected):
    swapped = line.translate(str.maketrans("XO", "OX"))
    assert pattern_of(swapped, "diagonal", rule, WHITE) == expected


@pytest.mark.parametrize("rule", list(RULES))
@pytest.mark.parametrize("color", [BLACK, WHITE])
def test_a_marker_stone_blocks_a_line_for_both_sides(rule, color):
    # a continuous game's marker (BOARD field 3) blocks like the wall: three stones against it make a four with one
    # five point, one cell further off a straight four -- for each side, under every rule
    own = "X" if color == BLACK else "O"
    assert pattern_of(f"..M{own * 3}*....", "horizontal", rule, color) == P_FOUR
    assert pattern_of(f".M.{own * 3}*....", "horizontal", rule, color) == P_FOUR_OPEN


def test_renju_white_overline_still_wins():
    assert pattern_of(".OOOOO*....", "horizontal", RULE_RENJU, WHITE) == P_FIVE


def test_board_edge_blocks_a_line_like_an_opponent_stone():
    # Black's three against the left edge can only become a closed four; one cell in from the edge, a straight four.
    at_edge = Board.from_diagram("XXX.....\n" + "........\n" * 4, RULE_FREESTYLE, BLACK)
    one_in = Board.from_diagram(".XXX....\n" + "........\n" * 4, RULE_FREESTYLE, BLACK)
    assert new_state(at_edge).pat[0, at_edge.index(3, 0), 0] == P_FOUR
    assert new_state(one_in).pat[0, one_in.index(4, 0), 0] == P_FOUR_OPEN


def test_caro_edge_does_not_block_a_five_but_an_opponent_stone_does():
    # Caro: a five is lost only when opponent stones close both ends; the edge is no opponent. Black's row against the
    # left edge with White at the far end is a five (and, one stone short, a four); White at both ends is nothing.
    edge_five = Board.from_diagram("XXXX.O..\n" + "........\n" * 4, RULE_CARO, BLACK)
    edge_four = Board.from_diagram("XXX..O..\n" + "........\n" * 4, RULE_CARO, BLACK)
    closed = Board.from_diagram("OXXXX.O.\n" + "........\n" * 4, RULE_CARO, BLACK)
    assert new_state(edge_five).pat[0, edge_five.index(4, 0), 0] == P_FIVE
    assert new_state(edge_four).pat[0, edge_four.index(3, 0), 0] == P_FOUR
    assert new_state(closed).pat[0, closed.index(5, 0), 0] == P_NONE
    # the referee agrees
    assert edge_five.judge(4, 0, BLACK) == MOVE_WINS and closed.judge(5, 0, BLACK) != MOVE_WINS


# --- cell classes: the four directions folded --------------------------------------------------------------------
# The ``*`` cell's class for black.

DOUBLE_FOUR = """
        .....O...
        .....X...
        .....X...
        .....X...
        .OXXX*...
        .........
        .........
    """
CLASSES = [
    ("five", RULE_FREESTYLE, C_FIVE, """
        .........
        .........
        .XXXX*...
        .........
        .........
    """),
    ("open four", RULE_FREESTYLE, C_OPEN_FOUR, """
        .........
        .........
        ..XXX*...
        .........
        .........
    """),
    ("four alone", RULE_FREESTYLE, C_FOUR, """
        .........
        .........
        .OXXX*...
        .........
        .........
    """),
    ("open three alone", RULE_FREESTYLE, C_THREE, """
        .........
        .........
        ...XX*...
        .........
        .........
    """),
    ("four-three", RULE_FREESTYLE, C_FOUR_THREE, """
        .....O...
        .....X...
        .....X...
        .....X...
        ...XX*...
        .........
        .........
    """),
    ("three-three", RULE_FREESTYLE, C_THREE_THREE, """
        .........
        .....X...
        .....X...
        ...XX*...
        .........
        .........
    """),
    ("double four wins in freestyle", RULE_FREESTYLE, C_OPEN_FOUR, DOUBLE_FOUR),
    ("double four is a renju foul", RULE_RENJU, C_FORBIDDEN, DOUBLE_FOUR),
    ("overline is a renju foul", RULE_RENJU, C_FORBIDDEN, """
        ...........
        ...........
        .XXX*XX....
        ...........
        ...........
    """),
]


@pytest.mark.parametrize("what, rule, expected, diagram", CLASSES, ids=[case[0] for case in CLASSES])
def test_cell_class_of_a_hand_made_position(what, rule, expected, diagram):
    st, star = starred_position(diagram, rule)
    assert st.cls[0, star] == expected


def starred_position(diagram: str, rule: int) -> tuple[State, int]:
    """The search state of a diagram with black to move, and the index of its ``*`` cell (an empty cell)."""
    rows = [row.strip() for row in diagram.strip().splitlines()]
    (x, y), = [(row.index("*"), r) for r, row in enumerate(rows) if "*" in row]
    board = Board.from_diagram("\n".join(rows).replace("*", "."), rule, BLACK)
    return new_state(board), board.index(x, y)


# --- cell forks: a three and a two at once (the value network's counts) --------------------------------------------
# The ``*`` cell's fork for black.

FORKS = [
    ("open three and open two", F_OPEN_THREE_TWO, """
        .........
        .........
        .....X...
        ...XX*...
        .........
        .........
    """),
    ("open three and closed two", F_THREE_TWO, """
        .........
        .....O...
        .....X...
        ...XX*...
        .........
        .........
        .........
        .........
    """),
    ("closed three and open two", F_THREE_TWO, """
        .........
        .........
        ....X....
        .OXX*....
        .........
        .........
    """),
    ("open three alone", F_NONE, """
        .........
        .........
        .........
        ...XX*...
        .........
        .........
    """),
    ("two open twos", F_NONE, """
        .........
        .........
        .....X...
        ....X*...
        .........
        .........
    """),
]


@pytest.mark.parametrize("what, expected, diagram", FORKS, ids=[case[0] for case in FORKS])
def test_cell_fork_of_a_hand_made_position(what, expected, diagram):
    st, star = starred_position(diagram, RULE_FREESTYLE)
    assert st.kind[0, star] % FORK_COUNT == expected
    assert fork_count(st, 0, expected) >= 1
