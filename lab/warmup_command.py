"""``monte warmup``: compile (or load) every engine's numba kernels now, as ``pbrain-monte --warmup`` does."""

from __future__ import annotations

import argparse


def configure(parser: argparse.ArgumentParser) -> None:
    """No arguments."""


def run(args: argparse.Namespace) -> int:
    """Warm every engine up and say how long it took."""
    from monte.brain.registry import warm_up_all  # the kernels load only for the commands that need them

    names, seconds = warm_up_all()
    print(f"monte warmup: {', '.join(names)} ready in {seconds:.2f} s")
    return 0
