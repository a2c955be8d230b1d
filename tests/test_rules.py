"""The rules core, case by case: board sizes, wins at edges and corners, and every rule of the ``INFO rule`` bitmask
(freestyle, exactly five, renju with all its fouls, caro, continuous), on hand-built positions that each name what
they check. Renju's forbidden points are also cross-checked against a slow, independent reference written here from
the RIF definitions.

Diagrams use ``X`` (black), ``O`` (white), ``.`` (empty) and ``*`` for the point being judged. One-line patterns may
start or end with ``|``: that end touches the board's edge. Each one-line pattern is judged laid out in all four
directions, so every case also checks the horizontal, vertical, diagonal and anti-diagonal scans.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest

from monte.brain import kernels, rules
from monte.brain.board import BLACK, EMPTY, MOVE_FORBIDDEN, MOVE_OK, MOVE_WINS, WHITE, Board

FREESTYLE, EXACT, CONTINUOUS, RENJU, CARO = 0, 1, 2, 4, 8
CARO_EXACT = CARO | EXACT
WINS, OK, FOUL = MOVE_WINS, MOVE_OK, MOVE_FORBIDDEN
VERDICT_NAMES = {MOVE_OK: "OK", MOVE_WINS: "WINS", MOVE_FORBIDDEN: "FORBIDDEN"}

# The four line directions as (dx, dy), named as in the test ids.
DIRECTIONS = {"horizontal": (1, 0), "vertical": (0, 1), "diagonal": (1, 1), "anti-diagonal": (1, -1)}


# --- building positions ---------------------------------------------------------------------------------------------

def from_diagram(diagram: str, rule: int) -> tuple[Board, tuple[int, int]]:
    """A board from a diagram with one ``*``, and the (x, y) of that ``*`` (left empty on the board)."""
    rows = [row.replace(" ", "") for row in diagram.strip().splitlines()]
    targets = [(x, y) for y, row in enumerate(rows) for x, ch in enumerate(row) if ch == "*"]
    assert len(targets) == 1, f"diagram needs exactly one '*', found {len(targets)}"
    board = Board.from_diagram("\n".join(row.replace("*", ".") for row in rows), rule)
    return board, targets[0]


def lay_out(pattern: str, direction: str, rule: int) -> tuple[Board, tuple[int, int]]:
    """A square board with the one-line `pattern` laid along `direction` through it, and the (x, y) of its ``*``.

    Ends marked ``|`` touch the edge; unmarked ends get one empty cell of margin.
    """
    before = 0 if pattern.startswith("|") else 1
    after = 0 if pattern.endswith("|") else 1
    cells = pattern.strip("|")
    size = len(cells) + before + after
    dx, dy = DIRECTIONS[direction]
    board = Board(size, rule=rule)
    start_y = size // 2 if dy == 0 else (before if dy == 1 else size - 1 - before)
    start_x = size // 2 if dx == 0 else before
    target = None
    for i, ch in enumerate(cells):
        x, y = start_x + i * dx, start_y + i * dy
        if ch == "X":
            board.place(x, y, BLACK)
        elif ch == "O":
            board.place(x, y, WHITE)
        elif ch == "*":
            target = (x, y)
    assert target is not None, f"pattern {pattern!r} has no '*'"
    return board, target


@dataclass(frozen=True)
class Line:
    """A one-line case: `pattern` under `rule`, a `color` stone played on its ``*`` gives `verdict`."""

    name: str
    rule: int
    pattern: str
    verdict: int
    color: int = BLACK


@dataclass(frozen=True)
class Diagram:
    """A whole-board case: a `color` stone on the diagram's ``*`` under `rule` gives `verdict`.

    For black, `shapes` says what the move makes on each line (the lines not named make nothing), so that a case
    cannot pass for a reason other than the one its name gives: "five", "overline", "four", "three", or
    "false three" (a line one stone from a straight four, but not by an allowed move that makes no five).
    """

    name: str
    rule: int
    diagram: str
    verdict: int
    color: int = BLACK
    shapes: dict[str, str] | None = None


H, V, D, A = "horizontal", "vertical", "diagonal", "anti-diagonal"


# --- one-line cases, each judged in all four directions -------------------------------------------------------------

LINES = [
    # 0 freestyle: five or more wins.
    Line("freestyle: five wins", FREESTYLE, "XXXX*", WINS),
    Line("freestyle: five made in its middle wins", FREESTYLE, "XX*XX", WINS),
    Line("freestyle: white five wins", FREESTYLE, "OOOO*", WINS, WHITE),
    Line("freestyle: six (a gap between a 2 and a 3 filled) wins", FREESTYLE, "XX*XXX", WINS),
    Line("freestyle: seven wins", FREESTYLE, "XXX*XXX", WINS),
    Line("freestyle: four does not win", FREESTYLE, "XXX*.", OK),
    Line("freestyle: a gap breaks the row", FREESTYLE, "XX*X.X", OK),
    Line("freestyle: opponent's stone breaks the row", FREESTYLE, "XX*XOX", OK),
    Line("freestyle: black's four is nothing to white", FREESTYLE, "XXXX*", OK, WHITE),
    Line("freestyle: five blocked at both ends still wins", FREESTYLE, "OXXXX*O", WINS),
    Line("freestyle: five from the edge wins", FREESTYLE, "|*XXXX", WINS),
    Line("freestyle: five filling the whole line wins", FREESTYLE, "|XX*XX|", WINS),
    # 1 exactly five: an overline does not win, for either colour.
    Line("exact: black five wins", EXACT, "XXXX*", WINS),
    Line("exact: white five wins", EXACT, "OOOO*", WINS, WHITE),
    Line("exact: black six (gap between a 2 and a 3) does not win", EXACT, "XX*XXX", OK),
    Line("exact: white six (gap between a 2 and a 3) does not win", EXACT, "OO*OOO", OK, WHITE),
    Line("exact: black seven (gap between two 3s) does not win", EXACT, "XXX*XXX", OK),
    Line("exact: white seven (gap between two 3s) does not win", EXACT, "OOO*OOO", OK, WHITE),
    Line("exact: black six by extending a five does not win", EXACT, "XXXXX*", OK),
    Line("exact: white six by extending a five does not win", EXACT, "*OOOOO", OK, WHITE),
    Line("exact: five with a gap before another own stone wins", EXACT, "XXXX*.X", WINS),
    Line("exact: five against the opponent wins", EXACT, "XXXX*O", WINS),
    Line("exact: five against the edge wins", EXACT, "|XXXX*", WINS),
    # 4 renju on a line: white wins with five or more; black only with exactly five; black's overline is a foul.
    Line("renju: black exact five wins", RENJU, "XXXX*", WINS),
    Line("renju: white five wins", RENJU, "OOOO*", WINS, WHITE),
    Line("renju: white six wins", RENJU, "OO*OOO", WINS, WHITE),
    Line("renju: white seven wins", RENJU, "OOO*OOO", WINS, WHITE),
    Line("renju: black six (gap between a 2 and a 3) is forbidden", RENJU, "XX*XXX", FOUL),
    Line("renju: black seven is forbidden", RENJU, "XXX*XXX", FOUL),
    Line("renju: black six by extending a five is forbidden", RENJU, "XXXXX*", FOUL),
    Line("renju: black double four on one line X.XXX.X (middle) is forbidden", RENJU, "X.X*X.X", FOUL),
    Line("renju: black double four on one line X.XXX.X (inner end) is forbidden", RENJU, "X.*XX.X", FOUL),
    Line("renju: black double four on one line XX.XX.XX is forbidden", RENJU, "XX.X*.XX", FOUL),
    Line("renju: black double four on one line XXX.X.XXX is forbidden", RENJU, "XXX.*.XXX", FOUL),
    # XX.X.XX holds no four: no five cells of it hold four stones. (Filling a gap gives XXXX.XX, a four but not a
    # straight one, as its right end would make seven; so it is not even a three.)
    Line("renju: XX.X.XX is not a double four (no four at all)", RENJU, "XX.*.XX", OK),
    Line("renju: a straight four is one four, allowed", RENJU, ".XXX*.", OK),
    Line("renju: a single four is allowed", RENJU, "OXXX*.", OK),
    Line("renju: a single three is allowed", RENJU, "..XX*..", OK),
    Line("renju: white double four on one line is allowed", RENJU, "O.O*O.O", OK, WHITE),
    # 8 caro: a five wins unless the opponent blocks both of its ends; the board edge blocks nothing.
    Line("caro: five blocked at both ends does not win", CARO, "OXXXX*O", OK),
    Line("caro: five blocked at both ends, made in its middle, does not win", CARO, "OX*XXXO", OK),
    Line("caro: white five blocked at both ends does not win", CARO, "XOOOO*X", OK, WHITE),
    Line("caro: five blocked at one end wins", CARO, "OXXXX*.", WINS),
    Line("caro: five blocked at the other end wins", CARO, ".XXXX*O", WINS),
    Line("caro: a gap before the opponent's stone is no block", CARO, "O.XXXX*O", WINS),
    Line("caro: edge plus opponent wins (the edge does not block)", CARO, "|XXXX*O", WINS),
    Line("caro: edge at both ends wins", CARO, "|XX*XX|", WINS),
    Line("caro: overline blocked at both ends does not win", CARO, "OXX*XXXO", OK),
    Line("caro: overline blocked at one end wins (no exact-five bit)", CARO, "OXX*XXX.", WINS),
    # 9 caro + exactly five.
    Line("caro+exact: open five wins", CARO_EXACT, ".XXXX*.", WINS),
    Line("caro+exact: five blocked at one end wins", CARO_EXACT, "OXXXX*.", WINS),
    Line("caro+exact: five blocked at both ends does not win", CARO_EXACT, "OXXXX*O", OK),
    Line("caro+exact: overline does not win", CARO_EXACT, ".XX*XXX.", OK),
    Line("caro+exact: white overline does not win", CARO_EXACT, ".OO*OOO.", OK, WHITE),
]

LINE_PARAMS = [pytest.param(case, d, id=f"{case.name} [{d}]") for case in LINES for d in DIRECTIONS]


@pytest.mark.parametrize("case, direction", LINE_PARAMS)
def test_one_line_case(case: Line, direction: str) -> None:
    board, (x, y) = lay_out(case.pattern, direction, case.rule)
    assert VERDICT_NAMES[board.judge(x, y, case.color)] == VERDICT_NAMES[case.verdict]


# --- whole-board renju cases ----------------------------------------------------------------------------------------

DIAGRAMS = [
    Diagram("renju: double three, two straight threes crossing", RENJU, """
        . . . . . . . . .
        . . . . . . . . .
        . . . . X . . . .
        . . . . X . . . .
        . . X X * . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
    """, FOUL, shapes={H: "three", V: "three"}),
    Diagram("renju: double three, split three X.XX and a straight three", RENJU, """
        . . . . . . . . .
        . . . . . . . . .
        . . . . X . . . .
        . . . . X . . . .
        . X . X * . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
    """, FOUL, shapes={H: "three", V: "three"}),
    Diagram("renju: double three, two split threes XX.X and X.XX", RENJU, """
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . X * . X . . .
        . . . . . . . . .
        . . . X . . . . .
        . . . X . . . . .
        . . . . . . . . .
    """, FOUL, shapes={H: "three", V: "three"}),
    Diagram("renju: double three on the two diagonals", RENJU, """
        . . . . . . . . .
        . . . . . . . . .
        . . X . . . X . .
        . . . X . X . . .
        . . . . * . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
    """, FOUL, shapes={D: "three", A: "three"}),
    # The row three is blocked by white on the left, yet .XXX. with room on the right still becomes a straight
    # four at (5,4): it is a three, so this is a double three.
    Diagram("renju: double three with a three blocked one step away", RENJU, """
        . . . . . . . . .
        . . . . . . . . .
        . . . . X . . . .
        . . . . X . . . .
        O . X X * . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
    """, FOUL, shapes={H: "three", V: "three"}),
    # One cell from the edge, .XXX. becomes the straight four .XXXX. at (4,4): a three.
    Diagram("renju: double three with a three one cell from the edge", RENJU, """
        . . . . . . . . .
        . . . . . . . . .
        . . . X . . . . .
        . . . X . . . . .
        . X X * . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
    """, FOUL, shapes={H: "three", V: "three"}),
    Diagram("renju: a three blocked by white is no three (one three only)", RENJU, """
        . . . . . . . . .
        . . . . . . . . .
        . . . . X . . . .
        . . . . X . . . .
        . O X X * . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
    """, OK, shapes={V: "three"}),
    Diagram("renju: a three against the edge is no three (one three only)", RENJU, """
        . . . . . . . . .
        . . . . . . . . .
        . . X . . . . . .
        . . X . . . . . .
        X X * . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
    """, OK, shapes={V: "three"}),
    # Between the two white stones only five cells are free: a straight four needs six.
    Diagram("renju: a three with only five free cells is no three", RENJU, """
        . . . . . . . . .
        . . . . . . . . .
        . . . . X . . . .
        . . . . X . . . .
        O . X X * . O . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
    """, OK, shapes={V: "three"}),
    # Row 4: the left end is blocked; on the right, XXXX at (2..5,4) would have the black stone at (7,4) two cells
    # beyond it, so its right five point makes six. No straight four can come: no three.
    Diagram("renju: a three whose only four would have an overline end is no three", RENJU, """
        . . . . . . . . .
        . . . . . . . . .
        . . . . X . . . .
        . . . . X . . . .
        O . X X * . . X .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
    """, OK, shapes={V: "three"}),
    Diagram("renju: double four on two lines", RENJU, """
        . . . . . . . . .
        . . . . O . . . .
        . . . . X . . . .
        . . . . X . . . .
        . . . . X . . . .
        O X X X * . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
    """, FOUL, shapes={H: "four", V: "four"}),
    Diagram("renju: straight four plus a four is a double four", RENJU, """
        . . . . . . . . .
        . . . . O . . . .
        . . . . X . . . .
        . . . . X . . . .
        . . . . X . . . .
        . X X X * . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
    """, FOUL, shapes={H: "four", V: "four"}),
    Diagram("renju: four-three is allowed", RENJU, """
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . X . . . .
        . . . . X . . . .
        O X X X * . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
    """, OK, shapes={H: "four", V: "three"}),
    Diagram("renju: four-three-three is forbidden", RENJU, """
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . X . X . . . .
        . . . X X . . . .
        O X X X * . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
    """, FOUL, shapes={H: "four", V: "three", D: "three"}),
    Diagram("renju: five wins although it also makes a double four", RENJU, """
        . . . . . . . . .
        . . . . O . . . .
        . . . . X . . . .
        . . . . X . . . .
        . . . . X . . . .
        X X X X * . . . .
        . . . X . . . . .
        . . X . . . . . .
        . X . . . . . . .
    """, WINS, shapes={H: "five", V: "four", A: "four"}),
    Diagram("renju: five wins although it also makes an overline", RENJU, """
        . . . . . . . . .
        . . . . X . . . .
        . . . . X . . . .
        X X X X * . . . .
        . . . . X . . . .
        . . . . X . . . .
        . . . . X . . . .
        . . . . . . . . .
        . . . . . . . . .
    """, WINS, shapes={H: "five", V: "overline"}),
    Diagram("renju: five wins although it also makes a double three", RENJU, """
        . . . . . . . . .
        . . . . . . . . .
        . . . . X . X . .
        . . . . X X . . .
        X X X X * . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
    """, WINS, shapes={H: "five", V: "three", A: "three"}),
    Diagram("renju: white's double three is allowed", RENJU, """
        . . . . . . . . .
        . . . . . . . . .
        . . . . O . . . .
        . . . . O . . . .
        . . O O * . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
    """, OK, WHITE),
    Diagram("renju: white's double four is allowed", RENJU, """
        . . . . . . . . .
        . . . . X . . . .
        . . . . O . . . .
        . . . . O . . . .
        . . . . O . . . .
        X O O O * . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
    """, OK, WHITE),
    # --- false threes: a three counts only if it can become a straight four by a move that is itself allowed ---
    # Row 5: white at (3,5) leaves (8,5) as the only point turning XXX into a straight four. Column 8 holds
    # XXX.XX around (8,5), so black there would make six: forbidden. The row "three" is false; the column three
    # below the move is the only real one.
    Diagram("renju: false three, its straight-four point makes an overline", RENJU, """
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . X . .
        . . . . . . . . X . .
        . . . . . . . . X . .
        . . . O . X X * . . .
        . . . . . . . X X . .
        . . . . . . . X X . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
    """, OK, shapes={H: "false three", V: "three"}),
    # The control: without the three stones at (8,2..4), black at (8,5) is a straight four plus the column three
    # (8,5..7), a legal four-three; so the row three is real and the move is a double three.
    Diagram("renju: control, the same three with an allowed straight-four point is real", RENJU, """
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . O . X X * . . .
        . . . . . . . X X . .
        . . . . . . . X X . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
    """, FOUL, shapes={H: "three", V: "three"}),
    # Row 5 as above. Column 8 is X.X?X.X around (8,5): black there makes X.XXX.X, two fours on one line (and a
    # third four, the row's straight four): forbidden. The row three is false: one real three only.
    Diagram("renju: false three, its straight-four point makes a double four", RENJU, """
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . X . .
        . . . . . . . . . . .
        . . . . . . . . X . .
        . . . O . X X * . . .
        . . . . . . . X X . .
        . . . . . . . X . . .
        . . . . . . . . X . .
        . . . . . . . . . . .
        . . . . . . . . . . .
    """, OK, shapes={H: "false three", V: "three"}),
    # The control: without (8,2) and (8,8) the column is only .X?X. around (8,5); black there makes a straight four
    # and a three, allowed, so the row three is real: double three.
    Diagram("renju: control, double-four point reduced to a four-three point", RENJU, """
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . X . .
        . . . O . X X * . . .
        . . . . . . . X X . .
        . . . . . . . X . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
        . . . . . . . . . . .
    """, FOUL, shapes={H: "three", V: "three"}),
    # The move at (7,7) makes the column three (7,7..9) and the row three (5..7,7) whose only straight-four point is
    # (8,7) (white at (3,7) spoils the other end). Black at (8,7) would make the row's straight four plus two real
    # threes, (8,5..7) up the column and (8,7),(9,8),(10,9) down the diagonal: four-three-three, forbidden. So the
    # row three is false and the move is allowed.
    Diagram("renju: false three, its straight-four point makes a double three", RENJU, """
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . X . . . . . .
        . . . . . . . . X . . . . . .
        . . . O . X X * . . . . . . .
        . . . . . . . X . X . . . . .
        . . . . . . . X . . X . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
    """, OK, shapes={H: "false three", V: "three"}),
    # Two levels deep: the position above plus white at (8,9) and black (4..7,4) and (9,4). Now the
    # column three (8,5..7) of the point (8,7) can only become a straight four at (8,4) (white (8,9) spoils the
    # other end), and black at (8,4) would make six on row 4: forbidden. That three is false, so (8,7) is only a
    # four-three, allowed; so the row three of the move is real after all, and the move is a double three.
    Diagram("renju: two levels deep, the straight-four point's second three is false", RENJU, """
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . X X X X . X . . . . .
        . . . . . . . . X . . . . . .
        . . . . . . . . X . . . . . .
        . . . O . X X * . . . . . . .
        . . . . . . . X . X . . . . .
        . . . . . . . X O . X . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
    """, FOUL, shapes={H: "three", V: "three"}),
    # RIF: a three is a row that can become a straight four "without at the same time a five in a row" being made.
    # The row three (5..7,7) can only become a straight four at (8,7) (white at (3,7)), and black at (8,7) also
    # makes five down column 8: so it is no three, and with the column three (7,5..7) the move is allowed.
    Diagram("renju: a three whose straight-four point also makes five is no three", RENJU, """
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . X . . . . . . .
        . . . . . . . X . . . . . . .
        . . . O . X X * . . . . . . .
        . . . . . . . . X . . . . . .
        . . . . . . . . X . . . . . .
        . . . . . . . . X . . . . . .
        . . . . . . . . X . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
        . . . . . . . . . . . . . . .
    """, OK, shapes={H: "false three", V: "three"}),
]

DIAGRAM_PARAMS = [pytest.param(case, id=case.name) for case in DIAGRAMS]
BLACK_DIAGRAM_PARAMS = [p for p in DIAGRAM_PARAMS if p.values[0].color == BLACK]


@pytest.mark.parametrize("case", DIAGRAM_PARAMS)
def test_whole_board_case(case: Diagram) -> None:
    board, (x, y) = from_diagram(case.diagram, case.rule)
    assert VERDICT_NAMES[board.judge(x, y, case.color)] == VERDICT_NAMES[case.verdict]


@pytest.mark.parametrize("case", DIAGRAM_PARAMS)
def test_whole_board_case_with_the_rules_interpreted(case: Diagram) -> None:
    """The same source run as plain Python (``brain.kernels``, what a brain uses while it compiles) gives the same
    verdict."""
    board, (x, y) = from_diagram(case.diagram, case.rule)
    verdict = kernels.interpreted("monte.brain.rules").judge_move(board.cells, board.stride, board.index(x, y), case.color,
                                                            case.rule)
    assert VERDICT_NAMES[verdict] == VERDICT_NAMES[case.verdict]


@pytest.mark.parametrize("case", BLACK_DIAGRAM_PARAMS)
def test_kernel_is_forbidden_alone_gives_the_foul_verdict(case: Diagram) -> None:
    """``is_forbidden`` itself (which the recursion calls without ``judge_move``'s five check first) never calls a
    five a foul and finds every foul."""
    board, (x, y) = from_diagram(case.diagram, case.rule)
    assert rules.is_forbidden(board.cells, board.stride, board.index(x, y), 0) == (case.verdict == FOUL)


@pytest.mark.parametrize("case", BLACK_DIAGRAM_PARAMS)
def test_black_diagram_makes_the_shapes_its_name_claims(case: Diagram) -> None:
    """The slow reference sees on each line what the case says, and calls the same foul (so both are checked)."""
    board, (x, y) = from_diagram(case.diagram, case.rule)
    reference = ReferenceRenju(board)
    assert reference.shapes(x, y) == case.shapes
    assert reference.is_forbidden(x, y) == (case.verdict == FOUL)


# --- continuous: bit 2 changes nothing ------------------------------------------------------------------------------

@pytest.mark.parametrize("case, direction", [p for p in LINE_PARAMS if p.values[1] == "horizontal"])
def test_continuous_bit_changes_no_line_verdict(case: Line, direction: str) -> None:
    board, (x, y) = lay_out(case.pattern, direction, case.rule | CONTINUOUS)
    assert VERDICT_NAMES[board.judge(x, y, case.color)] == VERDICT_NAMES[case.verdict]


@pytest.mark.parametrize("case", DIAGRAM_PARAMS)
def test_continuous_bit_changes_no_renju_verdict(case: Diagram) -> None:
    board, (x, y) = from_diagram(case.diagram, case.rule | CONTINUOUS)
    assert VERDICT_NAMES[board.judge(x, y, case.color)] == VERDICT_NAMES[case.verdict]


# --- board sizes, edges and corners ---------------------------------------------------------------------------------

@pytest.mark.parametrize("width, height", [(5, 5), (32, 32), (15, 15), (20, 20), (5, 32), (32, 5), (7, 19)],
                         ids=lambda v: str(v))
def test_board_sizes_from_5_to_32_are_accepted(width: int, height: int) -> None:
    board = Board(width, height)
    assert (board.width, board.height) == (width, height)
    assert len(board.empty_cells()) == width * height


@pytest.mark.parametrize("width, height", [(4, 4), (33, 33), (4, 20), (20, 4), (33, 5), (5, 33), (0, 0), (-5, 5)],
                         ids=lambda v: str(v))
def test_board_sizes_outside_5_to_32_are_refused(width: int, height: int) -> None:
    with pytest.raises(ValueError, match="outside 5..32"):
        Board(width, height)


def edge_fives(width: int, height: int) -> list[tuple[str, tuple[int, int], list[tuple[int, int]]]]:
    """Every five that starts at a corner or at the middle of a side of a width x height board, in every direction
    and sense that fits, as (direction name, start, cells)."""
    starts = [(0, 0), (width - 1, 0), (0, height - 1), (width - 1, height - 1),
              (width // 2, 0), (width // 2, height - 1), (0, height // 2), (width - 1, height // 2)]
    fives = []
    for sx, sy in starts:
        for name, (dx, dy) in DIRECTIONS.items():
            for sign in (1, -1):
                cells = [(sx + sign * dx * i, sy + sign * dy * i) for i in range(5)]
                if all(0 <= x < width and 0 <= y < height for x, y in cells):
                    fives.append((name, (sx, sy), cells))
    return fives


EDGE_SIZES = [(32, 5), (5, 32), (5, 5), (32, 32)]
EDGE_FIVES = [pytest.param(w, h, cells, id=f"{w}x{h} {name} from {start}")
              for w, h in EDGE_SIZES for name, start, cells in edge_fives(w, h)]


@pytest.mark.parametrize("rule", [FREESTYLE, EXACT, RENJU, CARO], ids=lambda r: f"rule{r}")
@pytest.mark.parametrize("width, height, cells", EDGE_FIVES)
def test_five_from_an_edge_wins_at_either_end(width: int, height: int, cells: list, rule: int) -> None:
    """The last stone wins whether it lands on the edge or at the far end of the five."""
    for last, others in [(cells[0], cells[1:]), (cells[-1], cells[:-1])]:
        board = Board(width, height, rule)
        for x, y in others:
            board.place(x, y, BLACK)
        assert board.judge(*last, BLACK) == WINS


@pytest.mark.parametrize("width, height", EDGE_SIZES, ids=lambda v: str(v))
def test_edge_fives_cover_all_four_directions(width: int, height: int) -> None:
    """The generated edge cases include every direction on every board, the thin ones included."""
    assert {name for name, _, _ in edge_fives(width, height)} == set(DIRECTIONS)


@pytest.mark.parametrize("rule", [FREESTYLE, RENJU], ids=lambda r: f"rule{r}")
@pytest.mark.parametrize("stones, target", [
    ([(3, 1), (4, 1), (5, 1), (6, 1)], (0, 2)),
    ([(3, 0), (4, 1), (5, 2), (6, 3)], (0, 5)),
], ids=["row end + next row start", "diagonal at the right edge + next row start"])
def test_lines_do_not_wrap_into_the_next_row(stones: list, target: tuple[int, int], rule: int) -> None:
    """Four stones ending at the right edge and one starting a later row are no five; in a plain flat array of
    7 cells a row they would be, as the target is the very next cell along the line there."""
    board = Board(7, 7, rule)
    for x, y in stones:
        board.place(x, y, BLACK)
    assert board.judge(*target, BLACK) == OK


# --- renju bookkeeping around the kernel ----------------------------------------------------------------------------

DOUBLE_THREE = DIAGRAMS[0].diagram


def test_white_is_never_forbidden_where_black_would_be() -> None:
    board, (x, y) = from_diagram(DOUBLE_THREE, RENJU)
    assert board.judge(x, y, BLACK) == FOUL
    assert board.judge(x, y, WHITE) == OK


def test_legal_moves_leave_out_black_fouls_only_under_renju() -> None:
    board, target = from_diagram(DOUBLE_THREE, RENJU)
    board.to_move = BLACK
    assert target not in board.legal_moves()
    board.to_move = WHITE
    assert target in board.legal_moves()
    free, target = from_diagram(DOUBLE_THREE, FREESTYLE)
    free.to_move = BLACK
    assert target in free.legal_moves()


def test_play_places_a_forbidden_move_and_reports_it() -> None:
    board, (x, y) = from_diagram(DOUBLE_THREE, RENJU)
    board.to_move = BLACK
    assert board.play(x, y) == FOUL
    assert board.at(x, y) == BLACK and board.to_move == WHITE


def test_forbidden_points_are_empty_outside_renju() -> None:
    board, _ = from_diagram(DOUBLE_THREE, FREESTYLE | EXACT | CARO)
    assert not rules.forbidden_points(board.cells, board.stride, board.rule).any()


# --- cross-check against an independent slow reference -------------------------------------------------------------

class ReferenceRenju:
    """Renju's foul test written straight from the RIF definitions, slowly, on (x, y) tuples.

    Deliberately built differently from the kernel: fours are told apart by their sets of stones (two five-points
    sharing one set of four stones are one straight four), straight fours by looking at four-in-a-row windows, and
    the board is a dict, not a framed array.

    - five: exactly five in a row; overline: six or more.
    - four: four stones that one more stone turns into a five (through the move).
    - straight four: four in a row whose both ends are empty and each makes a five.
    - three: three stones that one more stone turns into a straight four (through the move), where that stone is
      not a foul and makes no five at the same time. A line that already holds a four is not also a three.
    - foul: not a five, and an overline, or two fours, or two threes.
    """

    def __init__(self, board: Board, shallow: bool = False) -> None:
        self.grid = {(x, y): board.at(x, y) for x in range(board.width) for y in range(board.height)}
        self.shallow = shallow  # the student shortcut: any point that makes a straight four makes a three

    def _black(self, point: tuple[int, int]) -> bool:
        return self.grid.get(point) == BLACK

    def _run(self, point: tuple[int, int], d: tuple[int, int]) -> int:
        length = 1
        for sign in (1, -1):
            x, y = point[0] + sign * d[0], point[1] + sign * d[1]
            while self._black((x, y)):
                length += 1
                x, y = x + sign * d[0], y + sign * d[1]
        return length

    @staticmethod
    def _cells(point: tuple[int, int], d: tuple[int, int], first: int, last: int) -> list[tuple[int, int]]:
        return [(point[0] + k * d[0], point[1] + k * d[1]) for k in range(first, last + 1)]

    def _fours(self, point: tuple[int, int], d: tuple[int, int]) -> int:
        stone_sets = set()
        for start in range(-4, 1):
            window = self._cells(point, d, start - 1, start + 5)
            outer, inner = (window[0], window[-1]), window[1:-1]
            if any(c not in self.grid for c in inner) or any(self._black(c) for c in outer):
                continue
            stones = [c for c in inner if self.grid[c] == BLACK]
            if len(stones) == 4 and sum(self.grid[c] == EMPTY for c in inner) == 1:
                stone_sets.add(frozenset(stones))
        return len(stone_sets)

    def _straight_four(self, point: tuple[int, int], d: tuple[int, int]) -> bool:
        for start in range(-3, 1):
            row = self._cells(point, d, start - 2, start + 5)
            if all(self._black(c) for c in row[2:6]) and self.grid.get(row[1]) == EMPTY \
                    and self.grid.get(row[6]) == EMPTY and not self._black(row[0]) and not self._black(row[7]):
                return True
        return False

    def _makes_five(self, point: tuple[int, int]) -> bool:
        return any(self._run(point, d) == 5 for d in DIRECTIONS.values())

    def _three(self, point: tuple[int, int], d: tuple[int, int], shallow: bool) -> bool:
        for q in self._cells(point, d, -3, 3):
            if q == point or self.grid.get(q) != EMPTY:
                continue
            self.grid[q] = BLACK
            straight = self._straight_four(point, d)
            five = self._makes_five(q)
            self.grid[q] = EMPTY
            if straight and (shallow or not five and not self.is_forbidden(*q)):
                return True
        return False

    def shapes(self, x: int, y: int) -> dict[str, str]:
        """What a black stone on (x, y) makes on each line that holds something: five, overline, four (or two fours
        on the line), three, or false three."""
        point, found = (x, y), {}
        self.grid[point] = BLACK
        try:
            for name, d in DIRECTIONS.items():
                run, fours = self._run(point, d), self._fours(point, d)
                if run >= 5:
                    found[name] = "five" if run == 5 else "overline"
                elif fours:
                    found[name] = "four" if fours == 1 else "two fours"
                elif self._three(point, d, shallow=False):
                    found[name] = "three"
                elif self._three(point, d, shallow=True):
                    found[name] = "false three"
        finally:
            self.grid[point] = EMPTY
        return found

    def is_forbidden(self, x: int, y: int) -> bool:
        """Whether black may not play the empty point (x, y)."""
        point = (x, y)
        self.grid[point] = BLACK
        try:
            runs = [self._run(point, d) for d in DIRECTIONS.values()]
            if 5 in runs:
                return False
            if max(runs) > 5:
                return True
            fours = [self._fours(point, d) for d in DIRECTIONS.values()]
            if sum(fours) >= 2:
                return True
            threes = [f == 0 and self._three(point, d, self.shallow) for d, f in zip(DIRECTIONS.values(), fours)]
            return sum(threes) >= 2
        finally:
            self.grid[point] = EMPTY


def random_renju_position(rng: random.Random) -> Board:
    """A crowded little board with many more black stones than white ones, so that fouls of every kind occur."""
    size = rng.choice([7, 8, 9, 10])
    board = Board(size, rule=RENJU)
    cells = [(x, y) for x in range(size) for y in range(size)]
    rng.shuffle(cells)
    blacks = rng.randint(6, 30)
    whites = rng.randint(0, blacks // 3)
    for x, y in cells[:blacks]:
        board.place(x, y, BLACK)
    for x, y in cells[blacks:blacks + whites]:
        board.place(x, y, WHITE)
    return board


def test_is_forbidden_agrees_with_the_reference_on_random_positions() -> None:
    rng = random.Random(20240607)
    disagreements, fouls, false_threes_decided = [], 0, 0
    for _ in range(300):
        board = random_renju_position(rng)
        reference, shallow = ReferenceRenju(board), ReferenceRenju(board, shallow=True)
        for x, y in board.empty_cells():
            expected = reference.is_forbidden(x, y)
            fouls += expected
            false_threes_decided += expected != shallow.is_forbidden(x, y)
            if rules.is_forbidden(board.cells, board.stride, board.index(x, y), 0) != expected:
                disagreements.append(f"({x},{y}) reference={expected}\n{board}")
    assert not disagreements, f"{len(disagreements)} disagreements, first:\n{disagreements[0]}"
    assert fouls > 300, "the sample should hold many forbidden points"
    assert false_threes_decided > 20, "the sample should hold points where only the recursive three test is right"


def test_forbidden_points_lists_exactly_the_fouls() -> None:
    """The whole-board scan agrees with judging each point: every foul listed, nothing else, never a five point."""
    rng = random.Random(7)
    for _ in range(40):
        board = random_renju_position(rng)
        banned = rules.forbidden_points(board.cells, board.stride, board.rule)
        listed = {board.coords(i) for i in banned.nonzero()[0]}
        fouls = {(x, y) for x, y in board.empty_cells() if board.judge(x, y, BLACK) == FOUL}
        assert listed == fouls
