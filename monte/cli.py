"""``monte``: the project's command-line tools, one subcommand each, listed in the `COMMANDS` table.

The dispatcher sits above every room and knows each tool only by the module that holds it: a row names the module
whose ``configure(parser)`` adds the tool's arguments and whose ``run(args)`` runs it and returns the exit code.
Only the chosen tool's module is imported, and only once its arguments are parsed for a run -- ``monte --help``
imports none, ``monte COMMAND --help`` only that tool's -- so the compiler (numba) loads just for the tools that
search. A tool's ``configure`` therefore lives in a module that imports no numba.

Errors a user can fix (a bad config, a log that belongs to another run, a bad position or file) are printed as one
line on stderr with exit code 2; Ctrl-C exits with 130 and no traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
from dataclasses import dataclass
from types import ModuleType
from typing import Sequence

from monte.errors import UsageError, os_error_text

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


@dataclass(frozen=True)
class Command:
    """One ``monte`` subcommand: its name, a line of help, and the module holding ``configure`` and ``run``.

    ``fixable``: a ValueError (a bad position, move or option) or OSError (a file) from the tool is the user's to
    fix, shown as one line with exit code 2 rather than as a crash."""

    name: str
    help: str
    module: str
    fixable: bool = True

    def load(self) -> ModuleType:
        """The tool's module, imported now."""
        return importlib.import_module(self.module)


COMMANDS: list[Command] = [
    Command("tournament", "play engines against each other and report Elo (see tournaments/configs/)",
            "monte.tournament_command", fixable=False),
    Command("bench", "search speed (iterations/s) of Monte's MCTS and of plain UCT on fixed positions",
            "monte.lab.bench_command"),
    Command("warmup", "compile (or load) every engine's numba kernels now, once per machine",
            "monte.lab.warmup_command"),
    Command("judge", "play a brain the Gomocup judge's way (stopped between moves, its process tree's memory "
            "weighed): memory, time, CPU while stopped, survivors", "monte.lab.judge_command"),
    Command("package", "the brain as one zip that runs without Python, numpy or numba (needs PyInstaller)",
            "monte.package_command"),
    Command("clock", "how late a brain answers on every path (first move, time_left, SWAP2BOARD, YXSTOP, END...)",
            "monte.lab.clock_command"),
    Command("play", "a game in the terminal: you against Monte (or any pbrain engine), two people, or two engines",
            "monte.play.terminal"),
    Command("analyze", "what Monte thinks of a position: its move, the top moves with visits, win rate and line",
            "monte.analysis.analyze"),
    Command("render", "an SVG picture of a position or a whole game (SGF, .psq, games.jsonl or a move list)",
            "monte.analysis.render"),
    Command("gui", "a web board: play, watch engines, replay a tournament's games in the browser",
            "monte.web.command"),
    Command("fit-eval", "fit the value network (the leaf value) to judged positions and to played games",
            "monte.lab.fit_eval_command"),
    Command("fit-policy", "fit the learned move policy (the search's priors) to strong engines' moves",
            "monte.lab.fit_policy_command"),
    Command("label-positions", "a judge engine's evaluation of played positions (the value network's data)",
            "monte.lab.label_positions_command"),
    Command("selfplay", "games of Monte against itself at a fixed node budget, for fit-eval (every core or Dask)",
            "monte.lab.selfplay_command"),
    Command("games", "play tic-tac-toe or Connect Four against the engine in the terminal",
            "monte.small_games.terminal", fixable=False),
    Command("seeds", "re-run the seed articles' tic-tac-toe and Connect Four experiments and write their report",
            "monte.small_games.seeds", fixable=False),
]


def _chosen(argv: Sequence[str]) -> Command | None:
    """The command named by the first word of `argv` that is not an option, if it names one."""
    words = [word for word in argv if not word.startswith("-")]
    return next((command for command in COMMANDS if words and command.name == words[0]), None)


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The ``monte`` parser: a subparser per row of `COMMANDS`, with the arguments of the one `argv` chooses."""
    parser = argparse.ArgumentParser(prog="monte", description="Monte's tools: tournaments and more.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    chosen = _chosen(argv)
    for command in COMMANDS:
        child = sub.add_parser(command.name, help=command.help, description=command.help)
        if command is chosen:
            command.load().configure(child)
        child.set_defaults(chosen=command, prog=child.prog)
    return parser


def _run(command: Command, args: argparse.Namespace) -> int:
    if not command.fixable:
        return command.load().run(args)
    try:
        return command.load().run(args)
    except BrokenPipeError:
        raise  # the reader went away: main says nothing
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError(os_error_text(exc)) from None


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``monte`` console script.

    SIGTERM (kill, timeout, a CI job cancelled) is taken as Ctrl-C, so a tournament stops its engines either way:
    they run in sessions of their own and would otherwise outlive it. Ctrl-C itself is taken even when ``monte``
    inherits it ignored -- a script's background job does (``cmd &`` in a shell without job control), and so does
    everything that job starts in a terminal of its own -- as Python raises KeyboardInterrupt only where SIGINT was
    left at its default.
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser(argv).parse_args(argv)
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, signal.default_int_handler)
    try:
        return _run(args.chosen, args)
    except UsageError as exc:
        print(f"{args.prog}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"{args.prog}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # the reader went away (``monte bench | head``): nothing more to say, and nowhere to say it
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
