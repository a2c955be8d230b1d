"""The search's view of a position: a board plus everything the search reads per cell, kept up to date on every
make and unmake instead of being recomputed.

Per empty cell and side: the window key of each of the 4 lines (see ``brain.patterns``), the pattern each line would
give, the cell's class, kind (class and fork in one number) and score. Per side: how many empty cells are of each
kind and the sum of their scores, which is what the evaluation and the threat checks read in O(1) (``class_count``,
``fork_count``; the scores and their sums only in a scored state: the hand-set evaluation's; see ``new_state``).
Also a Zobrist hash and, per cell, how many stones lie within two steps (candidate moves come from there).

Why kinds: a make or an unmake changes many cells' line patterns, and each change used to look up the cell's class
and its fork in two tables and move the cell between two pairs of counters; one table and one pair of counters for
the two together grow the same trees in 11-15% less CPU time (``monte bench --iterations``, README "Speed"). Reading
a class's count now adds three counters -- a reader is far rarer than a change.

The threat searches (VCF, VCT) make and take back their stones with ``make_lean`` and ``unmake_lean``, which leave
out the pattern counts, the neighbour counts and the scores: only the evaluation and the move generation read them,
and a threat search calls neither.

Everything lives in numpy arrays grouped in one ``State`` tuple so that numba kernels take it as one argument.
Sides are indexed 0 (black) and 1 (white): ``side = color - 1``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from monte.brain.board import Board
from monte.brain.jit import inline_kernel, kernel
from monte.brain.patterns import (
    C_FIVE, C_FOUR, C_FOUR_THREE, C_OPEN_FOUR, CLASS_COUNT, COMBO_WEIGHT, FORK_COUNT, KIND_COUNT, PATTERN_COUNT,
    TABLE_SIZE, WINDOW_HALF, cell_tables, edge_code, window,
)
from monte.brain.rules import EMPTY, RULE_CARO, WALL

NEIGHBOUR_RADIUS = 2
SCRATCH = 64
"""Room for the value network's hidden units (``brain.evaluation``): the compiled kernels allocate nothing."""

# info[] slots
I_STRIDE = 0
I_RULE = 1
I_WIDTH = 2
I_HEIGHT = 3
I_STONES = 4
I_LAST = 5
I_SCORED = 6
"""1 when the state keeps its cells' scores and their sums (``new_state``'s `scored`), 0 when they stay 0."""
I_HALF = 7
"""The window cells a side that the keys read (``brain.patterns.window``: 4 under freestyle, else 5)."""


class State(NamedTuple):
    """All arrays of one search position (see the module docstring)."""

    cells: np.ndarray       # int8[N]: EMPTY, BLACK, WHITE, WALL
    keys: np.ndarray        # int32[2, N, 4]: window key per side, cell, direction
    pat: np.ndarray         # uint8[2, N, 4]: line pattern per side, cell, direction (empty cells only)
    code: np.ndarray        # int32[2, N]: the four patterns as one base-9 number (index of the cell tables)
    cls: np.ndarray         # uint8[2, N]: cell class per side (empty cells only)
    kind: np.ndarray        # uint8[2, N]: cell kind per side, class x FORK_COUNT + fork (empty cells only)
    score: np.ndarray       # int32[2, N]: cell score per side (empty cells only; a scored state only)
    kind_count: np.ndarray  # int32[2, KIND_COUNT]: empty cells per kind, per side (see class_count, fork_count)
    pat_count: np.ndarray   # int32[2, PATTERN_COUNT]: (empty cell, direction) pairs per line pattern, per side
    score_sum: np.ndarray   # int64[2]: sum of empty cells' scores, per side (a scored state only)
    near: np.ndarray        # int16[N]: stones within NEIGHBOUR_RADIUS (Chebyshev)
    zobrist: np.ndarray     # uint64[2, N]
    hash: np.ndarray        # uint64[1]
    info: np.ndarray        # int64[8]: stride, rule, width, height, stones, last move, scored, window half
    tables: np.ndarray      # uint8[2, ...]: pattern per window key, per side (``brain.patterns.window``)
    edge: np.ndarray        # int32[N, 4]: edge code x TABLE_SIZE per cell and direction, part of its keys (0 but caro)
    cls_lut: np.ndarray     # uint8[2, COMBO_SIZE]: class per cell code, per side
    score_lut: np.ndarray   # int32[2, COMBO_SIZE]: score per cell code, per side
    kind_lut: np.ndarray    # uint8[2, COMBO_SIZE]: kind per cell code, per side
    combo: np.ndarray       # int32[4]: weight of direction d's pattern in a cell code
    interior: np.ndarray    # int32[W*H]: the flat index of every board cell, row by row
    steps: np.ndarray       # int64[4]: index offset of one step along each direction
    weights: np.ndarray     # int64[11]: key weight of window offset -5..5 (index offset+5; 0 outside the window)
    history: np.ndarray     # int32[W*H]: moves made, in order
    scratch: np.ndarray     # float64[SCRATCH]: the value network's hidden layer, rewritten at each evaluation


def new_state(board: Board, seed: int = 20261121, scored: bool = True) -> State:
    """A search state holding `board`'s stones (their order is kept as the history).

    Only the hand-set evaluation reads the cells' scores and their sums (``brain.mcts.evaluate`` with
    ``eval_model`` 0); an unscored state (`scored` False) leaves them 0 and spares every make and unmake their
    upkeep (about 8% of the search's time with the value network). ``cell_score`` reads a cell's score in
    either."""
    n = board.cells.shape[0]
    stride = board.stride
    rng = np.random.default_rng(seed)
    interior = np.array([board.index(x, y) for y in range(board.height) for x in range(board.width)], dtype=np.int32)
    lines = window(board.rule)
    cls_lut, score_lut, kind_lut = cell_tables(board.rule)
    state = State(
        cells=np.full(n, WALL, dtype=np.int8),
        keys=np.zeros((2, n, 4), dtype=np.int32),
        pat=np.zeros((2, n, 4), dtype=np.uint8),
        code=np.zeros((2, n), dtype=np.int32),
        cls=np.zeros((2, n), dtype=np.uint8),
        kind=np.zeros((2, n), dtype=np.uint8),
        score=np.zeros((2, n), dtype=np.int32),
        kind_count=np.zeros((2, KIND_COUNT), dtype=np.int32),
        pat_count=np.zeros((2, PATTERN_COUNT), dtype=np.int32),
        score_sum=np.zeros(2, dtype=np.int64),
        near=np.zeros(n, dtype=np.int16),
        zobrist=rng.integers(1, 2**63 - 1, size=(2, n), dtype=np.int64).astype(np.uint64),
        hash=np.zeros(1, dtype=np.uint64),
        info=np.array([stride, board.rule, board.width, board.height, 0, -1, int(scored), lines.half],
                      dtype=np.int64),
        tables=lines.tables,
        edge=_edge_keys(board.width, board.height) if board.rule & RULE_CARO else np.zeros((n, 4), dtype=np.int32),
        cls_lut=cls_lut,
        score_lut=score_lut,
        kind_lut=kind_lut,
        combo=np.array(COMBO_WEIGHT, dtype=np.int32),
        interior=interior,
        steps=np.array([1, stride, stride + 1, stride - 1], dtype=np.int64),
        weights=lines.weights,
        history=np.zeros(board.width * board.height, dtype=np.int32),
        scratch=np.zeros(SCRATCH, dtype=np.float64),
    )
    state.cells[interior] = EMPTY
    init_state(state)
    for move in board.history:
        if move.color in (1, 2):
            make(state, board.index(move.x, move.y), move.color)
        else:  # a continuous-game marker stone blocks both sides like the wall
            block_cell(state, board.index(move.x, move.y))
    return state


def _edge_keys(width: int, height: int) -> np.ndarray:
    """Caro: each cell's edge code per direction, times TABLE_SIZE (the part of its keys that says where the wall
    is). It depends on the board's shape alone, so it is computed once per shape (it took 7 ms on 32x32, and a
    position is set up at every move) and shared: nothing writes to it. (It stays a writable array: numba would type a
    read-only one differently and compile every kernel a second time for caro.)"""
    if (width, height) not in _EDGE_CACHE:
        frame = Board(width, height)
        steps = (1, frame.stride, frame.stride + 1, frame.stride - 1)
        edge = np.zeros((frame.cells.shape[0], 4), dtype=np.int32)
        for y in range(height):
            for x in range(width):
                idx = frame.index(x, y)
                for d, step in enumerate(steps):
                    reach = []
                    for sign in (-1, 1):
                        k = 0
                        while k < WINDOW_HALF and frame.cells[idx + sign * (k + 1) * step] != WALL:
                            k += 1
                        reach.append(k)
                    edge[idx, d] = edge_code(reach[0], reach[1]) * TABLE_SIZE
        _EDGE_CACHE[(width, height)] = edge
    return _EDGE_CACHE[(width, height)]


_EDGE_CACHE: dict[tuple[int, int], np.ndarray] = {}


@kernel
def _window_key(cells: np.ndarray, idx: int, step: int, color: int, weights: np.ndarray) -> int:
    key = 0
    for o in range(-WINDOW_HALF, WINDOW_HALF + 1):
        if o == 0:
            continue
        v = cells[idx + o * step]
        if v == EMPTY:
            continue
        key += weights[o + WINDOW_HALF] * (1 if v == color else 2)
    return key


@kernel
def _refresh_side(st: State, s: int, idx: int, counted: bool) -> None:
    """Look up side s's kind (and so class) and score of the empty cell idx from its cell code; fold them into s's
    counts and sums (the score only if `counted`: see make_lean)."""
    code = st.code[s, idx]
    k = st.kind_lut[s, code]
    st.kind_count[s, st.kind[s, idx]] -= 1
    st.kind_count[s, k] += 1
    st.kind[s, idx] = k
    st.cls[s, idx] = k // FORK_COUNT
    if counted and st.info[I_SCORED] != 0:
        sc = st.score_lut[s, code]
        st.score_sum[s] += sc - st.score[s, idx]
        st.score[s, idx] = sc


@kernel
def _refresh_cell(st: State, idx: int, counted: bool) -> None:
    """Both sides' class and score of the empty cell idx (see _refresh_side)."""
    _refresh_side(st, 0, idx, counted)
    _refresh_side(st, 1, idx, counted)


@kernel
def _kind_sum(st: State, side: int, first: int, step: int, count: int) -> int:
    """The sum of side's kind counts first, first + step, ... (`count` of them)."""
    n = 0
    for i in range(count):
        n += st.kind_count[side, first + i * step]
    return n


@kernel
def class_count(st: State, side: int, c: int) -> int:
    """How many empty cells are of class c for `side` (C_*): its kinds are c x FORK_COUNT + each fork."""
    return _kind_sum(st, side, c * FORK_COUNT, 1, FORK_COUNT)


@kernel
def fork_count(st: State, side: int, f: int) -> int:
    """How many empty cells are of fork f for `side` (F_*): its kinds are each class x FORK_COUNT + f."""
    return _kind_sum(st, side, f, FORK_COUNT, CLASS_COUNT)


@kernel
def four_point_count(st: State, side: int) -> int:
    """How many empty cells would give `side` a four short of a five: a four, a four-three or an open four."""
    return class_count(st, side, C_FOUR) + class_count(st, side, C_FOUR_THREE) + class_count(st, side, C_OPEN_FOUR)


@kernel
def cell_score(st: State, side: int, idx: int) -> int:
    """Side's score of the empty cell idx, scored state or not (looked up from its cell code)."""
    return st.score_lut[side, st.code[side, idx]]


@kernel
def score_difference(st: State, me: int) -> float:
    """The sum of side me's empty cells' scores less the opponent's: kept in a scored state, summed here otherwise."""
    if st.info[I_SCORED] != 0:
        return float(st.score_sum[me] - st.score_sum[1 - me])
    x = 0
    for i in range(st.interior.shape[0]):
        q = st.interior[i]
        if st.cells[q] == EMPTY:
            x += cell_score(st, me, q) - cell_score(st, 1 - me, q)
    return float(x)


@kernel
def _recode(st: State, idx: int) -> None:
    """Recompute idx's four patterns and its cell code from its window keys, for both sides."""
    for s in range(2):
        code = 0
        for d in range(4):
            p = st.tables[s, st.keys[s, idx, d]]
            st.pat[s, idx, d] = p
            code += p * st.combo[d]
        st.code[s, idx] = code


@kernel
def init_state(st: State) -> None:
    """Compute keys, patterns, classes and sums of an empty board (cells already framed)."""
    st.kind_count[:, :] = 0
    st.pat_count[:, :] = 0
    st.score_sum[:] = 0
    for i in range(st.interior.shape[0]):
        idx = st.interior[i]
        for s in range(2):
            for d in range(4):
                st.keys[s, idx, d] = _window_key(st.cells, idx, st.steps[d], s + 1, st.weights) + st.edge[idx, d]
        _recode(st, idx)
        _count_patterns(st, idx, 1)
        for s in range(2):
            st.cls[s, idx] = 0
            st.kind[s, idx] = 0
            st.score[s, idx] = 0
            st.kind_count[s, 0] += 1
        _refresh_cell(st, idx, True)


@kernel
def _count_patterns(st: State, idx: int, sign: int) -> None:
    """Add (sign 1) or take out (-1) the empty cell idx's line patterns in the per-side pattern counts."""
    for s in range(2):
        for d in range(4):
            st.pat_count[s, st.pat[s, idx, d]] += sign


@kernel
def _leave_sums(st: State, idx: int, counted: bool) -> None:
    """Take the cell idx, about to be filled, out of the kind counts (and, if `counted`, the pattern counts and the
    score sums)."""
    if counted:
        _count_patterns(st, idx, -1)
    for s in range(2):
        st.kind_count[s, st.kind[s, idx]] -= 1
        st.cls[s, idx] = 0
        st.kind[s, idx] = 0
        if counted:
            st.score_sum[s] -= st.score[s, idx]
            st.score[s, idx] = 0


@kernel
def _shift_neighbours(st: State, idx: int, sign: int) -> None:
    stride = st.info[I_STRIDE]
    for dy in range(-NEIGHBOUR_RADIUS, NEIGHBOUR_RADIUS + 1):
        row = idx + dy * stride
        for dx in range(-NEIGHBOUR_RADIUS, NEIGHBOUR_RADIUS + 1):
            st.near[np.uint64(row + dx)] += sign  # unsigned: see _update_lines


@kernel
def _set_pattern(st: State, s: int, q: int, d: int, pattern: int, counted: bool) -> None:
    """Side s's line pattern of the empty cell q in direction d is now `pattern`; where it changed, so do the
    cell's code, class and score for that side (the other side's are left alone), and if `counted` the pattern
    counts."""
    old = st.pat[s, q, d]
    if pattern != old:
        st.pat[s, q, d] = pattern
        if counted:
            st.pat_count[s, old] -= 1
            st.pat_count[s, pattern] += 1
        st.code[s, q] += (np.int32(pattern) - np.int32(old)) * st.combo[d]
        _refresh_side(st, s, q, counted)


@kernel
def _update_lines(st: State, idx: int, delta_black: int, delta_white: int, counted: bool) -> None:
    """Add the digit deltas of idx's new content to every window that sees idx; refresh the empty cells.

    Only empty cells are touched: nothing reads an occupied cell's keys, and since stones are taken back in the
    order opposite to the one they were made in (``unmake`` takes the last one), every change an occupied cell
    would see between its make and its unmake is undone within that span, so its keys are right again when it is
    emptied. (A continuous game's marker, ``block_cell``, is never taken back, nor is any stone made before it.)

    Indices are unsigned here: numba wraps negative indices around, a test and a fix-up per access, and this loop
    makes a third of all array accesses of the search."""
    half = st.info[I_HALF]
    for d in range(4):
        step = st.steps[d]
        du = np.uint64(d)
        for o in range(-half, half + 1):
            if o == 0:
                continue
            q = np.uint64(idx + o * step)
            if st.cells[q] != EMPTY:
                continue
            w = st.weights[np.uint64(WINDOW_HALF - o)]
            kb = np.uint64(st.keys[0, q, du] + delta_black * w)
            kw = np.uint64(st.keys[1, q, du] + delta_white * w)
            st.keys[0, q, du] = kb
            st.keys[1, q, du] = kw
            _set_pattern(st, 0, q, du, st.tables[0, kb], counted)
            _set_pattern(st, 1, q, du, st.tables[1, kw], counted)


@inline_kernel
def _make(st: State, idx: int, color: int, counted: bool) -> None:
    """``make`` (`counted`) or ``make_lean``: one body, so that the two cannot drift apart. It and ``_unmake`` are
    compiled into their wrappers, and ``make`` and ``unmake`` into their callers (``brain.jit.inline_kernel``): a
    call that passes the State pushes about 200 machine words, and the search makes 2.7 moves an iteration (inlined,
    the search took 0.97x-1.00x the CPU; README, Speed)."""
    _leave_sums(st, idx, counted)
    st.cells[idx] = color
    if color == 1:
        _update_lines(st, idx, 1, 2, counted)
    else:
        _update_lines(st, idx, 2, 1, counted)
    if counted:
        _shift_neighbours(st, idx, 1)
    st.hash[0] ^= st.zobrist[color - 1, idx]
    st.history[st.info[I_STONES]] = idx
    st.info[I_STONES] += 1
    st.info[I_LAST] = idx


@inline_kernel
def _unmake(st: State, idx: int, counted: bool) -> None:
    """``unmake`` (`counted`) or ``unmake_lean``: ``_make`` taken back."""
    color = st.cells[idx]
    st.hash[0] ^= st.zobrist[color - 1, idx]
    if counted:
        _shift_neighbours(st, idx, -1)
    if color == 1:
        _update_lines(st, idx, -1, -2, counted)
    else:
        _update_lines(st, idx, -2, -1, counted)
    st.cells[idx] = EMPTY
    # idx's patterns and code need no recomputing: an occupied cell's are never touched (only empty cells are
    # refreshed) and its window keys are back to what they were when the stone was made, so they still hold
    for s in range(2):
        st.kind_count[s, 0] += 1
    if counted:
        _count_patterns(st, idx, 1)
    _refresh_cell(st, idx, counted)
    st.info[I_STONES] -= 1
    n = st.info[I_STONES]
    st.info[I_LAST] = st.history[n - 1] if n > 0 else -1


@inline_kernel
def make(st: State, idx: int, color: int) -> None:
    """Put a `color` stone on the empty cell idx."""
    _make(st, idx, color, True)


@inline_kernel
def unmake(st: State, idx: int) -> None:
    """Take the last stone (on idx) back."""
    _unmake(st, idx, True)


@kernel
def make_lean(st: State, idx: int, color: int) -> None:
    """``make`` for the threat searches (VCF, VCT, a defence's check): it keeps the cells, keys, patterns, codes,
    kinds and their counts, the hash and the history -- all they read -- but not the line-pattern counts, the
    neighbour counts or the scores, which only the evaluation and the move generation read. Those stay as they were
    before the lean make, and are right again once ``unmake_lean`` has taken it back: nothing may read them, or
    take such a stone back with ``unmake``, in between. That upkeep is about two fifths of a make and its unmake
    (about 250 ns a pair against 420 ns, on the 15x15 bench position's cells near stones), and the threat searches
    are mostly makes: with it gone the df-pn VCT settles the same questions in the same nodes in 0.45x the time
    (README, Speed)."""
    _make(st, idx, color, False)


@kernel
def unmake_lean(st: State, idx: int) -> None:
    """Take back the last stone, made by ``make_lean`` on idx."""
    _unmake(st, idx, False)


@kernel
def block_cell(st: State, idx: int) -> None:
    """Turn an empty cell into a wall for both sides (a continuous game's marker stone)."""
    _leave_sums(st, idx, True)
    st.cells[idx] = WALL
    _update_lines(st, idx, 2, 2, True)


@inline_kernel
def five_points_near(st: State, idx: int, side: int, out: np.ndarray, dirs: int) -> int:
    """The cells on idx's lines (within 5) where `side` would make five; written to `out`, count returned.

    Only the directions in the bit mask `dirs` are scanned (bit d: direction d): a caller that just made a four
    knows from the patterns which lines it is on, and a new five point can lie on no other line.
    """
    n = 0
    for d in range(4):
        if (dirs >> d) & 1 == 0:
            continue
        step = st.steps[d]
        for o in range(-WINDOW_HALF, WINDOW_HALF + 1):
            q = idx + o * step
            if st.cells[q] == EMPTY and st.cls[side, q] == C_FIVE:
                dup = False
                for j in range(n):
                    if out[j] == q:
                        dup = True
                if not dup:
                    out[n] = q
                    n += 1
    return n
