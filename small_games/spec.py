"""What each small game is (board size, winning row, gravity), how its moves are written, and its perfect-play
reference.

Connect Four's reference is a compiled solver (``brain.connect4``): its module is imported when a reference is made,
so the games' names serve ``monte play --help`` and ``monte games --help`` without loading numba."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Protocol

from monte.brain.board import Board, IllegalMove
from monte.brain.minimax import Minimax


class Reference(Protocol):
    """Perfect play: the value of each legal move (1 win, 0 draw, -1 loss for the side to move)."""

    def move_values(self, board: Board) -> dict[tuple[int, int], int]:
        """The value of each legal move for the side to move, with perfect play afterwards."""


@dataclass(frozen=True)
class SmallGame:
    """A small game: a `width` x `height` board where a row of `k` wins, stones falling down their column under
    `gravity`. A move is written as its column (1..width) under gravity, else as column letter and row number (a1 is
    the top left corner). `reference` makes a new perfect-play reference."""

    name: str
    width: int
    height: int
    k: int
    gravity: bool
    reference: Callable[[], Reference]

    def new_board(self) -> Board:
        """The empty board, the first player (X, ``BLACK``) to move."""
        return Board(self.width, self.height, k=self.k, gravity=self.gravity)

    def move_name(self, x: int, y: int) -> str:
        """How the move on (x, y) is written: a column number with gravity, else a column letter and a row
        number counted from the bottom (row 1 is the lowest, as on a Gomoku board and in ``monte play``)."""
        return str(x + 1) if self.gravity else f"{chr(ord('a') + x)}{self.height - y}"

    def parse_move(self, text: str, board: Board) -> tuple[int, int]:
        """The (x, y) a person's `text` names on `board`; IllegalMove says, in one line, what is wrong with it."""
        text = text.strip().lower()
        last = chr(ord("a") + self.width - 1)
        if self.gravity:
            if not text.isdigit() or not 1 <= int(text) <= self.width:
                raise IllegalMove(f"{text!r} is not a column: give a number from 1 to {self.width}")
            x = int(text) - 1
            y = board.drop_row(x)
            if y is None:
                raise IllegalMove(f"column {x + 1} is full")
            return x, y
        if (len(text) < 2 or not "a" <= text[0] <= last or not text[1:].isdigit()
                or not 1 <= int(text[1:]) <= self.height):
            raise IllegalMove(f"{text!r} is not a cell: give a column letter and a row number, "
                              f"a1 to {last}{self.height}")
        x, y = ord(text[0]) - ord("a"), self.height - int(text[1:])
        if not board.is_empty(x, y):
            raise IllegalMove(f"{text} is taken")
        return x, y


def _connect4_solver() -> Reference:
    from monte.brain.connect4 import Connect4Solver

    return Connect4Solver()


TICTACTOE = SmallGame("tictactoe", 3, 3, 3, gravity=False, reference=Minimax)
"""Tic-tac-toe; its reference is minimax with a memo over the whole game."""

CONNECT4 = SmallGame("connect4", 7, 6, 4, gravity=True, reference=_connect4_solver)
"""Connect Four; its reference is the bitboard solver, exact but slow in the first moves (``brain.connect4``)."""

GAMES = {game.name: game for game in (TICTACTOE, CONNECT4)}
