"""The rules of Gomoku as Gomocup plays them, compiled with numba.

Boards are flat int8 arrays with a frame of WALL cells (see ``brain.board``), so a scan along a line stops by itself
at the edge and no kernel needs bounds checks. A line is walked with one of four steps: 1 (horizontal), ``stride``
(vertical), ``stride + 1`` and ``stride - 1`` (the diagonals).

Rule bits follow the protocol's ``INFO rule`` bitmask:
  0 freestyle: five or more in a row wins;
  1 exactly five: only exactly five wins, an overline does not;
  4 renju: white wins with five or more, black only with exactly five; black's double three, double four and
    overline are forbidden, unless the move makes five;
  8 caro: a five wins only if it is not blocked at both ends by opponent stones (the board edge does not block).
Bit 2 (continuous game) changes nothing on the board and is ignored here.

The seed articles' small games reuse the same kernels: the winning line's length ``k`` is a parameter (3 for
tic-tac-toe, 4 for Connect Four, 5 for Gomoku, where ``makes_five`` fixes it), and under gravity a stone may only go
on the lowest empty cell of its column (``is_playable``). Monte's pattern search is Gomoku's alone and calls none of
this; the seed ``uct`` engine and the small games' references do.
"""

from __future__ import annotations

import numpy as np

from monte.brain.codes import (  # noqa: F401  (the rules' names for them, as the rest of the brain imports them)
    BLACK, EMPTY, MOVE_FORBIDDEN, MOVE_OK, MOVE_WINS, RULE_CARO, RULE_CONTINUOUS, RULE_EXACT_FIVE, RULE_FREESTYLE,
    RULE_RENJU, WALL, WHITE,
)
from monte.brain.jit import Int8Array, njit

# How deep the recursive renju three check may go before it trusts a point to be playable. Real positions need 2-3.
FORBIDDEN_DEPTH_LIMIT = 8


@njit(cache=True, inline="always")
def line_step(stride: int, direction: int) -> int:
    """The index offset of one step along direction 0..3 (horizontal, vertical, diagonal, anti-diagonal)."""
    if direction == 0:
        return 1
    if direction == 1:
        return stride
    if direction == 2:
        return stride + 1
    return stride - 1


@njit(cache=True)
def run_bounds(cells: np.ndarray, idx: int, step: int, color: int) -> tuple[int, int]:
    """How many `color` stones extend the run through `idx` backwards and forwards (idx itself counted as color)."""
    back = 0
    j = idx - step
    while cells[j] == color:
        back += 1
        j -= step
    fwd = 0
    j = idx + step
    while cells[j] == color:
        fwd += 1
        j += step
    return back, fwd


@njit(cache=True)
def line_in_direction(cells: np.ndarray, idx: int, step: int, color: int, rule: int, k: int) -> bool:
    """Whether a `color` stone at idx completes a winning row of `k` along `step` under `rule` (exactly `k` where
    the rule asks for exactly five)."""
    back, fwd = run_bounds(cells, idx, step, color)
    length = back + fwd + 1
    if length < k:
        return False
    exact = (rule & RULE_EXACT_FIVE) != 0 or ((rule & RULE_RENJU) != 0 and color == BLACK)
    if exact and length != k:
        return False
    if (rule & RULE_CARO) != 0:
        opponent = 3 - color
        if cells[idx - (back + 1) * step] == opponent and cells[idx + (fwd + 1) * step] == opponent:
            return False
    return True


@njit(cache=True)
def five_in_direction(cells: np.ndarray, idx: int, step: int, color: int, rule: int) -> bool:
    """Whether a `color` stone at idx completes a winning row along `step` under `rule`."""
    return line_in_direction(cells, idx, step, color, rule, 5)


@njit(cache=True)
def makes_line(cells: Int8Array, stride: int, idx: int, color: int, rule: int, k: int) -> bool:
    """Whether a `color` stone at idx (placed or not) makes a winning row of `k` in any direction under `rule`."""
    for d in range(4):
        if line_in_direction(cells, idx, line_step(stride, d), color, rule, k):
            return True
    return False


@njit(cache=True)
def makes_five(cells: np.ndarray, stride: int, idx: int, color: int, rule: int) -> bool:
    """Whether a `color` stone at idx (placed or not) makes a winning row in any direction under `rule`."""
    return makes_line(cells, stride, idx, color, rule, 5)


@njit(cache=True, inline="always")
def is_playable(cells: np.ndarray, stride: int, idx: int, gravity: bool) -> bool:
    """Whether a stone may go on idx: an empty cell that, under gravity, rests on a stone or on the bottom edge (the
    frame below the last row is wall)."""
    return cells[idx] == EMPTY and (not gravity or cells[idx + stride] != EMPTY)


@njit(cache=True)
def _black_five_points(cells: np.ndarray, idx: int, step: int, out: np.ndarray) -> int:
    """Empty points on idx's line where black would make exactly five through the black stone at idx.

    Writes their offsets (in steps from idx) into `out` and returns how many there are.
    """
    count = 0
    for k in range(-4, 5):
        if k == 0:
            continue
        q = idx + k * step
        if cells[q] != EMPTY:
            continue
        # q and idx must be joined by black stones for the five to pass through idx.
        joined = True
        lo = min(k, 0) + 1
        hi = max(k, 0)
        for m in range(lo, hi):
            if m != 0 and cells[idx + m * step] != BLACK:
                joined = False
                break
        if not joined:
            continue
        back, fwd = run_bounds(cells, q, step, BLACK)
        if back + fwd + 1 == 5:
            out[count] = k
            count += 1
    return count


@njit(cache=True)
def _count_fours(cells: np.ndarray, idx: int, step: int, scratch: np.ndarray) -> int:
    """How many distinct fours black's stone at idx makes along one line (a straight four counts once)."""
    n = _black_five_points(cells, idx, step, scratch)
    if n < 2:
        return n
    for a in range(n):
        for b in range(a + 1, n):
            if abs(scratch[a] - scratch[b]) == 5:
                return n - 1
    return n


@njit(cache=True)
def _is_straight_four(cells: np.ndarray, idx: int, step: int, scratch: np.ndarray) -> bool:
    """Whether the black stones through idx on this line form a straight four (two five points, 5 apart)."""
    n = _black_five_points(cells, idx, step, scratch)
    for a in range(n):
        for b in range(a + 1, n):
            if abs(scratch[a] - scratch[b]) == 5:
                return True
    return False


# The explicit signature is needed: numba's cache reloads a lazily typed recursive function broken, and every cached
# caller (judge_move, ...) then segfaults in the second process that runs it. Pass depth 0 from outside.
@njit("boolean(int8[:], int64, int64, int64)", cache=True)
def is_forbidden(cells: np.ndarray, stride: int, idx: int, depth: int) -> bool:
    """Whether a black stone at the empty point idx is a renju foul.

    A move that makes exactly five is never forbidden. Otherwise an overline, two or more fours (two on one line
    count as two) or two or more real threes are. A three is real only when one more black stone, at a point that
    is itself not forbidden (checked recursively) and makes no five, turns it into a straight four.
    """
    if cells[idx] != EMPTY:
        return False
    cells[idx] = BLACK
    forbidden = False
    five = False
    overline = False
    for d in range(4):
        back, fwd = run_bounds(cells, idx, line_step(stride, d), BLACK)
        length = back + fwd + 1
        if length == 5:
            five = True
        elif length > 5:
            overline = True
    if not five:
        if overline:
            forbidden = True
        else:
            scratch = np.empty(10, dtype=np.int64)
            fours = 0
            four_dirs = np.zeros(4, dtype=np.bool_)
            for d in range(4):
                f = _count_fours(cells, idx, line_step(stride, d), scratch)
                fours += f
                four_dirs[d] = f > 0
            if fours >= 2:
                forbidden = True
            else:
                threes = 0
                for d in range(4):
                    if four_dirs[d] or threes >= 2:
                        continue
                    step = line_step(stride, d)
                    for k in range(-4, 5):
                        q = idx + k * step
                        if k == 0 or cells[q] != EMPTY:
                            continue
                        cells[q] = BLACK
                        straight = _is_straight_four(cells, idx, step, scratch)
                        cells[q] = EMPTY
                        # RIF: the straight four must come "without at the same time a five": a point that also
                        # makes five elsewhere does not make this a three (Piskvork's own renju check agrees).
                        if not straight or makes_five(cells, stride, q, BLACK, RULE_RENJU):
                            continue
                        if depth >= FORBIDDEN_DEPTH_LIMIT or not is_forbidden(cells, stride, q, depth + 1):
                            threes += 1
                            break
                forbidden = threes >= 2
    cells[idx] = EMPTY
    return forbidden


@njit(cache=True)
def judge_move(cells: Int8Array, stride: int, idx: int, color: int, rule: int) -> int:
    """What a `color` stone on the empty point idx does: MOVE_WINS, MOVE_FORBIDDEN (renju black foul) or MOVE_OK."""
    if makes_five(cells, stride, idx, color, rule):
        return MOVE_WINS
    if (rule & RULE_RENJU) != 0 and color == BLACK and is_forbidden(cells, stride, idx, 0):
        return MOVE_FORBIDDEN
    return MOVE_OK


@njit(cache=True)
def forbidden_points(cells: Int8Array, stride: int, rule: int) -> np.ndarray:
    """Every empty point where black may not play under `rule` (empty unless renju)."""
    out = np.zeros(cells.shape[0], dtype=np.bool_)
    if (rule & RULE_RENJU) == 0:
        return out
    for idx in range(cells.shape[0]):
        if cells[idx] == EMPTY and not makes_five(cells, stride, idx, BLACK, rule):
            out[idx] = is_forbidden(cells, stride, idx, 0)
    return out
