"""The seed articles' experiments on the small games, as functions that return their numbers (``seeds`` writes
them up):

- plain UCT against perfect play, as either side, at a number of simulations per move (tic-tac-toe);
- a round-robin of UCT settings, each against each with colours swapped (Connect Four);
- how UCT's chosen move and its value settle as the iterations grow, against the perfect-play answer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations

from monte.brain.board import BLACK, EMPTY, Board
from monte.brain.uct import UctSettings, run_uct, seed_random
from monte.small_games.match import play_game
from monte.small_games.players import PerfectBot, UctBot
from monte.small_games.spec import SmallGame, Reference


@dataclass
class Tally:
    """Wins, draws and losses of one side."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        """Games counted."""
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        """A win 1, a draw 1/2."""
        return self.wins + self.draws / 2

    def merge(self, other: "Tally") -> None:
        """Count another tally's games too."""
        self.wins += other.wins
        self.draws += other.draws
        self.losses += other.losses

    def add(self, winner: int, me: int) -> None:
        """Count a game `me` (a colour) played, won by `winner` (``EMPTY``: a draw)."""
        if winner == EMPTY:
            self.draws += 1
        elif winner == me:
            self.wins += 1
        else:
            self.losses += 1


def versus_perfect(game: SmallGame, simulations: int, games_per_colour: int, settings: UctSettings, seed: int,
                   reference: Reference | None = None, first_best: bool = False) -> tuple[Tally, Tally]:
    """UCT at `simulations` per move against perfect play (a random best move, or with `first_best` the first in
    board order): UCT's tally moving first, then moving second."""
    uct = UctBot(simulations, settings)
    perfect = PerfectBot(reference or game.reference(), first=first_best)
    first, second = Tally(), Tally()
    for g in range(games_per_colour):
        first.add(play_game(game, uct, perfect, seed + 2 * g).winner, BLACK)
        second.add(play_game(game, perfect, uct, seed + 2 * g + 1).winner, 3 - BLACK)
    return first, second


@dataclass(frozen=True)
class Entrant:
    """A named UCT setting in a round-robin."""

    name: str
    settings: UctSettings


@dataclass
class RoundRobin:
    """Results of a round-robin: `tallies[(a, b)]` is entrant a's tally against b (both orders are kept)."""

    entrants: list[Entrant]
    tallies: dict[tuple[int, int], Tally] = field(default_factory=dict)
    first_mover: Tally = field(default_factory=Tally)
    """The first player's results over every game (how much moving first is worth)."""

    def total(self, a: int) -> Tally:
        """Entrant a's tally over all its games."""
        total = Tally()
        for (i, _), tally in self.tallies.items():
            if i == a:
                total.merge(tally)
        return total


def round_robin(game: SmallGame, entrants: list[Entrant], simulations: int, games_per_pairing: int,
                seed: int) -> RoundRobin:
    """Every entrant against every other, `games_per_pairing` games each (half with each colour), UCT at
    `simulations` per move."""
    result = RoundRobin(entrants)
    played = 0
    for a, b in combinations(range(len(entrants)), 2):
        bots = [UctBot(simulations, entrants[i].settings, entrants[i].name) for i in (a, b)]
        mine, theirs = result.tallies.setdefault((a, b), Tally()), result.tallies.setdefault((b, a), Tally())
        for g in range(games_per_pairing):
            first = g % 2  # index into (a, b) of the side that moves first
            record = play_game(game, bots[first], bots[1 - first], seed + played)
            played += 1
            a_colour = BLACK if first == 0 else 3 - BLACK
            mine.add(record.winner, a_colour)
            theirs.add(record.winner, 3 - a_colour)
            result.first_mover.add(record.winner, BLACK)
    return result


@dataclass(frozen=True)
class Settling:
    """UCT from one position at one number of iterations: the move and value of the first run (seed `seed`), and in
    how many of `runs` runs (seeds seed, seed + 1, ...) the chosen move was a perfect one."""

    iterations: int
    move: tuple[int, int]
    value: float
    perfect_runs: int
    runs: int


@dataclass(frozen=True)
class PerfectAnswer:
    """A position's value for the side to move (1 win, 0 draw, -1 loss) and the moves that keep it."""

    value: int
    moves: list[tuple[int, int]]


def perfect_answer(board: Board, reference: Reference) -> PerfectAnswer:
    """What perfect play says about `board`."""
    values = reference.move_values(board)
    best = max(values.values())
    return PerfectAnswer(best, sorted(move for move, value in values.items() if value == best))


def settle(board: Board, answer: PerfectAnswer, iteration_counts: list[int], runs: int, settings: UctSettings,
           seed: int) -> list[Settling]:
    """UCT's choice from `board` at each number of iterations, `runs` runs each, scored against `answer`."""
    rows = []
    for iterations in iteration_counts:
        chosen = []
        for run in range(runs):
            seed_random(seed + run)
            chosen.append(run_uct(board, iterations, settings).best())
        perfect = sum((c.x, c.y) in answer.moves for c in chosen)
        rows.append(Settling(iterations, (chosen[0].x, chosen[0].y), chosen[0].value, perfect, runs))
    return rows


def board_after(game: SmallGame, moves: str) -> Board:
    """The board after `moves`, written the game's way and separated by spaces (e.g. ``"a1 b2"`` or ``"4 4 3"``);
    ValueError (IllegalMove) names a move that cannot be played."""
    board = game.new_board()
    for text in moves.split():
        board.play(*game.parse_move(text, board))
    return board
