"""The small games' players: plain UCT with a fixed number of simulations per move (the articles' engine), and
perfect play from a game's reference."""

from __future__ import annotations

import random
from typing import Protocol

from monte.brain.board import Board
from monte.brain.uct import UctSettings, run_uct, seed_random
from monte.small_games.spec import Reference


class SmallGamePlayer(Protocol):
    """Anything that picks a move on a small game's board."""

    name: str

    def new_game(self, seed: int) -> None:
        """Start a game; `seed` makes the player's random choices reproducible."""

    def choose(self, board: Board) -> tuple[int, int]:
        """A legal move for ``board.to_move``; `board` is left as it was."""


class UctBot:
    """Plain UCT (``brain.uct``) with `simulations` iterations a move: the most-visited move, with the value the
    search gave it (kept in `last_value`: the mean playout result for the mover, 1 a win, 1/2 a draw)."""

    def __init__(self, simulations: int, settings: UctSettings = UctSettings(), name: str = "uct") -> None:
        if simulations < 1:
            raise ValueError(f"simulations must be at least 1, not {simulations}")
        self.name = name
        self.simulations = simulations
        self.settings = settings
        self.last_value = 0.5

    def new_game(self, seed: int) -> None:
        """Seed the compiled search's random generator."""
        seed_random(seed)

    def choose(self, board: Board) -> tuple[int, int]:
        """The most-visited move after `simulations` iterations."""
        best = run_uct(board, self.simulations, self.settings).best()
        if best is None:
            raise ValueError("no legal move is left")
        self.last_value = best.value
        return best.x, best.y


class PerfectBot:
    """Perfect play: one of the moves the reference values highest -- drawn at random (seeded), so that a series of
    games meets every perfect line, or (`first`) always the first in board order, as a minimax that keeps the first
    best move it meets plays."""

    def __init__(self, reference: Reference, name: str = "perfect", first: bool = False) -> None:
        self.name = name
        self.reference = reference
        self.first = first
        self._rng = random.Random(0)

    def new_game(self, seed: int) -> None:
        """Reseed the choice among equally good moves."""
        self._rng = random.Random(seed)

    def choose(self, board: Board) -> tuple[int, int]:
        """A best move: at random, or the first."""
        values = self.reference.move_values(board)
        if not values:
            raise ValueError("no legal move is left")
        top = max(values.values())
        best = [move for move, value in values.items() if value == top]
        return best[0] if self.first else self._rng.choice(best)
