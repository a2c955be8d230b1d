"""``monte clock``: how late a brain answers on every path of the protocol (``monte.lab.clockcheck``)."""

from __future__ import annotations

import argparse
import shlex

from monte.errors import UsageError


def configure(parser: argparse.ArgumentParser) -> None:
    """The brain to measure and how many replies a path."""
    parser.add_argument("--engine", default="pbrain-monte",
                        help="the brain's command line (default: pbrain-monte, the installed one)")
    parser.add_argument("--count", type=int, default=100, help="replies measured per path (default 100)")


def run(args: argparse.Namespace) -> int:
    """Measure every path and print the table."""
    if args.count < 1:
        raise UsageError(f"--count must be at least 1, not {args.count}")
    from monte.lab import clockcheck

    return clockcheck.report(shlex.split(args.engine), args.count)
