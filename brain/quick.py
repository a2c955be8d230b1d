"""The quick player: moves without compiled code, within the clock, for a brain whose compiled engine is still loading
(``brain.loading``) -- from a cold cache that is a minute of compiling, in which a manager would forfeit a brain that
waited.

It is the greedy baseline run interpreted (``brain.kernels``): take a five; else block the opponent's five (its four);
else the best cell by the greedy one-ply pattern score (own open fours and four-threes first, then blocks of the
opponent's, then threes and shape). Interpreted, the scan costs about a millisecond a cell, so the cells are scanned
nearest the last stones first, a few at a time, until SCAN_SHARE of the move's time is spent: the best cell found by
then is played.
"""

from __future__ import annotations

import time

import numpy as np

from monte.brain import kernels
from monte.brain.board import MOVE_FORBIDDEN, Board, opponent
from monte.brain.player import MoveChoice, ThinkLimits

CHUNK_CELLS = 6
"""Cells scanned between two looks at the clock."""
SCAN_SHARE = 0.7
"""The share of the time to the hard deadline the scan may use: the rest covers a loader thread holding the GIL
for tens of milliseconds at a time (``brain.loading``) and the reply."""


class QuickPlayer:
    """The greedy scan, interpreted and cut by the clock (see the module docstring)."""

    name = "quick"

    def warm_up(self) -> None:
        """Nothing to compile, that is the point: only load the interpreted modules it runs (``brain.kernels``)."""
        kernels.interpreted("monte.brain.baselines")

    def new_game(self, board: Board) -> None:
        """Nothing to forget."""

    def prepare(self, board: Board, max_memory: int) -> None:
        """Nothing to build."""

    def choose(self, board: Board, limits: ThinkLimits) -> MoveChoice:
        """A five, a block of the opponent's five, or the best-scoring cell scanned before the hard deadline."""
        started = time.monotonic()
        greedy = kernels.interpreted("monte.brain.baselines")
        me = board.to_move
        if not board.history and board.is_empty(board.width // 2, board.height // 2):
            return MoveChoice(board.width // 2, board.height // 2, "quick: the centre")
        for color, what in ((me, "five"), (opponent(me), "blocks a five")):
            for idx in np.flatnonzero(greedy.winning_mask(board.cells, board.stride, color, board.rule)):
                x, y = board.coords(idx)
                if board.judge(x, y, me) != MOVE_FORBIDDEN:
                    return MoveChoice(x, y, f"quick: {what}")
        cells = self._nearest_first(board, np.flatnonzero(greedy.candidate_mask(board.cells, board.stride,
                                                                               greedy.NEAR)))
        scan_until = started + SCAN_SHARE * max(0.0, limits.hard_deadline - started)
        best, best_score, scanned, slowest = -1, -1, 0, 0.0
        while scanned < len(cells) and not limits.stop.is_set() and time.monotonic() + slowest < scan_until:
            chunk_started = time.monotonic()
            mask = np.zeros(board.cells.shape[0], dtype=np.bool_)
            mask[cells[scanned:scanned + CHUNK_CELLS]] = True
            idx, score = greedy.greedy_scan(board.cells, board.stride, board.width, board.height, me, board.rule,
                                            greedy.ATTACK_WEIGHTS, greedy.DEFENCE_WEIGHTS, greedy.WINDOW_WEIGHTS, mask)
            if idx >= 0 and score > best_score:
                best, best_score = int(idx), int(score)
            scanned += CHUNK_CELLS
            slowest = max(slowest, time.monotonic() - chunk_started)
        if best < 0:
            return self._any_legal(board, cells, started)
        x, y = board.coords(best)
        return MoveChoice(x, y, f"quick: greedy score {best_score}, {min(scanned, len(cells))} of {len(cells)} cells "
                                f"in {(time.monotonic() - started) * 1000:.0f}ms")

    @staticmethod
    def _nearest_first(board: Board, cells: np.ndarray) -> list[int]:
        """The cells, those nearest the last two stones first (where the play is), then row by row."""
        last = [board.index(m.x, m.y) for m in board.history[-2:]]

        def distance(idx: int) -> int:
            x, y = board.coords(idx)
            return min((max(abs(x - board.coords(q)[0]), abs(y - board.coords(q)[1])) for q in last), default=0)

        return sorted((int(idx) for idx in cells), key=lambda idx: (distance(idx), idx))

    @staticmethod
    def _any_legal(board: Board, cells: list[int], started: float) -> MoveChoice:
        """No time to score anything: the nearest candidate that is legal, else any legal cell."""
        for idx in cells:
            x, y = board.coords(idx)
            if board.judge(x, y, board.to_move) != MOVE_FORBIDDEN:
                return MoveChoice(x, y, f"quick: no time to scan ({(time.monotonic() - started) * 1000:.0f}ms)")
        x, y = board.legal_moves()[0]
        return MoveChoice(x, y, "quick: no candidate left")
