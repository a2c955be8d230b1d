"""The baseline players: a one-ply pattern scorer (``greedy``) and a random mover (``random``).

They are the yardsticks the MCTS brain is measured against, and the brain's first real players, so both must be
correct under every rule: they never play an occupied cell or (black under renju) a forbidden point, and they take
a win when one is on the board. ``GreedyPlayer`` also defends: it blocks fives, fours and open threes.

The greedy scan is a numba kernel over ``board.cells``. For each empty cell near the stones it asks, for each side,
what a stone there would make on each of the four lines (five, open four, four, open three, three), combines the
lines into one class (five > open four or double four > four-three > double three > the rest, summed), and adds
the attack value for the side to move to the defence value of blocking the opponent there. The weights keep the
order "my five > block a five > my open four > my four-three > block an open four > block a four-three > ...".
"""

from __future__ import annotations

import math
import random

import numpy as np

from monte.brain.board import PAD, Board
from monte.brain.jit import BoolArray, Int8Array, Int64Array, njit
from monte.brain.player import MoveChoice, ThinkLimits
from monte.brain.rules import (
    BLACK, EMPTY, MOVE_FORBIDDEN, RULE_RENJU, WALL, WHITE, five_in_direction, judge_move, line_step, makes_five,
)

# What one stone makes along one line.
SHAPE_NONE, SHAPE_THREE, SHAPE_OPEN_THREE, SHAPE_FOUR, SHAPE_OPEN_FOUR, SHAPE_FIVE = range(6)

# Weight table slots: the combined classes first, then the per-line values summed for weaker cells.
W_FIVE, W_OPEN_FOUR, W_FOUR_THREE, W_THREE_THREE, W_FOUR, W_OPEN_THREE, W_THREE = range(7)

ATTACK_WEIGHTS = np.array([100_000_000, 1_000_000, 600_000, 50_000, 1_200, 1_500, 150], dtype=np.int64)
"""What a cell is worth for the side to move, by what its stone would make there."""

DEFENCE_WEIGHTS = np.array([10_000_000, 500_000, 200_000, 20_000, 500, 1_000, 60], dtype=np.int64)
"""What a cell is worth for taking it away from the opponent, by what the opponent's stone would make there."""

WINDOW_WEIGHTS = np.array([0, 1, 3, 9, 27, 81], dtype=np.int64)
"""The value of a five-cell window holding k stones of one side and nothing of the other (a shape measure)."""

NEAR = 2
"""Candidate moves lie within this many cells (in x and y) of a stone."""

EVAL_SCALE = 40.0
"""Shape difference that the static evaluation maps to tanh(1) ~ 0.76."""


class NoLegalMove(RuntimeError):
    """The side to move has no legal move (a full board, or only forbidden points left for black)."""


@njit(cache=True)
def _five_points(cells: np.ndarray, idx: int, step: int, color: int, rule: int) -> int:
    """How many empty points on idx's line would give `color` a five that passes through idx (a stone is on idx)."""
    count = 0
    for k in range(-4, 5):
        q = idx + k * step
        if k == 0 or cells[q] != EMPTY:
            continue
        joined = True
        for m in range(min(k, 0) + 1, max(k, 0)):
            if cells[idx + m * step] != color:
                joined = False
                break
        if joined and five_in_direction(cells, q, step, color, rule):
            count += 1
    return count


@njit(cache=True)
def _line_shape(cells: np.ndarray, idx: int, step: int, color: int, rule: int) -> int:
    """The shape (SHAPE_*) the `color` stone on idx makes along one line.

    Four and open four count the empty points that would complete a five through idx (one, or two or more); a
    three is a line where one more stone makes a four (open three: an open four).
    """
    if five_in_direction(cells, idx, step, color, rule):
        return SHAPE_FIVE
    points = _five_points(cells, idx, step, color, rule)
    if points >= 2:
        return SHAPE_OPEN_FOUR
    if points == 1:
        return SHAPE_FOUR
    shape = SHAPE_NONE
    for k in range(-4, 5):
        q = idx + k * step
        if k == 0 or cells[q] != EMPTY:
            continue
        cells[q] = color
        after = _five_points(cells, idx, step, color, rule)
        cells[q] = EMPTY
        if after >= 2:
            return SHAPE_OPEN_THREE
        if after == 1:
            shape = SHAPE_THREE
    return shape


@njit(cache=True)
def _window_value(cells: np.ndarray, idx: int, step: int, color: int, window_weights: np.ndarray) -> int:
    """The summed WINDOW_WEIGHTS of the five-cell windows through idx on one line that `color` alone occupies."""
    total = 0
    for start in range(-4, 1):
        stones = 0
        for m in range(start, start + 5):
            cell = cells[idx + m * step]
            if cell == color:
                stones += 1
            elif cell != EMPTY:
                stones = -1
                break
        if stones > 0:
            total += window_weights[stones]
    return total


@njit(cache=True)
def _cell_value(
    cells: np.ndarray, stride: int, idx: int, color: int, rule: int, weights: np.ndarray, window_weights: np.ndarray
) -> int:
    """What a `color` stone on the empty cell idx is worth, valued with `weights` (attack or defence table)."""
    cells[idx] = color
    five = False
    fours = 0
    open_threes = 0
    threes = 0
    shape_total = 0
    for d in range(4):
        step = line_step(stride, d)
        shape = _line_shape(cells, idx, step, color, rule)
        if shape == SHAPE_FIVE:
            five = True
        elif shape == SHAPE_OPEN_FOUR:
            fours += 2
        elif shape == SHAPE_FOUR:
            fours += 1
        elif shape == SHAPE_OPEN_THREE:
            open_threes += 1
        elif shape == SHAPE_THREE:
            threes += 1
        shape_total += _window_value(cells, idx, step, color, window_weights)
    cells[idx] = EMPTY
    if five:
        return weights[W_FIVE]
    if fours >= 2:
        return weights[W_OPEN_FOUR]
    if fours == 1 and open_threes > 0:
        return weights[W_FOUR_THREE]
    if open_threes >= 2:
        return weights[W_THREE_THREE]
    return fours * weights[W_FOUR] + open_threes * weights[W_OPEN_THREE] + threes * weights[W_THREE] + shape_total


@njit(cache=True)
def candidate_mask(cells: Int8Array, stride: int, near: int) -> np.ndarray:
    """Empty cells within `near` of a stone; every empty cell when there is no stone yet."""
    marked = np.zeros(cells.shape[0], dtype=np.bool_)
    any_stone = False
    for idx in range(cells.shape[0]):
        if cells[idx] == BLACK or cells[idx] == WHITE:
            any_stone = True
            for dy in range(-near, near + 1):
                for dx in range(-near, near + 1):
                    q = idx + dy * stride + dx
                    if cells[q] == EMPTY:
                        marked[q] = True
    if not any_stone:
        for idx in range(cells.shape[0]):
            marked[idx] = cells[idx] == EMPTY
    return marked


@njit(cache=True)
def greedy_scan(
    cells: Int8Array,
    stride: int,
    width: int,
    height: int,
    color: int,
    rule: int,
    attack: Int64Array,
    defence: Int64Array,
    window_weights: Int64Array,
    candidates: BoolArray,
) -> tuple[int, int]:
    """The best of the `candidates` cells (a mask, see ``candidate_mask``) for `color` by one-ply pattern score, and
    its score; (-1, -1) if no candidate is legal.

    Ties go to the cell nearest the centre (width // 2, height // 2), then to the lowest index, so the choice is
    deterministic. Black's forbidden points (renju) are never chosen, and the opponent is not "blocked" on a point
    where it may not play.
    """
    work = cells.copy()
    marked = candidates
    opponent = 3 - color
    renju = (rule & RULE_RENJU) != 0
    best = -1
    best_score = -1
    best_distance = 0
    for idx in range(work.shape[0]):
        if not marked[idx]:
            continue
        if renju and color == BLACK and judge_move(work, stride, idx, BLACK, rule) == MOVE_FORBIDDEN:
            continue
        score = _cell_value(work, stride, idx, color, rule, attack, window_weights)
        if not (renju and opponent == BLACK and judge_move(work, stride, idx, BLACK, rule) == MOVE_FORBIDDEN):
            score += _cell_value(work, stride, idx, opponent, rule, defence, window_weights)
        dx = idx % stride - PAD - width // 2
        dy = idx // stride - PAD - height // 2
        distance = dx * dx + dy * dy
        if score > best_score or (score == best_score and distance < best_distance):
            best, best_score, best_distance = idx, score, distance
    return best, best_score


@njit(cache=True)
def winning_mask(cells: Int8Array, stride: int, color: int, rule: int) -> np.ndarray:
    """A mask of the empty cells where a `color` stone wins at once under `rule`."""
    out = np.zeros(cells.shape[0], dtype=np.bool_)
    for idx in range(cells.shape[0]):
        if cells[idx] == EMPTY and makes_five(cells, stride, idx, color, rule):
            out[idx] = True
    return out


@njit(cache=True)
def shape_totals(cells: Int8Array, stride: int, window_weights: Int64Array) -> tuple[int, int]:
    """Black's and white's summed WINDOW_WEIGHTS over every five-cell window of the board (a static shape score)."""
    black = 0
    white = 0
    for idx in range(cells.shape[0]):
        if cells[idx] == WALL:
            continue
        for d in range(4):
            step = line_step(stride, d)
            blacks = 0
            whites = 0
            blocked = False
            for m in range(5):
                cell = cells[idx + m * step]
                if cell == BLACK:
                    blacks += 1
                elif cell == WHITE:
                    whites += 1
                elif cell == WALL:
                    blocked = True
                    break
            if blocked:
                continue
            if whites == 0:
                black += window_weights[blacks]
            elif blacks == 0:
                white += window_weights[whites]
    return black, white


def warm_up_kernels() -> None:
    """``brain.warmup.warm_up``, imported here rather than at the top: the quick player runs this module
    interpreted (``brain.kernels``), where the warm-up has no place."""
    from monte.brain.warmup import warm_up

    warm_up()


def winning_moves(board: Board, color: int) -> list[tuple[int, int]]:
    """Every (x, y) where a `color` stone wins at once under the board's rule, row by row."""
    mask = winning_mask(board.cells, board.stride, color, board.rule)
    return [board.coords(idx) for idx in np.flatnonzero(mask)]


def shape_evaluation(board: Board) -> float:
    """A static evaluation in (-1, 1) for the side to move: the difference of both sides' window shapes, squashed.

    It is the baselines' "evaluation" (SWAP2 decisions use it); it sees shapes, not tactics.
    """
    black, white = shape_totals(board.cells, board.stride, WINDOW_WEIGHTS)
    mine, theirs = (black, white) if board.to_move == BLACK else (white, black)
    return math.tanh((mine - theirs) / EVAL_SCALE)


class GreedyPlayer:
    """One-ply pattern scorer: deterministic, instant, and tactically sound one move deep."""

    name = "greedy"

    def warm_up(self) -> None:
        """Compile or load the brain's compiled functions (``brain.warmup``)."""
        warm_up_kernels()

    def new_game(self, board: Board) -> None:
        """Nothing to forget: the player keeps no state between moves."""

    def prepare(self, board: Board, max_memory: int) -> None:
        """Nothing to build: the scan works on the board as it is."""

    def choose(self, board: Board, limits: ThinkLimits) -> MoveChoice:
        """The best-scoring cell for the side to move (the scan takes milliseconds, so `limits` never bind)."""
        idx, score = greedy_scan(
            board.cells, board.stride, board.width, board.height, board.to_move, board.rule,
            ATTACK_WEIGHTS, DEFENCE_WEIGHTS, WINDOW_WEIGHTS, candidate_mask(board.cells, board.stride, NEAR),
        )
        if idx < 0:
            raise NoLegalMove("no legal move is left for the side to move")
        x, y = board.coords(idx)
        return MoveChoice(x, y, f"greedy score {score}")

    def evaluate(self, board: Board) -> float:
        """How good the position is for the side to move, in (-1, 1)."""
        return shape_evaluation(board)


class RandomPlayer:
    """A random legal move, except that it opens in the centre and takes a win when one is on the board. Seeded for
    reproducible games."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def warm_up(self) -> None:
        """Compile or load the brain's compiled functions (``brain.warmup``)."""
        warm_up_kernels()

    def new_game(self, board: Board) -> None:
        """Nothing to forget: the random stream simply goes on."""

    def prepare(self, board: Board, max_memory: int) -> None:
        """Nothing to build: a random move needs no tables."""

    def choose(self, board: Board, limits: ThinkLimits) -> MoveChoice:
        """The centre of an empty board; else a winning cell if there is one, else any legal cell, drawn from the
        seeded stream."""
        centre = (board.width // 2, board.height // 2)
        if not board.history and board.is_empty(*centre):
            return MoveChoice(*centre)
        wins = winning_moves(board, board.to_move)
        if wins:
            x, y = self._rng.choice(wins)
            return MoveChoice(x, y, "random: winning move")
        moves = board.legal_moves()
        if not moves:
            raise NoLegalMove("no legal move is left for the side to move")
        x, y = self._rng.choice(moves)
        return MoveChoice(x, y)

    def evaluate(self, board: Board) -> float:
        """A random opinion in (-1, 1): the random baseline decides SWAP2 questions by chance too."""
        return self._rng.uniform(-1.0, 1.0)
