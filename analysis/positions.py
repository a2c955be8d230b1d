"""Where the games and positions of ``monte analyze``, ``monte render`` and ``monte play --load`` come from: an SGF
or Piskvork .psq file, a tournament's ``games.jsonl`` (one game picked by id), or a move list typed on the command
line (``"h8 i9 j8"``). Each becomes a ``SavedGame``; ``board_at`` sets up its position after any number of moves."""

from __future__ import annotations

import argparse
from pathlib import Path

from monte.protocol.notation import parse_moves, parse_rule, parse_size
from monte.brain.board import Board, IllegalMove
from monte.tournaments.records import SavedGame, read_jsonl, read_psq, read_sgf

FILE_SUFFIXES = (".sgf", ".psq", ".jsonl")


def load_game(source: str, *, width: int = 15, height: int | None = None, rule: int | None = None,
              game_id: int | None = None) -> SavedGame:
    """The game in `source`: a file (by its suffix: .sgf, .psq, .jsonl) or else a move list for a `width` x
    `height` board. `rule` overrides the file's (SGF from Monte keeps it; a .psq or a move list does not: freestyle
    unless given). A ``games.jsonl`` needs `game_id`. ValueError (or OSError for an unreadable file) says what is
    wrong."""
    path = Path(source)
    suffix = path.suffix.lower()
    if suffix in FILE_SUFFIXES or path.exists():
        if suffix == ".jsonl":
            game = _logged_game(path, game_id)
        else:
            game = read_game_text(path.read_text(encoding="utf-8", errors="replace"), suffix)
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
    """The position after the first `moves` stones of `game` (its side to move follows the last stone)."""
    if not 0 <= moves <= len(game.stones):
        raise ValueError(f"move {moves} is outside the game's 0..{len(game.stones)} moves")
    board = Board(game.width, game.height, game.rule)
    for number, (x, y, color) in enumerate(game.stones[:moves], start=1):
        try:
            board.place(x, y, color)
        except IllegalMove as exc:
            raise ValueError(f"move {number}: {exc}") from None
    return board


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
