"""Balanced openings: random quiet openings near the centre that a strong engine, searching a fixed number of nodes,
rates close to even for the side to move -- written as two offset files, one to make data from ("fit") and one to
measure strength on ("test"), so that a model is never judged on the openings it learned from.

In freestyle most random 3-stone openings are black's (Rapfi rates white's side of them -150 and worse), so a
colour-paired pair mostly ends 1-1 and measures colour, not skill. Kept here: openings the judge rates within
``--max-eval`` and whose search ran its whole budget (a judge that stops early has found a mate, or a single move
that does not lose: not an even position).

    python -m monte.lab.balanced_openings --judge /tmp/sparring/bin/pbrain-rapfi --size 15 --out freestyle15-balanced
"""

from __future__ import annotations

import argparse
import random
import shlex
import sys
from pathlib import Path

from monte.lab.held_out import canonical
from monte.lab.position_judge import judge
from monte.tournaments.openings import Opening, random_openings

OPENINGS_DIR = Path(__file__).resolve().parent.parent / "tournaments" / "openings"
FULL_SEARCH = 0.9   # a judge's search that ran at least this share of its budget did not stop at a decided position


def balanced(command: list[str], nodes: int, size: int, stones: int, candidates: int, max_eval: int, seed: int,
             rule: int = 0) -> list[tuple[Opening, int]]:
    """The candidates (``random_openings``) the judge rates within `max_eval` for the side to move, each with its
    evaluation; progress goes to stderr."""
    kept, forms = [], set()
    for i, opening in enumerate(random_openings(candidates, size, size, rule, stones=stones, seed=seed)):
        form = canonical(opening.stones, size, size)
        if form in forms:  # random openings can coincide under the board's symmetries: one of them only
            continue
        forms.add(form)
        verdict = judge(command, nodes, opening.stones, size, size, rule)
        even = verdict is not None and verdict.mate == 0 and abs(verdict.eval) <= max_eval \
            and verdict.nodes >= FULL_SEARCH * nodes
        if even:
            kept.append((opening, verdict.eval))
        print(f"{i + 1}/{candidates}: {verdict.eval if verdict else None} "
              f"({verdict.nodes if verdict else 0} nodes){' kept' if even else ''}", file=sys.stderr, flush=True)
    return kept


def offset_line(opening: Opening, size: int) -> str:
    """An opening as the offset format's line (``x,y, x,y, ...`` from the centre)."""
    c = size // 2
    return ", ".join(f"{x - c},{y - c}" for x, y in opening.stones)


def write_sets(kept: list[tuple[Opening, int]], size: int, header: str, stem: str, seed: int) -> tuple[Path, Path]:
    """Split `kept` in two halves at random (`seed`) and write ``STEM-fit.txt`` and ``STEM-test.txt``."""
    shuffled = list(kept)
    random.Random(seed).shuffle(shuffled)
    half = len(shuffled) // 2
    paths = []
    for part, rows, use in (("fit", shuffled[:half], "data may be made from these (self-play, fitting); never "
                                                   "measure strength on them"),
                            ("test", shuffled[half:], "strength is measured on these; make no data from them")):
        path = OPENINGS_DIR / f"{stem}-{part}.txt"
        lines = [f"# {line}" for line in header.splitlines()]
        lines += [f"# This file: the {part!r} half ({len(rows)} openings): {use}.", "#"]
        for opening, value in rows:
            lines.append(f"# judge's evaluation for the side to move: {value}")
            lines.append(offset_line(opening, size))
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(path)
    return paths[0], paths[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m monte.lab.balanced_openings", description=__doc__.split("\n\n")[0])
    parser.add_argument("--judge", required=True, help="the judging brain's command line (Rapfi)")
    parser.add_argument("--nodes", type=int, default=500_000, help="the judge's nodes a position (INFO max_node)")
    parser.add_argument("--size", type=int, default=15)
    parser.add_argument("--stones", type=int, default=3)
    parser.add_argument("--candidates", type=int, default=300, help="random openings judged")
    parser.add_argument("--max-eval", type=int, default=100, help="the largest |evaluation| kept")
    parser.add_argument("--seed", type=int, default=19)
    parser.add_argument("--out", required=True, help="file stem in tournaments/openings/ (-fit.txt, -test.txt)")
    args = parser.parse_args(argv)
    command = shlex.split(args.judge)
    kept = balanced(command, args.nodes, args.size, args.stones, args.candidates, args.max_eval, args.seed)
    header = (f"Balanced {args.stones}-stone openings for {args.size}x{args.size} freestyle (offset format), made by "
              f"python -m monte.lab.balanced_openings --size {args.size} --stones {args.stones} --candidates "
              f"{args.candidates} --nodes {args.nodes} --max-eval {args.max_eval} --seed {args.seed}:\n"
              f"{args.candidates} random quiet openings (tournaments.openings.random_openings, seed {args.seed}), each "
              f"judged by {Path(command[0]).name} (Rapfi 0.43, classical evaluation, 1 thread) at INFO max_node "
              f"{args.nodes};\nkept: the {len(kept)} it rates within +-{args.max_eval} for the side to move, with no "
              f"mate seen and its whole budget searched; split at random in two halves.")
    fit, test = write_sets(kept, args.size, header, args.out, args.seed)
    print(f"{len(kept)} of {args.candidates} kept: {fit}, {test}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
