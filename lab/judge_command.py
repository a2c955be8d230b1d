"""``monte judge``: a brain played the Gomocup judge's way (``lab.judge``), a line per move -- its time against the
judge's limit, its process tree's memory against ``max_memory``, the CPU its descendants used while it was stopped --
then who of it outlived END. ``--cold`` starts it on an empty cache folder of its own (``MONTE_CACHE_DIR``).

This module imports no numba (``monte judge --help`` stays quick); ``run`` loads the rest.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile

MIB = 2**20


def configure(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``monte judge``."""
    parser.add_argument("command", nargs="*", default=["pbrain-monte"],
                        help="the brain to run (default: pbrain-monte)")
    parser.add_argument("--moves", type=int, default=30, help="the brain's moves (default 30)")
    parser.add_argument("--turn-ms", type=int, default=2000, help="timeout_turn (default 2000)")
    parser.add_argument("--match-ms", type=int, default=1_000_000, help="timeout_match (default 1000000)")
    parser.add_argument("--max-memory-mib", type=int, default=350, help="max_memory in MiB (default 350)")
    parser.add_argument("--cold", action="store_true", help="start the brain on an empty cache folder")


def run(args: argparse.Namespace) -> int:
    """Play, print the table; exit status 1 when the judge would have scored a fault or something outlived END."""
    from monte.brain import kernels
    from monte.lab.judge import play

    if args.moves < 1 or args.turn_ms < 1 or args.max_memory_mib < 1:
        raise ValueError("--moves, --turn-ms and --max-memory-mib must be positive")
    cache = tempfile.mkdtemp(prefix="monte-judge-") if args.cold else None
    env = {**os.environ, **({"MONTE_CACHE_DIR": cache} if cache else {})}
    kernels.hold()  # the referee's rules interpreted: this process compiles nothing beside the brain
    try:
        result = play(args.command, args.moves, env, timeout_turn_ms=args.turn_ms, timeout_match_ms=args.match_ms,
                      max_memory=args.max_memory_mib * MIB)
    except TimeoutError as exc:
        print(f"time fault: {exc}")
        return 1
    except FileNotFoundError:
        raise ValueError(f"cannot start {args.command[0]!r}: no such program") from None
    finally:
        if cache:
            shutil.rmtree(cache, ignore_errors=True)
    print("move  ms / limit   tree USS (MiB)  processes  stopped CPU (s)  message")
    for move in result.moves:
        print(f"{move.number:4d}  {move.ms:5.0f} / {move.limit_ms}  {move.tree_uss / MIB:14.1f}  "
              f"{1 + move.descendants:9d}  {move.stopped_cpu:15.2f}  {move.message[:60]}")
    worst = max(move.tree_uss for move in result.moves)
    print(f"largest tree {worst / MIB:.1f} MiB of {args.max_memory_mib}; most CPU in a stopped stretch "
          f"{max(move.stopped_cpu for move in result.moves):.2f} s; exit status {result.exit_status}; "
          f"alive 2 s after END: {result.survivors or 'none'}")
    return 0 if worst < args.max_memory_mib * MIB and not result.survivors and result.exit_status == 0 else 1
