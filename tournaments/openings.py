"""Openings for tournament games: read from the two text formats Gomoku managers use, or generated at random.

An opening is a list of stones already on the board when the engines take over, black first, colours alternating.
Games come in pairs from one opening with colours swapped, so an opening should be balanced: neither side may hold
a threat the other must answer at once.

File formats (one opening a line; blank lines and lines starting with ``#`` are ignored):

* offset (Piskvork, Gomocup, c-gomoku-cli's default): ``x,y, x,y, ...`` -- each stone as an offset from the centre
  cell ``(floor(width/2), floor(height/2))``, so one file fits every board size it is not too big for.
* pos (c-gomoku-cli's ``type=pos``, Yixin's ``getpos``): ``b7d6e6f7`` -- a column letter from ``a`` (x = 0)
  followed by a row number from 1. The row number counts from the *top* edge (y = number - 1): c-gomoku-cli converts
  a move to pos text as ``char('a' + x)`` then ``y + 1`` in the same 0-based, top-left-origin x,y the protocol uses,
  and its README calls the coordinate "the offset from the upper-left corner of the board". (Printed renju boards
  number rows from the bottom instead; we follow the manager whose files these are.)

The project ships two offset files in ``tournaments/openings/``, written from ``random_openings`` under freestyle
(every other rule's fives are a subset of freestyle's, so they stay balanced): ``freestyle15-3stone.txt`` (60
openings of 3 stones, seed 15; fits boards from 5x5 up) and ``freestyle20-5stone.txt`` (40 openings of 5 stones,
seed 20; fits boards from 7x7 up); and balanced pairs, ``freestyle15-balanced-{fit,test}.txt`` and
``freestyle20-balanced-{fit,test}.txt``: random quiet 3-stone openings that Rapfi, searching a fixed number of nodes,
rates within +-100 for the side to move (``monte.lab.balanced_openings``; the search and budget are in each file's
header), split into openings data may be made from (``fit``) and openings strength is measured on (``test``).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from pathlib import Path

from monte.brain.board import BLACK, Board, opponent
from monte.brain import kernels

_POS_STONE = re.compile(r"([a-zA-Z])(\d+)")
_POS_LINE = re.compile(r"(?:[a-zA-Z]\d+)+")
_OFFSET_LINE = re.compile(r"-?\d+(?:\s*,\s*-?\d+)*")

_DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))


@dataclass(frozen=True)
class Opening:
    """Stones on the board before the engines move: absolute (x, y), black first, colours alternating.

    ``source`` says where it came from: ``"file:line"`` for a file, ``"random:N"`` for a generated one.
    """

    stones: tuple[tuple[int, int], ...]
    source: str


def _parse_offsets(text: str, width: int, height: int) -> list[tuple[int, int, str]]:
    if not _OFFSET_LINE.fullmatch(text):
        raise ValueError(f"not an opening: {text!r} (expected offsets 'x,y, x,y' or pos text like 'h8i9')")
    numbers = [int(n) for n in re.split(r"\s*,\s*", text)]
    if len(numbers) % 2:
        raise ValueError(f"odd number of offsets ({len(numbers)}) in {text!r}: every stone needs x and y")
    cx, cy = width // 2, height // 2
    pairs = zip(numbers[0::2], numbers[1::2])
    return [(cx + dx, cy + dy, f"offset {dx},{dy}") for dx, dy in pairs]


def _parse_pos(text: str) -> list[tuple[int, int, str]]:
    return [(ord(letter.lower()) - ord("a"), int(row) - 1, f"{letter}{row}")
            for letter, row in _POS_STONE.findall(text)]


def parse_opening_line(line: str, width: int, height: int, source: str = "") -> Opening:
    """One opening from a line of either format, placed on a width x height board.

    Raises ValueError with a one-line reason if the line is malformed, a stone lies off the board or two stones
    share a cell.
    """
    text = line.strip()
    if not text:
        raise ValueError("empty opening line")
    if _POS_LINE.fullmatch(text):
        stones = _parse_pos(text)
    else:
        stones = _parse_offsets(text, width, height)
    seen: set[tuple[int, int]] = set()
    for number, (x, y, written) in enumerate(stones, start=1):
        if not (0 <= x < width and 0 <= y < height):
            raise ValueError(f"stone {number} ({written}) falls on {x},{y}, off the {width}x{height} board")
        if (x, y) in seen:
            raise ValueError(f"stone {number} ({written}) repeats an earlier stone at {x},{y}")
        seen.add((x, y))
    return Opening(tuple((x, y) for x, y, _ in stones), source)


def load_openings(path: str | Path, width: int, height: int) -> tuple[list[Opening], list[str]]:
    """The openings of a file that fit a width x height board, and one warning per line skipped.

    A line that is malformed or does not fit is skipped, never fatal. A file that cannot be read raises ValueError.
    """
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8-sig", errors="replace").splitlines()
    except OSError as exc:
        raise ValueError(f"cannot read openings file {str(path)!r}: {exc.strerror or exc}") from None
    openings: list[Opening] = []
    warnings: list[str] = []
    for number, line in enumerate(lines, start=1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        where = f"{path.name}:{number}"
        try:
            openings.append(parse_opening_line(text, width, height, where))
        except ValueError as exc:
            warnings.append(f"{where}: skipped: {exc}")
    return openings, warnings


def arrange_openings(openings: list[Opening], *, shuffle: bool, seed: int) -> list[Opening]:
    """The openings in file order, or shuffled reproducibly by `seed`; the input list is left as it was."""
    arranged = list(openings)
    if shuffle:
        random.Random(seed).shuffle(arranged)
    return arranged


# --- balanced random openings -------------------------------------------------------------------------------------

def _five_points(board: Board, color: int, x: int, y: int) -> int:
    """How many empty cells on the four lines through (x, y) would give `color` a five (a four has one or more)."""
    rules = kernels.module("monte.brain.rules")  # compiled once loaded, else the same code interpreted
    count = 0
    for dx, dy in _DIRECTIONS:
        for k in range(-4, 5):
            qx, qy = x + k * dx, y + k * dy
            if board.is_empty(qx, qy) and rules.makes_five(board.cells, board.stride, board.index(qx, qy), color,
                                                           board.rule):
                count += 1
    return count


def _line_cells(board: Board, stone: tuple[int, int]) -> list[tuple[int, int]]:
    """The empty cells within four steps of `stone` on its four lines: the only ones a move can join it from."""
    sx, sy = stone
    return [(sx + k * dx, sy + k * dy) for dx, dy in _DIRECTIONS for k in range(-4, 5)
            if k and board.is_empty(sx + k * dx, sy + k * dy)]


def _threatens(board: Board, color: int) -> bool:
    """Whether `color` has a four (a cell that completes five) or a move that makes two five points at once (an open
    three, a broken three, a double four): the other side would have to answer at once."""
    own = [(m.x, m.y) for m in board.history if m.color == color]
    if any(_five_points(board, color, x, y) for x, y in own):
        return True
    for x, y in {cell for stone in own for cell in _line_cells(board, stone)}:
        board.place(x, y, color)
        threat = _five_points(board, color, x, y) >= 2
        board.undo()
        if threat:
            return True
    return False


def random_openings(count: int, width: int, height: int, rule: int, *, stones: int = 3,
                    seed: int = 0) -> list[Opening]:
    """`count` distinct, balanced random openings of `stones` stones near the centre, reproducible from `seed`.

    Stones fall in a square around the centre just big enough for them (half-width 2 for up to 4 stones, growing
    with their number). Balanced: no stone makes a four or an open three, black never stands on a renju foul, and
    neither side has an immediate win. Raises ValueError if the board cannot hold that many such openings.
    """
    if count < 0 or stones < 1:
        raise ValueError(f"need count >= 0 and stones >= 1, got count={count} stones={stones}")
    board = Board(width, height, rule)
    radius = min(max(2, (stones + 1) // 2), max(width, height) // 2)
    cx, cy = width // 2, height // 2
    window = [(x, y) for x in range(cx - radius, cx + radius + 1) for y in range(cy - radius, cy + radius + 1)
              if board.inside(x, y)]
    if stones > len(window):
        raise ValueError(f"{stones} stones do not fit near the centre of a {width}x{height} board")
    rng = random.Random(seed)
    made: list[Opening] = []
    seen: set[tuple[frozenset, frozenset]] = set()
    attempts = 0
    while len(made) < count:
        attempts += 1
        if attempts > 200 * (count + 10):
            raise ValueError(f"could only make {len(made)} of {count} balanced {stones}-stone openings "
                             f"on a {width}x{height} board")
        placed = _random_stones(board, window, stones, rng)
        if placed is None:
            continue
        key = (frozenset(placed[0::2]), frozenset(placed[1::2]))
        if key not in seen:
            seen.add(key)
            made.append(Opening(tuple(placed), f"random:{len(made)}"))
    return made


def _random_stones(board: Board, window: list[tuple[int, int]], stones: int,
                   rng: random.Random) -> list[tuple[int, int]] | None:
    """One random quiet opening on the (empty) board, or None if this try ran into a threat; leaves it empty."""
    color = BLACK
    try:
        for x, y in rng.sample(window, stones):
            if color == BLACK and board.is_forbidden(x, y):
                return None
            board.place(x, y, color)
            if _threatens(board, color):  # only the side that just moved can have gained a threat
                return None
            color = opponent(color)
        return [(m.x, m.y) for m in board.history]
    finally:
        while board.history:
            board.undo()
