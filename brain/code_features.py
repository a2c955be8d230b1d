"""Cell codes as a learned model's inputs: what a weight per pattern, per class and per shape adds up to for a code.

A cell code (``brain.position`` keeps one per empty cell and side) is the cell's four line patterns as base-9 digits.
The learned models read it through weights of three kinds, for one *role* (the side to move's, or its opponent's):
one per line pattern (summed over the four directions), one per cell class, and one per *shape* -- the multiset of
the four patterns, direction order ignored (495 of them). ``fold`` sums a role's weights into one number per code,
once at import, so that the compiled search reads a table instead of adding weights up. The move policy
(``brain.policy``) and the code value (``brain.position``'s value sums, ``brain.evaluation``) are both built so.
"""

from __future__ import annotations

from itertools import combinations_with_replacement

import numpy as np

from monte.brain.patterns import CLASS_COUNT, COMBO_SIZE, PATTERN_COUNT, classify_cell

SHAPES = len(list(combinations_with_replacement(range(PATTERN_COUNT), 4)))
"""Multisets of four line patterns: 495."""
ROLE_WEIGHTS = PATTERN_COUNT + CLASS_COUNT + SHAPES
"""Weights of one role (attack or defence): per pattern, per class, per shape."""


def code_patterns(code: int) -> tuple[int, int, int, int]:
    """The four line patterns (direction 0 first) of a cell code (``brain.patterns.COMBO_WEIGHT``)."""
    return (code // PATTERN_COUNT ** 3, (code // PATTERN_COUNT ** 2) % PATTERN_COUNT,
            (code // PATTERN_COUNT) % PATTERN_COUNT, code % PATTERN_COUNT)


def _shape_numbers() -> dict[tuple[int, ...], int]:
    return {shape: i for i, shape in enumerate(combinations_with_replacement(range(PATTERN_COUNT), 4))}


def code_features() -> np.ndarray:
    """int32[COMBO_SIZE, 6]: for every cell code, the weight indices (within a role's ROLE_WEIGHTS) its logit sums:
    its four patterns, its class, its shape."""
    shapes = _shape_numbers()
    out = np.empty((COMBO_SIZE, 6), dtype=np.int32)
    for code in range(COMBO_SIZE):
        patterns = code_patterns(code)
        out[code, :4] = patterns
        out[code, 4] = PATTERN_COUNT + classify_cell(*patterns, False)
        out[code, 5] = PATTERN_COUNT + CLASS_COUNT + shapes[tuple(sorted(patterns))]
    return out


def fold(role_weights: np.ndarray) -> np.ndarray:
    """float64[COMBO_SIZE]: one role's logit part for every cell code (the sum of its weights)."""
    return role_weights[code_features()].sum(axis=1)
