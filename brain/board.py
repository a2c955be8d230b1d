"""The game board: a flat, wall-framed numpy array that the compiled kernels read directly, and its move history.
It imports no numba: the rules it asks come from ``brain.kernels.module``, compiled or -- while the process compiles
in the background -- interpreted.

Coordinates are the protocol's ``x,y`` (0-based, x = column). Inside, a cell is one index into ``cells``:
``(y + PAD) * stride + (x + PAD)`` with ``stride = width + 2 * PAD``. The PAD-wide frame of WALL cells lets every
line scan of up to PAD steps run without bounds checks.

A board also says what wins and where a stone may go: a row of ``k`` (5 for Gomoku, 4 for Connect Four, 3 for
tic-tac-toe) and, under ``gravity`` (Connect Four), only the lowest empty cell of a column. Everything that speaks
the Gomocup protocol uses the defaults (k = 5, no gravity, boards 5..32).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from monte.brain import kernels
from monte.brain.codes import BLACK, EMPTY, MOVE_FORBIDDEN, MOVE_OK, MOVE_WINS, RULE_RENJU, WALL, WHITE

PAD = 5
MIN_SIZE = 5
MAX_SIZE = 32
MIN_LINE = 3
GOMOKU_LINE = 5

__all__ = [
    "BLACK", "WHITE", "EMPTY", "WALL", "MOVE_OK", "MOVE_WINS", "MOVE_FORBIDDEN",
    "Board", "Move", "IllegalMove", "opponent", "MIN_SIZE", "MAX_SIZE", "PAD",
]


class IllegalMove(ValueError):
    """A move off the board or onto an occupied cell."""


def opponent(color: int) -> int:
    """The other colour."""
    return 3 - color


@dataclass(frozen=True)
class Move:
    """One stone of the history: where, and whose."""

    x: int
    y: int
    color: int


class Board:
    """A position under one rule: stones, whose turn it is, and the order the stones came in.

    The side to move alternates with every ``play``; ``place`` puts a stone of a given colour without asking whose
    turn it is (for ``BOARD`` blocks and openings), and ``to_move`` can be set once the stones are in. `k` is the
    length of the winning row (3..5; the Gomoku rules of ``rule`` need 5) and each side must hold at least `k`
    cells (Gomoku's 5..32); `gravity` makes stones fall to the bottom of their column.
    """

    def __init__(self, width: int, height: int | None = None, rule: int = 0, *, k: int = GOMOKU_LINE,
                 gravity: bool = False) -> None:
        height = width if height is None else height
        if not MIN_LINE <= k <= GOMOKU_LINE:
            raise ValueError(f"winning line of {k} is outside {MIN_LINE}..{GOMOKU_LINE}")
        if rule and k != GOMOKU_LINE:
            raise ValueError(f"rule {rule} is a Gomoku rule (rows of 5); a row of {k} plays freestyle (rule 0)")
        if not (k <= width <= MAX_SIZE and k <= height <= MAX_SIZE):
            raise ValueError(f"board size {width}x{height} is outside {k}..{MAX_SIZE}")
        self.width = width
        self.height = height
        self.rule = rule
        self.k = k
        self.gravity = gravity
        self.stride = width + 2 * PAD
        self.cells = np.full((height + 2 * PAD) * self.stride, WALL, dtype=np.int8)
        for y in range(height):
            start = self.index(0, y)
            self.cells[start:start + width] = EMPTY
        self.history: list[Move] = []
        self.to_move = BLACK

    # --- geometry -------------------------------------------------------------------------------------------
    def index(self, x: int, y: int) -> int:
        """The flat index of cell (x, y)."""
        return (y + PAD) * self.stride + x + PAD

    def coords(self, idx: int) -> tuple[int, int]:
        """The (x, y) of a flat index."""
        row, col = divmod(int(idx), self.stride)
        return col - PAD, row - PAD

    def inside(self, x: int, y: int) -> bool:
        """Whether (x, y) is on the board."""
        return 0 <= x < self.width and 0 <= y < self.height

    # --- reading --------------------------------------------------------------------------------------------
    def at(self, x: int, y: int) -> int:
        """EMPTY, BLACK or WHITE at (x, y)."""
        return int(self.cells[self.index(x, y)])

    def is_empty(self, x: int, y: int) -> bool:
        """Whether (x, y) is on the board and free."""
        return self.inside(x, y) and self.cells[self.index(x, y)] == EMPTY

    @property
    def stone_count(self) -> int:
        """How many stones are on the board."""
        return len(self.history)

    @property
    def capacity(self) -> int:
        """How many cells the board has."""
        return self.width * self.height

    def is_full(self) -> bool:
        """Whether no empty cell is left."""
        return len(self.history) >= self.capacity

    def empty_cells(self) -> list[tuple[int, int]]:
        """Every empty (x, y), row by row."""
        return [(x, y) for y in range(self.height) for x in range(self.width) if self.cells[self.index(x, y)] == EMPTY]

    def judge(self, x: int, y: int, color: int | None = None) -> int:
        """What a stone of `color` (default: the side to move) on the empty cell (x, y) would do under the rule:
        MOVE_WINS, MOVE_FORBIDDEN (renju foul for black) or MOVE_OK. Raises IllegalMove if the cell is not free
        (or, under gravity, would not rest on anything)."""
        self._require_playable(x, y)
        color = self.to_move if color is None else color
        idx = self.index(x, y)
        if self.k != GOMOKU_LINE:
            wins = kernels.module("monte.brain.rules").makes_line(self.cells, self.stride, idx, color, self.rule, self.k)
            return MOVE_WINS if wins else MOVE_OK
        return int(kernels.module("monte.brain.rules").judge_move(self.cells, self.stride, idx, color, self.rule))

    def is_forbidden(self, x: int, y: int) -> bool:
        """Whether black may not play the empty cell (x, y) under this board's rule."""
        return self.is_empty(x, y) and self.judge(x, y, BLACK) == MOVE_FORBIDDEN

    def legal_moves(self) -> list[tuple[int, int]]:
        """Every cell the side to move may play (renju: black's forbidden points left out; gravity: the lowest empty
        cell of each column that is not full)."""
        if self.gravity:
            return [(x, y) for x, y in self.empty_cells() if self._rests(x, y)]
        moves = self.empty_cells()
        if self.to_move == BLACK and self.rule & RULE_RENJU:
            banned = kernels.module("monte.brain.rules").forbidden_points(self.cells, self.stride, self.rule)
            moves = [(x, y) for x, y in moves if not banned[self.index(x, y)]]
        return moves

    def drop_row(self, x: int) -> int | None:
        """The row a stone dropped into column x lands on (under gravity: its lowest empty cell), or None when the
        column is full. Raises IllegalMove for a column off the board."""
        if not 0 <= x < self.width:
            raise IllegalMove(f"column {x} is off the {self.width}x{self.height} board")
        free = [y for y in range(self.height) if self.cells[self.index(x, y)] == EMPTY]
        return max(free) if free else None

    def _rests(self, x: int, y: int) -> bool:
        """Whether a stone on (x, y) would rest on something: the bottom edge, a stone or a block."""
        return y == self.height - 1 or self.cells[self.index(x, y + 1)] != EMPTY

    # --- changing -------------------------------------------------------------------------------------------
    def _require_empty(self, x: int, y: int) -> None:
        if not self.inside(x, y):
            raise IllegalMove(f"{x},{y} is off the {self.width}x{self.height} board")
        if self.cells[self.index(x, y)] != EMPTY:
            raise IllegalMove(f"{x},{y} is occupied")

    def _require_playable(self, x: int, y: int) -> None:
        self._require_empty(x, y)
        if self.gravity and not self._rests(x, y):
            raise IllegalMove(f"{x},{y} is above an empty cell: under gravity column {x} fills from row "
                              f"{self.drop_row(x)}")

    def place(self, x: int, y: int, color: int) -> None:
        """Put a `color` stone on (x, y) and give the turn to the other colour."""
        self._require_playable(x, y)
        self.cells[self.index(x, y)] = color
        self.history.append(Move(x, y, color))
        self.to_move = opponent(color)

    def block(self, x: int, y: int) -> None:
        """Put a neutral stone on (x, y) that blocks lines for both sides (a continuous game's marker, the
        protocol's BOARD field 3). It counts as a stone of the history; the side to move does not change."""
        self._require_empty(x, y)
        self.cells[self.index(x, y)] = WALL
        self.history.append(Move(x, y, WALL))

    def play(self, x: int, y: int) -> int:
        """Play the side to move on (x, y); return what the move did (MOVE_OK, MOVE_WINS or MOVE_FORBIDDEN).

        A forbidden move is still placed: the referee decides what a foul costs.
        """
        verdict = self.judge(x, y)
        self.place(x, y, self.to_move)
        return verdict

    def undo(self) -> Move:
        """Take back the last stone."""
        move = self.history.pop()
        self.cells[self.index(move.x, move.y)] = EMPTY
        if move.color != WALL:
            self.to_move = move.color
        return move

    def remove(self, x: int, y: int) -> Move:
        """Take back the stone on (x, y), wherever it is in the history (the protocol's TAKEBACK)."""
        for i in range(len(self.history) - 1, -1, -1):
            move = self.history[i]
            if (move.x, move.y) == (x, y):
                del self.history[i]
                self.cells[self.index(x, y)] = EMPTY
                if move.color != WALL:
                    self.to_move = move.color
                return move
        raise IllegalMove(f"{x},{y} holds no stone to take back")

    def copy(self) -> "Board":
        """An independent copy."""
        other = Board.__new__(Board)
        other.__dict__.update(self.__dict__)
        other.cells = self.cells.copy()
        other.history = list(self.history)
        return other

    def __str__(self) -> str:
        marks = {EMPTY: ".", BLACK: "X", WHITE: "O"}
        return "\n".join(
            " ".join(marks[self.at(x, y)] for x in range(self.width)) for y in range(self.height)
        )

    @classmethod
    def from_diagram(cls, diagram: str, rule: int = 0, to_move: int | None = None, *, k: int = GOMOKU_LINE,
                     gravity: bool = False) -> "Board":
        """A board from rows of ``.``, ``X`` (black) and ``O`` (white), spaces ignored; handy in tests and docs.

        The side to move defaults to black when the colours are level, else white. Under gravity the rows are
        placed from the bottom up, so that every stone rests on the one below.
        """
        rows = [row.replace(" ", "") for row in diagram.strip().splitlines() if row.strip()]
        board = cls(len(rows[0]), len(rows), rule, k=k, gravity=gravity)
        order = reversed(list(enumerate(rows))) if gravity else enumerate(rows)
        for y, row in order:
            if len(row) != board.width:
                raise ValueError(f"diagram row {y} has {len(row)} cells, expected {board.width}")
            for x, ch in enumerate(row):
                if ch in "xX":
                    board.place(x, y, BLACK)
                elif ch in "oO":
                    board.place(x, y, WHITE)
                elif ch != ".":
                    raise ValueError(f"diagram cell {x},{y} is {ch!r}; use . X O")
        blacks = sum(1 for m in board.history if m.color == BLACK)
        whites = len(board.history) - blacks
        board.to_move = to_move if to_move is not None else (BLACK if blacks <= whites else WHITE)
        return board
