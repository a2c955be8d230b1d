"""``monte selfplay``: Monte against itself at a fixed node budget a move, games for the value network to fit.

A node budget (``ThinkLimits.max_nodes``) makes every move depend on the position alone, not on the machine's load,
so the same job gives the same game on a laptop, a loaded server or a Dask worker. The search is deterministic, so
variety comes from the first ``explore_plies`` moves after the opening: each is drawn among the root's visited moves
in proportion to their visits (a proven win, a forced move or a proven loss is never drawn: the search's move is
played). Game ``i`` of a run starts from opening ``i mod n`` of the file and draws with its own seed, so a run can be
stopped and continued -- or extended to more games -- and still write the games it would have written in one go.

The brain is used only through its public window onto a search, ``brain.search_view.analyze``: the move it plays,
its win rate and the visits of every root move. Each game is one line of the JSONL log ``monte fit-eval`` reads (a
``GameRecord``), with two fields of its own: ``selfplay`` (how it was made; a log holds one kind only) and
``search``, per move after the opening, the searched move, its win rate and the root's visit distribution -- the
targets a move-prediction prior would learn.
"""

from __future__ import annotations

import random
import time
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from typing import Any

from monte.brain.board import Board
from monte.brain.codes import MOVE_FORBIDDEN, MOVE_WINS
from monte.brain.player import ThinkLimits
from monte.tournaments.records import GameRecord, Termination

BLACK_NAME = "monte-black"
WHITE_NAME = "monte-white"
"""Both sides are the same engine; the record names them apart so that ``winner`` says which colour won."""
NO_TIME_LIMIT_S = 24 * 3600.0
"""The node budget ends every search; the clock only guards against a search that would not stop."""


@dataclass(frozen=True)
class Recipe:
    """How a run's games are made: the same recipe gives the same games (``as_meta`` is stored with each)."""

    nodes: int
    width: int
    rule: int
    explore_plies: int
    seed: int
    openings: str
    """The openings file's name (the games' ``opening_id`` say which line)."""
    settings: dict[str, str] = field(default_factory=dict)
    """``pbrain-monte --set`` knobs of the engine (``brain.settings``)."""

    def as_meta(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Job:
    """One game to play: its number, its opening's stones and where they came from."""

    game_id: int
    opening: tuple[tuple[int, int], ...]
    opening_id: str
    recipe: Recipe


_players: dict[tuple[tuple[str, str], ...], Any] = {}
"""One engine per settings in each process (a worker plays many games; its compiled scratch space is kept)."""


def _player(settings: dict[str, str]) -> Any:
    from monte.brain.registry import make_player

    key = tuple(sorted(settings.items()))
    if key not in _players:
        _players[key] = make_player("mcts", settings=settings)
    return _players[key]


def _drawn(analysis: Any, rng: random.Random) -> tuple[int, int]:
    """A root move drawn in proportion to its visits among the unproven visited ones; the search's move when the
    search proved something or visited nothing else."""
    from monte.brain.search_view import PROOF_LOSS

    if analysis.mate != 0 or analysis.note:
        return analysis.move
    pool = [(stats.move, stats.visits) for stats in analysis.moves if stats.visits > 0 and stats.proof != PROOF_LOSS]
    if not pool:
        return analysis.move
    return rng.choices([move for move, _ in pool], weights=[visits for _, visits in pool])[0]


def play(job: Job) -> tuple[GameRecord, dict[str, Any]]:
    """Play `job` to its end in this process; the record and the fields of its own (see the module docstring)."""
    from monte.brain.search_view import analyze

    recipe = job.recipe
    player = _player(recipe.settings)
    rng = random.Random(recipe.seed * 1_000_003 + job.game_id)
    board = Board(recipe.width, recipe.width, recipe.rule)
    for x, y in job.opening:
        board.play(x, y)
    started_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
    started = time.monotonic()
    moves: list[tuple[int, int, int]] = []
    searched: list[dict[str, Any]] = []
    names = {1: BLACK_NAME, 2: WHITE_NAME}
    winner, termination, detail = None, Termination.DRAW_FULL, "the board is full"
    while not board.is_full():
        limits = ThinkLimits.seconds(NO_TIME_LIMIT_S)
        limits.max_nodes = recipe.nodes
        clock = time.monotonic()
        analysis = analyze(board, limits, top=board.capacity, player=player)
        move = _drawn(analysis, rng) if len(moves) < recipe.explore_plies else analysis.move
        moves.append((*move, int(1000 * (time.monotonic() - clock))))
        searched.append({"move": list(analysis.move), "winrate": round(analysis.winrate, 4), "mate": analysis.mate,
                         "visits": [[*stats.move, stats.visits] for stats in analysis.moves if stats.visits > 0]})
        side = board.to_move
        verdict = board.play(*move)
        if verdict == MOVE_WINS:
            winner, termination, detail = names[side], Termination.FIVE, ""
            break
        if verdict == MOVE_FORBIDDEN:
            winner, termination = names[3 - side], Termination.FOUL
            detail = f"black played the forbidden point {move[0]},{move[1]}"
            break
    record = GameRecord(job.game_id, (BLACK_NAME, WHITE_NAME), job.game_id, BLACK_NAME, WHITE_NAME, recipe.width,
                        recipe.width, recipe.rule, list(job.opening), moves, winner, termination, detail,
                        job.opening_id, started_at, round(time.monotonic() - started, 3))
    return record, {"selfplay": recipe.as_meta(), "search": searched}
