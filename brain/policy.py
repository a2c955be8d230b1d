"""The learned move policy: how likely a strong player is to play each candidate cell, from its line patterns.

The search's priors (``brain.mcts``) and its move ordering (``brain.threats.generate_moves``) come from here when
``Params.policy_model`` is 1. A cell's logit is a sum of weights over what the cell already knows
(``brain.position`` keeps it up to date on every make and unmake):

- its four line patterns for the side to move (attack) and for the opponent (defence): a weight per pattern, one
  per cell class, and one per *shape* -- the multiset of the four patterns, 495 of them, direction order ignored;
- the pair of its classes, attack and defence (a cell that makes a three and blocks one is worth more than the
  two apart);
- how far it lies from the last move and from the side to move's own previous move (Chebyshev distance, 1 to 5+);
- the class pair's weight depends on the position's *threat context*: whether each side has a point that makes a
  winning threat (an open four or a four-three) and a point that makes an open three (``threat_context``, 16 of
  them). The same cell is worth another thing when the opponent threatens a four-three than in a quiet position
  (README, "The move policy", for what the context earned).

The weights of one cell code are folded, once at import, into one table per role indexed by the cell code
(``st.code``), so that a candidate costs three table reads and two distances. ``monte fit-policy``
(``lab/fit_policy.py``) fits the weights as a softmax over the candidates of each position, to the moves strong
engines chose, and writes ``brain/policy_weights.py``.
"""

from __future__ import annotations

from functools import cache
from itertools import combinations_with_replacement

import numpy as np

from monte.brain.jit import kernel
from monte.brain.patterns import (
    C_FOUR_THREE, C_OPEN_FOUR, C_THREE, C_THREE_THREE, CLASS_COUNT, COMBO_SIZE, PATTERN_COUNT, classify_cell,
)
from monte.brain.policy_weights import ATTACK, CLASS_PAIRS, DEFENCE, DISTANCE
from monte.brain.position import I_LAST, I_STONES, I_STRIDE, State, class_count

SHAPES = len(list(combinations_with_replacement(range(PATTERN_COUNT), 4)))
"""Multisets of four line patterns: 495."""
DISTANCE_BINS = 5
"""Chebyshev distance 1, 2, 3, 4, and 5 or more (or no such move)."""
ROLE_WEIGHTS = PATTERN_COUNT + CLASS_COUNT + SHAPES
"""Weights of one role (attack or defence): per pattern, per class, per shape."""
THREAT_CONTEXTS = 16
"""Threat contexts of a position (``threat_context``): four yes-or-no facts."""


def code_patterns(code: int) -> tuple[int, int, int, int]:
    """The four line patterns (direction 0 first) of a cell code (``brain.patterns.COMBO_WEIGHT``)."""
    return (code // PATTERN_COUNT ** 3, (code // PATTERN_COUNT ** 2) % PATTERN_COUNT,
            (code // PATTERN_COUNT) % PATTERN_COUNT, code % PATTERN_COUNT)


def _shape_numbers() -> dict[tuple[int, ...], int]:
    return {shape: i for i, shape in enumerate(combinations_with_replacement(range(PATTERN_COUNT), 4))}


@cache
def code_features() -> np.ndarray:
    """int32[COMBO_SIZE, 6], read-only: for every cell code, the weight indices (within a role's ROLE_WEIGHTS) its
    logit sums: its four patterns, its class, its shape (built once: both roles' folds at import need it, and it
    takes tens of milliseconds, which a brain's start pays)."""
    shapes = _shape_numbers()
    out = np.empty((COMBO_SIZE, 6), dtype=np.int32)
    for code in range(COMBO_SIZE):
        patterns = code_patterns(code)
        out[code, :4] = patterns
        out[code, 4] = PATTERN_COUNT + classify_cell(*patterns, False)
        out[code, 5] = PATTERN_COUNT + CLASS_COUNT + shapes[tuple(sorted(patterns))]
    out.setflags(write=False)
    return out


def fold(role_weights: np.ndarray) -> np.ndarray:
    """float64[COMBO_SIZE]: one role's logit part for every cell code (the sum of its weights)."""
    return role_weights[code_features()].sum(axis=1)


TABLE = np.stack([fold(np.asarray(ATTACK, dtype=np.float64)), fold(np.asarray(DEFENCE, dtype=np.float64))])
"""float64[2, COMBO_SIZE]: [0] the attack part of a cell code's logit, [1] the defence part."""
DISTANCE_TABLE = np.asarray(DISTANCE, dtype=np.float64).reshape(2, DISTANCE_BINS)
"""[0] by distance to the last move, [1] to the side to move's own previous one."""
PAIR_TABLE = np.asarray(CLASS_PAIRS, dtype=np.float64).reshape(THREAT_CONTEXTS, CLASS_COUNT, CLASS_COUNT)
"""By the position's threat context, the cell's attack class (row) and defence class (column)."""


@kernel
def _row_col(idx: int, stride: int) -> tuple[int, int]:
    """(row, column) of a flat index, by a float multiply instead of an integer division (exact: idx is far below
    2^52, and the half cell keeps the product off a whole number's wrong side)."""
    row = int((idx + 0.5) * (1.0 / stride))
    return row, idx - row * stride


@kernel
def distance_bin(st: State, a: int, b: int) -> int:
    """The distance bin of cells a and b (b < 0: no such move, the last bin)."""
    if b < 0:
        return DISTANCE_BINS - 1
    stride = st.info[I_STRIDE]
    ay, ax = _row_col(a, stride)
    by, bx = _row_col(b, stride)
    return min(max(abs(ax - bx), abs(ay - by)), DISTANCE_BINS) - 1


@kernel
def recent_moves(st: State) -> tuple[int, int]:
    """(the last move, the side to move's own previous move), -1 where there is none."""
    n = st.info[I_STONES]
    return st.info[I_LAST], (st.history[n - 2] if n >= 2 else -1)


@kernel
def threat_context(st: State, me: int) -> int:
    """The position's threat context for side `me` to move, 0..15: 8 if the opponent has a cell that makes an open
    four or a four-three, 4 if it has one that makes an open three, 2 and 1 the same for `me` (read from the class
    counts: O(1))."""
    op = 1 - me
    context = 0
    if class_count(st, op, C_OPEN_FOUR) + class_count(st, op, C_FOUR_THREE) > 0:
        context += 8
    if class_count(st, op, C_THREE) + class_count(st, op, C_THREE_THREE) > 0:
        context += 4
    if class_count(st, me, C_OPEN_FOUR) + class_count(st, me, C_FOUR_THREE) > 0:
        context += 2
    if class_count(st, me, C_THREE) + class_count(st, me, C_THREE_THREE) > 0:
        context += 1
    return context


@kernel
def move_logit(st: State, idx: int, me: int, last: int, own: int, context: int) -> float:
    """The policy's logit of the empty cell idx for side `me` (0 black, 1 white) to move; `last` and `own` from
    ``recent_moves``, `context` from ``threat_context``."""
    x = TABLE[0, st.code[me, idx]] + TABLE[1, st.code[1 - me, idx]] \
        + PAIR_TABLE[context, st.cls[me, idx], st.cls[1 - me, idx]]
    x += DISTANCE_TABLE[0, distance_bin(st, idx, last)]
    x += DISTANCE_TABLE[1, distance_bin(st, idx, own)]
    return x
