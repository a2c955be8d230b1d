"""``monte fit-eval``: fit the value network (``brain.evaluation``) to labelled positions and to played games.

Two kinds of example, one model. A position labelled by a judge engine (``monte label-positions``) is learned toward
the judge's win rate for the side to move; a position of a played game, toward the game's result for it (1 won, 0
lost, 0.5 drawn: Texel's method). Either way the loss is the cross-entropy between the network's win probability
and the target, minimised by full-batch Adam with a small L2 penalty on the weights. A share of the examples, chosen
at random, is held out to measure the fit -- against the shipped weights and the hand-set evaluation read as a
probability -- and the weights written are refitted on everything.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from monte.brain.board import Board
from monte.brain.evaluation import NETWORK_INPUTS, network_inputs
from monte.brain.mcts import Params, evaluate
from monte.brain.patterns import C_FIVE
from monte.brain.position import class_count, make, new_state
from monte.lab.value_labels import Label
from monte.tournaments.records import GameRecord, Termination

ON_THE_BOARD = (Termination.FIVE, Termination.DRAW_FULL)
"""The endings that say who stood better on the board (a forfeit says nothing about the position)."""
HAND_SET = Params(eval_model=0)


@dataclass
class Examples:
    """Network inputs, the target win rate for the side to move, and the hand-set evaluation's value (in [-1, 1],
    for comparison)."""

    x: np.ndarray
    y: np.ndarray
    hand: np.ndarray

    @property
    def size(self) -> int:
        return self.y.shape[0]

    def part(self, mask: np.ndarray) -> "Examples":
        return Examples(self.x[mask], self.y[mask], self.hand[mask])


@dataclass
class Network:
    """One hidden layer of ReLU units: ``w2 . relu(x @ w1 + b1) + b2`` is the logit that the side to move wins."""

    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: float

    def probability(self, x: np.ndarray) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(-(np.maximum(x @ self.w1 + self.b1, 0.0) @ self.w2 + self.b2)))


def _evaluated_positions(width: int, height: int, rule: int, stones: Sequence[tuple[int, int]],
                         from_ply: int) -> Iterator[tuple[int, np.ndarray, float]]:
    """Replay `stones` (black first, colours alternating) and give, at each ply from `from_ply` on (0: before the
    first stone), the colour to move, the network's inputs and the hand-set value -- for the positions the search
    would evaluate (a five to play, or two to face, are proofs, never values)."""
    board = Board(width, height, rule)
    st = new_state(board)
    colour = 1
    for ply in range(len(stones) + 1):
        if ply:
            x, y = stones[ply - 1]
            make(st, board.index(x, y), colour)
            colour = 3 - colour
        decided = class_count(st, colour - 1, C_FIVE) > 0 or class_count(st, 2 - colour, C_FIVE) > 1
        if ply >= from_ply and not decided:
            yield colour, network_inputs(st, colour - 1), float(evaluate(st, colour, HAND_SET)[0])


def _examples(found: Sequence[tuple[np.ndarray, float, float]]) -> Examples:
    """Examples from (inputs, target, hand-set value) triples."""
    rows, targets, hand = zip(*found) if found else ((), (), ())
    return Examples(np.array(rows, dtype=np.float64).reshape(-1, NETWORK_INPUTS), np.array(targets, dtype=np.float64),
                    np.array(hand, dtype=np.float64))


def from_labels(labels: Iterable[Label]) -> Examples:
    """One example per labelled position the search would evaluate, its target the judge's win rate."""
    return _examples([(inputs, label.winrate, hand) for label in labels
                      for _, inputs, hand in _evaluated_positions(label.width, label.height, label.rule, label.stones,
                                                                  len(label.stones))])


def from_games(records: Iterable[GameRecord], skip_plies: int = 4) -> Examples:
    """One example per position of each game that ended on the board, from ply `skip_plies` on, its target the
    game's result for the side to move."""
    found = []
    for record in records:
        if record.termination not in ON_THE_BOARD:
            continue
        winner = 0 if record.winner is None else (1 if record.winner == record.black else 2)
        stones = [tuple(stone) for stone in record.opening] + [(x, y) for x, y, _ in record.moves]
        found += [(inputs, 0.5 if winner == 0 else float(winner == colour), hand) for colour, inputs, hand
                  in _evaluated_positions(record.width, record.height, record.rule, stones, max(skip_plies, 1))]
    return _examples(found)


def joined(parts: Sequence[Examples]) -> Examples:
    return Examples(np.vstack([p.x for p in parts]), np.concatenate([p.y for p in parts]),
                    np.concatenate([p.hand for p in parts]))


def cross_entropy(p: np.ndarray, y: np.ndarray) -> float:
    """Mean cross-entropy of probabilities `p` against targets `y` (soft targets allowed)."""
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def fit(ex: Examples, hidden: int = 32, steps: int = 4000, rate: float = 0.01, l2: float = 1e-4,
        seed: int = 0) -> Network:
    """The network minimising cross-entropy to the targets (full-batch Adam from random weights of scale
    1/sqrt(fan-in), seeded by `seed`)."""
    rng = np.random.default_rng(seed)
    params = [rng.normal(0.0, 1.0 / np.sqrt(NETWORK_INPUTS), (NETWORK_INPUTS, hidden)), np.zeros(hidden),
              rng.normal(0.0, 1.0 / np.sqrt(hidden), hidden), np.zeros(1)]
    first = [np.zeros_like(q) for q in params]
    second = [np.zeros_like(q) for q in params]
    for t in range(1, steps + 1):
        w1, b1, w2, b2 = params
        h = np.maximum(ex.x @ w1 + b1, 0.0)
        p = 1.0 / (1.0 + np.exp(-(h @ w2 + b2[0])))
        d = (p - ex.y) / ex.size
        dh = np.outer(d, w2) * (h > 0)
        grads = (ex.x.T @ dh + l2 * w1, dh.sum(0), h.T @ d + l2 * w2, np.array([d.sum()]))
        for i, g in enumerate(grads):
            first[i] = 0.9 * first[i] + 0.1 * g
            second[i] = 0.999 * second[i] + 0.001 * g * g
            params[i] -= rate * (first[i] / (1 - 0.9 ** t)) / (np.sqrt(second[i] / (1 - 0.999 ** t)) + 1e-8)
    return Network(params[0], params[1], params[2], float(params[3][0]))


def held_out_split(ex: Examples, holdout: float, seed: int) -> tuple[Examples, Examples]:
    """(training, held-out) examples, a random `holdout` share held out."""
    mask = np.random.default_rng(seed).random(ex.size) < holdout
    return ex.part(~mask), ex.part(mask)


def judged_lines(net: Network, shipped: Network, ex: Examples, where: str) -> list[str]:
    """How the fitted and the shipped networks and the hand-set evaluation predict `ex`, a line each."""
    floor = cross_entropy(ex.y, ex.y)
    lines = [f"{where}: {ex.size} positions (a perfect fit: cross-entropy {floor:.4f})"]
    for name, p in (("fitted", net.probability(ex.x)), ("shipped", shipped.probability(ex.x)),
                    ("hand-set", (ex.hand + 1.0) / 2.0)):
        agree = np.mean((p > 0.5) == (ex.y > 0.5))
        lines.append(f"  {name:8s} cross-entropy {cross_entropy(p, ex.y):.4f}, same favourite {agree:.1%}")
    return lines


def _row(values: np.ndarray, indent: str) -> str:
    """Numbers ten to a line."""
    return f",\n{indent}".join(", ".join(f"{round(v, 5) + 0.0:.5f}" for v in values[i:i + 10])
                                for i in range(0, len(values), 10))


def _array(a: np.ndarray) -> str:
    if a.ndim == 1:
        return f"np.array([\n    {_row(a, '    ')},\n])"
    return "np.array([\n" + "".join(f"    [{_row(row, '     ')}],\n" for row in a) + "])"


def weights_module(net: Network, summary: Sequence[str]) -> str:
    """The network as ``brain/value_weights.py``."""
    doc = "\n".join(summary)
    return (f'"""The value network\'s weights (``brain.evaluation``), written by ``monte fit-eval``; do not edit by '
            f'hand.\n\n{doc}\n"""\n\nimport numpy as np\n\nHIDDEN = {net.w1.shape[1]}\n'
            f"W1 = {_array(net.w1)}\nB1 = {_array(net.b1)}\nW2 = {_array(net.w2)}\nB2 = {net.b2:.5f}\n")
