"""Blunder count: in positions where Monte once let a strong opponent's forced win in, does a brain's move still
allow one? A judge (Rapfi at a fixed node count, ``monte.lab.position_judge``) says whether the position before the move was
undecided and whether the position after it is a forced win for the opponent.

``build`` walks back through the games Monte lost (``games.jsonl`` files of the tournament runner) and keeps, per
game, the last position with Monte to move that the judge still sees no forced result in: Monte's move there let
the win in. ``count`` asks each brain for its move in every kept position (a fixed node budget, ``INFO max_node``,
or a time per move) and has the judge look at the position after it.

    python -m monte.lab.blunders build --judge /tmp/sparring/bin/pbrain-rapfi --out positions.jsonl GAMES.jsonl ...
    python -m monte.lab.blunders count --judge /tmp/sparring/bin/pbrain-rapfi --positions positions.jsonl \\
        --engine before=pbrain-monte --engine after='pbrain-monte --set quiet_share=0.4' --max-node 100000

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

from monte.lab.position_judge import judge
from monte.protocol.client import LOAD_BEFORE_OK, BrainClient, BrainFault, GameSettings

MIN_PLIES_AFTER_OPENING = 2   # positions before Monte's second move are the opening's, not Monte's
MAX_WALK_BACK = 14            # Monte's moves walked back from the end of a lost game before giving up on it


@dataclass(frozen=True)
class Position:
    """Monte to move in an undecided position of a game it lost; `played` let the opponent's forced win in."""

    stones: list[tuple[int, int]]
    width: int
    height: int
    rule: int
    played: tuple[int, int]
    opponent: str
    source: str
    eval_before: int
    """The judge's evaluation for Monte, to move."""
    mate_after: int
    """The judge's mate (plies, > 0: the opponent wins) after the move Monte played."""


def _stones(game: dict) -> list[tuple[int, int]]:
    return [tuple(s) for s in game["opening"]] + [(m[0], m[1]) for m in game["moves"]]


def lost_games(paths: Iterable[Path], engine: str) -> list[tuple[str, dict]]:
    """(source, game) of every game `engine` lost, read from the runner's games.jsonl files."""
    games = []
    for path in paths:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            game = json.loads(line)
            if engine in game["pairing"] and game.get("winner") not in (None, engine) and game["termination"] == "five":
                games.append((f"{path.parent.name}/{path.name}:{number}", game))
    return games


def last_undecided(source: str, game: dict, engine: str, judge_cmd: Sequence[str], nodes: int) -> Position | None:
    """The last position of `game` with `engine` to move that the judge sees undecided, Monte's move there leading
    to a position the judge sees won for the opponent; None if there is none within MAX_WALK_BACK moves."""
    stones = _stones(game)
    first = len(game["opening"])
    colour_to_move = 0 if game["black"] == engine else 1
    mine = [i for i in range(first, len(stones)) if i % 2 == colour_to_move]
    opponent = game["white"] if game["black"] == engine else game["black"]
    after = None
    for i in reversed(mine[-MAX_WALK_BACK:]):
        if i - first < MIN_PLIES_AFTER_OPENING:
            break
        size = (game["width"], game["height"], game["rule"])
        before = judge(judge_cmd, nodes, stones[:i], *size)
        if before is None:
            return None
        if before.mate == 0:
            if after is None or after.mate <= 0:
                return None
            return Position(stones[:i], *size, stones[i], opponent, source, before.eval, after.mate)
        if before.mate > 0:
            return None  # Monte was winning here and lost later: not the blunder this looks for
        after = judge(judge_cmd, nodes, stones[:i + 1], *size) if i + 1 < len(stones) else None
    return None


def ask_move(command: Sequence[str], position: Position, max_node: int, turn_ms: int) -> tuple[int, int]:
    """The brain's move in `position` (a fresh process, so no tree or table carries over)."""
    info = (("max_node", str(max_node)),) if max_node > 0 else ()
    settings = GameSettings(position.width, position.height, position.rule, timeout_turn_ms=turn_ms,
                            timeout_match_ms=0, extra_info=info)
    mover = len(position.stones) % 2
    fields = [(x, y, 1 if i % 2 == mover else 2) for i, (x, y) in enumerate(position.stones)]
    env = {**os.environ, LOAD_BEFORE_OK: "1"}  # a Monte brain loads its engine before START: no quick-player move
    with BrainClient(list(command), garbage="ignore", env=env) as client:
        client.new_game(settings, 120.0)
        reply = client.board(fields, turn_ms / 1000 + (300.0 if max_node > 0 else 5.0))
    return reply.x, reply.y


def count(positions: list[Position], engines: list[tuple[str, list[str]]], judge_cmd: Sequence[str], nodes: int,
          max_node: int, turn_ms: int) -> dict[str, list[dict]]:
    """Each engine's move in each position, with the judge's mate after it (> 0: a blunder); progress to stderr."""
    results: dict[str, list[dict]] = {name: [] for name, _ in engines}
    for k, position in enumerate(positions):
        for name, command in engines:
            try:
                move = ask_move(command, position, max_node, turn_ms)
            except BrainFault as fault:
                results[name].append({"position": k, "fault": str(fault)})
                continue
            verdict = judge(judge_cmd, nodes, [*position.stones, move], position.width, position.height,
                            position.rule)
            mate = verdict.mate if verdict else 0
            results[name].append({"position": k, "move": move, "mate_after": mate,
                                  "eval_after": verdict.eval if verdict else None})
            print(f"{k + 1}/{len(positions)} {name}: {move} -> {'BLUNDER' if mate > 0 else 'held'} "
                  f"(judge {verdict.eval if verdict else None})", file=sys.stderr, flush=True)
    return results


def _engine(text: str) -> tuple[str, list[str]]:
    name, sep, command = text.partition("=")
    if not sep or not name or not command:
        raise argparse.ArgumentTypeError(f"--engine needs NAME=COMMAND, not {text!r}")
    return name, shlex.split(command)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m monte.lab.blunders", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    build = sub.add_parser("build", help="positions where Monte let a forced win in, from lost games")
    build.add_argument("games", nargs="+", type=Path, help="games.jsonl files of the tournament runner")
    build.add_argument("--out", required=True, type=Path)
    build.add_argument("--engine-name", default="monte", help="the engine whose losses are read (default monte)")
    build.add_argument("--opponents", help="only games against these engines (comma-separated)")
    build.add_argument("--limit", type=int, default=0, help="read at most this many lost games (0: all)")
    counting = sub.add_parser("count", help="each brain's blunders in the positions")
    counting.add_argument("--positions", required=True, type=Path)
    counting.add_argument("--engine", action="append", type=_engine, required=True, help="NAME=COMMAND (repeatable)")
    counting.add_argument("--max-node", type=int, default=0, help="INFO max_node for every brain (0: none)")
    counting.add_argument("--timeout-turn-ms", type=int, default=1000)
    counting.add_argument("--out", type=Path, help="write each move and verdict here (JSON)")
    for p in (build, counting):
        p.add_argument("--judge", required=True, help="the judging brain's command line (Rapfi)")
        p.add_argument("--nodes", type=int, default=500_000, help="the judge's nodes a position")
    args = parser.parse_args(argv)
    judge_cmd = shlex.split(args.judge)
    if args.what == "build":
        kept = []
        games = lost_games(args.games, args.engine_name)
        if args.opponents:
            wanted = set(args.opponents.split(","))
            games = [(source, game) for source, game in games if wanted & set(game["pairing"])]
        for source, game in games[:args.limit or None]:
            found = last_undecided(source, game, args.engine_name, judge_cmd, args.nodes)
            print(f"{source}: {'kept' if found else 'none'}", file=sys.stderr, flush=True)
            if found is not None:
                kept.append(found)
        args.out.write_text("".join(json.dumps(asdict(p)) + "\n" for p in kept), encoding="utf-8")
        print(f"{len(kept)} positions -> {args.out}")
        return 0
    positions = [Position(**json.loads(line)) for line in args.positions.read_text(encoding="utf-8").splitlines()
                 if line.strip()]
    results = count(positions, args.engine, judge_cmd, args.nodes, args.max_node, args.timeout_turn_ms)
    for name, rows in results.items():
        blunders = sum(1 for r in rows if r.get("mate_after", 0) > 0)
        faults = sum(1 for r in rows if "fault" in r)
        print(f"{name}: {blunders} blunders in {len(rows)} positions" + (f", {faults} faults" if faults else ""))
    if args.out:
        args.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
