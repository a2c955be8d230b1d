"""Proof check: are the wins and losses Monte's search proves inside its tree real? A strong engine judges them.

MCTS-Solver proves a node won when one child is lost for its side to move, lost when every move worth searching
loses, and the threat searches (VCF, VCT, the leaf's own proofs) prove wins where they find them. A wrong step
anywhere -- a defence the move generator leaves out, a loss proved over some moves only -- makes a proof that is not
true, and the search then plays into a "win" or avoids a "loss" that is not there. Those are invisible in games
(the move looks like any other) and cheap to find this way: grow a tree on each of a set of positions, take the
nodes it proved (the first proved node on each path from the root, where the search stops going deeper), and ask
the judge about a sample of them. A proof the judge confirms (its mate, for the same side) is fine; one it refutes
(a mate for the other side) is wrong; one it sees no mate in at its budget is listed with its evaluation, to be
looked at: the judge may just not see that far, or the proof may be wrong (the first one this tool found, a defence
the move generator left out, was such: Rapfi at 3 million nodes saw no mate and an evaluation of +231 for the
side the solver called won).

    python -m monte.lab.proofs --judge /tmp/sparring/bin/pbrain-rapfi --nodes 300000 \
        --positions tournaments/reports/blunders/positions-held-rapfi-spar-d6e3863.jsonl --iterations 50000 \
        --per-position 6 --out proofs.json

Positions are JSON lines with ``stones`` (black first, colours alternating), ``width``, ``height`` and ``rule``, as
``monte.lab.blunders`` writes them. For measurement only: nothing in the engine or the test suite needs the judge.
"""

from __future__ import annotations

import argparse
import json
import random
import shlex
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from monte.brain.board import Board
from monte.brain.limits import new_limits
from monte.brain.mcts import search
from monte.brain.position import new_state
from monte.brain.settings import Params
from monte.brain.threats import new_workspace
from monte.brain.tree import Tree, new_tree
from monte.brain.vct import new_vct_space
from monte.lab import blunders

TREE_BYTES = 256 * 2**20
MAX_DEPTH = 10            # plies below the root looked at for proved nodes


@dataclass(frozen=True)
class ProvedNode:
    """A node the search proved: the moves from the root to it and the proof, for the side to move there."""

    line: list[tuple[int, int]]
    proof: int
    """+1: the side to move at the node wins; -1: it loses."""
    visits: int


@dataclass(frozen=True)
class Check:
    """The judge's word on one proved node."""

    position: int
    line: list[tuple[int, int]]
    proof: int
    mate: int
    """The judge's forced result for the side to move at the node (> 0 wins, < 0 loses, 0 none seen), read past its
    searches cut short (``blunders.verdict_after``)."""
    eval: int | None
    walked: int

    @property
    def verdict(self) -> str:
        """confirmed (the judge's mate agrees), refuted (its mate is the other side's) or unconfirmed."""
        if self.mate == 0:
            return "unconfirmed"
        return "confirmed" if (self.mate > 0) == (self.proof > 0) else "refuted"



def grown_tree(board: Board, iterations: int, params: Params | None = None) -> Tree:
    """The tree of `iterations` MCTS iterations from `board` (fewer if the root gets proved)."""
    st = new_state(board)
    tree = new_tree(TREE_BYTES)
    search(st, tree, board.to_move, iterations, params or Params(), new_workspace(st.cells.shape[0]), new_vct_space(),
           new_limits())
    return tree


def proved_nodes(board: Board, tree: Tree, max_depth: int = MAX_DEPTH) -> list[ProvedNode]:
    """The proved nodes of `tree` (grown from `board`) that the search reached through unproved ones: below a proved
    node it goes no deeper, so those are the proofs it relies on. The root itself is left out."""
    found: list[ProvedNode] = []
    stack: list[tuple[int, list[tuple[int, int]]]] = [(0, [])]
    while stack:
        node, line = stack.pop()
        h = int(tree.block[node])
        if h < 0 or len(line) >= max_depth:
            continue
        for e in range(h + 1, h + 1 + int(tree.e_move[h])):
            child = int(tree.e_child[e])
            if child < 0 or tree.visits[child] == 0:
                continue
            moves = line + [board.coords(int(tree.e_move[e]))]
            if tree.proven[child] != 0:
                found.append(ProvedNode(moves, int(tree.proven[child]), int(tree.visits[child])))
            else:
                stack.append((child, moves))
    return found


def check_proofs(judge_cmd: Sequence[str], nodes: int, positions: list[dict], iterations: int, per_position: int,
                 seed: int = 1, report=print) -> list[Check]:
    """Grow a tree on each position, draw `per_position` of its proved nodes (seeded) and have the judge, searching
    `nodes`, look at each; `report` gets a line per proof not confirmed and one per position."""
    rng = random.Random(seed)
    checks: list[Check] = []
    for number, pos in enumerate(positions):
        board = blunders.board_of(pos)
        proved = proved_nodes(board, grown_tree(board, iterations))
        for node in rng.sample(proved, min(per_position, len(proved))):
            stones = [tuple(s) for s in pos["stones"]] + node.line
            mate, value, walked = blunders.verdict_after(judge_cmd, nodes, stones, board.width, board.height,
                                                         board.rule)
            check = Check(number, node.line, node.proof, mate, value, walked)
            checks.append(check)
            if check.verdict != "confirmed":
                report(f"position {number}: proof {node.proof:+d} after {node.line} ({node.visits} visits): "
                       f"{check.verdict}, judge mate {mate}, eval {value}")
        report(f"position {number}: {len(proved)} proved nodes, {min(per_position, len(proved))} checked")
    return checks


def summary(checks: list[Check]) -> str:
    """One line: how many proofs were checked and what the judge said of them."""
    counts = {v: sum(c.verdict == v for c in checks) for v in ("confirmed", "refuted", "unconfirmed")}
    return (f"{len(checks)} proofs checked: {counts['confirmed']} confirmed, {counts['refuted']} refuted, "
            f"{counts['unconfirmed']} unconfirmed")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m monte.lab.proofs", description=__doc__.split("\n\n")[0])
    parser.add_argument("--judge", required=True, help="the judge's command (Rapfi)")
    parser.add_argument("--nodes", type=int, default=300_000, help="the judge's nodes per position")
    parser.add_argument("--positions", type=Path, required=True, help="JSON lines with stones, width, height, rule")
    parser.add_argument("--iterations", type=int, default=50_000, help="MCTS iterations of each tree")
    parser.add_argument("--per-position", type=int, default=6, help="proved nodes checked per position")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, help="write every check here (JSON)")
    args = parser.parse_args(argv)
    try:
        positions = blunders.read_position_lines(args.positions)
    except (OSError, ValueError) as exc:
        print(f"monte.lab.proofs: cannot read {args.positions}: {exc}", file=sys.stderr)
        return 2
    checks = check_proofs(shlex.split(args.judge), args.nodes, positions, args.iterations, args.per_position,
                          args.seed, report=lambda line: print(line, flush=True))
    print(summary(checks))
    if args.out:
        args.out.write_text(json.dumps([{**asdict(c), "verdict": c.verdict} for c in checks]) + "\n",
                            encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
