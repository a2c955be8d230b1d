"""The board as text for the terminal: coordinates around it (``protocol.notation``: letters from A at the left,
row 1 at the bottom), the last move marked, black's forbidden points crossed when black is to move under renju.

Two looks: Unicode stones with colours for a terminal that has them, and plain ASCII (``X`` black, ``O`` white,
``*`` forbidden, the last move in parentheses) for ``--ascii``, pipes and logs. The five that won the game stands
out in both: red on a colour terminal, ``◉``/``◎`` without colours, ``#`` in ASCII.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from monte.protocol.notation import column_name
from monte.brain.board import BLACK, EMPTY, WHITE, Board

RESET, BOLD, RED, YELLOW, DIM = "\x1b[0m", "\x1b[1m", "\x1b[31m", "\x1b[33m", "\x1b[2m"


@dataclass(frozen=True)
class Look:
    """How the board is drawn: Unicode or ASCII marks, with ANSI colours or without."""

    unicode: bool
    colour: bool

    @classmethod
    def for_terminal(cls, ascii_only: bool, is_tty: bool) -> "Look":
        """ASCII when asked or when the output is not a terminal; colours on a terminal unless NO_COLOR is set."""
        fancy = is_tty and not ascii_only
        return cls(unicode=fancy, colour=fancy and not os.environ.get("NO_COLOR"))

    def paint(self, text: str, *codes: str) -> str:
        """`text` in ANSI `codes` when this look has colours."""
        return "".join(codes) + text + RESET if self.colour and codes else text

    def legend(self, renju: bool, five: bool = False) -> str:
        """What the marks mean (the forbidden mark only under renju, the five's only once there is one)."""
        if self.unicode:
            marks = ["● black", "○ white", *(["× forbidden for black"] if renju else []),
                     *([] if self.colour else ["(●) last move"])]
            five_mark = self.paint("●", BOLD, RED) if self.colour else "◉ ◎"
        else:
            marks = ["X black", "O white", *(["* forbidden for black"] if renju else []), "(X) last move"]
            five_mark = "#"
        return "  ".join(marks + ([f"{five_mark} the winning five"] if five else []))


def draw_board(board: Board, look: Look, last: tuple[int, int] | None = None,
               forbidden: frozenset[tuple[int, int]] = frozenset(),
               five: frozenset[tuple[int, int]] = frozenset()) -> str:
    """The board as lines of text, row numbers on both sides and column letters above and below; the stones of
    `five` (the winning row) marked."""
    width = max(2, len(column_name(board.width - 1)) + 1)  # characters a cell takes
    label_width = len(str(board.height))
    marks = {BLACK: "●", WHITE: "○"} if look.unicode else {BLACK: "X", WHITE: "O"}
    empty, banned = ("·", "×") if look.unicode else (".", "*")
    brackets = not look.colour
    letters = " " * (label_width + 1) + "".join(column_name(x).rjust(width) for x in range(board.width))
    lines = [letters]
    for y in range(board.height):
        row = board.height - y
        cells = []
        for x in range(board.width):
            stone = board.at(x, y)
            if stone == EMPTY:
                mark = look.paint(banned, RED) if (x, y) in forbidden else look.paint(empty, DIM)
            elif (x, y) in five:
                mark = look.paint(marks[stone], BOLD, RED) if look.colour else (
                    {BLACK: "◉", WHITE: "◎"}[stone] if look.unicode else "#")
            elif (x, y) == last and look.colour:
                mark = look.paint(marks[stone], BOLD, YELLOW)
            else:
                mark = look.paint(marks[stone], BOLD) if stone == BLACK else marks.get(stone, "#")
            before = " " * (width - 1)
            if brackets and last == (x, y):
                before = before[:-1] + "("
            elif brackets and last == (x - 1, y):
                before = ")" + before[1:]
            cells.append(before + mark)
        end = ")" if brackets and last == (board.width - 1, y) else " "
        lines.append(f"{row:>{label_width}} " + "".join(cells) + f"{end}{row}")
    lines.append(letters)
    return "\n".join(lines)
