"""``monte bench``: the search speed of Monte's MCTS (with each leaf evaluation) and of plain UCT on fixed positions
(``monte.brain.bench``, imported only to run)."""

from __future__ import annotations

import argparse


def _count(text: str) -> int:
    """A whole number of iterations, 1 or more."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of iterations (1 or more)")
    return value


def configure(parser: argparse.ArgumentParser) -> None:
    """How long, how often, and in which form."""
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU time of one run (default 2)")
    parser.add_argument("--repeats", type=int, default=3, help="runs per line; the median is shown (default 3)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of lines")
    parser.add_argument("--iterations", type=_count, default=0, metavar="N",
                        help="instead: the CPU seconds of exactly N iterations of Monte's MCTS from a fresh tree, "
                             "with a digest of the tree (two builds with equal digests grew the same tree)")


def run(args: argparse.Namespace) -> int:
    """Measure and print."""
    from monte.brain import bench

    return bench.report(args.seconds, args.repeats, args.json, args.iterations)
