"""``monte analyze``: what Monte thinks of a position -- its move, the top root moves with visits, win rate, prior,
principal variation and proofs -- as a table or JSON; how the choice grows with the search (``--iterations``); the
top of the search tree in DOT (``--tree``).

The position comes from an SGF, .psq or games.jsonl file (``--move N`` picks how many of its moves are played) or
a move list; the search is the brain's own (``brain.analysis.analyze``), run in this process.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

from monte.protocol.evaluation import UNMEASURED_PLIES, evaluation_text, percent
from monte.protocol.notation import line_names, point_name, rule_name
from monte.analysis.positions import add_position_arguments, board_at, loaded, winning_line
from monte.brain.board import BLACK, Board
from monte.brain.player import ThinkLimits
from monte.tournaments.report import text_table

if TYPE_CHECKING:  # the search and its compiler load in run(): ``monte analyze --help`` stays light
    from monte.brain.search_view import Analysis, MoveStats

NO_TIME_LIMIT_S = 24 * 3600.0
"""How long a search under a node budget may take: the budget, not the clock, ends it."""


def configure(parser: argparse.ArgumentParser) -> None:
    add_position_arguments(parser)
    limit = parser.add_mutually_exclusive_group()
    limit.add_argument("--time", type=float, default=1.0, help="seconds of search (default 1)")
    limit.add_argument("--nodes", type=int, default=0,
                       help="a node budget instead of a time: the same answer on any machine")
    parser.add_argument("--top", type=int, default=8, help="how many root moves to list (default 8)")
    parser.add_argument("--json", action="store_true", help="print JSON for programs")
    parser.add_argument("--iterations", metavar="N,N,...", default="",
                        help="search with each node budget in turn and tabulate the choice, e.g. 100,1000,10000")
    parser.add_argument("--tree", metavar="OUT.dot", default="",
                        help="write the top of the search tree in Graphviz DOT (and OUT.svg when dot is installed)")
    parser.add_argument("--tree-depth", type=int, default=3, help="plies of the tree to draw (default 3)")
    parser.add_argument("--tree-width", type=int, default=4, help="children drawn per node (default 4)")


def run(args: argparse.Namespace) -> int:
    """Analyse the position and print the result; ValueError for a position or argument the user can fix."""
    budgets = _budgets(args.iterations)
    if not 0 < args.time < math.inf or args.nodes < 0 or args.top < 1 or args.tree_depth < 1 or args.tree_width < 1:
        raise ValueError("--time must be a finite number of seconds above 0, --top, --tree-depth and --tree-width "
                         "positive, --nodes not negative")
    game, moves = loaded(args)
    board = board_at(game, moves)
    five = winning_line(board)
    if five:
        winner = "black" if board.at(*five[0]) == BLACK else "white"
        raise ValueError(f"the game is over: {winner} made five ({line_names([tuple(p) for p in five], board.height)})"
                         f"; nothing to analyse (an earlier position: --move N)")
    if board.is_full():
        raise ValueError("the board is full: nothing to analyse")
    from monte.analysis.tree_dot import render_dot, tree_dot
    from monte.brain.cachedir import cache_is_warm
    from monte.brain.engine import MctsPlayer
    from monte.brain.search_view import analyze

    player = MctsPlayer()
    if not cache_is_warm():
        print("monte analyze: compiling Monte's search for this machine, once (about a minute)", file=sys.stderr)
    player.warm_up()  # before the search's clock starts: a cold compile must not eat the search's time
    if budgets:
        rows = [analyze(board, _limits(0.0, nodes), top=1, player=player) for nodes in budgets]
        print(json.dumps([_json(a, board) | {"node_budget": n} for a, n in zip(rows, budgets)], indent=1)
              if args.json else _growth_table(board, budgets, rows))
        return 0
    depth = args.tree_depth if args.tree else 0
    result = analyze(board, _limits(args.time, args.nodes), top=args.top, tree_depth=depth,
                     tree_width=args.tree_width, player=player)
    print(json.dumps(_json(result, board), indent=1) if args.json else _report(board, game.stones[:moves], result))
    if args.tree and result.tree is not None:
        path = Path(args.tree)
        path.write_text(tree_dot(result.tree, board.height))
        svg = render_dot(path)
        where = f"{path} and {svg}" if svg else f"{path} (install Graphviz to draw it: dot -Tsvg {path} -o x.svg)"
        print(f"search tree: {where}", file=sys.stderr)
    return 0


def _budgets(text: str) -> list[int]:
    try:
        budgets = [int(part) for part in text.replace(" ", "").split(",") if part]
    except ValueError:
        raise ValueError(f"--iterations {text!r} is not a list of whole numbers such as 100,1000,10000") from None
    if any(n < 1 for n in budgets):
        raise ValueError(f"--iterations {text!r}: every budget must be at least 1")
    return budgets


def _limits(seconds: float, nodes: int) -> ThinkLimits:
    limits = ThinkLimits.seconds(NO_TIME_LIMIT_S if nodes else seconds)
    limits.max_nodes = nodes
    return limits


def _verdict(result: Analysis, unknown: str = "no win rate (the search did not get to run: give it more)") -> str:
    """The position's evaluation on the one scale: the proof, else the win rate -- of a search that ran."""
    if result.mate or result.iterations:
        return evaluation_text(result.winrate, result.mate)
    return unknown


def _note(result: Analysis) -> str:
    """How the move was found, as the engine says it -- but a loss whose length it did not measure is "lost", not
    the placeholder length the engine reports it with."""
    if result.mate <= -UNMEASURED_PLIES:
        return "lost"
    return result.note


def _proof(stats: MoveStats) -> str:
    return f"{stats.proof} ({stats.proof_by})" if stats.proof else ""


def _report(board: Board, stones: list[tuple[int, int, int]], result: Analysis) -> str:
    """The human-readable answer: the position, Monte's move and the table of root moves."""
    h = board.height
    side = "black" if board.to_move == BLACK else "white"
    played = line_names([(x, y) for x, y, _ in stones], h) or "an empty board"
    note = f" ({_note(result)})" if result.note else ""
    lines = [f"{board.width}x{board.height} {rule_name(board.rule)}, {side} to move after {played}",
             f"Monte plays {point_name(*result.move, h)}{note}: {_verdict(result)}, "
             f"{result.iterations} iterations, {result.nodes} nodes in {result.seconds:.2f} s, depth {result.depth}",
             ""]
    rows = [[point_name(*s.move, h), str(s.visits), percent(s.winrate) if s.visits or s.proof else "-",
             percent(s.prior), _proof(s), line_names(s.pv, h)] for s in result.moves]
    lines += text_table(["move", "visits", "win rate", "prior", "proof", "principal variation"], rows)
    return "\n".join(lines)


def _growth_table(board: Board, budgets: list[int], rows: list[Analysis]) -> str:
    """How the choice changes as the search grows: one line per node budget."""
    h = board.height
    table = []
    for nodes, result in zip(budgets, rows):
        best = result.moves[0] if result.moves else None
        share = f"{100 * best.visits / result.iterations:.0f}%" if best and result.iterations else "-"
        table.append([str(nodes), str(result.iterations), point_name(*result.move, h), _verdict(result, "-"),
                      share, f"{result.seconds:.2f}", _note(result), line_names(result.pv[:6], h)])
    # "evaluation", not "win rate": the column says "win rate 41.0%" or "win in 3", as the first line of a report does
    return "\n".join(text_table(["nodes", "iterations", "move", "evaluation", "visits", "seconds", "note", "pv"],
                                 table))


def _json(result: Analysis, board: Board) -> dict:
    """The analysis as JSON values: points as [x, y] (the protocol's) with their names beside them."""
    h = board.height
    data = asdict(result)
    data.pop("tree")
    data["move_name"] = point_name(*result.move, h)
    data["evaluation"] = _verdict(result, "")
    data["pv_names"] = line_names(result.pv, h).split()
    for stats, entry in zip(result.moves, data["moves"]):
        entry["move_name"] = point_name(*stats.move, h)
        entry["pv_names"] = line_names(stats.pv, h).split()
    return data
