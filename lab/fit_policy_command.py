"""``monte fit-policy``: fit the learned move policy to strong engines' moves (``monte.lab.fit_policy``, imported only
to run)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from monte.errors import UsageError
from monte.lab.held_out import learnable, shipped_held_out_files

def configure(parser: argparse.ArgumentParser) -> None:
    """The games, whose moves count, and where the weights go."""
    parser.add_argument("games", nargs="*", help="games.jsonl files of tournament runs")
    parser.add_argument("--labels", nargs="+", default=[], metavar="FILE",
                        help="labelled positions (monte label-positions): the judge's move in each is learned too "
                             "(their games were chosen when they were labelled)")
    parser.add_argument("--learn-from", default="", metavar="NAME,NAME",
                        help="the engines (as named in the games) whose moves are learned; default: every engine's")
    parser.add_argument("--exclude-openings", nargs="*", default=None, metavar="FILE",
                        help="opening files whose openings no learned game may start from, matched by position under "
                             "the board's symmetries (default: the shipped held-out sets, tournaments/openings/"
                             "*-test.txt)")
    parser.add_argument("--holdout", type=float, default=0.2,
                        help="share of the games kept out of the fit to measure it (default 0.2)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the held-out games' choice (default 1)")
    parser.add_argument("--steps", type=int, default=600, help="optimiser steps (default 600)")
    parser.add_argument("--write", metavar="FILE",
                        help="write the fitted weights as a policy_weights.py module to FILE "
                             "(brain/policy_weights.py ships them)")


def run(args: argparse.Namespace) -> int:
    """Fit on the training games, judge on the held-out ones beside the hand-set priors, and write the weights."""
    if not 0.0 <= args.holdout < 1.0:
        raise UsageError(f"--holdout must be in [0, 1), not {args.holdout}")
    from monte.lab import fit_policy
    from monte.tournaments.records import read_jsonl

    if not args.games and not args.labels:
        raise UsageError("nothing to learn from: give games.jsonl files, --labels files, or both")
    from monte.lab.value_labels import JUDGE, read_labels

    excluded_files = args.exclude_openings if args.exclude_openings is not None else shipped_held_out_files()
    records = [record for path in args.games for record in read_jsonl(path)]
    kept, left = learnable(records, excluded_files)
    if left:
        print(f"left out: {left} game{'s' * (left != 1)} played from held-out openings", file=sys.stderr)
    learn_from = {name for name in args.learn_from.split(",") if name} or None
    try:
        labels = [label for path in args.labels for label in read_labels(path)]
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if labels and learn_from is not None:
        learn_from.add(JUDGE)
    kept += [label.as_move_record(number) for number, label in enumerate(labels, len(kept))]
    examples = fit_policy.collect(kept, learn_from)
    if examples.positions == 0:
        raise UsageError("no position to learn from: no move of the engines named was made in the games given")
    train, held = fit_policy.split_games(examples, args.holdout, args.seed)
    weights = fit_policy.fit(train, steps=args.steps)
    names = ", ".join(sorted(learn_from)) if learn_from else "every engine"
    lines = [f"{len(set(examples.game.tolist()))} games, {examples.positions} positions of {names} to move "
             f"({train.positions} fitted, {held.positions} held out in whole games)"]
    lines += fit_policy.judged_lines(weights, held, "held-out games")
    lines += fit_policy.judged_lines(weights, train, "fitted games")
    print("\n".join(lines))
    if args.write:
        sources = ", ".join([*(Path(p).parent.name or p for p in args.games), *(Path(p).name for p in args.labels)])
        summary = [f"Fitted to {sources}; held out: {', '.join(Path(f).name for f in excluded_files) or 'nothing'}.",
                   "", *lines]
        Path(args.write).write_text(fit_policy.weights_module(weights, summary), encoding="utf-8")
        print(f"wrote {args.write}", file=sys.stderr)
    return 0
