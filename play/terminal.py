"""``monte play``: a game of Gomoku in the terminal -- a person against an engine (either colour), two people, or two
engines -- with the board redrawn after every move, live search info and a clock while an engine thinks, and the
person's commands at the prompt (a move, undo, hint, save, resign, quit).

Moves are typed as a column letter and a row number (``H8``; letters from A at the left, row 1 at the bottom) or as
the protocol's ``x,y``. Bad input gets one line saying what is wrong and the prompt again. Ctrl-C (or the end of
input) leaves at once; every engine's process group is killed on the way out.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from typing import IO, TextIO

from monte.protocol.evaluation import evaluation_text
from monte.protocol.notation import (line_names, named_points, parse_point, parse_rule, parse_size, point_name,
                                     rule_name, search_summary)
from monte.analysis.positions import load_game, winning_line
from monte.brain.board import BLACK, WHITE
from monte.brain.codes import RULE_RENJU
from monte.small_games import terminal as small_games
from monte.small_games.spec import GAMES as SMALL_GAMES
from monte.play.board_view import Look, draw_board
from monte.play.game import Game, check_save_path
from monte.protocol.search_info import parse_search_info
from monte.play.seats import HUMAN, EngineSeat, engine_command, seat_label
from monte.protocol.client import TOLERANCE_MS, BrainFault, GameSettings
from monte.tournaments.match import FAULT_TERMINATIONS
from monte.tournaments.records import Termination
from monte.tournaments.referee import COLOR_NAMES, Ruling

"""Lateness forgiven on an engine's move, as Piskvork and the Gomocup judge forgive it."""
REFRESH_S = 0.1
HELP = ("a move: H8 (column letter, row number from the bottom) or x,y  |  undo: take back your last move (and the "
        "engine's answer)  |  hint: what Monte would play  |  save FILE: .sgf, .psq or both  |  resign  |  quit")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--black", default=HUMAN, metavar="WHO",
                        help="human, monte, or any pbrain command line (default: human)")
    parser.add_argument("--white", default="monte", metavar="WHO",
                        help="human, monte (pbrain-monte), or any pbrain command line (default: monte)")
    parser.add_argument("--size", default="15", help="board size, N or WxH, 5 to 32 (default 15)")
    parser.add_argument("--rule", default=None,
                        help="freestyle, exact, renju, caro, caro-exact, or the protocol's number (default: "
                             "freestyle, or the loaded game's)")
    parser.add_argument("--time", type=float, default=5.0, help="seconds an engine may think per move (default 5)")
    parser.add_argument("--load", metavar="FILE", help="an .sgf or .psq game to continue from")
    parser.add_argument("--move", type=int, default=None, help="with --load: continue after this many moves")
    parser.add_argument("--save", metavar="FILE", help="save the game when you leave (.sgf, .psq, or both)")
    parser.add_argument("--game", choices=("gomoku", *sorted(SMALL_GAMES)), default="gomoku",
                        help="gomoku (default), or one of the seed articles' small games against plain UCT, as "
                             "'monte games' plays them (you are X unless --black names an engine)")
    parser.add_argument("--ascii", action="store_true", help="plain ASCII, no colours (the default off a terminal)")


def run(args: argparse.Namespace) -> int:
    """Play the game the arguments describe; ValueError for an argument the user can fix."""
    if args.game != "gomoku":
        return _small_game(args)
    if args.time <= 0:
        raise ValueError(f"--time must be positive, not {args.time}")
    if args.move is not None and not args.load:
        raise ValueError("--move needs --load FILE: the game whose first moves to play on from")
    if args.save:
        check_save_path(args.save)
    commands = {BLACK: engine_command(args.black), WHITE: engine_command(args.white)}
    names = {color: "human" if commands[color] is None else commands[color][0] for color in (BLACK, WHITE)}
    game = _new_game(args, names)
    match = Match(game, commands, args.time, Look.for_terminal(args.ascii, sys.stdout.isatty()), sys.stdin,
                  sys.stdout)
    try:
        match.start_engines()
        match.play()
    finally:
        match.close()
    if args.save:
        match.say(f"saved: {', '.join(str(p) for p in game.save(args.save))}")
    return 0


def _new_game(args: argparse.Namespace, names: dict[int, str]) -> Game:
    if args.load:
        saved = load_game(args.load, rule=None if args.rule is None else parse_rule(args.rule))
        moves = len(saved.stones) if args.move is None else args.move
        if not 0 <= moves <= len(saved.stones):
            raise ValueError(f"--move {moves} is outside the game's 0..{len(saved.stones)} moves")
        return Game.from_saved(saved, moves, names)
    width, height = parse_size(args.size)
    return Game(width, height, parse_rule(args.rule or "freestyle"), names)


class Match:
    """The game on the screen: whose turn, the prompt, the engines, the live line."""

    def __init__(self, game: Game, commands: dict[int, list[str] | None], time_s: float, look: Look,
                 stdin: TextIO, stdout: IO[str]) -> None:
        self.game = game
        self.time_s = time_s
        self.look = look
        self.stdin = stdin
        self.out = stdout
        self.live = stdout.isatty()
        self.seats = {color: None if command is None else EngineSeat(command, color)
                      for color, command in commands.items()}
        self.humans = {color for color, seat in self.seats.items() if seat is None}
        self.note = ""  # the line shown under the board after a redraw (the last move, an engine's search info)

    # --- output -------------------------------------------------------------------------------------------------
    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def label(self, color: int) -> str:
        """``black (Monte)``, ``white (you)``, or the colour alone when two people play."""
        if self.seats[color] is None:
            return COLOR_NAMES[color] if len(self.humans) == 2 else f"{COLOR_NAMES[color]} (you)"
        return f"{COLOR_NAMES[color]} ({self.game.names[color]})"

    def show_board(self) -> None:
        game = self.game
        if self.look.unicode:
            self.out.write("\x1b[H\x1b[2J")
        board = game.board
        self.say(f"{board.width}x{board.height} {rule_name(board.rule)}, move {board.stone_count + 1}: "
                 f"{self.label(BLACK)} vs {self.label(WHITE)}")
        five = frozenset(tuple(p) for p in winning_line(board)) if game.over else frozenset()
        self.say(draw_board(board, self.look, game.last, game.forbidden_points(), five))
        self.say(self.look.legend(bool(board.rule & RULE_RENJU), bool(five)))
        if self.note:
            self.say(self.note)

    def _status(self, text: str) -> None:
        """Rewrite the live line (terminals only)."""
        columns = shutil.get_terminal_size((100, 24)).columns
        self.out.write("\r\x1b[K" + text[:columns - 1])
        self.out.flush()

    # --- the game -----------------------------------------------------------------------------------------------
    def start_engines(self) -> None:
        board = self.game.board
        settings = GameSettings(board.width, board.height, board.rule, timeout_turn_ms=round(self.time_s * 1000),
                                game_type=0 if self.humans else 1, tolerance_ms=TOLERANCE_MS)
        for color, seat in self.seats.items():
            if seat is None:
                continue
            self.say(f"starting {COLOR_NAMES[color]}: {' '.join(seat.client.command)} ...")
            try:
                seat.start(settings)
            except BrainFault as fault:
                raise ValueError(f"{COLOR_NAMES[color]} ({' '.join(seat.client.command)}) failed to start: "
                                 f"{seat.fault_text(fault)}") from None
            self.game.names[color] = seat_label(seat.name, seat.client.command)

    def play(self) -> None:
        """Turns until the game is over and nobody wants to go on, or someone quits."""
        self.show_board()
        while True:
            if self.game.over:
                self.say(self._ending())
                if not self.humans or not self._after_the_game():
                    return
                continue
            seat = self.seats[self.game.to_move]
            if seat is None:
                if not self._human_turn():
                    return
            else:
                self._engine_turn(seat)

    def _engine_turn(self, seat: EngineSeat) -> None:
        color = seat.color
        thinking = seat.think(self.game.referee.stones(), self.time_s + TOLERANCE_MS / 1000)
        try:
            while not thinking.wait(REFRESH_S):
                if self.live:
                    self._status(f"{self.label(color)} thinking {thinking.elapsed:.1f} s of {self.time_s:g} s  "
                                 f"{self._search_info(seat)}")
        except KeyboardInterrupt:
            seat.stop()
            thinking.wait(2.0)
            if self.live:
                self.out.write("\n")
            raise
        if self.live:
            self._status("")
        if thinking.fault is not None:
            fault = thinking.fault
            self.game.end(Ruling(FAULT_TERMINATIONS[fault.fault], 3 - color,
                                 f"{self.label(color)}: {seat.fault_text(fault)}"))
            return
        reply = thinking.reply
        self.game.play(reply.x, reply.y, reply.elapsed_ms)
        self.note = (f"{self.label(color)} played {point_name(reply.x, reply.y, self.game.board.height)} in "
                     f"{reply.elapsed_ms / 1000:.1f} s  {self._search_info(seat)}").rstrip()
        self.show_board()

    def _search_info(self, seat: EngineSeat) -> str:
        info = parse_search_info(seat.latest_chat)
        return search_summary(info, self.game.board.height) if info else ""

    def _read(self, prompt: str) -> str | None:
        """A line from the person (with line editing and history on a terminal), or None at the end of input."""
        if self.stdin.isatty() and self.stdin is sys.stdin:
            import readline  # noqa: F401  (input() edits lines with it once imported)

            try:
                return input(prompt).strip()
            except EOFError:
                self.say("")
                return None
        self.out.write(prompt)
        self.out.flush()
        line = self.stdin.readline()
        if not line:
            self.say("")
            return None
        return line.strip()

    def _human_turn(self) -> bool:
        """Read commands until a move is played (True), the position changes (True), or the person leaves."""
        color = self.game.to_move
        started = time.monotonic()
        while True:
            line = self._read(f"{self.label(color)} to move: ")
            if line is None:
                return False
            word, _, rest = line.partition(" ")
            word = word.lower()
            if not line:
                continue
            if word in ("quit", "exit"):
                return False
            if word == "help":
                self.say(HELP)
            elif word == "undo":
                if self._undo():
                    return True
            elif word == "hint":
                self._hint()
            elif word == "save":
                self._save(rest)
            elif word == "resign":
                self.game.resign()
                return True
            elif word == "board":
                self.show_board()
            else:
                if self._human_move(line, started):
                    return True

    def _human_move(self, text: str, started: float) -> bool:
        board = self.game.board
        try:
            x, y = parse_point(text, board.width, board.height)
        except ValueError as exc:
            self.say(f"{exc} (type help for the commands)")
            return False
        refusal = self.game.refusal(x, y)
        if refusal:
            self.say(refusal)
            return False
        color = self.game.to_move
        self.game.play(x, y, (time.monotonic() - started) * 1000)
        self.note = f"{self.label(color)} played {point_name(x, y, board.height)}"
        self.show_board()
        return True

    def _undo(self) -> bool:
        taken = self.game.undo(self.humans)
        if not taken:
            self.say("nothing to take back")
            return False
        for seat in self.seats.values():
            if seat is not None:
                seat.needs_board = True
        self.note = f"took back {taken} move{'s' if taken > 1 else ''}"
        self.show_board()
        return True

    def _hint(self) -> None:
        from monte.brain.search_view import analyze  # the brain loads only when a hint is asked for
        from monte.brain.player import ThinkLimits

        board = self.game.board
        self.say(f"Monte thinks for {self.time_s:g} s ...")
        result = analyze(board.copy(), ThinkLimits.seconds(self.time_s), top=1)
        note = f", {result.note}" if result.note else ""
        self.say(f"hint: {point_name(*result.move, board.height)} ({evaluation_text(result.winrate, result.mate)}"
                 f"{note}); "
                 f"line {line_names(result.pv, board.height)}")

    def _save(self, path: str) -> None:
        if not path.strip():
            self.say("save needs a file name: save game.sgf (or .psq; without a suffix, both)")
            return
        try:
            self.say(f"saved: {', '.join(str(p) for p in self.game.save(path.strip()))}")
        except OSError as exc:
            self.say(f"cannot save to {path.strip()}: {exc.strerror or exc}")

    def _after_the_game(self) -> bool:
        """The game is over: the person may take moves back, save, or leave. False to leave."""
        while True:
            line = self._read("game over (undo, save FILE, quit): ")
            if line is None:
                return False
            word, _, rest = line.partition(" ")
            word = word.lower()
            if word in ("quit", "exit"):
                return False
            if not word:
                continue
            if word == "undo":
                if self._undo():
                    return True
            elif word == "save":
                self._save(rest)
            else:
                self.say("the game is over: undo, save FILE or quit")

    def _ending(self) -> str:
        """How the game ended, in a sentence."""
        ruling = self.game.ruling
        board = self.game.board
        detail = named_points(ruling.detail, board.width, board.height)
        if ruling.winner is None:
            return f"Game over: a draw ({detail})."
        winner = self.label(ruling.winner)
        last = point_name(*self.game.last, self.game.board.height) if self.game.last else ""
        reason = {Termination.FIVE: f"five in a row with {last}",
                  Termination.FOUL: f"black played {last}, a forbidden point under renju",
                  Termination.RESIGN: f"{self.label(3 - ruling.winner)} resigned"}.get(ruling.termination, detail)
        return f"Game over: {winner} wins: {reason}."

    def close(self) -> None:
        """Close every engine (END, then its process group is killed)."""
        for seat in self.seats.values():
            if seat is not None:
                seat.close()


def _small_game(args: argparse.Namespace) -> int:
    """``monte play --game tictactoe|connect4``: the small game as ``monte games`` plays it, with its defaults; the
    engine moves first when black (X) is not a person."""
    parser = argparse.ArgumentParser(prog="monte games")
    small_games.configure(parser)
    first = "you" if engine_command(args.black) is None else "engine"
    return small_games.run(parser.parse_args([args.game, "--first", first]))
