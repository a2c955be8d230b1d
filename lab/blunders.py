"""Blunder count: in the positions where a game between Monte and a strong opponent was decided, does a brain's
move let the opponent's forced win in, or keep Monte's own? A judge (Rapfi at a fixed node count,
``monte.lab.position_judge``) says which positions are undecided, which are won for the side to move, and what a
move left behind.

``build`` walks back from the end of each game Monte won or lost by a five and keeps, with Monte to move, the last
position the judge sees no forced result in (the *undecided* one where the game turned) and the earliest one of
the walk where Monte has a forced win (a *won* one). ``count`` asks each brain for its move in every kept position
(a fixed node budget, ``INFO max_node``, or a time per move) and has the judge look at the position after it: a
blunder in an undecided position, a win kept or thrown away in a won one. With ``--held-by NAME`` it also counts
the others only where that engine's own move passes -- positions a strong engine handles at the same clock, so
that each has a move that passes (issue 19's condition).

    python -m monte.lab.blunders build --judge /tmp/sparring/bin/pbrain-rapfi --nodes 1000000 \
        --out positions.jsonl GAMES.jsonl ...
    python -m monte.lab.blunders count --judge /tmp/sparring/bin/pbrain-rapfi --nodes 1000000 \
        --positions positions.jsonl --engine rapfi=/tmp/sparring/bin/pbrain-rapfi --engine monte=pbrain-monte \
        --timeout-turn-ms 1000 --held-by rapfi

For measurement only: nothing in the engine or the test suite depends on the judge.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from monte.brain.board import Board
from monte.lab.position_judge import Verdict, board_fields, judge
from monte.protocol.client import LOAD_BEFORE_OK, BrainClient, BrainFault, GameSettings

MIN_PLIES_AFTER_OPENING = 2   # positions before Monte's second move are the opening's, not Monte's
MAX_WALK_BACK = 30            # Monte's moves walked back from the end of a game before giving up on it
MAX_FORCED_WALK = 8           # forced replies followed past the judge's searches cut short, before giving up
UNDECIDED, WON = "undecided", "won"


@dataclass(frozen=True)
class Position:
    """Monte to move in a position of a decided game: undecided (a move may let the opponent's forced win in) or
    won (a move may throw Monte's forced win away)."""

    stones: list[tuple[int, int]]
    width: int
    height: int
    rule: int
    played: tuple[int, int]
    """The move Monte played here in the game."""
    opponent: str
    source: str
    eval_before: int
    """The judge's evaluation for Monte, to move."""
    mate_after: int
    """The judge's mate after the move Monte played, for the opponent then to move (> 0: the opponent wins, < 0:
    Monte still wins, 0: neither seen)."""
    kind: str = UNDECIDED
    """UNDECIDED or WON (positions written before the won ones existed are all undecided)."""


def read_position_lines(path: Path) -> list[dict]:
    """The positions of a file this module wrote (or any JSON lines with ``stones``, ``width``, ``height`` and
    ``rule``), as dicts; OSError or ValueError when it cannot be read."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def board_of(position: dict) -> Board:
    """The board of a position read by ``read_position_lines``: its stones played in order, black first."""
    board = Board(position["width"], position["height"], position["rule"])
    for x, y in position["stones"]:
        board.play(x, y)
    return board


def cut_short(verdict: Verdict, nodes: int) -> bool:
    """Whether the judge stopped its search early without a mate: it does when one move alone does not lose (the
    block of a four), and its evaluation then says nothing of what follows."""
    return verdict.mate == 0 and verdict.nodes < nodes // 2


def verdict_after(judge_cmd: Sequence[str], nodes: int, stones: list[tuple[int, int]], width: int, height: int,
                  rule: int) -> tuple[int, int | None, int]:
    """(mate, eval, plies walked) for the side to move after `stones`, read past the judge's searches cut short:
    there its move -- the only reply -- is played and the position after it judged, up to MAX_FORCED_WALK plies,
    and the result counted back for the side to move at `stones` (the sign flipped for each ply walked, a mate
    that much longer). Read as it came, such a search answered "undecided" wherever a four had one block: a win
    kept by a four of ours, or a loss after a move that let the opponent's four-led attack in, counted as neither
    (counting 04650ea, Rapfi searched 267 of its 1M nodes after Monte's D15 -- a four of a winning VCT -- and the
    win was called thrown away).
    (0, None, plies) when the judge gives no verdict."""
    line = list(stones)
    walked = 0
    while True:
        verdict = judge(judge_cmd, nodes, line, width, height, rule)
        if verdict is None:
            return 0, None, walked
        if not cut_short(verdict, nodes) or walked == MAX_FORCED_WALK:
            break
        line.append(verdict.move)
        walked += 1
    sign = -1 if walked % 2 else 1
    longer = walked if verdict.mate > 0 else -walked if verdict.mate < 0 else 0
    return sign * (verdict.mate + longer), sign * verdict.eval, walked


def passes(position: Position, mate_after: int) -> bool:
    """Whether a move after which the judge sees `mate_after` (for the opponent, to move) is good enough here: in an
    undecided position the opponent has no forced win, in a won one Monte keeps its own."""
    return mate_after < 0 if position.kind == WON else mate_after <= 0


def game_stones(game: dict) -> list[tuple[int, int]]:
    """Every stone of a runner's game record in order: its opening, then its moves."""
    return [tuple(s) for s in game["opening"]] + [(m[0], m[1]) for m in game["moves"]]


def games_of(paths: Iterable[Path], engine: str) -> list[tuple[str, dict]]:
    """(source, game) of every game `engine` played, read from the runner's games.jsonl files; the source names the
    file's folder, the file and the line."""
    games = []
    for path in paths:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            game = json.loads(line)
            if engine in game["pairing"]:
                games.append((f"{path.parent.name}/{path.name}:{number}", game))
    return games


def decided_games(paths: Iterable[Path], engine: str) -> list[tuple[str, dict]]:
    """The games of ``games_of`` that someone won by a five (a time loss or a draw has no position where the board
    decided it)."""
    return [(source, game) for source, game in games_of(paths, engine)
            if game.get("winner") is not None and game["termination"] == "five"]


def critical_positions(source: str, game: dict, engine: str, judge_cmd: Sequence[str],
                       nodes: int) -> list[Position]:
    """Walking back over `engine`'s moves from the end of `game` (at most MAX_WALK_BACK of them): the earliest
    position of the walk where `engine`, to move, has a forced win, and the first one the judge sees undecided
    after a full search, where the walk stops -- each with the judge's verdict after the move played there."""
    stones = game_stones(game)
    first = len(game["opening"])
    colour_to_move = 0 if game["black"] == engine else 1
    mine = [i for i in range(first, len(stones)) if i % 2 == colour_to_move]
    opponent = game["white"] if game["black"] == engine else game["black"]
    size = (game["width"], game["height"], game["rule"])
    undecided, won = None, None
    for i in reversed(mine[-MAX_WALK_BACK:]):
        if i - first < MIN_PLIES_AFTER_OPENING:
            break
        before = judge(judge_cmd, nodes, stones[:i], *size)
        if before is None or cut_short(before, nodes):
            continue  # no verdict, or a search cut short (one move alone does not lose): not telling, walk on
        if before.mate > 0:
            won = (i, before)
        elif before.mate == 0:
            undecided = (i, before)
            break
    kept = []
    for found, kind in ((undecided, UNDECIDED), (won, WON)):
        if found is None:
            continue
        i, before = found
        mate_after, eval_after, _ = verdict_after(judge_cmd, nodes, stones[:i + 1], *size)
        if eval_after is not None:
            kept.append(Position(stones[:i], *size, stones[i], opponent, source, before.eval, mate_after, kind))
    return kept


def ask_move(command: Sequence[str], position: Position, max_node: int, turn_ms: int) -> tuple[int, int]:
    """The brain's move in `position` (a fresh process, so no tree or table carries over; one thread)."""
    info = (("thread_num", "1"),) + ((("max_node", str(max_node)),) if max_node > 0 else ())
    settings = GameSettings(position.width, position.height, position.rule, timeout_turn_ms=turn_ms,
                            timeout_match_ms=0, extra_info=info)
    env = {**os.environ, LOAD_BEFORE_OK: "1"}  # a Monte brain loads its engine before START: no quick-player move
    with BrainClient(list(command), garbage="ignore", env=env) as client:
        client.new_game(settings, 120.0)
        reply = client.board(board_fields(position.stones), turn_ms / 1000 + (300.0 if max_node > 0 else 5.0))
    return reply.x, reply.y


def judged_move(command: Sequence[str], position: Position, judge_cmd: Sequence[str], nodes: int, max_node: int,
                turn_ms: int) -> dict:
    """The brain's move in `position` and the judge's verdict after it: ``move``, ``mate_after`` (for the
    opponent, to move), ``eval_after``, ``forced_plies`` (the forced replies walked past searches cut short,
    ``verdict_after``) and ``passed`` -- or ``fault`` if the brain failed."""
    try:
        move = ask_move(command, position, max_node, turn_ms)
    except BrainFault as fault:
        return {"fault": str(fault), "passed": False}
    mate, evaluation, walked = verdict_after(judge_cmd, nodes, [*position.stones, move], position.width,
                                             position.height, position.rule)
    return {"move": move, "mate_after": mate, "eval_after": evaluation, "forced_plies": walked,
            "passed": passes(position, mate)}


def count(positions: list[Position], engines: list[tuple[str, list[str]]], judge_cmd: Sequence[str], nodes: int,
          max_node: int, turn_ms: int) -> dict[str, list[dict]]:
    """Each engine's move in each position with the judge's verdict after it; progress to stderr."""
    results: dict[str, list[dict]] = {name: [] for name, _ in engines}
    for k, position in enumerate(positions):
        for name, command in engines:
            row = {"position": k, "kind": position.kind,
                   **judged_move(command, position, judge_cmd, nodes, max_node, turn_ms)}
            results[name].append(row)
            verdict = "passed" if row["passed"] else ("BLUNDER" if position.kind == UNDECIDED else "WIN LOST")
            print(f"{k + 1}/{len(positions)} {position.kind} {name}: {row.get('move', row.get('fault'))} -> "
                  f"{verdict} (judge {row.get('eval_after')})", file=sys.stderr, flush=True)
    return results


def summary(rows: list[dict]) -> str:
    """'B blunders in U undecided positions, K wins kept of W' (and faults, if any) for one engine's rows."""
    undecided = [r for r in rows if r["kind"] == UNDECIDED]
    won = [r for r in rows if r["kind"] == WON]
    blunders = sum(1 for r in undecided if not r["passed"])
    kept = sum(1 for r in won if r["passed"])
    faults = sum(1 for r in rows if "fault" in r)
    return (f"{blunders} blunders in {len(undecided)} undecided positions, {kept} wins kept of {len(won)}"
            + (f", {faults} faults (counted as failed)" if faults else ""))


def engine_arg(text: str) -> tuple[str, list[str]]:
    """An ``--engine NAME=COMMAND`` argument as (name, command line)."""
    name, sep, command = text.partition("=")
    if not sep or not name or not command:
        raise argparse.ArgumentTypeError(f"--engine needs NAME=COMMAND, not {text!r}")
    return name, shlex.split(command)


def build_positions(args: argparse.Namespace, judge_cmd: Sequence[str]) -> list[Position]:
    """The critical positions of the games named in `args`."""
    games = decided_games(args.games, args.engine_name)
    if args.opponents:
        wanted = set(args.opponents.split(","))
        games = [(source, game) for source, game in games if wanted & set(game["pairing"])]
    kept = []
    for source, game in games[:args.limit or None]:
        found = critical_positions(source, game, args.engine_name, judge_cmd, args.nodes)
        print(f"{source}: {', '.join(p.kind for p in found) or 'none'}", file=sys.stderr, flush=True)
        kept.extend(found)
    return kept


def add_games_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The arguments of a subcommand that reads positions out of games into a file: the runner's games.jsonl files,
    ``--out`` and ``--engine-name``; returns `parser`."""
    parser.add_argument("games", nargs="+", type=Path, help="games.jsonl files of the tournament runner")
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--engine-name", default="monte", help="the engine whose games are read (default monte)")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m monte.lab.blunders", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    build = add_games_arguments(sub.add_parser("build", help="the positions where Monte's decided games turned"))
    build.add_argument("--opponents", help="only games against these engines (comma-separated)")
    build.add_argument("--limit", type=int, default=0, help="read at most this many decided games (0: all)")
    counting = sub.add_parser("count", help="each brain's blunders and wins kept in the positions")
    counting.add_argument("--positions", required=True, type=Path)
    counting.add_argument("--engine", action="append", type=engine_arg, required=True, help="NAME=COMMAND (repeatable)")
    counting.add_argument("--max-node", type=int, default=0, help="INFO max_node for every brain (0: none)")
    counting.add_argument("--timeout-turn-ms", type=int, default=1000)
    counting.add_argument("--out", type=Path, help="write each move and verdict here (JSON)")
    counting.add_argument("--held-by", metavar="NAME", help="one of the engines: count the others only in the "
                          "positions where its move passes (a strong engine at the same clock; issue 19's condition)")
    for p in (build, counting):
        p.add_argument("--judge", required=True, help="the judging brain's command line (Rapfi)")
        p.add_argument("--nodes", type=int, default=500_000, help="the judge's nodes a position")
    args = parser.parse_args(argv)
    judge_cmd = shlex.split(args.judge)
    if args.what == "build":
        kept = build_positions(args, judge_cmd)
        args.out.write_text("".join(json.dumps(asdict(p)) + "\n" for p in kept), encoding="utf-8")
        won = sum(1 for p in kept if p.kind == WON)
        print(f"{len(kept) - won} undecided and {won} won positions -> {args.out}")
        return 0
    positions = [Position(**fields) for fields in read_position_lines(args.positions)]
    names = [name for name, _ in args.engine]
    if args.held_by is not None and args.held_by not in names:
        parser.error(f"--held-by {args.held_by}: not one of the engines ({', '.join(names)})")
    results = count(positions, args.engine, judge_cmd, args.nodes, args.max_node, args.timeout_turn_ms)
    for name, rows in results.items():
        print(f"{name}: {summary(rows)}")
    if args.held_by is not None:
        held = {row["position"] for row in results[args.held_by] if row["passed"]}
        print(f"in the {len(held)} positions where {args.held_by} passes:")
        for name, rows in results.items():
            if name != args.held_by:
                print(f"  {name}: {summary([row for row in rows if row['position'] in held])}")
    if args.out:
        args.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
