"""What would have seen a blunder coming? For each blunder of a ``monte.lab.blunders count`` (a move after which the
judge found the opponent's forced win), which search finds that win:

- Monte's own VCT for the opponent after the move (``brain.threat_search``), asked at growing node budgets, each
  on a fresh table: the smallest budget that proves it, or none up to the largest. The root filter gives a
  candidate ~10,000 nodes at 1 s a move, its final check about as many.
- failing that, a quiet move of the opponent's and then a VCT (``brain.quiet_threats``), with a wide budget;
- and the judge's own winning line, both sides played by the judge from the position after the move: the
  attacker's moves classed by what each makes (a four, an open three, or nothing yet: *quiet*). A line with several
  quiet moves of the attacker is beyond any threat search -- what sees it is a search of the whole game
  (alpha-beta with an evaluation) or a value that already knows the position is lost.

    python -m monte.lab.blunder_causes --judge /tmp/sparring/bin/pbrain-rapfi \\
        --positions tournaments/reports/blunders/positions-held-rapfi-spar-d6e3863.jsonl \\
        --count tournaments/reports/blunders/count-1s-held-f3490cd.json

For measurement only, like ``monte.lab.blunders``: nothing in the engine or the test suite depends on the judge.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from monte.brain.board import MOVE_WINS, Board
from monte.brain.limits import SearchLimits
from monte.brain.patterns import C_FIVE, C_FOUR, C_THREE
from monte.brain.player import ThinkLimits
from monte.brain.position import new_state
from monte.brain.quiet_threats import QuietBudget, QuietThreats
from monte.brain.settings import Options
from monte.brain.threat_search import ThreatSearch
from monte.lab.blunders import UNDECIDED, board_of, read_position_lines
from monte.lab.position_judge import Verdict, judge

VCT_BUDGETS = (10_000, 30_000, 100_000, 300_000, 1_000_000)
QUIET_BUDGET = QuietBudget(moves=24, vct_nodes=100_000)
MAX_LINE_PLIES = 60           # the judge's line is walked at most this far
SEARCH_SECONDS = 120.0        # no search here is cut by the clock: budgets decide

QUIET, THREE, FOUR, FIVE = "quiet", "three", "four", "five"


def vct_budget(board: Board, move: tuple[int, int], budgets: Sequence[int] = VCT_BUDGETS) -> int | None:
    """The smallest of `budgets` at which Monte's VCT proves the opponent's win after `move` (a fresh table each
    time, so that the figure does not depend on what an earlier question stored), or None."""
    color = board.to_move
    for nodes in budgets:
        st = new_state(board)
        with SearchLimits(ThinkLimits.seconds(SEARCH_SECONDS)) as limits:
            if ThreatSearch(Options()).opponent_vct_after(st, board.index(*move), color, nodes, limits) > 0:
                return nodes
    return None


def quiet_win(board: Board, move: tuple[int, int], budget: QuietBudget = QUIET_BUDGET) -> int | None:
    """The length of the opponent's win by a quiet move and then a VCT after `move` (``brain.quiet_threats``, its
    `budget.moves` best quiet moves), or None when none is proved."""
    with SearchLimits(ThinkLimits.seconds(SEARCH_SECONDS)) as limits:
        plies = QuietThreats(ThreatSearch(Options())).opponent_win_after(
            new_state(board), board.index(*move), board.to_move, budget, limits, limits.now() + SEARCH_SECONDS)
    return plies or None


def move_kind(board: Board, move: tuple[int, int]) -> str:
    """What `move` makes for the side to move: a five, a four (or more), an open three (or more), or nothing yet."""
    if board.judge(*move) == MOVE_WINS:
        return FIVE
    cls = int(new_state(board).cls[board.to_move - 1, board.index(*move)])
    return FIVE if cls >= C_FIVE else FOUR if cls >= C_FOUR else THREE if cls >= C_THREE else QUIET


def judged_line(board: Board, ask: Callable[[list[tuple[int, int]]], Verdict | None],
                max_plies: int = MAX_LINE_PLIES) -> list[tuple[tuple[int, int], str]]:
    """The line the judge plays for both sides from `board` (its side to move: the attacker), each move with
    ``move_kind`` for its player, until a five, a move the judge does not give, or `max_plies`. `ask` gives the
    judge's verdict for the stones played so far (black first)."""
    board = board.copy()
    stones = [(m.x, m.y) for m in board.history]
    line = []
    while len(line) < max_plies:
        verdict = ask(stones)
        if verdict is None or not board.is_empty(*verdict.move):
            break
        kind = move_kind(board, verdict.move)
        line.append((verdict.move, kind))
        if kind == FIVE:
            break
        board.play(*verdict.move)
        stones.append(verdict.move)
    return line


def attacker_quiet_moves(line: list[tuple[tuple[int, int], str]]) -> int:
    """The quiet moves of the attacker (the line's first player) in a ``judged_line``."""
    return sum(1 for i, (_, kind) in enumerate(line) if i % 2 == 0 and kind == QUIET)


def cause(position: dict, move: tuple[int, int], ask: Callable[[list[tuple[int, int]]], Verdict | None]) -> dict:
    """What finds the opponent's win after `move` in `position` (see the module docstring), as a JSON-ready dict."""
    board = board_of(position)
    found = vct_budget(board, move)
    quiet = quiet_win(board, move) if found is None else None
    after = board.copy()
    after.play(*move)
    line = judged_line(after, ask)
    return {"move": list(move), "vct_nodes": found, "quiet_then_vct": quiet,
            "line": [[x, y, kind] for (x, y), kind in line], "attacker_quiet_moves": attacker_quiet_moves(line)}


def describe(row: dict) -> str:
    """One blunder's cause in a line of text."""
    if row["vct_nodes"] is not None:
        how = f"a VCT at {row['vct_nodes']:,} nodes"
    elif row["quiet_then_vct"] is not None:
        how = f"a quiet move then a VCT ({row['quiet_then_vct']} plies)"
    else:
        how = "no threat search"
    return (f"position {row['position']} {tuple(row['move'])}: {how}; the judge's line {len(row['line'])} plies, "
            f"{row['attacker_quiet_moves']} quiet moves of the attacker")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m monte.lab.blunder_causes", description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", required=True, type=Path, help="the positions the count was made on")
    parser.add_argument("--count", required=True, type=Path, help="a `monte.lab.blunders count --out` file")
    parser.add_argument("--engine", help="the engine of the count file to read (default: its first)")
    parser.add_argument("--judge", required=True, help="the judging brain's command line (Rapfi)")
    parser.add_argument("--nodes", type=int, default=1_000_000, help="the judge's nodes a move of its line")
    parser.add_argument("--out", type=Path, help="write each blunder's cause here (JSON)")
    args = parser.parse_args(argv)
    try:
        positions = read_position_lines(args.positions)
        counts = json.loads(args.count.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        parser.error(f"cannot read the positions or the count: {error}")
    name = args.engine or next(iter(counts), None)
    if name not in counts:
        parser.error(f"--engine {name}: not in {args.count} ({', '.join(counts)})")
    judge_cmd = shlex.split(args.judge)
    rows = []
    for row in counts[name]:
        if row.get("kind") != UNDECIDED or row.get("passed") or "move" not in row:
            continue
        position = positions[row["position"]]

        def ask(stones: list[tuple[int, int]], position: dict = position) -> Verdict | None:
            return judge(judge_cmd, args.nodes, stones, position["width"], position["height"], position["rule"])

        found = {"position": row["position"], **cause(position, tuple(row["move"]), ask)}
        rows.append(found)
        print(describe(found), flush=True)
    by_vct = sum(1 for r in rows if r["vct_nodes"] is not None)
    by_quiet = sum(1 for r in rows if r["quiet_then_vct"] is not None)
    print(f"{name}: {len(rows)} blunders; {by_vct} seen by a VCT (up to {VCT_BUDGETS[-1]:,} nodes), {by_quiet} by a "
          f"quiet move then a VCT, {len(rows) - by_vct - by_quiet} by neither")
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
