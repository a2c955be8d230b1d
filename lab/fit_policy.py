"""``monte fit-policy``: fit the learned move policy (``brain.policy``) to the moves strong engines chose.

Every position of a game in which a chosen engine was to move becomes one example: the candidate cells the search
would consider (empty, within two cells of a stone, not a renju foul), each with its attack and defence cell codes
and its distances to the last two moves, the position's threat context, and which of them the engine played.
Positions with a forced answer (a five to make or to block, an open four to make) are left out: move generation
settles those without the policy.

The model is a softmax over each position's candidates of the logit ``brain.policy.move_logit`` computes, fitted by
full-batch Adam with an L2 penalty (stronger on the 495 shape weights, which the pattern and class weights back up where
data is thin, and on each threat context's class pairs, which are fitted as a difference from the pairs shared by
every context and written out summed with them) on a training share of the games; whole games held out measure it:
how often its favourite is the move played (top-1), how often the move played is among the 24 the search keeps at an
inner node, and the mean log-likelihood, beside the hand-set priors (``brain.threats.cell_value``, as
``Params.policy_model`` 0 uses them).

Games played from held-out openings (a ``-test`` set, by name or, for generated openings, by position under the
board's symmetries) are never learned from.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from monte.brain.board import Board
from monte.brain.patterns import C_FIVE, C_FORBIDDEN, C_OPEN_FOUR, CLASS_COUNT, COMBO_SIZE
from monte.brain.policy import DISTANCE_BINS, ROLE_WEIGHTS, SHAPES, THREAT_CONTEXTS, code_features, threat_context
from monte.brain.position import I_STRIDE, class_count, make, new_state
from monte.brain.rules import BLACK, EMPTY, RULE_RENJU
from monte.brain.settings import Params
from monte.brain.threats import DEFENCE_WEIGHT
from monte.lab.held_out import held_out_mask
from monte.tournaments.records import GameRecord

KEPT_AT_INNER_NODES = Params().max_children
L2_SHAPE = 3e-3
L2_OTHER = 3e-4
L2_CONTEXT = 1e-3
PAIRS = CLASS_COUNT * CLASS_COUNT
WEIGHT_COUNT = 2 * ROLE_WEIGHTS + 2 * DISTANCE_BINS + PAIRS + THREAT_CONTEXTS * PAIRS


@dataclass
class Examples:
    """Candidate rows grouped by position: ``start[k]:start[k+1]`` are position k's rows; ``target[k]`` the row
    played; ``game[k]`` the game it came from; ``context[k]`` its threat context (``brain.policy.threat_context``).
    Per row: the attack and defence cell codes, the two distance bins, the class pair (attack class x CLASS_COUNT +
    defence class) and the hand-set cell value."""

    start: np.ndarray
    target: np.ndarray
    game: np.ndarray
    context: np.ndarray
    attack: np.ndarray
    defence: np.ndarray
    near_last: np.ndarray
    near_own: np.ndarray
    pair: np.ndarray
    hand: np.ndarray

    @property
    def positions(self) -> int:
        return self.target.shape[0]

    def row_pairs(self) -> np.ndarray:
        """Each row's index into the per-context class pairs: its position's context x PAIRS + its class pair."""
        return np.repeat(self.context, np.diff(self.start)) * PAIRS + self.pair


def _row_arrays(st, board: Board, me: int) -> tuple[np.ndarray, ...] | None:
    """The candidates of the position (side `me` to move): cells, attack codes, defence codes, hand values."""
    op = 1 - me
    cells = np.array([board.index(x, y) for y in range(board.height) for x in range(board.width)])
    cells = cells[(st.cells[cells] == EMPTY) & (st.near[cells] > 0)]
    if board.rule & RULE_RENJU and me == BLACK - 1:
        cells = cells[st.cls[me, cells] != C_FORBIDDEN]
    if cells.shape[0] < 2:
        return None
    hand = st.score[me, cells] + DEFENCE_WEIGHT * st.score[op, cells]
    pair = st.cls[me, cells].astype(np.int64) * CLASS_COUNT + st.cls[op, cells]
    return cells, st.code[me, cells], st.code[op, cells], pair, hand


def _bins(cells: np.ndarray, other: int, stride: int) -> np.ndarray:
    if other < 0:
        return np.full(cells.shape[0], DISTANCE_BINS - 1)
    d = np.maximum(np.abs(cells % stride - other % stride), np.abs(cells // stride - other // stride))
    return np.minimum(d, DISTANCE_BINS) - 1


def game_rows(record: GameRecord, learn_from: set[str] | None, skip_plies: int) -> list[tuple[np.ndarray, ...]]:
    """One tuple of candidate arrays per usable position of the game (see the module docstring), the played
    candidate's row number last."""
    board = Board(record.width, record.height, record.rule)
    st = new_state(board)
    stride = int(st.info[I_STRIDE])
    out = []
    colour = 1
    made: list[int] = []
    stones = [tuple(s) for s in record.opening] + [(x, y) for x, y, _ in record.moves]
    first_move = len(record.opening)
    for ply, (x, y) in enumerate(stones):
        idx = board.index(x, y)
        me, op = colour - 1, 2 - colour
        mover = record.black if colour == 1 else record.white
        usable = (ply >= max(first_move, skip_plies) and (learn_from is None or mover in learn_from)
                  and class_count(st, me, C_FIVE) == 0 and class_count(st, op, C_FIVE) == 0
                  and class_count(st, me, C_OPEN_FOUR) == 0)
        if usable:
            rows = _row_arrays(st, board, me)
            if rows is not None:
                cells, attack, defence, pair, hand = rows
                hit = np.flatnonzero(cells == idx)
                if hit.shape[0]:
                    last = made[-1] if made else -1
                    own = made[-2] if len(made) >= 2 else -1
                    out.append((attack, defence, _bins(cells, last, stride), _bins(cells, own, stride), pair,
                                hand, threat_context(st, me), int(hit[0])))
        make(st, idx, colour)
        made.append(idx)
        colour = 3 - colour
    return out


def collect(records: Iterable[GameRecord], learn_from: set[str] | None = None, skip_plies: int = 0) -> Examples:
    """Every example of `records` (see the module docstring); `learn_from` names the engines whose moves count (None:
    every engine's)."""
    parts: list[list[np.ndarray]] = [[] for _ in range(6)]
    start, target, games, contexts = [0], [], [], []
    for number, record in enumerate(records):
        for *arrays, context, hit in game_rows(record, learn_from, skip_plies):
            for part, array in zip(parts, arrays):
                part.append(array)
            target.append(start[-1] + hit)
            start.append(start[-1] + arrays[0].shape[0])
            games.append(number)
            contexts.append(context)
    joined = [np.concatenate(p) if p else np.zeros(0) for p in parts]
    return Examples(np.array(start, dtype=np.int64), np.array(target, dtype=np.int64),
                    np.array(games, dtype=np.int64), np.array(contexts, dtype=np.int64), joined[0].astype(np.int64),
                    joined[1].astype(np.int64), joined[2].astype(np.int64), joined[3].astype(np.int64),
                    joined[4].astype(np.int64), joined[5].astype(np.float64))


def subset(examples: Examples, keep: np.ndarray) -> Examples:
    """The positions of `examples` where `keep` (bool per position) holds."""
    lengths = np.diff(examples.start)
    rows = np.repeat(keep, lengths)
    new_lengths = lengths[keep]
    start = np.concatenate([[0], np.cumsum(new_lengths)])
    offset = examples.target[keep] - examples.start[:-1][keep]
    return Examples(start, start[:-1] + offset, examples.game[keep], examples.context[keep], examples.attack[rows],
                    examples.defence[rows], examples.near_last[rows], examples.near_own[rows], examples.pair[rows],
                    examples.hand[rows])


def split_games(examples: Examples, holdout: float, seed: int) -> tuple[Examples, Examples]:
    """(training, held-out) positions, whole games on either side, chosen at random with `seed`."""
    mask = held_out_mask(examples.game, holdout, seed)
    return subset(examples, ~mask), subset(examples, mask)


def _unpack(w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(attack, defence, distance, shared class pairs, each context's difference from them) weights."""
    d = 2 * ROLE_WEIGHTS
    p = d + 2 * DISTANCE_BINS
    return w[:ROLE_WEIGHTS], w[ROLE_WEIGHTS:d], w[d:p], w[p:p + PAIRS], w[p + PAIRS:]


def pair_tables(w: np.ndarray) -> np.ndarray:
    """The class pairs' weights per threat context, shared part and difference summed: THREAT_CONTEXTS x PAIRS
    values, context-major (``brain.policy.PAIR_TABLE``'s order)."""
    _, _, _, shared, deltas = _unpack(w)
    return (deltas.reshape(THREAT_CONTEXTS, PAIRS) + shared).ravel()


def logits(w: np.ndarray, ex: Examples, features: np.ndarray) -> np.ndarray:
    """The model's logit of every candidate row."""
    attack, defence, distance, _, _ = _unpack(w)
    table_a = attack[features].sum(axis=1)
    table_d = defence[features].sum(axis=1)
    return (table_a[ex.attack] + table_d[ex.defence] + distance[ex.near_last]
            + distance[DISTANCE_BINS + ex.near_own] + pair_tables(w)[ex.row_pairs()])


def _softmax(z: np.ndarray, ex: Examples) -> np.ndarray:
    """Per-position softmax of row scores `z`."""
    starts = ex.start[:-1]
    top = np.maximum.reduceat(z, starts)
    e = np.exp(z - np.repeat(top, np.diff(ex.start)))
    return e / np.repeat(np.add.reduceat(e, starts), np.diff(ex.start))


def _penalty() -> np.ndarray:
    p = np.full(WEIGHT_COUNT, L2_OTHER)
    for role in range(2):
        base = role * ROLE_WEIGHTS
        p[base + ROLE_WEIGHTS - SHAPES:base + ROLE_WEIGHTS] = L2_SHAPE
    p[WEIGHT_COUNT - THREAT_CONTEXTS * PAIRS:] = L2_CONTEXT
    return p


def loss_and_gradient(w: np.ndarray, ex: Examples, features: np.ndarray) -> tuple[float, np.ndarray]:
    """Mean negative log-likelihood of the moves played plus the L2 penalty, and its gradient."""
    penalty = _penalty()
    p = _softmax(logits(w, ex, features), ex)
    n = ex.positions
    loss = -np.mean(np.log(np.maximum(p[ex.target], 1e-300))) + 0.5 * float(np.sum(penalty * w * w))
    residual = p.copy()
    residual[ex.target] -= 1.0
    residual /= n
    g_code_a = np.bincount(ex.attack, weights=residual, minlength=COMBO_SIZE)
    g_code_d = np.bincount(ex.defence, weights=residual, minlength=COMBO_SIZE)
    flat = features.ravel()
    g_a = np.bincount(flat, weights=np.repeat(g_code_a, features.shape[1]), minlength=ROLE_WEIGHTS)
    g_d = np.bincount(flat, weights=np.repeat(g_code_d, features.shape[1]), minlength=ROLE_WEIGHTS)
    g_dist = (np.bincount(ex.near_last, weights=residual, minlength=DISTANCE_BINS)[:DISTANCE_BINS],
              np.bincount(ex.near_own, weights=residual, minlength=DISTANCE_BINS)[:DISTANCE_BINS])
    g_pair = np.bincount(ex.pair, weights=residual, minlength=PAIRS)
    g_context = np.bincount(ex.row_pairs(), weights=residual, minlength=THREAT_CONTEXTS * PAIRS)
    gradient = np.concatenate([g_a, g_d, *g_dist, g_pair, g_context]) + penalty * w
    return loss, gradient


def fit(ex: Examples, steps: int = 600, rate: float = 0.05) -> np.ndarray:
    """The weights (attack, defence, distance, class pairs) that maximise the likelihood of the moves played:
    full-batch Adam from zero (the problem is convex, so where it starts does not matter; `steps` is how close it
    gets)."""
    features = code_features()
    w = np.zeros(WEIGHT_COUNT)
    m = np.zeros(WEIGHT_COUNT)
    v = np.zeros(WEIGHT_COUNT)
    for t in range(1, steps + 1):
        _, g = loss_and_gradient(w, ex, features)
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        w -= rate * (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-8)
    return w


@dataclass(frozen=True)
class Judgement:
    """How well one set of scores predicts the moves played."""

    top1: float
    kept: float
    log_likelihood: float

    def line(self, name: str) -> str:
        return (f"{name:9s} top-1 {self.top1:.1%}, in the {KEPT_AT_INNER_NODES} kept {self.kept:.1%}, "
                f"mean log-likelihood {self.log_likelihood:.3f}")


def judge(scores: np.ndarray, probabilities: np.ndarray, ex: Examples) -> Judgement:
    """Top-1, kept-at-inner-node rate and mean log-likelihood of the moves played, by `scores` (row order) and
    `probabilities` (the priors the search would give)."""
    top1 = kept = 0
    for k in range(ex.positions):
        a, b = ex.start[k], ex.start[k + 1]
        s = scores[a:b]
        mine = s[ex.target[k] - a]
        better = int(np.sum(s > mine))
        top1 += better == 0
        kept += better < KEPT_AT_INNER_NODES
    n = max(ex.positions, 1)
    ll = float(np.mean(np.log(np.maximum(probabilities[ex.target], 1e-300)))) if ex.positions else float("nan")
    return Judgement(top1 / n, kept / n, ll)


def hand_priors(ex: Examples, power: float = Params().prior_power) -> np.ndarray:
    """The hand-set priors of every row, as ``brain.mcts`` gives them with ``policy_model`` 0 (every candidate
    kept, not only the best 24: a fair log-likelihood)."""
    w = (np.maximum(ex.hand, 0.0) + 1.0) ** power
    return w / np.repeat(np.add.reduceat(w, ex.start[:-1]), np.diff(ex.start))


def judged_lines(w: np.ndarray, ex: Examples, where: str) -> list[str]:
    """The fitted model and the hand-set priors on `ex`, a line each."""
    if ex.positions == 0:
        return [f"{where}: no position"]
    z = logits(w, ex, code_features())
    return [f"{where}: {ex.positions} positions",
            "  " + judge(z, _softmax(z, ex), ex).line("learned"),
            "  " + judge(ex.hand, hand_priors(ex), ex).line("hand-set")]


def weights_module(w: np.ndarray, summary: Sequence[str]) -> str:
    """The text of ``brain/policy_weights.py`` holding `w`, its docstring the fit's `summary`."""
    attack, defence, distance, _, _ = _unpack(w)

    def block(name: str, values: np.ndarray) -> list[str]:
        lines = [f"{name} = ["]
        for i in range(0, values.shape[0], 10):
            lines.append("    " + " ".join(f"{v:.4f}," for v in values[i:i + 10]))
        return lines + ["]"]

    doc = ['"""The move policy\'s weights (``brain.policy``), written by ``monte fit-policy``; do not edit by hand.',
           ""]
    doc += list(summary) + ['"""', ""]
    return "\n".join(doc + block("ATTACK", attack) + [""] + block("DEFENCE", defence) + [""]
                     + block("DISTANCE", distance) + [""] + block("CLASS_PAIRS", pair_tables(w))) + "\n"
