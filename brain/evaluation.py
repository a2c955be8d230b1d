"""The learned position evaluation: a small network that predicts who wins from the pattern counts.

Inputs, seen from the side to move ("me") and its opponent: how many (empty cell, direction) pairs hold each line
pattern from P_TWO_C to P_FIVE (``State.pat_count``), how many empty cells are in each class from C_WEAK to C_FIVE
(``position.class_count``), how many would make a three and a two at once, and an open three and an open two
(``position.fork_count``, ``patterns.cell_fork``) -- 17 counts a side -- and the number of stones on the board, each
read as log(1 + n). One hidden layer of ReLU units gives the logit that the side to move wins; the search's value is
``tanh(logit / 2)``, that win probability stretched to [-1, 1]. The counts are kept up to date on every make and
unmake (``brain.position``), so a leaf costs about a hundred reads and one small matrix product, summed in the
state's scratch row.

Why a network and why these labels. A weighted sum of the counts (the model before, fitted to game results) cannot
say "a four-three for the side to move wins unless the opponent has a four": the counts matter together. And a
game's result says little about most of its positions. The weights in ``brain/value_weights.py`` are fitted by
``monte fit-eval`` to positions that a strong engine (Rapfi at 30,000 nodes) judged, its evaluation read as a win
rate (``monte label-positions``, ``lab/value_labels.py``); none comes from a game of a held-out opening. Against the
weighted sum, at equal nodes, it won the games said in README ("The value network").

Renju has a network of its own (``brain/value_weights_renju.py``, ``monte fit-eval --renju``): black's forbidden
points change what the same counts are worth -- a black four-three may need a forbidden point, white may win by
forcing black onto one -- and the freestyle network, fitted to freestyle positions, judged held-out renju positions
less well (0.536 in cross-entropy against renju's own 0.525, black's chances a little high). Every other rule uses
the freestyle network (its patterns follow each rule; exactly five's own network fitted better too, and did not play
better: README, "Renju's own network").

``--set eval_model=0`` gives the hand-set evaluation back.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np

from monte.brain import value_weights as freestyle_weights
from monte.brain import value_weights_renju as renju_weights
from monte.brain.jit import kernel
from monte.brain.patterns import C_FIVE, C_WEAK, F_OPEN_THREE_TWO, F_THREE_TWO, P_FIVE, P_TWO_C
from monte.brain.position import I_RULE, I_STONES, SCRATCH, State, class_count, fork_count
from monte.brain.rules import RULE_RENJU

PATTERN_INPUTS = P_FIVE - P_TWO_C + 1
CLASS_INPUTS = C_FIVE - C_WEAK + 1
FEATURES_PER_SIDE = PATTERN_INPUTS + CLASS_INPUTS + 2
"""7 pattern counts, 8 class counts and 2 fork counts for each side."""

LOG_TABLE = np.log1p(np.arange(4 * 32 * 32 + 1.0))
"""log(1 + n) for every count the network reads on boards up to 32x32 (4 directions of 1,024 cells at most)."""
NETWORK_INPUTS = 2 * FEATURES_PER_SIDE + 1
for _weights in (freestyle_weights, renju_weights):
    if _weights.W1.shape != (NETWORK_INPUTS, _weights.HIDDEN) or _weights.HIDDEN > SCRATCH:
        raise ImportError(f"{_weights.__name__} holds a {_weights.W1.shape} network; this code reads "
                          f"{NETWORK_INPUTS} inputs and has room for {SCRATCH} hidden units: refit it with "
                          "monte fit-eval")
W1, B1, W2, B2 = freestyle_weights.W1, freestyle_weights.B1, freestyle_weights.W2, freestyle_weights.B2
RENJU_W1, RENJU_B1, RENJU_W2, RENJU_B2 = renju_weights.W1, renju_weights.B1, renju_weights.W2, renju_weights.B2
"""The two networks' weights as module globals: numba compiles them into the kernels as constants."""


def network_weights(rule: int) -> ModuleType:
    """The weights module of the network that positions under `rule` are judged by."""
    return renju_weights if rule & RULE_RENJU else freestyle_weights


@kernel
def _log_count(n: int) -> float:
    return LOG_TABLE[min(n, LOG_TABLE.shape[0] - 1)]


@kernel
def _network_input(st: State, me: int, i: int) -> float:
    """Input `i` of the network, log(1 + n) of: my 7 pattern counts, 8 class counts and 2 fork counts (cells of a
    three and a two or better; of an open three and an open two), the opponent's, and the stones on the board."""
    if i == 2 * FEATURES_PER_SIDE:
        return _log_count(st.info[I_STONES])
    side = me if i < FEATURES_PER_SIDE else 1 - me
    k = i % FEATURES_PER_SIDE
    if k < PATTERN_INPUTS:
        return _log_count(st.pat_count[side, P_TWO_C + k])
    k -= PATTERN_INPUTS
    if k < CLASS_INPUTS:
        return _log_count(class_count(st, side, C_WEAK + k))
    if k == CLASS_INPUTS:
        return _log_count(fork_count(st, side, F_THREE_TWO) + fork_count(st, side, F_OPEN_THREE_TWO))
    return _log_count(fork_count(st, side, F_OPEN_THREE_TWO))


def network_inputs(st: State, me: int) -> np.ndarray:
    """The network's inputs for side `me` to move, as the fitting tool reads them."""
    return np.array([_network_input(st, me, i) for i in range(NETWORK_INPUTS)])


@kernel
def network_logit(st: State, me: int) -> float:
    """The value network's logit that side `me` (to move) wins, by the network of the position's rule."""
    if st.info[I_RULE] & RULE_RENJU:
        return _logit(st, me, RENJU_W1, RENJU_B1, RENJU_W2, RENJU_B2)
    return _logit(st, me, W1, B1, W2, B2)


@kernel
def _logit(st: State, me: int, w1: np.ndarray, b1: np.ndarray, w2: np.ndarray, b2: float) -> float:
    """One hidden layer (ReLU) over the log(1 + count) inputs, summed in the state's scratch row (the kernels
    allocate nothing)."""
    hidden = st.scratch
    units = b1.shape[0]
    for j in range(units):
        hidden[j] = b1[j]
    for i in range(NETWORK_INPUTS):
        v = _network_input(st, me, i)
        if v != 0.0:
            for j in range(units):
                hidden[j] += w1[i, j] * v
    x = b2
    for j in range(units):
        if hidden[j] > 0.0:
            x += w2[j] * hidden[j]
    return x
