"""``monte``: the project's command-line tools, one subcommand each, listed in the `COMMANDS` table.

A new tool is one more `Command` row: its name, a line of help, a function that adds its arguments to an argparse
parser, and a function that runs it and returns the exit code. Errors a user can fix (a bad config, a log that
belongs to another run) are printed as one line on stderr with exit code 2; Ctrl-C exits with 130 and no traceback.
"""

from __future__ import annotations

import argparse
import os
import shlex
import signal
import sys
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, ContextManager, Sequence

from analysis import analyze, render
from games import seeds
from games import terminal as small_games
from play import terminal
from tournaments.config import ConfigError, add_flags, config_from_args
from tournaments.engines import EngineError
from tournaments.pool import GamePool
from tournaments.report import standings
from tournaments.runner import RunError, run_tournament
from web import command as gui

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


class UsageError(Exception):
    """A problem the user can fix; `main` prints it as one line."""


@dataclass(frozen=True)
class Command:
    """One ``monte`` subcommand."""

    name: str
    help: str
    configure: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]


def _configure_tournament(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", nargs="?", help="a TOML file (see tournaments/configs/); flags override it")
    add_flags(parser)


def _game_pool(address: str) -> ContextManager[GamePool | None]:
    """The pool that plays the games: None (the runner's own threads) without a cluster, else a Dask pool --
    imported only then, so a run on one machine never loads Dask."""
    if not address:
        return nullcontext(None)
    try:
        from cluster import connect
    except ImportError as exc:
        raise UsageError(f"--cluster needs Dask ({exc}): pip install 'monte-gomoku[cluster]' "
                         f"(from a clone: pip install '.[cluster]')") from None
    return connect(address)


def _run_tournament(args: argparse.Namespace) -> int:
    try:
        config = config_from_args(args)
        with _game_pool(config.cluster) as pool:
            where = f"{config.concurrency} at a time" if pool is None else pool.describe()
            print(f"monte tournament: {config.total_games} games, {where}, logging to {config.out}/",
                  file=sys.stderr)
            result = run_tournament(config, progress=sys.stderr, pool=pool)
    except (ConfigError, EngineError, RunError) as exc:
        raise UsageError(str(exc)) from None
    print(standings(result.records, result.names, config.format, config.timeout_turn_ms))
    if result.sprt_line:
        print(result.sprt_line)
    from analysis.tournament_report import write_report

    report = write_report(Path(config.out), result.records, result.names, config.format, result.sprt_line,
                          config.timeout_turn_ms)
    print(f"games: {config.out}/games.jsonl, SGF and PSQ in {config.out}/games/; report with a picture of "
          f"each decisive game: {report}", file=sys.stderr)
    if result.interrupted:
        print(f"interrupted after {len(result.records)} of {result.total} games; "
              f"continue with: --resume --out {config.out}", file=sys.stderr)
        return EXIT_INTERRUPTED
    return 0


def _configure_nothing(parser: argparse.ArgumentParser) -> None:
    """A subcommand without arguments."""


def _run_warmup(args: argparse.Namespace) -> int:
    from brain.players import warm_up_all  # the brain's kernels load only for the commands that need them

    names, seconds = warm_up_all()
    print(f"monte warmup: {', '.join(names)} ready in {seconds:.2f} s")
    return 0


def _configure_bench(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seconds", type=float, default=2.0, help="wall time of one run (default 2)")
    parser.add_argument("--repeats", type=int, default=3, help="runs per line; the median is shown (default 3)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of lines")


def _configure_clock(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--engine", default="pbrain-monte",
                        help="the brain's command line (default: pbrain-monte, the installed one)")
    parser.add_argument("--count", type=int, default=100, help="replies measured per path (default 100)")


def _run_clock(args: argparse.Namespace) -> int:
    from tournaments import clockcheck

    if args.count < 1:
        raise UsageError(f"--count must be at least 1, not {args.count}")
    return clockcheck.report(shlex.split(args.engine), args.count)


def _run_bench(args: argparse.Namespace) -> int:
    from brain import bench

    return bench.report(args.seconds, args.repeats, args.json)


def _configure_fit_eval(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("games", nargs="+", help="games.jsonl files of tournament runs (self-play and sparring)")
    parser.add_argument("--holdout", type=float, default=0.2,
                        help="share of the games kept out of the fit to measure it (default 0.2)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the held-out games' choice (default 1)")
    parser.add_argument("--skip-plies", type=int, default=4,
                        help="positions before this ply are not used (default 4: the opening's stones)")


def _run_fit_eval(args: argparse.Namespace) -> int:
    from tournaments import texel
    from tournaments.records import read_jsonl

    if not 0.0 <= args.holdout < 1.0:
        raise UsageError(f"--holdout must be in [0, 1), not {args.holdout}")
    records = [record for path in args.games for record in read_jsonl(path)]
    print(texel.report(records, args.holdout, args.seed, args.skip_plies))
    return 0


def _fixable(run: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """A tool whose ValueError (a bad position, move or option) or OSError (a file) is the user's to fix: one line
    and exit code 2."""
    def guarded(args: argparse.Namespace) -> int:
        try:
            return run(args)
        except BrokenPipeError:
            raise  # the reader went away: main says nothing
        except (ValueError, OSError) as exc:
            raise UsageError(str(exc)) from None
    return guarded


COMMANDS: list[Command] = [
    Command("tournament", "play engines against each other and report Elo (see tournaments/configs/)",
            _configure_tournament, _run_tournament),
    Command("bench", "search speed (iterations/s) of Monte's MCTS and of plain UCT on fixed positions",
            _configure_bench, _run_bench),
    Command("warmup", "compile (or load) every engine's numba kernels now, once per machine",
            _configure_nothing, _run_warmup),
    Command("clock", "how late a brain answers on every path (first move, time_left, SWAP2BOARD, YXSTOP, END...)",
            _configure_clock, _run_clock),
    Command("play", "a game in the terminal: you against Monte (or any pbrain engine), two people, or two engines",
            terminal.configure, _fixable(terminal.run)),
    Command("analyze", "what Monte thinks of a position: its move, the top moves with visits, win rate and line",
            analyze.configure, _fixable(analyze.run)),
    Command("render", "an SVG picture of a position or a whole game (SGF, .psq, games.jsonl or a move list)",
            render.configure, _fixable(render.run)),
    Command("gui", "a web board: play, watch engines, replay a tournament's games in the browser",
            gui.configure, _fixable(gui.run)),
    Command("fit-eval", "fit the learned evaluation (pbrain-monte --set eval_model=1) to played games (Texel)",
            _configure_fit_eval, _fixable(_run_fit_eval)),
    Command("games", small_games.HELP, small_games.configure, small_games.run),
    Command("seeds", seeds.HELP, seeds.configure, seeds.run),
]


def build_parser() -> argparse.ArgumentParser:
    """The ``monte`` parser with one subparser per row of `COMMANDS`."""
    parser = argparse.ArgumentParser(prog="monte", description="Monte's tools: tournaments and more.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for command in COMMANDS:
        child = sub.add_parser(command.name, help=command.help, description=command.help)
        command.configure(child)
        child.set_defaults(run=command.run, prog=child.prog)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``monte`` console script.

    SIGTERM (kill, timeout, a CI job cancelled) is taken as Ctrl-C, so a tournament stops its engines either way:
    they run in sessions of their own and would otherwise outlive it.
    """
    args = build_parser().parse_args(argv)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        return args.run(args)
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
