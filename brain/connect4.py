"""A Connect Four solver: the perfect-play reference the small games' experiments compare UCT with.

It answers win, draw or loss for the side to move (a "weak" solution: not how fast), exactly, by a depth-first
alpha-beta search to the end of the game -- no depth limit, no evaluation -- so on the empty board it is slow (minutes
to hours); positions a dozen stones into a game take it well under a second.

The position is two bitboards (``uint64``): one bit per cell, column by column, each column ``HEIGHT + 1`` bits
from the bottom up (the spare bit on top keeps a column's carry out of the next one): ``mine`` holds the stones of
the side to move, ``mask`` every stone. Then the move in a column is ``mask + bottom``, a row of four is four shifted
copies ANDed, and the key ``mine + mask`` names the position uniquely.

What makes it fast enough:
  - only moves that do not hand the opponent an immediate win are searched (the opponent's winning cells that can be
    played now must be blocked -- two of them lose at once -- and no move may go just below one); so the side to
    move never has an immediate win inside the search, and a position without such a move is lost;
  - null-window searches: "is it a win?" (window 0..1), then "is it at least a draw?" (-1..0);
  - moves ordered by how many winning cells they make for us, then from the centre column out;
  - a transposition table of lower and upper bounds, keyed by the full 49-bit key (no false hits).
"""

from __future__ import annotations

import numpy as np

from monte.brain.board import EMPTY, Board
from monte.brain.jit import Int8Array, Int64Array, array, njit, types

WIDTH = 7
HEIGHT = 6
COLUMN_BITS = HEIGHT + 1
CELLS = WIDTH * HEIGHT

WIN = 1
DRAW = 0
LOSS = -1
FULL = -2
"""A full column's entry in `column_values`."""

UInt64Array = array(types.uint64)

_ONE = np.uint64(1)
_BOTTOM = np.uint64(sum(1 << (x * COLUMN_BITS) for x in range(WIDTH)))
_BOARD = np.uint64(sum(((1 << HEIGHT) - 1) << (x * COLUMN_BITS) for x in range(WIDTH)))
_COLUMNS = np.array([((1 << HEIGHT) - 1) << (x * COLUMN_BITS) for x in range(WIDTH)], dtype=np.uint64)
_CENTRE_OUT = np.array(sorted(range(WIDTH), key=lambda x: (abs(x - WIDTH // 2), x)), dtype=np.int64)
_SHIFTS = np.array([1, COLUMN_BITS, COLUMN_BITS - 1, COLUMN_BITS + 1], dtype=np.uint64)  # |, -, /, \ directions

TABLE_BITS = 22


@njit(cache=True)
def _popcount(x: np.uint64) -> int:
    """How many bits of x are set."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return int((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True)
def _has_four(stones: np.uint64) -> bool:
    """Whether `stones` hold four in a row in any direction."""
    for d in range(4):
        s = _SHIFTS[d]
        pairs = stones & (stones >> s)
        if pairs & (pairs >> (np.uint64(2) * s)):
            return True
    return False


@njit(cache=True)
def _winning_cells(stones: np.uint64, mask: np.uint64) -> np.uint64:
    """The empty cells (playable now or not) where one more of `stones` would make four in a row."""
    found = np.uint64(0)
    for d in range(4):
        s = _SHIFTS[d]
        s2 = np.uint64(2) * s
        s3 = np.uint64(3) * s
        if d == 0:  # vertical: only the cell on top of three can complete it
            found |= (stones << s) & (stones << s2) & (stones << s3)
            continue
        pair = (stones << s) & (stones << s2)
        found |= pair & (stones << s3)  # three to one side
        found |= pair & (stones >> s)  # two to one side, one to the other
        pair = (stones >> s) & (stones >> s2)
        found |= pair & (stones << s)
        found |= pair & (stones >> s3)
    return found & (_BOARD ^ mask)


@njit(cache=True)
def _safe_moves(mine: np.uint64, mask: np.uint64) -> np.uint64:
    """The cells the side to move can play without letting the opponent win at once (0: every move loses)."""
    playable = (mask + _BOTTOM) & _BOARD
    threats = _winning_cells(mine ^ mask, mask)
    forced = playable & threats
    if forced:
        if forced & (forced - _ONE):
            return np.uint64(0)  # two cells to block at once
        playable = forced
    return playable & ~(threats >> _ONE)  # never right below an opponent's winning cell


@njit("int64(uint64, uint64, int64, int64, int64, uint64[:], int8[:], int8[:], int64[:])", cache=True)
def _negamax(mine: np.uint64, mask: np.uint64, moves: int, alpha: int, beta: int, keys: np.ndarray,
             lower: np.ndarray, upper: np.ndarray, nodes: np.ndarray) -> int:
    """The value (WIN, DRAW, LOSS) of a position for the side to move, fail-soft within alpha..beta, when the side
    to move has no immediate win (true of every position the search reaches, see the module docstring)."""
    nodes[0] += 1
    safe = _safe_moves(mine, mask)
    if safe == 0:
        return LOSS
    if moves >= CELLS - 2:
        return DRAW  # neither side can complete a row in the last two cells any more
    slot = (mine + mask) & np.uint64(keys.shape[0] - 1)
    key = mine + mask
    if keys[slot] == key:
        if upper[slot] <= alpha:
            return upper[slot]
        if lower[slot] >= beta:
            return lower[slot]
        alpha = max(alpha, lower[slot])
        beta = min(beta, upper[slot])
    # order: most winning cells made first; ties from the centre out (insertion sort keeps that order)
    order = np.empty(WIDTH, dtype=np.uint64)
    score = np.empty(WIDTH, dtype=np.int64)
    n = 0
    for i in range(WIDTH):
        cell = safe & _COLUMNS[_CENTRE_OUT[i]]
        if cell:
            s = _popcount(_winning_cells(mine | cell, mask))
            j = n
            while j > 0 and score[j - 1] < s:
                order[j] = order[j - 1]
                score[j] = score[j - 1]
                j -= 1
            order[j] = cell
            score[j] = s
            n += 1
    best = LOSS - 1
    for i in range(n):
        value = -_negamax(mine ^ mask, mask | order[i], moves + 1, -beta, -max(alpha, best), keys, lower, upper,
                          nodes)
        if value > best:
            best = value
            if best >= beta:
                break
    if keys[slot] != key:
        keys[slot] = key
        lower[slot] = LOSS
        upper[slot] = WIN
    if best >= beta:
        lower[slot] = max(lower[slot], best)
    elif best <= alpha:
        upper[slot] = min(upper[slot], best)
    else:
        lower[slot] = best
        upper[slot] = best
    return best


@njit(cache=True)
def _solve(mine: np.uint64, mask: np.uint64, moves: int, keys: np.ndarray, lower: np.ndarray, upper: np.ndarray,
           nodes: np.ndarray) -> int:
    """WIN, DRAW or LOSS for the side to move, by two null-window searches."""
    if _winning_cells(mine, mask) & (mask + _BOTTOM):
        return WIN
    if moves == CELLS:
        return DRAW
    if _negamax(mine, mask, moves, DRAW, WIN, keys, lower, upper, nodes) >= WIN:
        return WIN
    return DRAW if _negamax(mine, mask, moves, LOSS, DRAW, keys, lower, upper, nodes) >= DRAW else LOSS


@njit(cache=True)
def solve_bits(mine: int, mask: int, moves: int, keys: UInt64Array, lower: Int8Array, upper: Int8Array,
               nodes: Int64Array) -> int:
    """The value of a position given as bitboards (Python ints), searched with the given table."""
    return _solve(np.uint64(mine), np.uint64(mask), moves, keys, lower, upper, nodes)


@njit(cache=True)
def column_values(mine: int, mask: int, moves: int, keys: UInt64Array, lower: Int8Array, upper: Int8Array,
                  nodes: Int64Array, out: Int64Array) -> None:
    """out[x]: the value for the side to move of a stone dropped in column x (out of play, -2, when it is full)."""
    me = np.uint64(mine)
    all_stones = np.uint64(mask)
    playable = (all_stones + _BOTTOM) & _BOARD
    for x in range(WIDTH):
        cell = playable & _COLUMNS[x]
        if not cell:
            out[x] = FULL
        elif _has_four(me | cell):
            out[x] = WIN
        elif moves + 1 == CELLS:
            out[x] = DRAW
        else:
            out[x] = -_solve(me ^ all_stones, all_stones | cell, moves + 1, keys, lower, upper, nodes)


@njit(cache=True)
def has_four_bits(stones: int) -> bool:
    """Whether the stones of a bitboard (a Python int) hold four in a row."""
    return _has_four(np.uint64(stones))


class Connect4Solver:
    """Perfect play for standard Connect Four (7 wide, 6 high, four in a row, gravity). The transposition table
    (about 40 MB) lives as long as the solver, so later questions about nearby positions are cheaper."""

    def __init__(self, table_bits: int = TABLE_BITS) -> None:
        size = 1 << table_bits
        self._table = (
            np.zeros(size, dtype=np.uint64),
            np.full(size, LOSS, dtype=np.int8),  # bounds that say nothing, so that an empty slot's key 0 (the empty
            np.full(size, WIN, dtype=np.int8),  # board's) is harmless
            np.zeros(1, dtype=np.int64),
        )

    @property
    def nodes(self) -> int:
        """Positions searched so far, over every question asked."""
        return int(self._table[3][0])

    def value(self, board: Board) -> int:
        """WIN, DRAW or LOSS for the side to move on `board`, with perfect play from both sides. ValueError if the
        board is not a Connect Four position or the game is over."""
        return int(solve_bits(*_bitboards(board), *self._table))

    def move_values(self, board: Board) -> dict[tuple[int, int], int]:
        """The value of each legal move for the side to move (WIN, DRAW or LOSS, perfect play afterwards)."""
        out = np.empty(WIDTH, dtype=np.int64)
        column_values(*_bitboards(board), *self._table, out)
        return {(x, y): int(out[x]) for x, y in board.legal_moves()}


def _bitboards(board: Board) -> tuple[int, int, int]:
    """(mine, mask, stones) of a Connect Four board, `mine` being the side to move's stones."""
    if (board.width, board.height, board.k, board.gravity) != (WIDTH, HEIGHT, 4, True):
        raise ValueError(f"not a Connect Four board: {board.width}x{board.height}, rows of {board.k}, "
                         f"gravity {board.gravity}")
    mine = mask = 0
    for x in range(WIDTH):
        for row in range(HEIGHT):
            stone = board.at(x, HEIGHT - 1 - row)
            if stone != EMPTY:
                bit = 1 << (x * COLUMN_BITS + row)
                mask |= bit
                if stone == board.to_move:
                    mine |= bit
    if has_four_bits(mine) or has_four_bits(mine ^ mask):
        raise ValueError("the game is over: a row of four is on the board")
    return mine, mask, bin(mask).count("1")
