"""``monte games``: a person plays tic-tac-toe or Connect Four against the engine in a terminal.

Self-contained (the board, the prompt and the engine's replies); ``monte play --game`` runs it too. The engine is
the articles' plain UCT (``small_games.players.UctBot``), or perfect play for tic-tac-toe.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, TextIO

from monte.protocol.evaluation import percent
from monte.brain.board import BLACK, EMPTY, MOVE_WINS, WHITE, Board, IllegalMove
from monte.small_games.spec import GAMES, SmallGame

if TYPE_CHECKING:  # the players run compiled UCT: they load in engine_for, so ``monte games --help`` stays light
    from monte.small_games.players import SmallGamePlayer

HELP = "play tic-tac-toe or Connect Four against the engine in the terminal"

DEFAULTS = {"tictactoe": (1000, 1.4, False), "connect4": (20000, 1.0, True)}
"""Per game: UCT's simulations per move, exploration constant and win/block-aware playouts, unless told otherwise."""

MARKS = {EMPTY: ".", BLACK: "X", WHITE: "O"}
EXIT_USAGE = 2


def configure(parser: argparse.ArgumentParser) -> None:
    """The command's arguments."""
    parser.add_argument("game", choices=sorted(GAMES), help="the game to play")
    parser.add_argument("--engine", choices=("uct", "perfect"), default="uct",
                        help="plain UCT (default), or perfect play (tic-tac-toe only)")
    parser.add_argument("--simulations", type=int, default=None,
                        help="UCT's simulations per move (default: 1000 for tic-tac-toe, 20000 for Connect Four)")
    parser.add_argument("--c", type=float, default=None,
                        help="UCT's exploration constant (default: 1.4 for tic-tac-toe, 1 for Connect Four)")
    parser.add_argument("--playouts", choices=("random", "aware"), default=None,
                        help="random playouts, or playouts that take a win and block one (default: random for "
                             "tic-tac-toe, aware for Connect Four)")
    parser.add_argument("--first", choices=("you", "engine"), default="you", help="who moves first, as X")
    parser.add_argument("--seed", type=int, default=1, help="the engine's random seed (default 1)")


def engine_for(game: SmallGame, args: argparse.Namespace) -> SmallGamePlayer:
    """The engine the arguments ask for; ValueError says, in one line, what cannot be done."""
    from monte.brain.uct import UctSettings
    from monte.small_games.players import PerfectBot, UctBot

    if args.engine == "perfect":
        if game.gravity:
            raise ValueError("--engine perfect is for tic-tac-toe only: the Connect Four solver needs minutes to "
                             "hours in the first moves")
        return PerfectBot(game.reference(), name="perfect")
    simulations, c, aware = DEFAULTS[game.name]
    simulations = simulations if args.simulations is None else args.simulations
    c = c if args.c is None else args.c
    aware = aware if args.playouts is None else args.playouts == "aware"
    if simulations < 1 or c < 0:
        raise ValueError(f"need --simulations >= 1 and --c >= 0, got {simulations} and {c}")
    return UctBot(simulations, UctSettings(c, aware), name=f"UCT ({simulations} simulations)")


def render(game: SmallGame, board: Board) -> str:
    """The board as text, with the labels a person types moves with (rows numbered from the bottom)."""
    if game.gravity:
        head = " ".join(str(x + 1) for x in range(game.width))
        rows = [" ".join(MARKS[board.at(x, y)] for x in range(game.width)) for y in range(game.height)]
        return "\n".join([head, *rows])
    head = "   " + " ".join(chr(ord("a") + x) for x in range(game.width))
    rows = [f"{game.height - y:2d} " + " ".join(MARKS[board.at(x, y)] for x in range(game.width))
            for y in range(game.height)]
    return "\n".join([head, *rows])


def play(game: SmallGame, engine: SmallGamePlayer, person_first: bool, seed: int, stdin: TextIO = sys.stdin,
         out: TextIO = sys.stdout) -> int:
    """One game in the terminal; returns the exit code (0 at the end of the game or when the person quits)."""
    board = game.new_board()
    engine.new_game(seed)
    person = BLACK if person_first else WHITE
    example = "4" if game.gravity else "b2"
    print(f"{game.name}: you are {'X' if person == BLACK else 'O'} against {engine.name}; "
          f"a row of {game.k} wins. Type a move (e.g. {example}) or q to quit.", file=out)
    print(render(game, board), file=out)
    while not board.is_full():
        mover = board.to_move
        if mover == person:
            print("your move: ", end="", file=out, flush=True)
            line = stdin.readline()
            if not line or line.strip().lower() in ("q", "quit", "exit"):
                print("bye", file=out)
                return 0
            try:
                x, y = game.parse_move(line, board)
            except IllegalMove as exc:
                print(f"error: {exc}", file=out)
                continue
        else:
            x, y = engine.choose(board)
            value = getattr(engine, "last_value", None)
            said = f" (its win rate {percent(value)})" if value is not None else ""
            print(f"engine plays {game.move_name(x, y)}{said}", file=out)
        verdict = board.play(x, y)
        print(render(game, board), file=out)
        if verdict == MOVE_WINS:
            print("you win" if mover == person else "engine wins", file=out)
            return 0
    print("draw", file=out)
    return 0


def run(args: argparse.Namespace) -> int:
    """``monte games GAME``."""
    game = GAMES[args.game]
    try:
        engine = engine_for(game, args)
    except ValueError as exc:
        print(f"{args.prog}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return play(game, engine, args.first == "you", args.seed)
