"""VCT bench: how many threat questions the df-pn VCT (``brain.vct``) settles on a file of positions, at what cost,
focused (the engine's search) and complete (every threat of the attacker searched).

Each position asks the questions the player asks: does the side to move win by threats (its own VCT), does the
opponent threaten one (the opponent's VCT as if the side to move passed: the root filter's first question), and --
where the file says what was played -- does the opponent win by threats after that move (the question the root
filter asks of each candidate). Each runs from an empty table with the same node budget; a question is proved,
disproved, or left open when the budget runs out. Node counts are deterministic (this machine's load changes only
the seconds), so two builds or two settings compare exactly:

    python -m monte.lab.vct_bench --positions tournaments/reports/blunders/positions-held-rapfi-spar-d6e3863.jsonl \
        --nodes 300000 --mode both

Positions are JSON lines with ``stones`` (black first, colours alternating), ``width``, ``height``, ``rule`` and
optionally ``played`` ([x, y]), as ``monte.lab.blunders`` writes them. For measurement only: the engine and the
tests never need it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from monte.brain.limits import new_limits
from monte.brain.position import State, make, new_state, unmake
from monte.brain.settings import Options
from monte.brain.vct import V_FOCUS, V_NODES, V_RESULT, VctSpace, find_vct, new_vct_space
from monte.lab.blunders import board_of, read_position_lines

MODES = {"focused": 1, "complete": 0}
BUCKETS = (1_000, 10_000, 30_000, 100_000)


@dataclass(frozen=True)
class Answer:
    """One question's outcome: position number, question (own, threat, after), result (1 proved, 0 disproved, -1
    open) and the nodes it took."""

    position: int
    question: str
    result: int
    nodes: int


def _ask(st: State, attacker: int, nodes: int, plies: int, space: VctSpace) -> tuple[int, int]:
    """(result, nodes) of one VCT question, asked from an empty table: no question profits from another's."""
    space.tt_keys[:] = 0
    find_vct(st, attacker, plies, nodes, space, new_limits())
    return int(space.info[V_RESULT]), int(space.info[V_NODES])


def answers(positions: list[dict], nodes: int, focus: int, plies: int = Options().root_vct_plies) -> list[Answer]:
    """Every question of every position, each from an empty table, `focus` as ``V_FOCUS``."""
    space = new_vct_space()
    space.info[V_FOCUS] = focus
    found = []
    for number, pos in enumerate(positions):
        board = board_of(pos)
        st = new_state(board)
        me = board.to_move
        found.append(Answer(number, "own", *_ask(st, me, nodes, plies, space)))
        found.append(Answer(number, "threat", *_ask(st, 3 - me, nodes, plies, space)))
        if pos.get("played"):
            move = board.index(*pos["played"])
            make(st, move, me)
            found.append(Answer(number, "after", *_ask(st, 3 - me, nodes, plies, space)))
            unmake(st, move)
    return found


def summary(name: str, found: list[Answer], seconds: float) -> list[str]:
    """Lines: how many questions were proved, disproved and left open, the nodes spent, and how many proofs came
    within each of BUCKETS nodes."""
    proved = [a for a in found if a.result == 1]
    open_ = sum(1 for a in found if a.result < 0)
    lines = [f"{name}: {len(found)} questions, {len(proved)} proved, {len(found) - len(proved) - open_} disproved, "
             f"{open_} left open; {sum(a.nodes for a in found)} nodes ({sum(a.nodes for a in proved)} in proofs), "
             f"{seconds:.1f} s"]
    lines.append("  proved within " + ", ".join(f"{b:,} nodes: {sum(a.nodes <= b for a in proved)}"
                                               for b in BUCKETS))
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m monte.lab.vct_bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=Path, required=True, help="JSON lines with stones, width, height, rule")
    parser.add_argument("--nodes", type=int, default=300_000, help="df-pn nodes a question (default 300,000)")
    parser.add_argument("--mode", choices=["focused", "complete", "both"], default="both")
    parser.add_argument("--out", type=Path, help="write every answer here (JSON)")
    args = parser.parse_args(argv)
    try:
        positions = read_position_lines(args.positions)
    except (OSError, ValueError) as exc:
        print(f"monte.lab.vct_bench: cannot read {args.positions}: {exc}", file=sys.stderr)
        return 2
    modes = list(MODES) if args.mode == "both" else [args.mode]
    results: dict[str, list[Answer]] = {}
    for mode in modes:
        start = time.process_time()
        results[mode] = answers(positions, args.nodes, MODES[mode])
        print("\n".join(summary(mode, results[mode], time.process_time() - start)), flush=True)
    if len(results) == 2:
        focused, complete = (
            {(a.position, a.question) for a in results[m] if a.result == 1} for m in MODES)
        print(f"proved by the focused search only: {len(focused - complete)}, by the complete one only: "
              f"{len(complete - focused)}")
    if args.out:
        args.out.write_text(json.dumps({m: [asdict(a) for a in r] for m, r in results.items()}) + "\n",
                            encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
