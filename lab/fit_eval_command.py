"""``monte fit-eval``: fit the value network to labelled positions and played games (``monte.lab.fit_value``,
imported only to run)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from monte.errors import UsageError
from monte.lab.held_out import HELD_OUT_MARK, learnable, shipped_held_out_files


def configure(parser: argparse.ArgumentParser) -> None:
    """The examples, the network's size, and where the weights go."""
    parser.add_argument("games", nargs="*",
                        help="games.jsonl files: each position is learned toward the game's result for the side to "
                             "move")
    parser.add_argument("--labels", nargs="+", default=[], metavar="FILE",
                        help="labelled positions (monte label-positions): each is learned toward the judge's win rate")
    parser.add_argument("--test", nargs="+", default=[], metavar="GAMES",
                        help="games.jsonl files played from held-out openings: the fit is judged on their results too")
    parser.add_argument("--holdout", type=float, default=0.15,
                        help="share of the examples kept out of the first fit to measure it (default 0.15)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the held-out examples' choice (default 1)")
    parser.add_argument("--skip-plies", type=int, default=4,
                        help="game positions before this ply are not used (default 4: the opening's stones)")
    parser.add_argument("--hidden", type=int, default=32, help="hidden units (default 32, at most 64)")
    parser.add_argument("--steps", type=int, default=4000, help="optimiser steps (default 4000)")
    parser.add_argument("--renju", action="store_true",
                        help="fit renju's network: learn from the renju positions alone, judged beside the shipped "
                             "renju weights (brain/value_weights_renju.py); without it, the freestyle network, "
                             "which every other rule uses (brain/value_weights.py)")
    parser.add_argument("--write", metavar="FILE",
                        help="refit on every example and write the network as a value_weights.py module to FILE "
                             "(brain/value_weights.py ships freestyle's, brain/value_weights_renju.py renju's)")


def run(args: argparse.Namespace) -> int:
    """Fit on the training share, judge on the held-out one beside the shipped weights, then refit and write."""
    if not 0.0 <= args.holdout < 1.0:
        raise UsageError(f"--holdout must be in [0, 1), not {args.holdout}")
    from monte.brain.position import SCRATCH

    if not 1 <= args.hidden <= SCRATCH:
        raise UsageError(f"--hidden must be between 1 and {SCRATCH}, not {args.hidden}")
    if not args.games and not args.labels:
        raise UsageError("nothing to learn from: give games.jsonl files, --labels files, or both")
    from monte.brain.evaluation import network_weights
    from monte.brain.rules import RULE_FREESTYLE, RULE_RENJU
    from monte.lab import fit_value
    from monte.lab.value_labels import read_labels
    from monte.tournaments.records import read_jsonl

    records = [record for path in args.games for record in read_jsonl(path)]
    records, left = learnable(records, shipped_held_out_files())
    if left:
        print(f"left out of the fit: {left} game{'s' * (left != 1)} played from held-out openings "
              f"(*{HELD_OUT_MARK}*; give them with --test to judge the fit on them)", file=sys.stderr)
    try:
        labels = [label for path in args.labels for label in read_labels(path)]
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    weights = network_weights(RULE_RENJU if args.renju else RULE_FREESTYLE)
    if args.renju:  # the positions that network judges, as the search picks it
        labels = [label for label in labels if network_weights(label.rule) is weights]
        records = [record for record in records if network_weights(record.rule) is weights]
    parts = [fit_value.from_labels(labels), fit_value.from_games(records, args.skip_plies)]
    examples = fit_value.joined(parts)
    if examples.size == 0:
        if args.renju:
            raise UsageError("no renju position to learn from: --renju learns from the renju games and labels alone")
        raise UsageError("no position to learn from: the games given did not end on the board, and no label was given")
    train, held = fit_value.held_out_split(examples, args.holdout, args.seed)
    net = fit_value.fit(train, args.hidden, args.steps)
    shipped = fit_value.Network(weights.W1, weights.B1, weights.W2, weights.B2)
    lines = [f"{parts[0].size} labelled positions, {parts[1].size} positions of {len(records)} games "
             f"({train.size} fitted, {held.size} held out)"]
    if held.size:
        lines += fit_value.judged_lines(net, shipped, held, "held out")
    tests = [record for path in args.test for record in read_jsonl(path)]
    if tests:
        lines += fit_value.judged_lines(net, shipped, fit_value.from_games(tests, args.skip_plies),
                                        f"games of held-out openings ({len(tests)})")
    print("\n".join(lines))
    if args.write:
        final = fit_value.fit(examples, args.hidden, args.steps)
        sources = ", ".join(Path(p).name for p in [*args.labels, *args.games])
        summary = [f"{'Renju: ' if args.renju else ''}fitted to {sources}: {examples.size} positions; {args.hidden} "
                   f"hidden units, {args.steps} steps.", "", *lines]
        Path(args.write).write_text(fit_value.weights_module(final, summary), encoding="utf-8")
        print(f"wrote {args.write}", file=sys.stderr)
    return 0
