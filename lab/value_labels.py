"""Positions labelled by a strong engine's evaluation: what the value network learns from (``monte label-positions``).

A game's result says little about most of its positions: a won game passes through even ones, and a blunder late
in it relabels every position before. A judge that searches each position (Rapfi at a fixed node count) says what
each one is worth, which is why the value network is fitted to such labels rather than to results alone (Texel's
method, which ``monte fit-eval`` also offers for game files): its evaluation read as a win rate,
``sigmoid(eval / JUDGE_SCALE)``, or 1 and 0 for a mate it found.

The positions come from played games (every distinct position from the opening's end on, in a shuffled order so that
any prefix of the file is a fair sample), or from Monte's search trees grown from them (``tree_positions``), never
from games of held-out openings (``monte.lab.held_out``). The file is JSON lines, one position each, and a run that
stops can be resumed: positions already in it are not asked again.
"""

from __future__ import annotations

import gzip
import json
import math
import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from monte.lab.position_judge import Verdict
from monte.tournaments.records import GameRecord, Termination

if TYPE_CHECKING:
    from monte.brain.search_view import TreeNode

Position = tuple[int, int, int, tuple[tuple[int, int], ...]]
"""(width, height, rule, stones): a position to label, its stones black first, colours alternating."""

JUDGE_SCALE = 200.0
"""Rapfi's evaluation is a win rate through this logistic scale (its ``ScalingFactor``, whose default is 200)."""
JUDGE = "judge"
"""The judge's name in the one-move games of ``Label.as_move_record``."""


def win_rate(mate: int, evaluation: int) -> float:
    """A judge's verdict for the side to move as its chance to win: 1 or 0 for a mate it found (`mate` plies, > 0 a
    win), else ``sigmoid(evaluation / JUDGE_SCALE)``."""
    if mate != 0:
        return 1.0 if mate > 0 else 0.0
    return 1.0 / (1.0 + math.exp(-evaluation / JUDGE_SCALE))


@dataclass(frozen=True)
class Label:
    """One position and the judge's verdict on it, for the side to move."""

    width: int
    height: int
    rule: int
    stones: tuple[tuple[int, int], ...]
    """Black first, colours alternating: the side to move is black when their number is even."""
    eval: int
    """The judge's evaluation, or +-(MATE_SCORE - plies) for a mate."""
    mate: int
    """Plies to a forced win (> 0) or loss (< 0); 0 if none was found."""
    nodes: int
    move: tuple[int, int]
    """The move the judge would play."""

    @property
    def winrate(self) -> float:
        """The verdict as the side to move's chance to win."""
        return win_rate(self.mate, self.eval)

    def line(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"))

    def as_move_record(self, number: int) -> GameRecord:
        """The position and the judge's move as a one-move game (the stones as its opening, the judge, named
        JUDGE, to move), the form ``monte fit-policy`` learns moves from."""
        black_moves = len(self.stones) % 2 == 0
        return GameRecord(game_id=number, pairing=(JUDGE, "-"), pair_index=number,
                          black=JUDGE if black_moves else "-", white="-" if black_moves else JUDGE,
                          width=self.width, height=self.height, rule=self.rule, opening=list(self.stones),
                          moves=[(*self.move, 0)], winner=None, termination=Termination.INTERRUPTED,
                          detail="a judged position", opening_id=f"label:{number}")


def read_labels(path: str | Path) -> list[Label]:
    """The labels of a file written by ``label_positions`` (gzipped if its name ends in .gz); a line that is not one
    is a ValueError naming it."""
    labels = []
    with (gzip.open if str(path).endswith(".gz") else open)(path, "rt", encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                d = json.loads(line)
                labels.append(Label(int(d["width"]), int(d["height"]), int(d["rule"]),
                                    tuple((int(x), int(y)) for x, y in d["stones"]), int(d["eval"]), int(d["mate"]),
                                    int(d["nodes"]), (int(d["move"][0]), int(d["move"][1]))))
            except (ValueError, KeyError, TypeError, IndexError) as exc:
                raise ValueError(f"{path}:{number}: not a labelled position ({exc})") from None
    return labels


def game_positions(records: Iterable[GameRecord], skip_plies: int = 4, seed: int = 1) -> list[Position]:
    """Every distinct position (width, height, rule, stones) of `records` from ply `skip_plies` on, before each
    game's last move, shuffled with `seed`."""
    seen: dict[tuple, Position] = {}
    for record in records:
        stones = [tuple(stone) for stone in record.opening] + [(x, y) for x, y, _ in record.moves]
        for ply in range(max(skip_plies, 1), len(stones)):
            position = (record.width, record.height, record.rule, tuple(stones[:ply]))
            seen.setdefault(label_key(*position), position)
    positions = list(seen.values())
    random.Random(seed).shuffle(positions)
    return positions


def tree_positions(positions: Sequence[Position], nodes: int, per_tree: int, seed: int = 1) -> list[Position]:
    """Positions the search itself evaluates: from each of `positions`, Monte searches `nodes` nodes and `per_tree`
    of its tree's nodes are drawn at random (the root and the nodes it proved won or lost left out), each as the
    position it stands for, distinct ones only.

    Why: the value network is asked about the tree's leaves, which are mostly positions no game passes through (a
    move the search tried and left); labels from game lines alone teach it the positions good players reach."""
    from monte.brain.board import Board
    from monte.brain.engine import MctsPlayer
    from monte.brain.player import ThinkLimits
    from monte.brain.search_view import analyze

    rng = random.Random(seed)
    player = MctsPlayer()
    seen: dict[tuple, Position] = {}
    for width, height, rule, stones in positions:
        board = Board(width, height, rule)
        for x, y in stones:
            board.play(x, y)
        limits = replace(ThinkLimits.seconds(3600.0), max_nodes=nodes)
        tree = analyze(board, limits, top=1, tree_depth=64, tree_width=64, player=player).tree
        lines: list[tuple[tuple[int, int], ...]] = []
        _open_lines(tree, (), lines)
        for line in rng.sample(lines, min(per_tree, len(lines))):
            position = (width, height, rule, tuple(stones) + line)
            seen.setdefault(label_key(*position), position)
    return list(seen.values())


def _open_lines(node: "TreeNode | None", line: tuple[tuple[int, int], ...],
                out: list[tuple[tuple[int, int], ...]]) -> None:
    """The moves to every node below `node` that the search left unproven, into `out`."""
    for child in node.children if node is not None else ():
        if child.proven == 0 and child.move is not None:
            below = line + (child.move,)
            out.append(below)
            _open_lines(child, below, out)


def label_positions(positions: Sequence[Position],
                    verdict: Callable[[int, int, int, Sequence[tuple[int, int]]], Verdict | None],
                    done: set[tuple] = frozenset()) -> Iterator[Label | None]:
    """The judge's label of each position not in `done` (keys as ``label_key``), in order; None where it gave no
    evaluation (a move it played without searching, or a failure)."""
    for width, height, rule, stones in positions:
        if label_key(width, height, rule, stones) in done:
            continue
        v = verdict(width, height, rule, stones)
        if v is None:
            yield None
            continue
        yield Label(width, height, rule, tuple(stones), v.eval, v.mate, v.nodes, v.move)


def label_key(width: int, height: int, rule: int, stones: Sequence[tuple[int, int]]) -> tuple:
    """What makes two positions the same: the board, the rule, and each side's stones."""
    return (width, height, rule, frozenset(stones[0::2]), frozenset(stones[1::2]))
