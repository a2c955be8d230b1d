"""``monte bench``: the search speed of Monte's MCTS (with each leaf evaluation) and of plain UCT on fixed positions
(``monte.brain.bench``, imported only to run)."""

from __future__ import annotations

import argparse


def configure(parser: argparse.ArgumentParser) -> None:
    """How long, how often, and in which form."""
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU time of one run (default 2)")
    parser.add_argument("--repeats", type=int, default=3, help="runs per line; the median is shown (default 3)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of lines")


def run(args: argparse.Namespace) -> int:
    """Measure and print."""
    from monte.brain import bench

    return bench.report(args.seconds, args.repeats, args.json)
