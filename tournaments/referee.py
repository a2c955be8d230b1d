"""The referee: the runner's own judgement of every move, so no engine's claim about the game is ever trusted.

It keeps the board (``brain.board.Board``) and, after each move, says whether the game goes on or how it ended: five
in a row as the rule counts it (exactly five, renju's black-exactly-five, caro's unblocked five), a renju foul by
black (a loss), an occupied or off-board cell (a loss), a full board (a draw), renju's draw once the board holds
``width*height - 25`` stones (200 on 15x15, as the Gomocup judge plays it), or the optional draw after N stones.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from monte.brain.board import MOVE_FORBIDDEN, MOVE_WINS, Board
from monte.brain.codes import RULE_RENJU
from monte.tournaments.records import Termination

RENJU_FREE_CELLS = 25
"""Renju games are drawn when only this many cells are left, as the Gomocup judge rules (200 stones on 15x15)."""

COLOR_NAMES = {1: "black", 2: "white"}


@dataclass(frozen=True)
class Ruling:
    """How a game ended: why, which colour won (None for a draw), and a sentence for the record."""

    termination: Termination
    winner: int | None
    detail: str


class Referee:
    """One game's board and the rules that decide it."""

    def __init__(self, width: int, height: int, rule: int, *, draw_after: int = 0) -> None:
        """`draw_after` > 0 draws the game once that many stones (opening included) are on the board."""
        self.board = Board(width, height, rule)
        limits = [draw_after] if draw_after > 0 else []
        if rule & RULE_RENJU and width * height > RENJU_FREE_CELLS:
            limits.append(width * height - RENJU_FREE_CELLS)
        self.stone_limit = min(limits) if limits else None

    @property
    def to_move(self) -> int:
        """The colour whose move it is (BLACK or WHITE)."""
        return self.board.to_move

    def stones(self) -> list[tuple[int, int, int]]:
        """Every stone as (x, y, colour), in the order played."""
        return [(m.x, m.y, m.color) for m in self.board.history]

    def set_up(self, opening: Sequence[tuple[int, int]]) -> None:
        """Put the opening's stones on the board, black first, colours alternating; ValueError if one does not fit
        or the opening already decides the game."""
        for x, y in opening:
            if not self.board.is_empty(x, y):
                raise ValueError(f"opening stone {x},{y} is off the board or on an occupied cell")
            ruling = self.move(x, y)
            if ruling is not None:
                raise ValueError(f"the opening already ends the game: {ruling.detail}")

    def move(self, x: int, y: int) -> Ruling | None:
        """Play (x, y) for the side to move; None if the game goes on, else the ruling that ends it."""
        color = self.board.to_move
        side = COLOR_NAMES[color]
        if not self.board.inside(x, y):
            return Ruling(Termination.OFF_BOARD, 3 - color, f"{side} played {x},{y}, off the board")
        if not self.board.is_empty(x, y):
            return Ruling(Termination.ILLEGAL, 3 - color, f"{side} played {x},{y}, which is occupied")
        verdict = self.board.play(x, y)
        if verdict == MOVE_WINS:
            return Ruling(Termination.FIVE, color, f"{side} made five with {x},{y}")
        if verdict == MOVE_FORBIDDEN:
            return Ruling(Termination.FOUL, 3 - color, f"black played {x},{y}, a forbidden point under renju")
        if self.board.is_full():
            return Ruling(Termination.DRAW_FULL, None, "the board is full")
        if self.stone_limit is not None and self.board.stone_count >= self.stone_limit:
            return Ruling(Termination.DRAW_MOVES, None, f"drawn after {self.board.stone_count} stones")
        return None
