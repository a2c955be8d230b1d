"""Move quality: how much of the judge's win rate each brain's move keeps in the first moves of games on openings
no evaluation was fitted on -- where those games drift from even to lost, and a paired screen of builds.

Games against Rapfi and PentaZen on the held-out balanced openings are rarely lost by one blunder: Rapfi at a million
nodes rates the position a little worse after each of Monte's first moves as white until a forced win appears
(``tournaments/reports/move-quality.md``). A blunder count sees only the last step; a game sees all of them but
through the noise of 44 results (+-100 Elo). Here every brain plays the same positions -- Monte to move within its first
FIRST_MOVES moves of a game, the judge seeing no forced result -- at a fixed node count (``INFO max_node``: the move
depends on the position alone, so the machine's load changes nothing and two games may run at once), and the judge
rates the position after each move as a win rate for the mover (``lab.value_labels.win_rate``; a mate 1 or 0).
Two brains that play the same move in a position get the same figure there, so their difference is measured on
the moves where they differ, and its standard error is that of a paired mean.

    python -m monte.lab.move_quality build --judge /tmp/sparring/bin/pbrain-rapfi --nodes 1000000 \
        --out positions.jsonl GAMES.jsonl ...
    python -m monte.lab.move_quality score --judge /tmp/sparring/bin/pbrain-rapfi --nodes 1000000 \
        --positions positions.jsonl --max-node 100000 --engine main=pbrain-monte --engine new=PATH \
        --cache verdicts.json --out scores.json
    python -m monte.lab.move_quality compare scores.json more-scores.json

The judge's verdicts are kept in ``--cache`` (by position and move), so a brain measured later pays only for the
moves no earlier brain played. For measurement only: nothing in the engine or the test suite depends on the judge.
"""

from __future__ import annotations

import argparse
import json
import math
import shlex
import sys
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

from monte.lab.blunders import (
    Position, add_games_arguments, ask_move, cut_short, engine_arg, game_stones, games_of, read_position_lines,
    verdict_after,
)
from monte.lab.position_judge import judge
from monte.lab.value_labels import win_rate
from monte.protocol.client import BrainFault

FIRST_MOVES = 6
"""The engine's moves of each game that are kept (after the opening): where its games against the strong engines
drift from even to lost."""


def early_positions(source: str, game: dict, engine: str, judge_cmd: Sequence[str], nodes: int) -> list[Position]:
    """`engine` to move at each of its first FIRST_MOVES moves of `game`, where the judge sees no forced result
    after a full search (a position with a mate, or one the judge cut short because one move alone does not lose,
    measures nothing here)."""
    stones = game_stones(game)
    first = len(game["opening"])
    colour = 0 if game["black"] == engine else 1
    mine = [i for i in range(first, len(stones)) if i % 2 == colour][:FIRST_MOVES]
    opponent = game["white"] if game["black"] == engine else game["black"]
    size = (game["width"], game["height"], game["rule"])
    kept = []
    for i in mine:
        before = judge(judge_cmd, nodes, stones[:i], *size)
        if before is None or before.mate != 0 or cut_short(before, nodes):
            continue
        kept.append(Position(stones[:i], *size, stones[i], opponent, source, before.eval, 0))
    return kept


class VerdictCache:
    """The judge's verdicts after a move, by position and move, kept in a JSON file between runs."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._table: dict[str, list[int]] = {}
        if path is not None and path.exists():
            self._table = json.loads(path.read_text(encoding="utf-8"))

    @staticmethod
    def key(position: Position, move: tuple[int, int]) -> str:
        """The position's size, rule and stones, and the move: one line of text."""
        stones = " ".join(f"{x},{y}" for x, y in [*position.stones, move])
        return f"{position.width}x{position.height} r{position.rule}: {stones}"

    def get(self, position: Position, move: tuple[int, int]) -> tuple[int, int] | None:
        """(mate, eval) after `move` for the opponent then to move, if known."""
        with self._lock:
            found = self._table.get(self.key(position, move))
        return None if found is None else (found[0], found[1])

    def put(self, position: Position, move: tuple[int, int], mate: int, evaluation: int) -> None:
        with self._lock:
            self._table[self.key(position, move)] = [mate, evaluation]

    def save(self) -> None:
        if self.path is not None:
            with self._lock:
                self.path.write_text(json.dumps(self._table, indent=0) + "\n", encoding="utf-8")


@dataclass(frozen=True)
class Scored:
    """One brain's move in one position and the win rate the judge gives the mover after it (None: a fault)."""

    position: int
    move: tuple[int, int] | None
    kept: float | None
    fault: str = ""


def score_move(command: Sequence[str], k: int, position: Position, judge_cmd: Sequence[str], nodes: int,
               max_node: int, turn_ms: int, cache: VerdictCache) -> Scored:
    """The brain's move in position `k` and the mover's win rate after it, by the judge (from `cache` if known)."""
    try:
        move = ask_move(command, position, max_node, turn_ms)
    except BrainFault as fault:
        return Scored(k, None, None, str(fault))
    known = cache.get(position, move)
    if known is None:
        mate, evaluation, _ = verdict_after(judge_cmd, nodes, [*position.stones, move], position.width,
                                            position.height, position.rule)
        if evaluation is None:
            return Scored(k, move, None, "the judge gave no verdict")
        known = (mate, evaluation)
        cache.put(position, move, *known)
    mate, evaluation = known
    return Scored(k, move, 1.0 - win_rate(mate, evaluation))


def score(positions: list[Position], engines: list[tuple[str, list[str]]], judge_cmd: Sequence[str], nodes: int,
          max_node: int, turn_ms: int, cache: VerdictCache, workers: int) -> dict[str, list[Scored]]:
    """Every engine's scored move in every position, `workers` positions at a time; progress to stderr."""
    results: dict[str, list[Scored]] = {}
    for name, command in engines:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            futures = [pool.submit(score_move, command, k, p, judge_cmd, nodes, max_node, turn_ms, cache)
                       for k, p in enumerate(positions)]
            rows = []
            for k, future in enumerate(futures):
                rows.append(future.result())
                if (k + 1) % 25 == 0 or k + 1 == len(positions):
                    print(f"{name}: {k + 1}/{len(positions)}", file=sys.stderr, flush=True)
                    cache.save()
        results[name] = rows
    return results


def paired(rows: list[Scored], reference: list[Scored]) -> tuple[float, float, int, int]:
    """(mean difference of the kept win rate, its standard error, positions compared, moves that differ) of `rows`
    against `reference`, over the positions both scored."""
    pairs = [(a, b) for a, b in zip(rows, reference) if a.kept is not None and b.kept is not None]
    if len(pairs) < 2:
        return 0.0, float("nan"), len(pairs), 0
    diffs = [a.kept - b.kept for a, b in pairs]
    mean = sum(diffs) / len(diffs)
    var = sum((d - mean) ** 2 for d in diffs) / (len(diffs) - 1)
    return mean, math.sqrt(var / len(diffs)), len(pairs), sum(1 for a, b in pairs if a.move != b.move)


def report(results: dict[str, list[Scored]], positions: list[Position] | None = None) -> list[str]:
    """One line per engine: its mean kept win rate, and (after the first) the paired difference from the first;
    with `positions`, the judge's own rating of them before the move."""
    lines = []
    names = list(results)
    reference = results[names[0]]
    for name in names:
        rows = results[name]
        kept = [r.kept for r in rows if r.kept is not None]
        faults = sum(1 for r in rows if r.kept is None)
        line = f"{name}: mean win rate kept {sum(kept) / max(len(kept), 1):.3f} over {len(kept)} positions"
        if faults:
            line += f", {faults} faults"
        if name != names[0]:
            mean, se, n, differ = paired(rows, reference)
            line += f"; against {names[0]}: {mean:+.4f} +- {se:.4f} (1 s.e.), {differ} of {n} moves differ"
        lines.append(line)
    if positions:
        before = [win_rate(0, p.eval_before) for p in positions]
        lines.append(f"(the judge's own rating of the positions before the move: {sum(before) / len(before):.3f})")
    return lines


def read_scores(paths: Sequence[Path]) -> dict[str, list[Scored]]:
    """The engines' rows of one or more ``score --out`` files (a name met twice: the later file's)."""
    results: dict[str, list[Scored]] = {}
    for path in paths:
        for name, rows in json.loads(path.read_text(encoding="utf-8")).items():
            results[name] = [Scored(r["position"], tuple(r["move"]) if r["move"] else None, r["kept"],
                                    r.get("fault", "")) for r in rows]
    return results


def _build(args: argparse.Namespace, judge_cmd: list[str]) -> int:
    kept: list[Position] = []
    for source, game in games_of(args.games, args.engine_name):
        found = early_positions(source, game, args.engine_name, judge_cmd, args.nodes)
        print(f"{source}: {len(found)}", file=sys.stderr, flush=True)
        kept.extend(found)
    args.out.write_text("".join(json.dumps(asdict(p)) + "\n" for p in kept), encoding="utf-8")
    print(f"{len(kept)} positions -> {args.out}")
    return 0


def _score(args: argparse.Namespace, judge_cmd: list[str]) -> int:
    positions = [Position(**fields) for fields in read_position_lines(args.positions)]
    cache = VerdictCache(args.cache)
    results = score(positions, args.engine, judge_cmd, args.nodes, args.max_node, args.timeout_turn_ms, cache,
                    args.workers)
    cache.save()
    for line in report(results, positions):
        print(line)
    if args.out:
        rows = {name: [asdict(r) for r in scored] for name, scored in results.items()}
        args.out.write_text(json.dumps(rows, indent=0) + "\n", encoding="utf-8")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m monte.lab.move_quality", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    build = add_games_arguments(
        sub.add_parser("build", help="the engine's first moves of each game, where the judge sees no mate"))
    scoring = sub.add_parser("score", help="each brain's move in each position, and the win rate it keeps")
    scoring.add_argument("--positions", required=True, type=Path)
    scoring.add_argument("--engine", action="append", type=engine_arg, required=True,
                         help="NAME=COMMAND (repeatable; the first is the reference of the paired differences)")
    scoring.add_argument("--max-node", type=int, default=100_000, help="INFO max_node for every brain (0: none)")
    scoring.add_argument("--timeout-turn-ms", type=int, default=30_000,
                         help="the turn limit sent (a ceiling under --max-node)")
    scoring.add_argument("--workers", type=int, default=2, help="positions asked at once (default 2)")
    scoring.add_argument("--cache", type=Path, help="the judge's verdicts, read and extended (JSON)")
    scoring.add_argument("--out", type=Path, help="each move and its kept win rate (JSON)")
    for p in (build, scoring):
        p.add_argument("--judge", required=True, help="the judging brain's command line (Rapfi)")
        p.add_argument("--nodes", type=int, default=1_000_000, help="the judge's nodes a position")
    comparing = sub.add_parser("compare", help="the paired differences of scores from several runs")
    comparing.add_argument("scores", nargs="+", type=Path,
                           help="score --out files (the first engine is the reference)")
    args = parser.parse_args(argv)
    try:
        if args.what == "compare":
            for line in report(read_scores(args.scores)):
                print(line)
            return 0
        judge_cmd = shlex.split(args.judge)
        return _build(args, judge_cmd) if args.what == "build" else _score(args, judge_cmd)
    except (OSError, ValueError, KeyError) as exc:
        print(f"move_quality: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
