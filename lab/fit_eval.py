"""``monte fit-eval``: fit the learned evaluation (``brain.evaluation``) to played games, Texel's way.

Every position of every game that ended on the board (a five or a full board; forfeits say nothing about the
position) becomes one example: the evaluation's features for the side to move (``brain.evaluation.features``), and
the game's result for that side (1 won, 0 lost, 0.5 drawn). A logistic model -- the one ``learned_logit`` computes --
is fitted by Newton's method with a small L2 penalty, on the games of a training share; the rest, whole games never
split, measure how well it predicts (log loss and how often the likelier side won), against the weights shipped now.

The tool prints the fitted weights as the ``WEIGHTS`` block of ``brain/evaluation.py``; whether they are kept is for
games to say (``pbrain-monte --set eval_model=1`` against the build without it).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from monte.brain.board import Board
from monte.brain.evaluation import FEATURES_PER_SIDE, WEIGHTS, features
from monte.brain.mcts import Params, evaluate
from monte.brain.patterns import C_FIVE
from monte.brain.position import make, new_state
from monte.tournaments.records import GameRecord, Termination

ON_THE_BOARD = (Termination.FIVE, Termination.DRAW_FULL)
"""The endings that say who stood better on the board."""
NEWTON_STEPS = 25
L2 = 1e-3


@dataclass
class Examples:
    """Feature rows, the result for the side to move in each, the game each came from, and the hand-set
    evaluation's value of each position (in [-1, 1], for comparison)."""

    x: np.ndarray
    y: np.ndarray
    game: np.ndarray
    hand: np.ndarray


def game_examples(record: GameRecord, skip_plies: int) -> tuple[list[np.ndarray], list[float], list[float]]:
    """The features, results and hand-set values of one game's positions, from ply `skip_plies` on; none for a game that did not
    end on the board. A position whose side to move has a five to play is left out (the search never evaluates
    those)."""
    if record.termination not in ON_THE_BOARD:
        return [], [], []
    board = Board(record.width, record.height, record.rule)
    st = new_state(board)
    winner_colour = 0
    if record.winner is not None:
        winner_colour = 1 if record.winner == record.black else 2
    rows, results, hand = [], [], []
    hand_set = Params(eval_model=0)
    colour = 1
    stones = [tuple(stone) for stone in record.opening] + [(x, y) for x, y, _ in record.moves]
    for ply, (x, y) in enumerate(stones, 1):
        make(st, board.index(x, y), colour)
        colour = 3 - colour
        if ply < skip_plies or st.cls_count[colour - 1, C_FIVE] > 0 or st.cls_count[2 - colour, C_FIVE] > 1:
            continue
        rows.append(features(st, colour - 1))
        results.append(0.5 if winner_colour == 0 else float(winner_colour == colour))
        hand.append(float(evaluate(st, colour, hand_set)[0]))
    return rows, results, hand


def collect(records: Iterable[GameRecord], skip_plies: int = 4) -> Examples:
    """Every example of `records` (see ``game_examples``)."""
    rows, results, games, hand = [], [], [], []
    for number, record in enumerate(records):
        game_rows, game_results, game_hand = game_examples(record, skip_plies)
        rows += game_rows
        results += game_results
        hand += game_hand
        games += [number] * len(game_rows)
    width = 2 * FEATURES_PER_SIDE
    x = np.array(rows, dtype=np.float64).reshape(-1, width)
    return Examples(x, np.array(results, dtype=np.float64), np.array(games, dtype=np.int64),
                    np.array(hand, dtype=np.float64))


def _design(x: np.ndarray) -> np.ndarray:
    """The features with a column of ones for the bias (the last weight, as in ``WEIGHTS``)."""
    return np.hstack([x, np.ones((x.shape[0], 1))])


def model_p(weights: np.ndarray, examples: Examples) -> np.ndarray:
    """The logistic model's win probability for the side to move in each example."""
    return 1.0 / (1.0 + np.exp(-_design(examples.x) @ weights))


def hand_p(examples: Examples) -> np.ndarray:
    """The hand-set evaluation's value read as a win probability, (v + 1) / 2, as the search backs it up."""
    return (examples.hand + 1.0) / 2.0


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


def held_out_mask(game: np.ndarray, holdout: float, seed: int) -> np.ndarray:
    """For each example's game number in `game`, whether its game is among the `holdout` share of the games held
    out, chosen at random with `seed` (whole games: all of a game's examples fall on one side)."""
    games = sorted(set(game.tolist()))
    random.Random(seed).shuffle(games)
    held = set(games[:int(round(holdout * len(games)))])
    return np.array([g in held for g in game.tolist()], dtype=bool)


def split_games(examples: Examples, holdout: float, seed: int) -> tuple[Examples, Examples]:
    """(training, held-out) examples, whole games on either side, chosen at random with `seed`."""
    mask = held_out_mask(examples.game, holdout, seed)

    def part(m: np.ndarray) -> Examples:
        return Examples(examples.x[m], examples.y[m], examples.game[m], examples.hand[m])

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
            for name, p in (("fitted", model_p(weights, examples)), ("shipped", model_p(WEIGHTS, examples)),
                            ("hand-set", hand_p(examples)))]


def report(records: Sequence[GameRecord], holdout: float = 0.2, seed: int = 1, skip_plies: int = 4,
           tests: Sequence[GameRecord] = ()) -> str:
    """Fit on the training games and tell how the fitted and the shipped weights predict the held-out ones, and
    the games of `tests` (played from openings none of `records` came from) if any."""
    examples = collect(records, skip_plies)
    if examples.x.shape[0] == 0:
        raise ValueError("no position to learn from: the games given did not end on the board")
    train, held = split_games(examples, holdout, seed)
    weights = fit(train)
    lines = [f"{len(set(examples.game.tolist()))} games, {examples.x.shape[0]} positions "
             f"({train.x.shape[0]} to fit, {held.x.shape[0]} held out in whole games)"]
    if held.x.shape[0]:
        lines += _judged(weights, held, "held-out")
    if tests:
        unseen = collect(tests, skip_plies)
        lines.append(f"held-out openings: {len(set(unseen.game.tolist()))} games, {unseen.x.shape[0]} positions")
        if unseen.x.shape[0]:
            lines += _judged(weights, unseen, "unseen openings")
    lines += ["", weights_block(weights)]
    return "\n".join(lines)
