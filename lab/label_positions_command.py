"""``monte label-positions``: a judge engine's evaluation of played positions, the value network's data
(``monte.lab.value_labels``, imported only to run)."""

from __future__ import annotations

import argparse
import shlex
import sys
import time

from monte.errors import UsageError
from monte.lab.held_out import learnable, shipped_held_out_files


def configure(parser: argparse.ArgumentParser) -> None:
    """The games, the judge, and where the labels go."""
    parser.add_argument("games", nargs="+", help="games.jsonl files of tournament runs: their positions are labelled")
    parser.add_argument("--judge", required=True, metavar="COMMAND",
                        help="a pbrain engine that prints Rapfi's 'MESSAGE ... Eval N | Node N' lines, e.g. "
                             "pbrain-rapfi")
    parser.add_argument("--nodes", type=int, default=30000, help="the judge's nodes a position (default 30000)")
    parser.add_argument("--out", required=True, metavar="FILE",
                        help="JSON lines, one labelled position each; an existing file is continued")
    parser.add_argument("--limit", type=int, default=0, help="label at most this many positions (default: all)")
    parser.add_argument("--skip-plies", type=int, default=4,
                        help="positions before this ply are not labelled (default 4: after a 3-stone opening)")
    parser.add_argument("--tree-nodes", type=int, default=0, metavar="N",
                        help="label positions of Monte's search tree instead: from each game position (at most "
                             "--limit of them), a search of N nodes, and --per-tree of its nodes drawn at random "
                             "(default 0: the game positions themselves)")
    parser.add_argument("--per-tree", type=int, default=4, help="tree nodes drawn from each search (default 4)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the positions' order (default 1)")
    parser.add_argument("--exclude-openings", nargs="*", default=None, metavar="FILE",
                        help="opening files whose games are not labelled, matched under the board's symmetries "
                             "(default: the shipped held-out sets, tournaments/openings/*-test.txt)")


def run(args: argparse.Namespace) -> int:
    """Label the positions the file does not hold yet, reporting progress on stderr."""
    if args.nodes < 1:
        raise UsageError(f"--nodes must be positive, not {args.nodes}")
    if args.tree_nodes < 0 or args.per_tree < 1:
        raise UsageError("--tree-nodes must be 0 or more and --per-tree positive")
    from monte.lab.position_judge import KeptJudge
    from monte.lab.value_labels import game_positions, label_key, label_positions, read_labels, tree_positions
    from monte.tournaments.records import read_jsonl

    excluded = args.exclude_openings if args.exclude_openings is not None else shipped_held_out_files()
    records, left = learnable([r for path in args.games for r in read_jsonl(path)], excluded)
    if left:
        print(f"left out: {left} game{'s' * (left != 1)} played from held-out openings", file=sys.stderr)
    positions = game_positions(records, args.skip_plies, args.seed)
    if args.limit:
        positions = positions[:args.limit]
    if args.tree_nodes > 0:
        print(f"searching {len(positions)} positions, {args.tree_nodes} nodes each", file=sys.stderr)
        positions = tree_positions(positions, args.tree_nodes, args.per_tree, args.seed)
    try:
        done = {label_key(lb.width, lb.height, lb.rule, lb.stones) for lb in read_labels(args.out)}
    except FileNotFoundError:
        done = set()
    command = shlex.split(args.judge)
    judges: dict[tuple[int, int, int], KeptJudge] = {}

    def verdict(width, height, rule, stones):
        if (width, height, rule) not in judges:
            judges[(width, height, rule)] = KeptJudge(command, args.nodes, width, height, rule)
        return judges[(width, height, rule)].verdict(stones)

    todo = sum(label_key(*p) not in done for p in positions)
    print(f"{len(positions)} positions, {len(positions) - todo} labelled already, {todo} to label", file=sys.stderr)
    written = missed = 0
    started = time.monotonic()
    try:
        with open(args.out, "a", encoding="utf-8") as out:
            for label in label_positions(positions, verdict, done):
                if label is None:
                    missed += 1
                    continue
                out.write(label.line() + "\n")
                out.flush()
                written += 1
                if written % 1000 == 0:
                    print(f"{written}/{todo} labelled in {time.monotonic() - started:.0f} s", file=sys.stderr)
    finally:
        for judge in judges.values():
            judge.close()
    print(f"{written} positions labelled ({missed} without an evaluation) -> {args.out}", file=sys.stderr)
    return 0
