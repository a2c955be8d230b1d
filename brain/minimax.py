"""Perfect play by plain minimax with a memo, for boards small enough to search to the end: tic-tac-toe whole (5,478
positions), or the last dozen moves of a Connect Four game (where it checks ``brain.connect4``'s solver).

Values are for the side to move: WIN (1), DRAW (0), LOSS (-1). No pruning, no ordering: its only claim is to be
obviously right.
"""

from __future__ import annotations

from monte.brain.board import MOVE_WINS, Board

WIN = 1
DRAW = 0
LOSS = -1


class Minimax:
    """The game-theoretic value of positions of one small game, remembered across questions."""

    def __init__(self) -> None:
        self._memo: dict[tuple[bytes, int], int] = {}

    def value(self, board: Board) -> int:
        """WIN, DRAW or LOSS for the side to move on `board`, assumed not to be over already."""
        key = (board.cells.tobytes(), board.to_move)
        known = self._memo.get(key)
        if known is None:
            known = max(self.move_values(board).values(), default=DRAW)
            self._memo[key] = known
        return known

    def move_values(self, board: Board) -> dict[tuple[int, int], int]:
        """The value of each legal move for the side to move, with perfect play afterwards."""
        values = {}
        for x, y in board.legal_moves():
            wins = board.play(x, y) == MOVE_WINS
            values[(x, y)] = WIN if wins else -self.value(board)
            board.undo()
        return values
