"""``monte selfplay``: games of Monte against itself for ``monte fit-eval`` (``monte.lab.selfplay``; the search is
imported only to run).

Data is made from the openings strength is NOT measured on: the default file is the 'fit' half of the balanced
15x15 set, and a '-test' file (the held-out half) is refused unless ``--allow-test`` says the games are for judging
a fit, never for making one. The log is appended to game by game, so a run stopped at any moment is continued by
running the same command again (or with a larger ``--games``): games already logged are not played again.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from monte.errors import UsageError
from monte.lab.held_out import HELD_OUT_MARK

DEFAULT_OPENINGS = "freestyle15-balanced-fit.txt"


def configure(parser: argparse.ArgumentParser) -> None:
    """The log, the openings, the budget and where the games are played."""
    parser.add_argument("out", help="games.jsonl to write (appended to: an interrupted run continues)")
    parser.add_argument("--games", type=int, default=100, help="games the log should hold in the end (default 100)")
    parser.add_argument("--nodes", type=int, default=3000,
                        help="search nodes a move (INFO max_node; the load does not change the games; default 3000)")
    parser.add_argument("--openings", default=DEFAULT_OPENINGS,
                        help=f"openings file, a path or one shipped in tournaments/openings/ (default "
                             f"{DEFAULT_OPENINGS}: the half data is made from)")
    parser.add_argument("--allow-test", action="store_true",
                        help="accept a held-out ('-test') openings file: the games may judge a fit, never make one")
    parser.add_argument("--size", type=int, default=15, help="board size (default 15)")
    parser.add_argument("--rule", type=int, default=0, help="Gomocup rule: 0 freestyle, 1 exact five, 4 renju")
    parser.add_argument("--explore-plies", type=int, default=8,
                        help="moves after the opening drawn in proportion to the root's visits (default 8)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the drawn moves (default 1)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                        help="games at once on this machine, one process each (default: every core)")
    parser.add_argument("--scheduler", default=None, metavar="ADDR",
                        help="play on a Dask cluster instead: tcp://HOST:8786, or local:N worker processes here")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", dest="settings",
                        help="an engine knob, as pbrain-monte --set (repeatable)")


def _settings(pairs: list[str]) -> dict[str, str]:
    from monte.brain.registry import check_settings

    settings = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise UsageError(f"--set {pair!r}: write NAME=VALUE, e.g. --set eval_model=0")
        settings[name.strip()] = value.strip()
    try:
        check_settings("mcts", settings)
    except ValueError as exc:
        raise UsageError(f"--set: {exc}") from None
    return settings


def _check_numbers(args: argparse.Namespace) -> None:
    for flag, value, least in (("--games", args.games, 1), ("--nodes", args.nodes, 1), ("--workers", args.workers, 1),
                               ("--explore-plies", args.explore_plies, 0), ("--size", args.size, 5)):
        if value < least:
            raise UsageError(f"{flag} must be at least {least}, not {value}")
    if args.size > 32:
        raise UsageError(f"--size must be at most 32, not {args.size}")
    if args.rule not in (0, 1, 4):
        raise UsageError(f"--rule must be 0 (freestyle), 1 (exact five) or 4 (renju), not {args.rule}")


def _openings_file(name: str, allow_test: bool) -> Path:
    from monte.tournaments.config import find_openings_file

    path = find_openings_file(name)
    if path is None:
        raise UsageError(f"--openings: {name!r} is neither a file nor one shipped in tournaments/openings/")
    if HELD_OUT_MARK in path.stem:
        if not allow_test:
            raise UsageError(f"--openings {path.name} is a held-out set (strength is measured on it): make data from "
                             f"its '-fit' twin, or give --allow-test for games that only judge a fit")
        print(f"WARNING: {path.name} is a HELD-OUT openings set: these games may judge a fit, never make one "
              f"(monte fit-eval refuses to fit on them)", file=sys.stderr)
    return path


def _done(out: Path, meta: dict) -> set[int]:
    """The game ids the log at `out` holds already; UsageError if it was made with another recipe."""
    from monte.tournaments.records import read_jsonl

    if not out.exists():
        return set()
    records = read_jsonl(out)
    if records:
        first = json.loads(out.read_text(encoding="utf-8").split("\n", 1)[0])
        if first.get("selfplay") != meta:
            raise UsageError(f"{out} holds games made another way ({first.get('selfplay')}); continue it with the "
                             f"same options or write to a new file")
    return {record.game_id for record in records}


def run(args: argparse.Namespace) -> int:
    """Play the games the log lacks and append each as it ends; print a line per game and a summary."""
    _check_numbers(args)
    settings = _settings(args.settings)
    path = _openings_file(args.openings, args.allow_test)
    from monte.lab.selfplay import BLACK_NAME, WHITE_NAME, Job, Recipe
    from monte.tournaments.openings import load_openings
    from monte.tournaments.records import append_jsonl

    openings, warnings = load_openings(path, args.size, args.size)
    for warning in warnings:
        print(warning, file=sys.stderr)
    if not openings:
        raise UsageError(f"--openings {path.name}: no opening fits a {args.size}x{args.size} board")
    recipe = Recipe(args.nodes, args.size, args.rule, args.explore_plies, args.seed, path.name, settings)
    out = Path(args.out)
    done = _done(out, recipe.as_meta())
    jobs = [Job(i, openings[i % len(openings)].stones, openings[i % len(openings)].source, recipe)
            for i in range(args.games) if i not in done]
    where = f"on {args.scheduler}" if args.scheduler else f"in {args.workers} process{'es' * (args.workers > 1)}"
    print(f"selfplay: {len(jobs)} game(s) to play ({len(done)} logged already), {args.nodes} nodes a move, "
          f"{len(openings)} openings of {path.name}, {where}", flush=True)
    from monte.lab.selfplay_pool import results
    from monte.tournaments.runner import RunError

    wins = {BLACK_NAME: 0, WHITE_NAME: 0, None: 0}
    try:
        for record, extra in results(jobs, args.workers, args.scheduler):
            append_jsonl(out, record, extra)
            wins[record.winner] += 1
            print(f"game {record.game_id} ({record.opening_id}): {record.winner or 'draw'} by {record.termination} "
                  f"after {len(record.moves)} moves, {record.duration_s:.0f} s", flush=True)
    except RunError as exc:  # the cluster cannot be reached or lost a game: the games logged so far are kept
        raise UsageError(f"{exc}; the games logged so far are kept: run the same command to continue") from None
    print(f"selfplay: {len(jobs)} played: black {wins[BLACK_NAME]}, white {wins[WHITE_NAME]}, "
          f"draws {wins[None]}; {out} holds {len(done) + len(jobs)}")
    return 0
