"""The narrow seam between the protocol loop and whatever chooses moves (MCTS, the baselines).

The protocol side says "here is the board and your time; give me a move"; a player never sees the protocol.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Protocol

from monte.brain.board import Board
from monte.brain.stopflag import StopFlag


@dataclass
class ThinkLimits:
    """How long a player may think, and how it is told to stop.

    Times are ``time.monotonic()`` seconds. The player returns by ``hard_deadline`` whatever happens; it may stop
    at ``soft_deadline`` (or earlier) once its choice is settled. ``stop`` is set by YXSTOP or END: return the best
    move so far at once. ``max_nodes`` (0: none) caps the nodes a searching player may visit, and makes its move
    depend on the position alone while the time lasts (see ``brain.limits.SearchLimits``).
    """

    soft_deadline: float
    hard_deadline: float
    max_memory: int = 0
    stop: StopFlag = field(default_factory=StopFlag)
    max_nodes: int = 0
    progress: Callable[["SearchInfo"], None] | None = None
    """Told now and then, while a long search runs, what it has found so far (the protocol prints it as MESSAGE
    lines, so that a person watching the engine in a GUI sees it think); None: nobody asks."""
    threads: int = 1
    """The search threads the manager allows (``INFO thread_num``); a player may use fewer (the cores it has)."""

    @classmethod
    def seconds(cls, soft: float, hard: float | None = None) -> "ThinkLimits":
        """Limits that start now: stop softly after `soft` seconds, for certain after `hard` (default `soft`)."""
        now = time.monotonic()
        return cls(now + soft, now + (soft if hard is None else hard))

    def expired(self) -> bool:
        """Whether the player must answer now."""
        return self.stop.is_set() or time.monotonic() >= self.hard_deadline

    def share(self, fraction: float) -> "ThinkLimits":
        """Limits for a first part of the work: both deadlines brought in to `fraction` of the time left to them;
        the same stop, memory and node budget."""
        now = time.monotonic()
        return replace(self, soft_deadline=now + fraction * max(0.0, self.soft_deadline - now),
                       hard_deadline=now + fraction * max(0.0, self.hard_deadline - now))


@dataclass
class SearchInfo:
    """What a search found for the move it chose, for the protocol to report (``protocol.report`` formats it)."""

    depth: int
    """Plies of the principal variation: how deep the search's main line goes."""
    seldepth: int
    """The deepest the search went, in plies from the position."""
    winrate: float
    """The chance of winning for the side that moves, 0 to 1, as the search sees it."""
    nodes: int
    """Search iterations (MCTS playouts)."""
    seconds: float
    pv: list[tuple[int, int]]
    """The principal variation (x, y), the chosen move first."""
    mate: int = 0
    """Plies to a proven win (> 0) or to a proven loss (< 0); 0 when nothing is proven."""
    note: str = ""
    """How the move was found when not by the search alone ("vcf", "forced", "threat", ...)."""
    tree: float | None = None
    """How full the search tree is, 0 to 1 of the memory it may take (None: no tree to speak of)."""


@dataclass
class MoveChoice:
    """A chosen move and, optionally, what its search found (``search``) or one line of free text about it
    (``info``); either is sent as ``MESSAGE`` before the move."""

    x: int
    y: int
    info: str | None = None
    search: SearchInfo | None = None


class Player(Protocol):
    """Anything that picks a move for the side to move on a board."""

    name: str

    def warm_up(self) -> None:
        """Compile or load whatever the player needs, so that the first move is not slowed by it."""

    def new_game(self, board: Board) -> None:
        """Forget the previous game; `board` is the new (usually empty) position."""

    def prepare(self, board: Board, max_memory: int) -> None:
        """Build what moves on `board` (its size and rule) under `max_memory` bytes will need, so that no move pays
        for it: called when a game starts and whenever the manager changes the rule or the memory limit."""

    def choose(self, board: Board, limits: ThinkLimits) -> MoveChoice:
        """A legal move for ``board.to_move``; never changes ``board``."""
