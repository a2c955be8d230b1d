"""One small game between two players, refereed by the board: a row of k wins, a full board is a draw."""

from __future__ import annotations

from dataclasses import dataclass

from monte.brain.board import BLACK, EMPTY, MOVE_WINS, WHITE
from monte.small_games.players import SmallGamePlayer
from monte.small_games.spec import SmallGame


@dataclass(frozen=True)
class GameRecord:
    """How a game went: the moves in order (x, y), and the winner (``BLACK``, who moved first, ``WHITE``, or
    ``EMPTY`` for a draw)."""

    moves: tuple[tuple[int, int], ...]
    winner: int


def play_game(game: SmallGame, first: SmallGamePlayer, second: SmallGamePlayer, seed: int) -> GameRecord:
    """Play one game of `game`, `first` moving first; each player is seeded from `seed` (reproducible games)."""
    first.new_game(2 * seed)
    second.new_game(2 * seed + 1)
    board = game.new_board()
    players = {BLACK: first, WHITE: second}
    while not board.is_full():
        mover = board.to_move
        x, y = players[mover].choose(board)
        if board.play(x, y) == MOVE_WINS:
            return GameRecord(tuple((m.x, m.y) for m in board.history), mover)
    return GameRecord(tuple((m.x, m.y) for m in board.history), EMPTY)
