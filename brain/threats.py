"""Threats first: which moves make sense at a node, and victory by continuous fours (VCF) for either side.

Move generation follows what every strong Gomoku engine does before any search: take a five; block the opponent's
five; make an open four when the opponent cannot answer with a four; against an opponent's open three or four-three
point, only real defences (moves after which that threat is gone) and one's own fours; otherwise the best-scored
cells near the stones, by the learned move policy (``brain.policy``) or, with ``learned`` off, by hand-set cell values.

VCF is a depth-first search over the attacker's four-making moves. Each four leaves the defender one reply, the block,
unless it makes two five points at once; a line wins when it reaches a five or a double five point, or (renju) when
the block the defender needs is a forbidden point for black. Failures are remembered in a small transposition table
keyed by the Zobrist hash.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from monte.brain.jit import Int32Array, Int64Array, inline_kernel, kernel
from monte.brain.limits import charge
from monte.brain.patterns import (
    CLASS_COUNT, C_FIVE, C_FORBIDDEN, C_FOUR, C_FOUR_THREE, C_OPEN_FOUR, C_THREE_THREE, P_FOUR, P_FOUR_OPEN, P_THREE,
    P_THREE_C, WINDOW_HALF,
)
from monte.brain.policy import move_logit, recent_moves, threat_context
from monte.brain.position import (
    I_RULE, I_STRIDE, State, cell_score, class_count, five_points_near, four_point_count, make_lean, unmake_lean,
)
from monte.brain.rules import BLACK, EMPTY, RULE_RENJU, is_forbidden

DEFENCE_WEIGHT = 0.9   # a cell's worth to us includes what it takes from the opponent
MAX_VCF_LEVELS = 40        # attacker moves on one line; a VCF longer than 80 plies does not occur on 32x32
MAX_FOURS = 64
MAX_TEMPO = 32             # four-three points of the opponent whose answers in time generate_moves weighs
CHAIN_SALT = np.uint64(0x9E3779B97F4A7C15)   # spreads a chain-mode VCF's previous four over its TT key


class Workspace(NamedTuple):
    """Scratch arrays for the tree search, move generation and VCF, allocated once per search instead of once per
    call (an allocation per tree node cost a third of the search speed; and kernels that allocate nothing run
    without numba's reference counting, see ``brain.jit.kernel``). VCF never runs inside VCF, nor a search inside a
    search, so one set suffices."""

    cand: np.ndarray         # int32[cells]: defence candidates
    vcf_cands: np.ndarray    # int32[levels, MAX_FOURS]: the attacker's fours at each level
    vcf_count: np.ndarray    # int32[levels]
    vcf_next: np.ndarray     # int32[levels]
    vcf_tried: np.ndarray    # int32[levels]: the four being tried
    vcf_block: np.ndarray    # int32[levels]: the defender's forced block
    vcf_slots: np.ndarray    # int64[levels]
    vcf_hashes: np.ndarray   # uint64[levels]
    vcf_forced: np.ndarray   # int8[levels]: 1 where the attacker had to block a five point
    fives: np.ndarray        # int32[16]
    pv: np.ndarray           # int32[2 * levels + 4]: the last VCF found, -1 ends it
    tt_keys: np.ndarray      # uint64[2^k]: VCF failures, by Zobrist hash
    tt_depth: np.ndarray     # int16[2^k]: plies left when the failure was seen
    moves: np.ndarray        # int32[cells]: tree search: a node's generated moves
    values: np.ndarray       # float64[cells]: ...and their values
    path: np.ndarray         # int32[cells]: tree search: the nodes from the root to the leaf
    path_moves: np.ndarray   # int32[cells]: ...the moves into them (path_moves[0] unused)
    path_keys: np.ndarray    # uint64[cells]: ...and their positions' Zobrist hashes
    line: np.ndarray         # int32[cells]: tree search: a rollout's moves
    left_out: np.ndarray     # int64[1]: how many moves worth searching the last generate_moves cut off at its limit
    tempo: np.ndarray        # int32[MAX_TEMPO, 3]: generate_moves: the opponent's four-three points, each with its four's
                             # block cell and whether it is answered in time (1) at the node
    reach: np.ndarray        # int16[cells]: generate_moves: of the opponent's winning threat points, how many lose
                             # their threat class to a stone on the cell (see _mark_reach); all 0 between calls
    points: np.ndarray       # int32[MAX_TEMPO]: ...those threat points
    ranking: np.ndarray      # float64[2 * cells]: generate_moves: _keep_best's scratch


def new_workspace(cells: int, tt_bits: int = 18) -> Workspace:
    """Scratch space for boards of `cells` flat cells."""
    levels = MAX_VCF_LEVELS
    return Workspace(
        cand=np.empty(cells, dtype=np.int32),
        vcf_cands=np.empty((levels, MAX_FOURS), dtype=np.int32),
        vcf_count=np.zeros(levels, dtype=np.int32),
        vcf_next=np.zeros(levels, dtype=np.int32),
        vcf_tried=np.zeros(levels, dtype=np.int32),
        vcf_block=np.zeros(levels, dtype=np.int32),
        vcf_slots=np.zeros(levels, dtype=np.int64),
        vcf_hashes=np.zeros(levels, dtype=np.uint64),
        vcf_forced=np.zeros(levels, dtype=np.int8),
        fives=np.empty(16, dtype=np.int32),
        pv=np.full(2 * levels + 4, -1, dtype=np.int32),
        tt_keys=np.zeros(1 << tt_bits, dtype=np.uint64),
        tt_depth=np.full(1 << tt_bits, -1, dtype=np.int16),
        moves=np.empty(cells, dtype=np.int32),
        values=np.empty(cells, dtype=np.float64),
        path=np.empty(cells, dtype=np.int32),
        path_moves=np.empty(cells, dtype=np.int32),
        path_keys=np.empty(cells, dtype=np.uint64),
        line=np.empty(cells, dtype=np.int32),
        left_out=np.zeros(1, dtype=np.int64),
        tempo=np.zeros((MAX_TEMPO, 3), dtype=np.int32),
        reach=np.zeros(cells, dtype=np.int16),
        points=np.zeros(MAX_TEMPO, dtype=np.int32),
        ranking=np.zeros(2 * cells, dtype=np.float64),
    )


@kernel
def is_renju_black(st: State, color: int) -> bool:
    """Whether forbidden points apply to `color` here."""
    return color == BLACK and (st.info[I_RULE] & RULE_RENJU) != 0


@kernel
def playable(st: State, idx: int, color: int) -> bool:
    """Whether `color` may play the empty cell idx (renju: black's fouls excluded, checked exactly when in doubt)."""
    if not is_renju_black(st, color):
        return True
    c = st.cls[0, idx]
    if c == C_FIVE:
        return True
    if c == C_FORBIDDEN:
        return False
    threes = 0
    for d in range(4):
        if st.pat[0, idx, d] >= P_THREE:
            threes += 1
    if threes < 2:
        return True
    return not is_forbidden(st.cells, st.info[I_STRIDE], idx, 0)


@kernel
def first_of_class(st: State, side: int, cls: int, color: int) -> int:
    """The first empty cell (row by row) of class `cls` for `side` that `color` may play, or -1."""
    for i in range(st.interior.shape[0]):
        idx = st.interior[i]
        if st.cells[idx] == EMPTY and st.cls[side, idx] == cls and playable(st, idx, color):
            return idx
    return -1


@kernel
def playable_cells(st: State, side: int, min_class: int, fours_only: bool, out: Int32Array, n: int,
                   color: int) -> int:
    """Append to out[n:] every empty cell whose class for `side` is at least min_class (never C_FORBIDDEN) and that
    `color` may play; return the new count. With `fours_only`, three-three points are left out: they rank above a
    plain four but make none, so they answer no threat. The scan ends once it has met as many such cells as the
    class counts hold."""
    left = 0
    for c in range(min_class, CLASS_COUNT):
        if c != C_FORBIDDEN and not (fours_only and c == C_THREE_THREE):
            left += class_count(st, side, c)
    for i in range(st.interior.shape[0]):
        if left == 0:
            break
        idx = st.interior[i]
        if st.cells[idx] != EMPTY:
            continue
        c = st.cls[side, idx]
        if fours_only and c == C_THREE_THREE:
            continue
        if c >= min_class and c != C_FORBIDDEN:
            left -= 1
            if n < out.shape[0] and playable(st, idx, color):
                out[n] = idx
                n += 1
    return n


@kernel
def threat_count(st: State, side: int) -> int:
    """How many empty cells would give `side` a win-making threat (open four, four-three) if it moved there."""
    return class_count(st, side, C_OPEN_FOUR) + class_count(st, side, C_FOUR_THREE)


@kernel
def _is_threat_class(c: int) -> int:
    return 1 if c == C_OPEN_FOUR or c == C_FOUR_THREE else 0


@inline_kernel
def threat_count_after_block(st: State, idx: int, op: int) -> int:
    """threat_count(st, op) after a stone of op's opponent on the empty cell idx, without making it.

    The stone changes op's patterns only on the lines through idx, and each cell of its windows lies on one of
    them: each such cell's class is looked up again with that one line re-keyed (the stone is a block, digit 2,
    for op). The same count as make, threat_count and unmake, with nothing written and nothing to take back: the
    defence of ``generate_moves`` asks it of every candidate (1.3 moves made and taken back an iteration before)."""
    n = threat_count(st, op) - _is_threat_class(st.cls[op, idx])
    for d in range(4):
        step = st.steps[d]
        for o in range(-WINDOW_HALF, WINDOW_HALF + 1):
            q = idx + o * step
            if o == 0 or st.cells[q] != EMPTY:
                continue
            p = st.tables[op, st.keys[op, q, d] + 2 * st.weights[WINDOW_HALF - o]]
            old = st.pat[op, q, d]
            if p != old:
                code = st.code[op, q] + (np.int32(p) - np.int32(old)) * st.combo[d]
                n += _is_threat_class(st.cls_lut[op, code]) - _is_threat_class(st.cls[op, q])
    return n


@inline_kernel
def defence_candidates(st: State, t: int, color: int, out: np.ndarray) -> int:
    """The cells that may take the winning threat point t from the opponent: t and the empty cells within a window of
    it on its four lines, those `color` may play; returns how many went to out. A stone changes a point's class only
    from there, and a defence must change every point's. Against a four-three point this takes in the cells that
    close its three, where the opponent would make no four: when the candidates were its four cells alone, such a
    defence (often one that threatens back) went missing, and the solver proved the four-three point's attack won
    when it was not."""
    n = 0
    if playable(st, t, color):
        out[n] = t
        n += 1
    for d in range(4):
        step = st.steps[d]
        for o in range(-WINDOW_HALF, WINDOW_HALF + 1):
            q = t + o * step
            if o != 0 and st.cells[q] == EMPTY and n < out.shape[0] and playable(st, q, color):
                out[n] = q
                n += 1
    return n


@kernel
def _is_four_class(c: int) -> bool:
    return c == C_FOUR or c == C_FOUR_THREE or c == C_OPEN_FOUR or c == C_FIVE


@kernel
def four_three_answer(st: State, t: int, op: int, color: int, fives: np.ndarray) -> tuple[int, bool]:
    """Side op's four-three point t: the cell that blocks the four op's stone there makes (-1 if it makes more than
    one five point: nothing blocks it), and whether `color` answers it in time -- that block makes a four (or five)
    of color's, which op must answer before its three becomes an open four, the tempo in which color closes the
    three. (A four-three point's attack is a four, then an open four: it wins only if the forced block threatens
    nothing.)"""
    make_lean(st, t, op + 1)
    k = five_points_near(st, t, op, fives, 15)
    f = fives[0] if k == 1 else -1
    held = f >= 0 and _is_four_class(st.cls[color - 1, f]) and playable(st, f, color)
    unmake_lean(st, t)
    return f, held


@kernel
def _unanswered_threat(st: State, op: int, color: int, ws: Workspace, count: int, at_node: bool) -> int:
    """The first of op's winning threat points that `color` cannot answer in time: an open-four point, else one of
    the `count` four-three points of ``ws.tempo`` still standing and not ``four_three_answer`` (as ``ws.tempo`` has it
    `at_node`, else looked at again); -1 if none."""
    if class_count(st, op, C_OPEN_FOUR) > 0:
        t = first_of_class(st, op, C_OPEN_FOUR, op + 1)
        if t >= 0:
            return t
    for i in range(count):
        t = ws.tempo[i, 0]
        if at_node:
            if ws.tempo[i, 2] == 0:
                return t
        elif st.cells[t] == EMPTY and st.cls[op, t] == C_FOUR_THREE \
                and not four_three_answer(st, t, op, color, ws.fives)[1]:
            return t
    return -1


@kernel
def _near_block_line(st: State, idx: int, me: int, ws: Workspace, count: int) -> bool:
    """Whether side me's stone on idx may give it a four on the block cell of one of the `count` four-three points of
    ``ws.tempo``: idx lies within a window of that cell on one of its lines, where me already has a closed three's
    worth of stones with idx (its pattern there at least a closed three)."""
    for i in range(count):
        f = ws.tempo[i, 1]
        if f < 0:
            continue
        diff = idx - f
        for d in range(4):
            step = st.steps[d]
            if diff % step != 0:
                continue
            o = diff // step
            if -WINDOW_HALF <= o <= WINDOW_HALF and st.pat[me, idx, d] >= P_THREE_C:
                return True
    return False


@inline_kernel
def _defends(st: State, idx: int, op: int, color: int, ws: Workspace, count: int, answered: bool,
             threat_points: int) -> bool:
    """Whether color's stone on idx leaves side op no winning threat that color cannot answer in time. Most defences
    leave no threat point at all, counted without making the move (``threat_count_after_block``) -- and only where
    the stone takes the threat class away from each of `threat_points` of op (``ws.reach``, see ``_mark_reach``):
    elsewhere one of them stays, so the count cannot be 0 (most candidates: the count cost more than the rest of the
    move generation). A stone that only makes the block of a four-three point's four a four of color's, or that leaves
    only four-three points answered already (`answered`), is made and the threats looked at again."""
    if ws.reach[idx] >= threat_points and threat_count_after_block(st, idx, op) == 0:
        return True
    if not answered and not _near_block_line(st, idx, color - 1, ws, count):
        return False
    make_lean(st, idx, color)
    held = _unanswered_threat(st, op, color, ws, count, False) < 0
    unmake_lean(st, idx)
    return held


@kernel
def _block_line_cells(st: State, t: int, me: int, color: int, ws: Workspace, count: int, out: np.ndarray,
                      n: int) -> int:
    """Append to out[n:] the cells, not there yet, within a window of the block cell of four-three point t's four on
    its lines where side me has at least a closed three's worth of stones (a stone there may make that block a four
    of its own: the answer in time); returns the new count."""
    f = -1
    for i in range(count):
        if ws.tempo[i, 0] == t:
            f = ws.tempo[i, 1]
    if f < 0:
        return n
    for d in range(4):
        step = st.steps[d]
        for o in range(-WINDOW_HALF, WINDOW_HALF + 1):
            q = f + o * step
            if o == 0 or st.cells[q] != EMPTY or st.pat[me, q, d] < P_THREE_C or n >= out.shape[0]:
                continue
            dup = False
            for j in range(n):
                if out[j] == q:
                    dup = True
            if not dup and playable(st, q, color):
                out[n] = q
                n += 1
    return n


@inline_kernel
def _mark_reach(st: State, t: int, op: int, sign: int, ws: Workspace) -> None:
    """Add `sign` to ``ws.reach`` of side op's threat point t and of every empty cell within a window of it on its
    four lines where a stone of op's opponent would take t's threat class away: t's pattern on that line looked up
    with the stone in it, as ``threat_count_after_block`` does for every cell of the stone's lines."""
    ws.reach[t] += sign
    for d in range(4):
        step = st.steps[d]
        key = st.keys[op, t, d]
        old = st.pat[op, t, d]
        for o in range(-WINDOW_HALF, WINDOW_HALF + 1):
            q = t + o * step
            if o == 0 or st.cells[q] != EMPTY:
                continue
            p = st.tables[op, key + 2 * st.weights[WINDOW_HALF + o]]
            code = st.code[op, t] + (np.int32(p) - np.int32(old)) * st.combo[d]
            if p != old and _is_threat_class(st.cls_lut[op, code]) == 0:
                ws.reach[q] += sign


@inline_kernel
def _mark_threat_points(st: State, op: int, ws: Workspace) -> int:
    """``_mark_reach`` side op's winning threat points (open-four and four-three points; the first
    ``ws.points.shape[0]`` of them, kept there); how many were marked. ``_unmark_threat_points`` takes the marks
    back, so that ``ws.reach`` is all 0 between calls."""
    left = min(threat_count(st, op), ws.points.shape[0])
    found = 0
    for i in range(st.interior.shape[0]):
        if found == left:
            break
        q = st.interior[i]
        if st.cells[q] == EMPTY and _is_threat_class(st.cls[op, q]) == 1:
            _mark_reach(st, q, op, 1, ws)
            ws.points[found] = q
            found += 1
    return found


@inline_kernel
def _unmark_threat_points(st: State, op: int, ws: Workspace, count: int) -> None:
    """Take back the marks of ``_mark_threat_points`` (the position must be the one they were made in)."""
    for i in range(count):
        _mark_reach(st, ws.points[i], op, -1, ws)


@kernel
def _four_three_points(st: State, op: int, color: int, ws: Workspace) -> int:
    """Side op's four-three points with their fours' block cells and whether `color` answers each in time, into
    ``ws.tempo``; how many (at most MAX_TEMPO)."""
    count = 0
    left = min(class_count(st, op, C_FOUR_THREE), MAX_TEMPO)
    for i in range(st.interior.shape[0]):
        if count == left:
            break  # all of them found: the class counts say how many there are
        q = st.interior[i]
        if st.cells[q] == EMPTY and st.cls[op, q] == C_FOUR_THREE:
            ws.tempo[count, 0] = q
            f, held = four_three_answer(st, q, op, color, ws.fives)
            ws.tempo[count, 1] = f
            ws.tempo[count, 2] = 1 if held else 0
            count += 1
    return count


@kernel
def cell_value(st: State, idx: int, me: int) -> float:
    """How good idx is for side `me`: what it builds plus most of what it denies the opponent."""
    return cell_score(st, me, idx) + DEFENCE_WEIGHT * cell_score(st, 1 - me, idx)


@kernel
def move_value(st: State, idx: int, me: int, learned: bool, last: int, own: int, context: int) -> float:
    """A candidate's worth for side `me` to move: the learned policy's logit (``brain.policy``; `last` and `own` from
    ``recent_moves``, `context` from ``threat_context``) or the hand-set ``cell_value``."""
    if learned:
        return move_logit(st, idx, me, last, own, context)
    return cell_value(st, idx, me)


@kernel
def generate_moves(st: State, color: int, out: np.ndarray, values: np.ndarray, limit: int, ws: Workspace,
                   learned: bool) -> int:
    """Fill out[:n] with the moves worth searching for `color` to move, values[:n] with their values
    (``move_value``: learned logits, or hand-set cell values, as `learned` says; a forced move gets 1e9).

    Returns n; 0 means every move loses at once (two opponent fives, or the only block is forbidden). How many moves
    worth searching the limit cut off goes to ``ws.left_out`` (the solver may call a node lost only over all of
    them); none when nothing defends against the opponent's winning threat, where every move loses alike.
    """
    me = color - 1
    op = 1 - me
    last, own = recent_moves(st)
    context = threat_context(st, me)
    ws.left_out[0] = 0
    forced = -1
    if class_count(st, me, C_FIVE) > 0:
        # 1. our five
        forced = first_of_class(st, me, C_FIVE, color)
    if forced < 0 and class_count(st, op, C_FIVE) > 0:
        # 2. the opponent's five must be blocked (two of them cannot be)
        if class_count(st, op, C_FIVE) >= 2:
            return 0
        forced = first_of_class(st, op, C_FIVE, 3 - color)
        if forced < 0 or not playable(st, forced, color):
            return 0
    if forced < 0 and class_count(st, me, C_OPEN_FOUR) > 0:
        # 3. our open four (wins: the opponent has no five, checked above)
        forced = first_of_class(st, me, C_OPEN_FOUR, color)
    if forced >= 0:
        out[0] = forced
        values[0] = 1e9
        return 1
    n = 0
    defenceless = False
    count = 0
    t = -1
    if threat_count(st, op) > 0:
        count = _four_three_points(st, op, color, ws)
        t = _unanswered_threat(st, op, color, ws, count, True)
    if t >= 0:
        # 4. defend: our fours, and the cells after which the opponent has no winning threat left that we cannot
        # answer in time; a four-three point whose four's block would make a four of ours is answered in time (and
        # one that is answered already threatens nothing: the node is quiet)
        answered = False
        for i in range(count):
            answered = answered or ws.tempo[i, 2] == 1
        cand = ws.cand
        k = defence_candidates(st, t, color, cand)
        if st.cls[op, t] == C_FOUR_THREE:
            k = _block_line_cells(st, t, me, color, ws, count, cand, k)
        points = _mark_threat_points(st, op, ws)
        for i in range(k):
            idx = cand[i]
            if _defends(st, idx, op, color, ws, count, answered, points) and n < out.shape[0]:
                out[n] = idx
                values[n] = move_value(st, idx, me, learned, last, own, context)
                n += 1
        _unmark_threat_points(st, op, ws, points)
        k = playable_cells(st, me, C_FOUR, True, cand, 0, color)
        for i in range(k):
            idx = cand[i]
            dup = False
            for j in range(n):
                if out[j] == idx:
                    dup = True
            if not dup and n < out.shape[0]:
                out[n] = idx
                values[n] = move_value(st, idx, me, learned, last, own, context)
                n += 1
        if n > 0:
            ws.left_out[0] = max(n - limit, 0)
            return _keep_best(out, values, n, limit, ws.ranking)
        # nothing defends: fall through to the ordinary moves (the node is probably lost)
        defenceless = True
    # 5. ordinary: every empty cell near the stones, best first. They are listed first without a branch: which of
    # the board's cells qualify follows no pattern a branch predictor could learn
    cand = ws.cand
    k = 0
    for i in range(st.interior.shape[0]):
        idx = st.interior[i]
        cand[k] = idx
        k += (st.cells[idx] == EMPTY) & (st.near[idx] != 0)
    for i in range(k):
        idx = cand[i]
        if st.cls[me, idx] == C_FORBIDDEN and is_renju_black(st, color):
            continue
        if n < out.shape[0]:
            out[n] = idx
            values[n] = move_value(st, idx, me, learned, last, own, context)
            n += 1
    if n == 0:
        # empty board (or no stone near any empty cell): the centre, else any empty cell
        w = st.info[2]
        h = st.info[3]
        centre = st.interior[(h // 2) * w + w // 2]
        if st.cells[centre] == EMPTY:
            out[0] = centre
            values[0] = 1.0
            return 1
        for i in range(st.interior.shape[0]):
            idx = st.interior[i]
            if st.cells[idx] == EMPTY and playable(st, idx, color):
                out[0] = idx
                values[0] = 1.0
                return 1
        return 0
    total = n
    renju_black = is_renju_black(st, color)
    # renju: check the doubtful ones exactly, only among those kept (8 more are kept for the forbidden ones)
    n = _keep_best(out, values, n, limit + 8 if renju_black else limit, ws.ranking)
    if renju_black:
        m = 0
        for i in range(n):
            if playable(st, out[i], color):
                out[m] = out[i]
                values[m] = values[i]
                m += 1
        n = m
        total -= min(total, limit + 8) - m  # the forbidden ones among those kept are no moves
    ws.left_out[0] = 0 if defenceless else max(total - limit, 0)
    return min(n, limit)


@kernel
def _kth_largest(a: np.ndarray, n: int, k: int) -> float:
    """The k-th largest of a[0:n] (1 <= k <= n), reordering a: a quickselect whose partitions swap every element and
    advance by the comparison's result, so that they take no branch that depends on the values."""
    lo = 0
    hi = n
    target = k - 1
    while hi - lo > 1:
        x0 = a[lo]
        x1 = a[(lo + hi) >> 1]
        x2 = a[hi - 1]
        pivot = max(min(x0, x1), min(max(x0, x1), x2))
        above = lo  # a[lo:above] > pivot
        for i in range(lo, hi):
            x = a[i]
            a[i] = a[above]
            a[above] = x
            above += x > pivot
        if target < above:
            hi = above
            continue
        equal = above  # a[above:equal] == pivot
        for i in range(above, hi):
            x = a[i]
            a[i] = a[equal]
            a[equal] = x
            equal += x == pivot
        if target < equal:
            return pivot
        lo = equal
    return a[lo]


@kernel
def _keep_best(out: np.ndarray, values: np.ndarray, n: int, limit: int, scratch: np.ndarray) -> int:
    """Keep the `limit` best of the n moves, at the front in descending value (ties in their first order); `scratch`
    holds at least max(n, 2 x limit) values.

    The move generation's values follow no order a branch predictor could learn, so this takes few branches that depend
    on them (an insertion into the kept list, a mispredicted branch or two per kept move, took twice as long on 80
    random values with ties): the limit-th best value by a quickselect, the moves above it and the first ones equal to
    it kept in their order, then each kept move put in its place, counted as the moves worth more and the earlier ones
    worth as much."""
    keep = min(n, limit)
    if keep <= 0:
        return 0
    if keep < n:
        for i in range(n):
            scratch[i] = values[i]
        threshold = _kth_largest(scratch, n, keep)
        ties = keep
        for i in range(n):
            ties -= values[i] > threshold
        k = 0
        for i in range(n):
            v = values[i]
            tie = (v == threshold) & (ties > 0)
            ties -= tie
            out[k] = out[i]
            values[k] = v
            k += (v > threshold) | tie
    for i in range(keep):
        scratch[i] = values[i]
        scratch[keep + i] = out[i]
    for i in range(keep):
        v = scratch[i]
        place = 0
        for j in range(keep):
            place += (scratch[j] > v) | ((scratch[j] == v) & (j < i))
        values[place] = v
        out[place] = np.int32(scratch[keep + i])
    return keep


# ---------------------------------------------------------------------------------------------------------------
# VCF

@kernel
def _is_four_move(st: State, idx: int, me: int) -> bool:
    """Whether side `me` makes a four (or better) on the empty cell idx, renju fouls and three-threes aside."""
    if st.cells[idx] != EMPTY:
        return False
    c = st.cls[me, idx]
    return c >= C_FOUR and c != C_FORBIDDEN and c != C_THREE_THREE


@kernel
def _file_four(st: State, idx: int, me: int, out: np.ndarray, n: int, tail: int) -> tuple[int, int]:
    """Put the four-making cell idx into out: four-threes and better at the front (n), plain fours at the back
    (tail); return the new (n, tail)."""
    if st.cls[me, idx] >= C_FOUR_THREE:
        out[n] = idx
        return n + 1, tail
    out[tail - 1] = idx
    return n, tail - 1


@inline_kernel
def _attacker_moves(st: State, color: int, out: np.ndarray, near: int) -> int:
    """The moves the attacker may try at a VCF node: the forced block if the defender has a five point (only when
    that block is itself a four), else the four-making moves, four-threes first; 0 means none.

    With near >= 0 only the fours on the lines through `near` (the attacker's last four) are collected: the chain
    mode of the in-tree VCF, a few cells instead of the whole board."""
    me = color - 1
    op = 1 - me
    if class_count(st, op, C_FIVE) > 0:
        if class_count(st, op, C_FIVE) >= 2:
            return 0
        f = first_of_class(st, op, C_FIVE, 3 - color)
        if f < 0 or st.cls[me, f] < C_FOUR or st.cls[me, f] == C_FORBIDDEN or st.cls[me, f] == C_THREE_THREE:
            return 0
        out[0] = f
        return 1
    # four-threes (and better) at the front, plain fours at the back
    n = 0
    tail = out.shape[0]
    if near < 0:
        wanted = four_point_count(st, me)
        found = 0
        for i in range(st.interior.shape[0]):
            if found >= wanted or n >= tail:
                break
            idx = st.interior[i]
            if _is_four_move(st, idx, me):
                found += 1
                n, tail = _file_four(st, idx, me, out, n, tail)
    else:
        for d in range(4):
            step = st.steps[d]
            for o in range(-WINDOW_HALF + 1, WINDOW_HALF):
                idx = near + o * step
                if o != 0 and n < tail and _is_four_move(st, idx, me):
                    n, tail = _file_four(st, idx, me, out, n, tail)
    for j in range(tail, out.shape[0]):
        out[n] = out[j]
        n += 1
    return n


@kernel
def four_lines(st: State, idx: int, side: int) -> int:
    """Bit mask of the directions along which `side` playing the empty cell idx makes a four (open or not)."""
    dirs = 0
    for d in range(4):
        p = st.pat[side, idx, d]
        if p == P_FOUR or p == P_FOUR_OPEN:
            dirs |= 1 << d
    return dirs


@inline_kernel
def _back_up(st: State, tried: np.ndarray, block: np.ndarray, level: int) -> int:
    """Take back the four and its block that led from the level below to `level`; return the level below."""
    level -= 1
    unmake_lean(st, block[level])
    unmake_lean(st, tried[level])
    return level


@kernel
def find_vcf(st: State, color: int, max_ply: int, node_budget: int, ws: Workspace, chain: bool,
             limits: Int64Array) -> bool:
    """Whether `color`, to move, wins by continuous fours within max_ply plies; the line goes to pv (-1 ends it).
    Each node counts against `limits` too; a node they refuse (stopped, or their budget spent) fails unsearched
    and the search ends as if its own budget had run out.

    An iterative depth-first search (numba cannot reload a cached recursive function): level l holds the
    attacker's candidate fours, the one being tried and the defender's forced block.

    With `chain`, every four after the first must lie on a line through the attacker's previous four, unless that
    one was a forced block (a dependent chain, as in Allis's threat-space search): a few cells to scan instead of
    the whole board, and no permutations of unrelated fours, so it is several times cheaper. It misses the wins that join two separate
    groups of fours; the tree search uses it, the root search does not. Its failures are kept apart in the
    transposition table (they depend on the previous four) so they never cut a full search short.
    """
    me = color - 1
    levels = min(max_ply // 2 + 1, MAX_VCF_LEVELS)
    cands = ws.vcf_cands
    count = ws.vcf_count
    nxt = ws.vcf_next
    tried = ws.vcf_tried
    block = ws.vcf_block
    slots = ws.vcf_slots
    hashes = ws.vcf_hashes
    fp = ws.fives
    pv = ws.pv
    tt_keys = ws.tt_keys
    tt_depth = ws.tt_depth
    mask = np.uint64(tt_keys.shape[0] - 1)
    budget = node_budget
    pv[0] = -1
    level = 0
    entering = True
    won = False
    while True:
        if entering:
            entering = False
            # a new attacker node: the position after the blocks of levels < level
            if charge(limits):  # stopped, or the limits' node budget is spent: fail here and everywhere after
                budget = 0
            elif class_count(st, me, C_FIVE) > 0:
                f = first_of_class(st, me, C_FIVE, color)
                if f >= 0:
                    pv[2 * level] = f
                    pv[2 * level + 1] = -1
                    won = True
                    break
            # chain mode: the fours on the previous four's lines, unless that four was a forced block
            near = tried[level - 1] if chain and level > 0 and ws.vcf_forced[level - 1] == 0 else -1
            h = st.hash[0] ^ np.uint64(color)
            if chain:  # every chain-mode entry, the first level's too, is salted
                h ^= np.uint64(near + 2) * CHAIN_SALT
            slot = h & mask
            remaining = max_ply - 2 * level
            fail = budget <= 0 or remaining <= 0 or level >= levels
            if not fail and tt_keys[slot] == h and tt_depth[slot] >= remaining:
                fail = True
            if not fail:
                budget -= 1
                count[level] = _attacker_moves(st, color, cands[level], near)
                ws.vcf_forced[level] = 1 if class_count(st, 1 - me, C_FIVE) > 0 else 0
                nxt[level] = 0
                hashes[level] = h
                slots[level] = slot
            else:
                if level == 0:
                    break
                level = _back_up(st, tried, block, level)
                continue
        if nxt[level] >= count[level]:
            # every four failed here
            remaining = max_ply - 2 * level
            tt_keys[slots[level]] = hashes[level]
            tt_depth[slots[level]] = remaining
            if level == 0:
                break
            level = _back_up(st, tried, block, level)
            continue
        m = cands[level, nxt[level]]
        nxt[level] += 1
        if not playable(st, m, color):
            continue
        dirs = four_lines(st, m, me)
        make_lean(st, m, color)
        k = five_points_near(st, m, me, fp, dirs)
        if k >= 2 or (k == 1 and is_renju_black(st, 3 - color) and not playable(st, fp[0], 3 - color)):
            pv[2 * level] = m
            pv[2 * level + 1] = -1
            unmake_lean(st, m)
            won = True
            break
        if k == 0 or budget <= 0 or max_ply - 2 * (level + 1) <= 0 or level + 1 >= levels:
            # no four after all, or the level below would give up at once: no need to play the block
            unmake_lean(st, m)
            continue
        make_lean(st, fp[0], 3 - color)
        tried[level] = m
        block[level] = fp[0]
        pv[2 * level] = m
        pv[2 * level + 1] = fp[0]
        level += 1
        entering = True
    # take back the lines still on the board
    while level > 0:
        level = _back_up(st, tried, block, level)
    return won


@kernel
def opponent_vcf_after(st: State, idx: int, color: int, max_ply: int, node_budget: int, ws: Workspace,
                       limits: Int64Array) -> bool:
    """Whether, after `color` plays idx, the opponent wins by VCF."""
    make_lean(st, idx, color)
    lost = find_vcf(st, 3 - color, max_ply, node_budget, ws, False, limits)
    unmake_lean(st, idx)
    return lost
