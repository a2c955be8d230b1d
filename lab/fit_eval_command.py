"""``monte fit-eval``: fit the learned evaluation to played games (``monte.lab.fit_eval``, imported only to run)."""

from __future__ import annotations

import argparse
import sys

from monte.errors import UsageError

HELD_OUT_MARK = "-test"
"""An openings file whose name holds this is a held-out half (``tournaments/openings/*-test.txt``): strength is
measured on its openings, so no fit may learn from games played from them."""


def held_out(opening_id: str) -> bool:
    """Whether a game's ``opening_id`` (``file:line``) names an opening of a held-out set."""
    return HELD_OUT_MARK in opening_id.rpartition(":")[0]


def configure(parser: argparse.ArgumentParser) -> None:
    """The games and how the held-out part is chosen."""
    parser.add_argument("games", nargs="+", help="games.jsonl files of tournament runs (self-play and sparring)")
    parser.add_argument("--test", nargs="+", default=[], metavar="GAMES",
                        help="games.jsonl files played from held-out openings (a '-test' set): the fit is judged on "
                             "them, openings it never saw")
    parser.add_argument("--holdout", type=float, default=0.2,
                        help="share of the games kept out of the fit to measure it (default 0.2)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the held-out games' choice (default 1)")
    parser.add_argument("--skip-plies", type=int, default=4,
                        help="positions before this ply are not used (default 4: the opening's stones)")


def run(args: argparse.Namespace) -> int:
    """Fit, and print the fit beside the shipped weights."""
    if not 0.0 <= args.holdout < 1.0:
        raise UsageError(f"--holdout must be in [0, 1), not {args.holdout}")
    from monte.lab import fit_eval
    from monte.tournaments.records import read_jsonl

    records = [record for path in args.games for record in read_jsonl(path)]
    fit_on = [record for record in records if not held_out(record.opening_id)]
    if len(fit_on) < len(records):
        left = len(records) - len(fit_on)
        print(f"left out of the fit: {left} game{'s' * (left != 1)} played from held-out openings "
              f"(*{HELD_OUT_MARK}*; give them with --test to judge the fit on them)", file=sys.stderr)
    tests = [record for path in args.test for record in read_jsonl(path)]
    print(fit_eval.report(fit_on, args.holdout, args.seed, args.skip_plies, tests))
    return 0
