"""The learned position evaluation: a logistic model of who wins, fitted to games, over the pattern counts.

Features, seen from the side to move ("me") and its opponent: how many (empty cell, direction) pairs hold each line
pattern from P_TWO_C to P_FIVE (``State.pat_count``), and how many empty cells are in each class from C_WEAK to
C_FIVE (``State.cls_count``). The logit is a weighted sum of these 30 counts plus a bias; the search's value is
``tanh(logit / 2)``, the model's win probability stretched to [-1, 1].

The weights are fitted by ``monte fit-eval`` (``tournaments/texel.py``) to positions from played games, each labelled
with the game's result for the side to move (Texel's method); ``WEIGHTS`` below is its output for the 679 games
kept in the repository (29,759 positions; held-out log loss 0.619 against 1.79 for the hand-set evaluation read as
a probability, and the favoured side won 71.5% of decided held-out positions against 64.0%)::

    monte fit-eval tournaments/reports/feature-ab/*/games.jsonl tournaments/reports/baselines-1s/games.jsonl \
        tournaments/reports/sparring/spar-base/games.jsonl tournaments/reports/sparring/spar-base20/games.jsonl

It is the default leaf value (``Params.eval_model = 1``) because games against engines nobody here wrote said so
(``tournaments/reports/sparring.md``); ``--set eval_model=0`` gives the hand-set one back.
"""

from __future__ import annotations

import numpy as np

from monte.brain.jit import kernel
from monte.brain.patterns import C_FIVE, C_WEAK, P_FIVE, P_TWO_C
from monte.brain.position import I_STONES, State
from monte.brain.value_weights import B1, B2, HIDDEN, W1, W2

FEATURES_PER_SIDE = (P_FIVE - P_TWO_C + 1) + (C_FIVE - C_WEAK + 1)
"""7 pattern counts and 8 class counts for each side."""

WEIGHTS = np.array([
    0.0092, 0.0206, 0.0382, 0.1000, 0.2734, 0.3762, 0.0000,
    -0.0249, -0.0180, -0.0239, -0.0748, 0.0661, 0.7510, 0.3660, 0.0000,
    -0.0103, -0.0175, -0.0401, -0.0933, -0.0756, -0.2763, -0.7636,
    0.0281, 0.0236, 0.0444, -0.0858, 0.0230, -0.5814, -0.2325, -0.7636,
    -0.0216,
])
"""me: patterns P_TWO_C..P_FIVE, classes C_WEAK..C_FIVE; then the opponent's, likewise; then the bias."""


def features(st: State, me: int) -> np.ndarray:
    """The model's 30 inputs for side `me` (0 black, 1 white) to move, as the fitting tool reads them."""
    out = np.empty(2 * FEATURES_PER_SIDE)
    for k, side in enumerate((me, 1 - me)):
        base = k * FEATURES_PER_SIDE
        out[base:base + P_FIVE - P_TWO_C + 1] = st.pat_count[side, P_TWO_C:P_FIVE + 1]
        out[base + P_FIVE - P_TWO_C + 1:base + FEATURES_PER_SIDE] = st.cls_count[side, C_WEAK:C_FIVE + 1]
    return out


@kernel
def learned_logit(st: State, me: int) -> float:
    """The model's logit that side `me` (to move) wins."""
    x = WEIGHTS[2 * FEATURES_PER_SIDE]
    for k in range(2):
        side = me if k == 0 else 1 - me
        base = k * FEATURES_PER_SIDE
        for p in range(P_TWO_C, P_FIVE + 1):
            x += WEIGHTS[base + p - P_TWO_C] * st.pat_count[side, p]
        for c in range(C_WEAK, C_FIVE + 1):
            x += WEIGHTS[base + P_FIVE - P_TWO_C + 1 + c - C_WEAK] * st.cls_count[side, c]
    return x


LOG_TABLE = np.log1p(np.arange(1024.0))
"""log(1 + n) for the counts the network reads (clamped at the table's end)."""
NETWORK_INPUTS = 2 * FEATURES_PER_SIDE + 1


@kernel
def _log_count(n: int) -> float:
    return LOG_TABLE[min(n, LOG_TABLE.shape[0] - 1)]


@kernel
def _network_input(st: State, me: int, i: int) -> float:
    """Input `i` of the network: log(1 + count) of `features`' i-th count, then of the stones on the board."""
    if i == 2 * FEATURES_PER_SIDE:
        return _log_count(st.info[I_STONES])
    side = me if i < FEATURES_PER_SIDE else 1 - me
    k = i % FEATURES_PER_SIDE
    if k <= P_FIVE - P_TWO_C:
        return _log_count(st.pat_count[side, P_TWO_C + k])
    return _log_count(st.cls_count[side, C_WEAK + k - (P_FIVE - P_TWO_C + 1)])


@kernel
def network_logit(st: State, me: int) -> float:
    """The value network's logit that side `me` (to move) wins: one hidden layer (ReLU) over log(1 + count) inputs.
    Hidden units outermost: the kernels allocate nothing, so the inputs are read again for each unit."""
    x = B2
    for j in range(HIDDEN):
        h = B1[j]
        for i in range(NETWORK_INPUTS):
            h += W1[i, j] * _network_input(st, me, i)
        if h > 0.0:
            x += W2[j] * h
    return x
