"""How people write Gomoku points: a column letter and a row number, as on a renju board and in Renlib or Yixin.

Columns are letters from A at the left (A..Z, then AA, AB... on boards wider than 26); rows are numbers from 1 at the
bottom. On 15x15 the centre is H8. The protocol's ``x,y`` (0-based, x the column from the left, y the row from the
top) is accepted too, so ``H8`` and ``7,7`` are the same point on 15x15: x = the column's index, y = height - row.
Rules are named as people name them and numbered as the protocol's ``INFO rule`` numbers them.

It lives with the protocol, below every tool that shows or reads a board (the search-info reader here, ``monte
play``, ``monte analyze``, ``monte render``, the web board): each reaches it downward.
"""

from __future__ import annotations

import re
from string import ascii_uppercase

from monte.protocol.search_info import ReportedSearch

_POINT = re.compile(r"([A-Za-z]+)(\d+)")
_XY = re.compile(r"\s*(-?\d+)\s*,\s*(-?\d+)\s*")


def column_name(x: int) -> str:
    """The letters of column `x` (0-based): A..Z, then AA, AB, ..."""
    name = ""
    x += 1
    while x > 0:
        x, rest = divmod(x - 1, 26)
        name = ascii_uppercase[rest] + name
    return name


def column_index(name: str) -> int:
    """The 0-based column of letters `name` (case ignored): the inverse of ``column_name``."""
    x = 0
    for ch in name.upper():
        x = 26 * x + ascii_uppercase.index(ch) + 1
    return x - 1


def point_name(x: int, y: int, height: int) -> str:
    """The point (x, y) as people write it on a board `height` rows high, e.g. ``H8``."""
    return f"{column_name(x)}{height - y}"


_PROTOCOL_POINT = re.compile(r"\b(\d+),(\d+)\b")


def named_points(text: str, width: int, height: int) -> str:
    """`text` with the protocol's ``x,y`` points on a `width` x `height` board written as people write them
    (``black made five with 11,12`` -> ``... with L3`` on 15x15); points off the board are left as they are."""
    def name(found: re.Match) -> str:
        x, y = int(found.group(1)), int(found.group(2))
        return point_name(x, y, height) if x < width and y < height else found.group(0)

    return _PROTOCOL_POINT.sub(name, text)


def line_names(points: list[tuple[int, int]], height: int) -> str:
    """Points as names, separated by spaces (a principal variation, a game's moves)."""
    return " ".join(point_name(x, y, height) for x, y in points)


def _board_hint(width: int, height: int) -> str:
    return f"columns A-{column_name(width - 1)}, rows 1-{height}"


def parse_point(text: str, width: int, height: int) -> tuple[int, int]:
    """The (x, y) of `text`, a point name (``H8``, ``h8``) or the protocol's ``x,y``, on a `width` x `height`
    board. ValueError says what is wrong in a sentence a player can act on."""
    text = text.strip()
    named = _POINT.fullmatch(text)
    xy = _XY.fullmatch(text)
    if named:
        x, y = column_index(named.group(1)), height - int(named.group(2))
    elif xy:
        x, y = int(xy.group(1)), int(xy.group(2))
    else:
        raise ValueError(f"{text!r} is not a point: write a column letter and a row number (H8) or x,y (7,7)")
    if not (0 <= x < width and 0 <= y < height):
        raise ValueError(f"{text} is off the {width}x{height} board ({_board_hint(width, height)})")
    return x, y


def parse_moves(text: str, width: int, height: int) -> list[tuple[int, int]]:
    """The points of a move list: point names or ``x,y`` pairs separated by spaces, or point names run together
    as many programs write them (``h8i9j8``). ValueError names the first bad point."""
    points = []
    for token in text.replace(";", " ").split():
        if _XY.fullmatch(token):
            points.append(parse_point(token, width, height))
            continue
        parts = _POINT.findall(token)
        if not parts or "".join(a + b for a, b in parts) != token:
            raise ValueError(f"{token!r} is not a point: write a column letter and a row number (H8) or x,y (7,7)")
        points += [parse_point(a + b, width, height) for a, b in parts]
    return points


RULES = {"freestyle": 0, "exact": 1, "renju": 4, "caro": 8, "caro-exact": 9}
"""Rule names and the protocol's ``INFO rule`` numbers they stand for (exact: exactly five wins, not six)."""


def parse_rule(text: str) -> int:
    """A rule from its name (``renju``) or its protocol number (``4``); ValueError lists the choices."""
    text = text.strip().lower()
    if text in RULES:
        return RULES[text]
    if text.isdigit() and int(text) in RULES.values():
        return int(text)
    choices = ", ".join(f"{name} ({number})" for name, number in RULES.items())
    raise ValueError(f"unknown rule {text!r}; choose one of {choices}")


def rule_name(rule: int) -> str:
    """The name of a rule number (its number when it has none)."""
    return next((name for name, number in RULES.items() if number == rule), f"rule {rule}")


def parse_size(text: str) -> tuple[int, int]:
    """A board size, ``N`` (square) or ``WxH``; ValueError otherwise (the board itself checks 5..32)."""
    width, _, height = text.lower().partition("x")
    try:
        return int(width), int(height or width)
    except ValueError:
        raise ValueError(f"board size {text!r} is not N or WxH") from None


def search_summary(info: ReportedSearch, height: int) -> str:
    """An engine's search line as one short line for a status bar: depth, the evaluation on the one scale
    (``protocol.evaluation``), nodes, and the main line in the board's notation (rows from the bottom)."""
    parts = []
    if info.depth:
        parts.append(f"depth {info.depth}" + (f"-{info.seldepth}" if info.seldepth else ""))
    evaluation = info.evaluation()  # the one scale: "win in N", "win rate 62.3%"
    if evaluation:
        parts.append(evaluation)
    count = info.visits or info.nodes
    if count:
        parts.append(f"{count} {'visits' if info.visits else 'nodes'}")
    if info.pv:
        names = [point_name(int(m.group(1)), int(m.group(2)), height) if (m := _XY.fullmatch(p)) else p
                 for p in info.pv[:8]]
        parts.append("pv " + " ".join(names))
    return "  ".join(parts)
