"""``monte fit-eval``: fit the learned evaluation to played games (``monte.lab.fit_eval``, imported only to run)."""

from __future__ import annotations

import argparse

from monte.errors import UsageError


def configure(parser: argparse.ArgumentParser) -> None:
    """The games and how the held-out part is chosen."""
    parser.add_argument("games", nargs="+", help="games.jsonl files of tournament runs (self-play and sparring)")
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
    print(fit_eval.report(records, args.holdout, args.seed, args.skip_plies))
    return 0
