"""SVG pictures of positions and games, drawn by hand: a wooden board with its coordinates (as
``protocol.notation`` writes them), the stones with their move numbers, the last move marked in red, the winning
five struck through, and optionally black's forbidden points under renju. No library is needed to write SVG; a PNG
is made from it by ``rsvg-convert`` when that tool is installed (``to_png``)."""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from html import escape
from pathlib import Path

from monte.protocol.notation import column_name
from monte.analysis.positions import add_position_arguments, board_at, loaded, winning_line
from monte.brain.board import BLACK
from monte.brain.codes import RULE_RENJU
from monte.tournaments.records import SavedGame

CELL = 32
"""Pixels between two lines of the board."""
MARGIN = 40
"""Room for the coordinates around the grid."""
TITLE_HEIGHT = 28
BOARD_COLOUR = "#dcb35c"
LAST_MOVE_COLOUR = "#d62728"
FIVE_COLOUR = "#d81b60"
PNG_TOOL = "rsvg-convert"
PICTURE_SUFFIXES = (".svg", ".png")


def _star_points(width: int, height: int) -> list[tuple[int, int]]:
    """The dots of a 15x15 board (centre and the four 4-4 points), placed alike on other sizes of 13 and up."""
    points = [(width // 2, height // 2)] if width % 2 and height % 2 else []
    if width >= 13 and height >= 13:
        points += [(x, y) for x in (3, width - 4) for y in (3, height - 4)]
    return points


def game_svg(game: SavedGame, moves: int | None = None, *, numbers: bool = True, forbidden: bool = False,
             title: str = "") -> str:
    """The position after the first `moves` stones of `game` (default: all) as an SVG document: stones numbered
    in the order played (`numbers`), the last one marked; with `forbidden`, black's forbidden points (renju, black
    to move) crossed in red. `title` is written above the board."""
    count = len(game.stones) if moves is None else moves
    board = board_at(game, count)
    width, height = game.width, game.height
    top = MARGIN + (TITLE_HEIGHT if title else 0)
    size_x, size_y = 2 * MARGIN + (width - 1) * CELL, top + MARGIN + (height - 1) * CELL

    def at(x: int, y: int) -> tuple[int, int]:
        return MARGIN + x * CELL, top + y * CELL

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{size_x}" height="{size_y}" '
             f'viewBox="0 0 {size_x} {size_y}" font-family="sans-serif">',
             f'<rect width="{size_x}" height="{size_y}" fill="{BOARD_COLOUR}"/>']
    if title:
        parts.append(f'<text x="{size_x / 2}" y="{TITLE_HEIGHT - 4}" font-size="15" text-anchor="middle">'
                     f'{escape(title)}</text>')
    (left, upper), (right, lower) = at(0, 0), at(width - 1, height - 1)
    grid = [f"M{left} {at(0, y)[1]}H{right}" for y in range(height)]
    grid += [f"M{at(x, 0)[0]} {upper}V{lower}" for x in range(width)]
    parts.append(f'<path d="{" ".join(grid)}" stroke="#222" stroke-width="1"/>')
    parts += [f'<circle cx="{cx}" cy="{cy}" r="3.5" fill="#222"/>'
              for cx, cy in (at(x, y) for x, y in _star_points(width, height))]
    for x in range(width):
        cx = at(x, 0)[0]
        parts += [f'<text x="{cx}" y="{yy}" font-size="13" text-anchor="middle">{column_name(x)}</text>'
                  for yy in (upper - 16, lower + 26)]
    for y in range(height):
        cy = at(0, y)[1] + 5
        parts += [f'<text x="{xx}" y="{cy}" font-size="13" text-anchor="middle">{height - y}</text>'
                  for xx in (left - 22, right + 22)]
    for number, (x, y, color) in enumerate(game.stones[:count], start=1):
        parts += _stone(*at(x, y), color, number if numbers else None, last=number == count)
    five = winning_line(board)
    if five:  # a stroke through the winning row, under the numbers' colour but over the stones
        (x1, y1), (x2, y2) = at(*five[0]), at(*five[-1])
        parts.append(f'<line class="five" x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{FIVE_COLOUR}" '
                     f'stroke-width="5" stroke-linecap="round" opacity="0.7"/>')
    if forbidden and game.rule & RULE_RENJU and board.to_move == BLACK:
        r = CELL * 0.22
        for x, y in board.empty_cells():
            if board.is_forbidden(x, y):
                cx, cy = at(x, y)
                parts.append(f'<path d="M{cx - r} {cy - r}L{cx + r} {cy + r}M{cx - r} {cy + r}L{cx + r} {cy - r}" '
                             f'stroke="{LAST_MOVE_COLOUR}" stroke-width="3"/>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _stone(cx: int, cy: int, color: int, number: int | None, last: bool) -> list[str]:
    """One stone: a circle, its move number (red on the last move), or a red dot on the last move when unnumbered."""
    fill, ink = ("#111", "#fff") if color == BLACK else ("#f7f7f7", "#111")
    out = [f'<circle cx="{cx}" cy="{cy}" r="{CELL * 0.46:.1f}" fill="{fill}" stroke="#111" stroke-width="1"/>']
    if number is not None:
        size = 14 if number < 100 else 11
        colour = LAST_MOVE_COLOUR if last else ink
        out.append(f'<text x="{cx}" y="{cy + size * 0.36:.1f}" font-size="{size}" text-anchor="middle" '
                   f'fill="{colour}">{number}</text>')
    elif last:
        out.append(f'<circle cx="{cx}" cy="{cy}" r="{CELL * 0.13:.1f}" fill="{LAST_MOVE_COLOUR}"/>')
    return out


def to_png(svg_path: Path, png_path: Path) -> None:
    """Convert an SVG file to PNG with ``rsvg-convert`` (librsvg); ValueError when it is not installed or fails."""
    tool = shutil.which(PNG_TOOL)
    if tool is None:
        raise ValueError(f"a PNG needs {PNG_TOOL} (Debian/Ubuntu: apt-get install librsvg2-bin); "
                         f"write an .svg instead")
    result = subprocess.run([tool, "-o", str(png_path), str(svg_path)], capture_output=True, text=True)
    if result.returncode != 0:
        raise ValueError(f"{PNG_TOOL} failed: {result.stderr.strip()}")


def configure(parser: argparse.ArgumentParser) -> None:
    add_position_arguments(parser)
    parser.add_argument("-o", "--output", default="",
                        help="the picture to write, .svg or .png (default: SOURCE's name with .svg, or stdout for "
                             "a move list)")
    parser.add_argument("--no-numbers", action="store_true", help="stones without their move numbers")
    parser.add_argument("--forbidden", action="store_true", help="cross black's forbidden points (renju)")


def run(args: argparse.Namespace) -> int:
    """Draw the game or position the arguments name; ValueError for anything the user can fix."""
    game, moves = loaded(args)
    names = f"{game.black} (black) vs {game.white} (white), " if game.black or game.white else ""
    result = f"{game.result}, " if game.result and moves == len(game.stones) else ""
    svg = game_svg(game, moves, numbers=not args.no_numbers, forbidden=args.forbidden,
                   title=f"{names}{result}move {moves} of {len(game.stones)}")
    output = args.output or _default_output(args.source, args.game)
    if not output:
        sys.stdout.write(svg)
        return 0
    path = Path(output)
    suffix = path.suffix.lower()
    if suffix not in PICTURE_SUFFIXES:
        raise ValueError(f"-o {output}: monte render writes .svg or .png pictures, "
                         f"not {suffix or 'a file without a suffix'}")
    if not path.parent.is_dir():
        raise ValueError(f"-o {output}: the folder {path.parent} does not exist")
    if suffix == ".png":
        with tempfile.TemporaryDirectory() as scratch:  # the SVG is a step on the way, not left beside the PNG
            svg_path = Path(scratch) / "picture.svg"
            svg_path.write_text(svg)
            to_png(svg_path, path)
    else:
        path.write_text(svg)
    print(f"monte render: {path}", file=sys.stderr)
    return 0


def _default_output(source: str, game_id: int | None) -> str:
    """SOURCE.svg beside a game file (gameN.svg for a games.jsonl), nothing (stdout) for a move list."""
    path = Path(source)
    if not path.is_file():
        return ""
    if path.suffix.lower() == ".jsonl":
        return str(path.with_name(f"game{game_id:05d}.svg"))
    return str(path.with_suffix(".svg"))
