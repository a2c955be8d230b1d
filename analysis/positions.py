"""Where the games and positions of ``monte analyze``, ``monte render`` and ``monte play --load`` come from: an SGF
or Piskvork .psq file, a tournament's ``games.jsonl`` (one game picked by id), or a move list typed on the command
line (``"h8 i9 j8"``). Each becomes a ``SavedGame``; ``board_at`` sets up its position after any number of moves."""

from __future__ import annotations

import argparse
from pathlib import Path

from monte.protocol.notation import parse_moves, parse_rule, parse_size
from monte.brain import kernels
from monte.brain.board import Board, IllegalMove
from monte.tournaments.records import SavedGame, read_jsonl, read_psq, read_sgf

FILE_SUFFIXES = (".sgf", ".psq", ".jsonl")


def load_game(source: str, *, width: int = 15, height: int | None = None, rule: int | None = None,
              game_id: int | None = None) -> SavedGame:
    """The game in `source`: a file (by its suffix: .sgf, .psq, .jsonl) or else a move list for a `width` x
    `height` board. `rule` overrides the file's (SGF from Monte keeps it; a .psq or a move list does not: freestyle
    unless given). A ``games.jsonl`` needs `game_id`. ValueError (or OSError for an unreadable file) says what is
    wrong."""
    if not source.strip():
        raise ValueError("no game given: name an .sgf, .psq or games.jsonl file, or write moves such as 'h8 i9 j8'")
    path = Path(source)
    suffix = path.suffix.lower()
    if suffix in FILE_SUFFIXES or path.exists():
        game = _file_game(path, game_id)
    else:
        height = width if height is None else height
        Board(width, height)  # a size outside 5..32 is refused before any point is read
        moves = parse_moves(source, width, height)
        if not moves:
            raise ValueError(f"{source!r} is neither a game file ({', '.join(FILE_SUFFIXES)}) nor a move list")
        game = SavedGame(width, height, 0, [(x, y, 1 + i % 2) for i, (x, y) in enumerate(moves)])
    if rule is not None:
        game.rule = rule
    board_at(game, len(game.stones))  # refuse a game that cannot be set up now, not later
    return game


def _file_game(path: Path, game_id: int | None) -> SavedGame:
    """The game in the file at `path`; ValueError naming the file for one that is missing, a folder, unreadable
    or not a game (never the raw errno)."""
    if path.is_dir():
        raise ValueError(f"{path} is a folder, not a game file ({', '.join(FILE_SUFFIXES)})")
    if not path.exists():
        raise ValueError(f"{path}: no such file")
    try:
        if path.suffix.lower() == ".jsonl":
            return _logged_game(path, game_id)  # its errors name the file already
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise ValueError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    try:
        return read_game_text(text, path.suffix)
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None


def read_game_text(text: str, suffix: str, psq_rule: int = 0) -> SavedGame:
    """The game in the text of an .sgf or .psq file: SGF by its `suffix` (``.sgf``) or its opening ``(``, else
    .psq, which does not say its rule: `psq_rule` is taken. ValueError says what is wrong."""
    if suffix.lower() == ".sgf" or text.lstrip().startswith("("):
        return read_sgf(text)
    return read_psq(text, psq_rule)


def _logged_game(path: Path, game_id: int | None) -> SavedGame:
    records = read_jsonl(path)
    if game_id is None:
        raise ValueError(f"{path} holds {len(records)} games: pick one with --game ID")
    for record in records:
        if record.game_id == game_id:
            return SavedGame.from_record(record)
    ids = sorted(record.game_id for record in records)
    raise ValueError(f"{path} has no game {game_id} (its games: {ids[0]}..{ids[-1]})" if ids else f"{path} is empty")


def board_at(game: SavedGame, moves: int) -> Board:
    """The position after the first `moves` stones of `game` (its side to move follows the last stone); ValueError
    for a stone on an occupied point or after a five."""
    if not 0 <= moves <= len(game.stones):
        raise ValueError(f"move {moves} is outside the game's 0..{len(game.stones)} moves")
    board = Board(game.width, game.height, game.rule)
    for number, (x, y, color) in enumerate(game.stones[:moves], start=1):
        if number > 1 and winning_line(board):
            raise ValueError(f"move {number}: the game was over after move {number - 1}, a five")
        try:
            board.place(x, y, color)
        except IllegalMove as exc:
            raise ValueError(f"move {number}: {exc}") from None
    return board


def winning_line(board: Board) -> list[list[int]]:
    """The points of the five (or longer winning row) that the last stone made under the board's rule, or []: a
    position with one is finished, not to be analysed or played on."""
    if not board.history:
        return []
    last = board.history[-1]
    idx = board.index(last.x, last.y)
    rules = kernels.module("monte.brain.rules")  # the compiled rules once loaded, else the same code interpreted
    for direction in range(4):
        step = rules.line_step(board.stride, direction)
        if rules.five_in_direction(board.cells, idx, step, last.color, board.rule):
            back, forward = rules.run_bounds(board.cells, idx, step, last.color)
            return [list(board.coords(idx + k * step)) for k in range(-back, forward + 1)]
    return []


def add_position_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments that say where a position comes from (shared by ``monte analyze`` and ``monte render``)."""
    parser.add_argument("source", help="an .sgf, .psq or games.jsonl file, or a move list such as 'h8 i9 j8'")
    parser.add_argument("--move", type=int, default=None,
                        help="the position after this many moves of the game (default: all of them)")
    parser.add_argument("--game", type=int, default=None, help="the game id, for a tournament's games.jsonl")
    parser.add_argument("--size", default="15", help="board size of a move list: N or WxH (default 15)")
    parser.add_argument("--rule", default=None,
                        help="freestyle, exact, renju, caro, caro-exact or a number (default: the file's, "
                             "else freestyle)")


def loaded(args: argparse.Namespace) -> tuple[SavedGame, int]:
    """The `SavedGame` the position arguments name and how many of its moves to play; ValueError says what is
    wrong."""
    width, height = parse_size(args.size)
    rule = None if args.rule is None else parse_rule(args.rule)
    game = load_game(args.source, width=width, height=height, rule=rule, game_id=args.game)
    moves = len(game.stones) if args.move is None else args.move
    board_at(game, moves)
    return game, moves
