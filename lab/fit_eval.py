"""``monte fit-eval``: fit the learned evaluation (``brain.evaluation``) to played games, Texel's way.

Every position of every game that ended on the board (a five or a full board; forfeits say nothing about the
position) becomes one example: the evaluation's features for the side to move (``brain.evaluation.features``), and
the game's result for that side (1 won, 0 lost, 0.5 drawn). A logistic model -- the one ``learned_logit`` computes --
is fitted by Newton's method with a small L2 penalty, on the games of a training share; the rest, whole games never
split, measure how well it predicts (log loss and how often the likelier side won), against the weights shipped now.

Two models: ``counts`` (``eval_model`` 1), whose 30 features are pattern and class counts, and ``codes``
(``eval_model`` 2), whose features are how many empty cells hold each pattern, class and shape in their codes, for
either side (``brain.code_features``; the search keeps the weighted sums up to date on make and unmake). The tool
prints the fitted weights of the first as the ``WEIGHTS`` block of ``brain/evaluation.py`` and writes those of the
second as ``brain/value_weights.py`` (``--write``); whether they are kept is for games to say.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from monte.brain.board import Board
from monte.brain.code_features import ROLE_WEIGHTS
from monte.brain.evaluation import FEATURES_PER_SIDE, WEIGHTS, code_counts, features
from monte.brain.mcts import Params, evaluate
from monte.brain.patterns import C_FIVE
from monte.brain.position import make, new_state
from monte.tournaments.records import GameRecord, Termination

ON_THE_BOARD = (Termination.FIVE, Termination.DRAW_FULL)
"""The endings that say who stood better on the board."""
NEWTON_STEPS = 25
L2 = 1e-3
L2_CODES = 1e-2
"""The codes model has 1,029 weights to the counts model's 31: a stronger penalty (chosen on held-out games)."""
MODELS = {"counts": features, "codes": code_counts}
"""The models' feature functions, by name (see the module docstring)."""


@dataclass
class Examples:
    """Feature rows, the result for the side to move in each, the game each came from, the hand-set evaluation's
    value of each position (in [-1, 1], for comparison) and the shipped default evaluation's (likewise)."""

    x: np.ndarray
    y: np.ndarray
    game: np.ndarray
    hand: np.ndarray
    shipped: np.ndarray | None = None


def game_examples(record: GameRecord, skip_plies: int, model: str = "counts"
                  ) -> tuple[list[np.ndarray], list[float], list[float], list[float]]:
    """The features (of `model`), results, hand-set values and shipped values of one game's positions, from ply
    `skip_plies` on; none for a game that did not end on the board. A position whose side to move has a five to play
    is left out (the search never evaluates those)."""
    if record.termination not in ON_THE_BOARD:
        return [], [], [], []
    board = Board(record.width, record.height, record.rule)
    st = new_state(board)
    winner_colour = 0
    if record.winner is not None:
        winner_colour = 1 if record.winner == record.black else 2
    rows, results, hand, shipped = [], [], [], []
    hand_set, default = Params(eval_model=0), Params()
    feature_of = MODELS[model]
    colour = 1
    stones = [tuple(stone) for stone in record.opening] + [(x, y) for x, y, _ in record.moves]
    for ply, (x, y) in enumerate(stones, 1):
        make(st, board.index(x, y), colour)
        colour = 3 - colour
        if ply < skip_plies or st.cls_count[colour - 1, C_FIVE] > 0 or st.cls_count[2 - colour, C_FIVE] > 1:
            continue
        rows.append(feature_of(st, colour - 1))
        results.append(0.5 if winner_colour == 0 else float(winner_colour == colour))
        hand.append(float(evaluate(st, colour, hand_set)[0]))
        shipped.append(float(evaluate(st, colour, default)[0]))
    return rows, results, hand, shipped


def collect(records: Iterable[GameRecord], skip_plies: int = 4, model: str = "counts") -> Examples:
    """Every example of `records` (see ``game_examples``)."""
    rows, results, games, hand, shipped = [], [], [], [], []
    for number, record in enumerate(records):
        game_rows, game_results, game_hand, game_shipped = game_examples(record, skip_plies, model)
        rows += game_rows
        results += game_results
        hand += game_hand
        shipped += game_shipped
        games += [number] * len(game_rows)
    width = 2 * (FEATURES_PER_SIDE if model == "counts" else ROLE_WEIGHTS)
    x = np.array(rows, dtype=np.float64).reshape(-1, width)
    return Examples(x, np.array(results, dtype=np.float64), np.array(games, dtype=np.int64),
                    np.array(hand, dtype=np.float64), np.array(shipped, dtype=np.float64))


def _design(x: np.ndarray) -> np.ndarray:
    """The features with a column of ones for the bias (the last weight, as in ``WEIGHTS``)."""
    return np.hstack([x, np.ones((x.shape[0], 1))])


def model_p(weights: np.ndarray, examples: Examples) -> np.ndarray:
    """The logistic model's win probability for the side to move in each example."""
    return 1.0 / (1.0 + np.exp(-_design(examples.x) @ weights))


def hand_p(examples: Examples) -> np.ndarray:
    """The hand-set evaluation's value read as a win probability, (v + 1) / 2, as the search backs it up."""
    return (examples.hand + 1.0) / 2.0


def shipped_p(examples: Examples) -> np.ndarray:
    """The shipped default evaluation's value read as a win probability (see hand_p)."""
    return (examples.shipped + 1.0) / 2.0


def log_loss(p: np.ndarray, examples: Examples) -> float:
    """Mean cross-entropy of win probabilities `p` against the results (draws count as half a win)."""
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return float(-np.mean(examples.y * np.log(p) + (1 - examples.y) * np.log(1 - p)))


def hit_rate(p: np.ndarray, examples: Examples) -> float:
    """How often the side favoured by `p` won (decided positions, favourite clear of 0.5, only)."""
    decided = (examples.y != 0.5) & (p != 0.5)
    return float(np.mean((p[decided] > 0.5) == (examples.y[decided] == 1.0))) if decided.any() else float("nan")


def fit(examples: Examples, steps: int = NEWTON_STEPS, l2: float = L2) -> np.ndarray:
    """Weights (features then bias) that maximise the likelihood of the results, by Newton's method with an L2
    penalty (the bias is not penalised)."""
    a = _design(examples.x)
    w = np.zeros(a.shape[1])
    penalty = np.full(a.shape[1], l2 * a.shape[0])
    penalty[-1] = 0.0
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-a @ w))
        gradient = a.T @ (p - examples.y) + penalty * w
        hessian = (a * (p * (1 - p))[:, None]).T @ a + np.diag(penalty) + 1e-9 * np.eye(a.shape[1])
        w -= np.linalg.solve(hessian, gradient)
    return w


def split_games(examples: Examples, holdout: float, seed: int) -> tuple[Examples, Examples]:
    """(training, held-out) examples, whole games on either side, chosen at random with `seed`."""
    games = sorted(set(examples.game.tolist()))
    random.Random(seed).shuffle(games)
    held = set(games[:int(round(holdout * len(games)))])
    mask = np.array([g in held for g in examples.game.tolist()], dtype=bool)

    def part(m: np.ndarray) -> Examples:
        shipped = examples.shipped[m] if examples.shipped is not None else None
        return Examples(examples.x[m], examples.y[m], examples.game[m], examples.hand[m], shipped)

    return part(~mask), part(mask)


def weights_block(weights: np.ndarray) -> str:
    """The weights as the ``WEIGHTS`` assignment of ``brain/evaluation.py`` (7 + 8 per side, then the bias)."""
    groups = [weights[0:7], weights[7:15], weights[15:22], weights[22:30], weights[30:31]]
    lines = ["WEIGHTS = np.array(["]
    for group in groups:
        lines.append("    " + " ".join(f"{w:.4f}," for w in group))
    lines.append("])")
    return "\n".join(lines)


def _judged(weights: np.ndarray, examples: Examples, where: str) -> list[str]:
    """How the fitted weights, the shipped ones and the hand-set evaluation predict `examples`, a line each."""
    return [f"{name:8s} {where} log loss {log_loss(p, examples):.4f}, favourite won {hit_rate(p, examples):.1%}"
            for name, p in (("fitted", model_p(weights, examples)), ("shipped", shipped_p(examples)),
                            ("hand-set", hand_p(examples)))]


def value_module(weights: np.ndarray, summary: Sequence[str]) -> str:
    """The text of ``brain/value_weights.py`` holding the codes model's `weights` (attack, defence, bias), its
    docstring the fit's `summary`."""

    def block(name: str, values: np.ndarray) -> list[str]:
        lines = [f"{name} = ["]
        for i in range(0, values.shape[0], 10):
            lines.append("    " + " ".join(f"{v:.5f}," for v in values[i:i + 10]))
        return lines + ["]"]

    doc = ['"""The code value\'s weights (``brain.position.VALUE_LUT``, ``brain.evaluation.code_logit``), written by',
           "``monte fit-eval --model codes``; do not edit by hand.", "", *summary, '"""', ""]
    return "\n".join(doc + block("ATTACK", weights[:ROLE_WEIGHTS]) + [""]
                     + block("DEFENCE", weights[ROLE_WEIGHTS:2 * ROLE_WEIGHTS]) + ["", f"BIAS = {weights[-1]:.5f}"]
                     ) + "\n"


def fitted_report(records: Sequence[GameRecord], holdout: float = 0.2, seed: int = 1, skip_plies: int = 4,
                  tests: Sequence[GameRecord] = (), model: str = "counts") -> tuple[list[str], np.ndarray]:
    """Fit `model` on the training games; the lines that tell how the fitted weights, the shipped evaluation and
    the hand-set one predict the held-out games, and the games of `tests` (played from openings none of `records`
    came from) if any; and the weights."""
    examples = collect(records, skip_plies, model)
    if examples.x.shape[0] == 0:
        raise ValueError("no position to learn from: the games given did not end on the board")
    train, held = split_games(examples, holdout, seed)
    weights = fit(train, l2=L2 if model == "counts" else L2_CODES)
    lines = [f"{model} model: {len(set(examples.game.tolist()))} games, {examples.x.shape[0]} positions "
             f"({train.x.shape[0]} to fit, {held.x.shape[0]} held out in whole games)"]
    if held.x.shape[0]:
        lines += _judged(weights, held, "held-out")
    if tests:
        unseen = collect(tests, skip_plies, model)
        lines.append(f"held-out openings: {len(set(unseen.game.tolist()))} games, {unseen.x.shape[0]} positions")
        if unseen.x.shape[0]:
            lines += _judged(weights, unseen, "unseen openings")
    return lines, weights


def report(records: Sequence[GameRecord], holdout: float = 0.2, seed: int = 1, skip_plies: int = 4,
           tests: Sequence[GameRecord] = ()) -> str:
    """The counts model's fit (``fitted_report``) and its ``WEIGHTS`` block."""
    lines, weights = fitted_report(records, holdout, seed, skip_plies, tests)
    return "\n".join(lines + ["", weights_block(weights)])
