"""Decisions of the swap2 opening (the protocol's SWAP2BOARD), made simply with a player's evaluation.

Swap2: the opener puts three stones (black, white, black); the responder either takes black (``SWAP``; the opener
then plays white's 4th move), plays white's 4th move itself, or adds two stones (white, black) and lets the opener
choose. With five stones the opener either takes black (``SWAP``) or plays white's 6th move.

An evaluation is a number in (-1, 1) for the side to move (white, at 3 and 5 stones). Players may offer one as
``evaluate(board)``; otherwise the baselines' static shape evaluation is used.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from monte.brain import kernels
from monte.brain.board import BLACK, WHITE, Board
from monte.brain.player import Player, ThinkLimits

SWAP = "SWAP"

BALANCE_MARGIN = 0.25
"""At three stones, evaluations within this of 0 count as balanced: add two stones and let the opener choose."""

OPENING_RADIUS = 2
"""The opener's white and second black stones lie within this many cells of the centre stone."""


@dataclass
class Swap2Answer:
    """What to reply, the stones that reply adds (colours go on alternating from the side to move), and the colour
    we play from now on (None while the opponent still chooses)."""

    reply: str
    stones: list[tuple[int, int]]
    our_color: int | None


Evaluation = Callable[[Board], float]


def static_evaluation(board: Board) -> float:
    """The baselines' static shape evaluation (``brain.baselines.shape_evaluation``), compiled or interpreted as
    ``brain.kernels`` says."""
    return kernels.module("monte.brain.baselines").shape_evaluation(board)


def evaluation_of(player: Player) -> Evaluation:
    """The player's own ``evaluate(board)`` if it has one, else the static shape evaluation."""
    return getattr(player, "evaluate", static_evaluation)


def answer(board: Board, player: Player, limits: ThinkLimits) -> Swap2Answer:
    """The swap2 answer for `board` (0, 3 or 5 stones, black first, colours alternating); `board` is not changed."""
    count = board.stone_count
    if count not in (0, 3, 5):
        raise ValueError(f"swap2 needs 0, 3 or 5 stones, not {count}")
    evaluate = evaluation_of(player)
    if count == 0:
        stones = balanced_opening(board, evaluate, limits)
        return Swap2Answer(_format(stones), stones, None)
    value = evaluate(board)
    if value < (-BALANCE_MARGIN if count == 3 else 0.0):
        return Swap2Answer(SWAP, [], BLACK)
    if count == 5 or value > BALANCE_MARGIN:
        first = player.choose(board, limits)
        return Swap2Answer(_format([(first.x, first.y)]), [(first.x, first.y)], WHITE)
    # two stones to choose within one move's time: the first gets half of it, the second what is left
    first = player.choose(board, limits.share(0.5))
    trial = board.copy()
    trial.place(first.x, first.y, WHITE)
    second = player.choose(trial, limits)
    stones = [(first.x, first.y), (second.x, second.y)]
    return Swap2Answer(_format(stones), stones, None)


def balanced_opening(board: Board, evaluate: Evaluation, limits: ThinkLimits) -> list[tuple[int, int]]:
    """Three opening stones (black on the centre, then white and black near it) whose position the evaluation
    finds closest to even for white to move; the first such in row order on ties. When the limits expire, the best
    found so far (at least one white stone's blacks are always tried)."""
    cx, cy = board.width // 2, board.height // 2
    near = [
        (cx + dx, cy + dy)
        for dy in range(-OPENING_RADIUS, OPENING_RADIUS + 1)
        for dx in range(-OPENING_RADIUS, OPENING_RADIUS + 1)
        if (dx, dy) != (0, 0) and board.is_empty(cx + dx, cy + dy)
    ]
    trial = board.copy()
    trial.place(cx, cy, BLACK)
    best: list[tuple[int, int]] = []
    best_gap = float("inf")
    for white in near:
        if best and limits.expired():
            break
        trial.place(*white, WHITE)
        for black in near:
            if black == white:
                continue
            trial.place(*black, BLACK)
            gap = abs(evaluate(trial))
            trial.undo()
            if gap < best_gap:
                best, best_gap = [(cx, cy), white, black], gap
        trial.undo()
    return best


def _format(stones: list[tuple[int, int]]) -> str:
    """Stones as the protocol writes them: ``x,y x,y ...``."""
    return " ".join(f"{x},{y}" for x, y in stones)
