"""``monte seeds``: re-run the seed articles' small-game experiments and write them up, each table with the command
that made it and the time it took (default: ``tournaments/reports/seed-experiments.md``).

Every search runs a fixed number of iterations from seeded generators, so a run gives the same tables on any machine;
only the times change. Sections can be run alone (``--only``): they are then printed, and the report is left as it
is unless ``--out`` is given.

This module is the command (its options, the report's header, the command line and time under each table); the
experiments run in ``seed_tables``, imported to run them, so ``monte seeds --help`` loads no compiler.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from datetime import date
from pathlib import Path
from typing import Callable

DEFAULT_OUT = "tournaments/reports/seed-experiments.md"
SWEEP = "1,2,5,10,20,50,100,200,500,1000,2000,5000,10000"

SECTIONS = ("tictactoe", "sweep", "connect4", "iterations")
"""The report's sections in order, each a name for ``--only``; ``seed_tables.TABLES`` holds what each runs."""

COUNTS = [
    ("--ttt-simulations", 200, "UCT's simulations per move against perfect play"),
    ("--ttt-games", 1000, "tic-tac-toe games per colour at each number of simulations"),
    ("--c4-simulations", 1000, "UCT's simulations per move in the Connect Four round-robin"),
    ("--c4-games", 40, "Connect Four games per pairing, half with each colour (even)"),
    ("--runs", 20, "UCT runs (seeds) per position and number of iterations"),
    ("--max-iterations", 10000, "the iterations table goes 10, 100, ... up to this"),
    ("--seed", 1, "the first random seed"),
]
"""The experiments' sizes: flag, default (the full experiments) and help."""


def configure(parser: argparse.ArgumentParser) -> None:
    """The command's arguments (the defaults are the full experiments)."""
    parser.add_argument("--out", default=None,
                        help=f"the report to write (default {DEFAULT_OUT}; with --only, print unless --out is given)")
    parser.add_argument("--only", action="append", choices=SECTIONS,
                        help="run only this section (repeatable); the report then holds just those")
    parser.add_argument("--sweep", default=SWEEP,
                        help=f"simulations per move tried against perfect play (default {SWEEP})")
    for flag, default, text in COUNTS:
        parser.add_argument(flag, type=int, default=default, help=f"{text} (default {default})")


def run(args: argparse.Namespace) -> int:
    """``monte seeds``: run the sections, write the report."""
    try:
        sweep = [int(n) for n in args.sweep.split(",")]
    except ValueError:
        sweep = []
    bad = [f"{flag} {_value(args, flag)}" for flag, _, _ in COUNTS if flag != "--seed" and _value(args, flag) < 1]
    if not sweep or min(sweep) < 1:
        bad.append(f"--sweep {args.sweep}")
    if bad or args.c4_games % 2:
        what = ", ".join(bad) if bad else f"--c4-games {args.c4_games} (must be even: colours are swapped)"
        print(f"{args.prog}: error: need positive counts, got {what}", file=sys.stderr)
        return 2
    args.sweep_counts = sweep
    from monte.small_games.seed_tables import TABLES  # the experiments, compiled UCT: loaded to run them

    started = time.monotonic()
    parts = [_header(args)]
    for section in SECTIONS:
        if args.only and section not in args.only:
            continue
        print(f"monte seeds: {section} ...", file=sys.stderr, flush=True)
        parts.append(_timed(section, TABLES[section], args))
    text = "\n\n".join(parts) + "\n"
    if args.only and args.out is None:
        print(text, end="")
        return 0
    path = Path(args.out or DEFAULT_OUT)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    print(f"monte seeds: wrote {path} in {time.monotonic() - started:.0f} s", file=sys.stderr)
    return 0


def _value(args: argparse.Namespace, flag: str) -> int:
    """The value argparse stored for a flag of COUNTS."""
    return getattr(args, flag[2:].replace("-", "_"))


def _command(args: argparse.Namespace, section: str | None = None) -> str:
    """The command line that makes a section (or the whole report), with the sizes this run was given."""
    words = ["monte seeds"] + ([f"--only {section}"] if section else [])
    if args.sweep != SWEEP and section in (None, "sweep"):
        words.append(f"--sweep {args.sweep}")
    for flag, default, _ in COUNTS:
        if _value(args, flag) != default:
            words.append(f"{flag} {_value(args, flag)}")
    if args.out is not None and args.out != DEFAULT_OUT:
        words.append(f"--out {args.out}")
    return " ".join(words)


def _timed(section: str, table: Callable[[argparse.Namespace], str], args: argparse.Namespace) -> str:
    """The section's Markdown, its ``{timing}`` replaced by the command that prints it alone and the time it took."""
    wall, cpu = time.monotonic(), time.process_time()
    body = table(args)
    wall, cpu = time.monotonic() - wall, time.process_time() - cpu
    return body.replace("{timing}", f"`{_command(args, section)}` -- {wall:.1f} s ({cpu:.1f} s of CPU)")


def _header(args: argparse.Namespace) -> str:
    return "\n".join([
        "# The seed articles' small games, re-run",
        "",
        f"Written by `{_command(args)}` on {date.today().isoformat()} ({platform.machine()}, Python "
        f"{platform.python_version()}). Under each table: the command that prints it alone, and the time it took "
        "here (wall clock, then CPU: the machine is shared, so the wall clock says little). Every search runs a "
        "fixed number of iterations from seeded generators: the tables come out the same on any machine.",
        "",
        "The engine is Monte's plain UCT (`brain/uct.py`, the `--engine uct` baseline of the Gomoku brain): UCB1, "
        "uniform expansion, the most-visited move; playouts random, or (\"aware\") taking a win, else blocking the "
        "opponent's win, when one is on the board. It is the same compiled kernel that plays Gomoku, told the "
        "length of the winning row (3, 4) and gravity. Monte's own pattern MCTS plays Gomoku (rows of five) only.",
        "",
        "Perfect play: minimax with a memo over the whole of tic-tac-toe (`brain/minimax.py`); for Connect Four an "
        "exact solver (`brain/connect4.py`: alpha-beta to the end of the game on bitboards, with a transposition "
        "table, no depth limit), checked against that minimax on positions a dozen moves from the end. The perfect "
        "player draws its move at random among the moves that keep the game's value, so a series meets many "
        "perfect lines; as values are win/draw/loss, it does not hurry a win.",
        "",
        "Where the method differs from the articles: their code is not used, and details they leave open are "
        "Monte's: unvisited children are tried from a random one onwards, ties of the most-visited rule go to the "
        "first move in board order, and the number of simulations a move in the Connect Four round-robin is ours. "
        "Where the results differ, the sections say so.",
    ])


