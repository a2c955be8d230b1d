"""The game of ``monte play`` as data: the referee's board (``tournaments.referee``, so the rules are judged as in a
tournament), each stone's thinking time, takebacks, resignation, and the record saved as SGF and .psq.

A person's move is checked before it is played -- an occupied cell or a forbidden renju point is refused with a
sentence and nothing changes -- whereas an engine's move goes straight to the referee, which rules a foul a loss.
"""

from __future__ import annotations

from pathlib import Path

from monte.protocol.notation import point_name
from monte.brain.board import BLACK, MOVE_FORBIDDEN, WHITE, Board
from monte.tournaments.records import GameRecord, SavedGame, Termination, to_psq, to_sgf
from monte.tournaments.referee import COLOR_NAMES, Referee, Ruling

RECORD_SUFFIXES = (".sgf", ".psq")


class Game:
    """One game: the board, the time of each stone, the names of the players, and the ruling once it is over."""

    def __init__(self, width: int, height: int, rule: int, names: dict[int, str]) -> None:
        self.referee = Referee(width, height, rule)
        self.names = names
        self.times_ms: list[int] = []
        self.ruling: Ruling | None = None

    @classmethod
    def from_saved(cls, saved: SavedGame, moves: int, names: dict[int, str]) -> "Game":
        """The game continued from the first `moves` stones of a saved one; ValueError if they do not alternate
        from black or already end the game."""
        game = cls(saved.width, saved.height, saved.rule, names)
        for number, (x, y, color) in enumerate(saved.stones[:moves], start=1):
            if color != game.to_move:
                raise ValueError(f"move {number} of the saved game is {COLOR_NAMES[color]}'s, out of turn: only a "
                                 f"game whose moves alternate from black can be continued")
            if game.play(x, y, 0) is not None:
                raise ValueError(f"the saved game is over after move {number}: {game.ruling.detail}; "
                                 f"load it with --move N below {number} to play on from earlier")
        return game

    @property
    def board(self) -> Board:
        return self.referee.board

    @property
    def to_move(self) -> int:
        return self.referee.to_move

    @property
    def over(self) -> bool:
        return self.ruling is not None

    @property
    def last(self) -> tuple[int, int] | None:
        """The last stone's point, or None on an empty board."""
        history = self.board.history
        return (history[-1].x, history[-1].y) if history else None

    def name(self, point: tuple[int, int]) -> str:
        return point_name(*point, self.board.height)

    def refusal(self, x: int, y: int) -> str | None:
        """Why the side to move may not play (x, y) -- a sentence -- or None if it may."""
        board = self.board
        if not board.is_empty(x, y):
            return f"{self.name((x, y))} is occupied"
        if self.to_move == BLACK and board.judge(x, y) == MOVE_FORBIDDEN:
            return f"{self.name((x, y))} is forbidden for black under renju (double three, double four or overline)"
        return None

    def forbidden_points(self) -> frozenset[tuple[int, int]]:
        """The points black may not play now (none unless black is to move under renju)."""
        if self.to_move != BLACK or self.over:
            return frozenset()
        board = self.board
        return frozenset(point for point in board.empty_cells() if board.is_forbidden(*point))

    def play(self, x: int, y: int, elapsed_ms: float) -> Ruling | None:
        """Play (x, y) for the side to move, as the referee judges it; the ruling if that ended the game."""
        stones = self.board.stone_count
        self.ruling = self.referee.move(x, y)
        if self.board.stone_count > stones:
            self.times_ms.append(round(elapsed_ms))
        return self.ruling

    def end(self, ruling: Ruling) -> None:
        """End the game otherwise than on the board: a resignation, an engine's fault."""
        self.ruling = ruling

    def resign(self) -> Ruling:
        """The side to move gives up."""
        loser = self.to_move
        self.ruling = Ruling(Termination.RESIGN, 3 - loser, f"{COLOR_NAMES[loser]} resigned")
        return self.ruling

    def undo(self, keep_turn_of: set[int]) -> int:
        """Take back the last stone and, while the side to move then is not in `keep_turn_of`, the one before (a
        move pair against an engine); reopens a finished game. Returns how many stones were taken back."""
        taken = 0
        while self.board.history and (taken == 0 or self.to_move not in keep_turn_of):
            self.board.undo()
            self.times_ms.pop()
            taken += 1
        if taken:
            self.ruling = None
        return taken

    def record(self) -> GameRecord:
        """The game as a tournament record (for SGF and .psq): unfinished games get the result ``Void``."""
        ruling = self.ruling
        winner = None if ruling is None or ruling.winner is None else self.names[ruling.winner]
        moves = [(m.x, m.y, ms) for m, ms in zip(self.board.history, self.times_ms)]
        return GameRecord(game_id=1, pairing=(self.names[BLACK], self.names[WHITE]), pair_index=0,
                          black=self.names[BLACK], white=self.names[WHITE], width=self.board.width,
                          height=self.board.height, rule=self.board.rule, opening=[], moves=moves, winner=winner,
                          termination=ruling.termination if ruling else Termination.INTERRUPTED,
                          detail=ruling.detail if ruling else "saved during play")

    def save(self, path: str) -> list[Path]:
        """Write the game to `path` (.sgf or .psq by its suffix; with neither, both PATH.sgf and PATH.psq)."""
        paths = save_paths(path)
        record = self.record()
        for out in paths:
            out.write_text(to_sgf(record) if out.suffix.lower() == ".sgf" else to_psq(record))
        return paths


def save_paths(path: str) -> list[Path]:
    """The files ``Game.save(path)`` writes: `path` itself when it ends in .sgf or .psq, else PATH.sgf and PATH.psq."""
    target = Path(path)
    return [target] if target.suffix.lower() in RECORD_SUFFIXES else [Path(f"{path}{s}") for s in RECORD_SUFFIXES]


def check_save_path(path: str) -> None:
    """ValueError, before the game, when the record could not be saved to `path` after it: a missing folder, a
    folder where the file should go."""
    for out in save_paths(path):
        folder = out.parent
        if not folder.is_dir():
            raise ValueError(f"--save {path}: the folder {folder} does not exist")
        if out.is_dir():
            raise ValueError(f"--save {path}: {out} is a folder")

