"""Which games a tournament plays, in what order: round-robin or gauntlet, in pairs with colours swapped.

Every pairing plays its games in pairs from one opening, the first game with the pairing's first engine as black,
the second with colours swapped; Gomoku's first-move advantage is large, so only a pair says anything about
strength. Each pairing walks the same list of openings (pair n uses opening n, cycling), so every engine meets the
same positions. The schedule is a pure function of the settings: a resumed run rebuilds it and skips the game ids
already in its log.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Sequence

from monte.tournaments.openings import Opening

EMPTY_OPENING = Opening(stones=(), source="empty")


@dataclass(frozen=True)
class GameSpec:
    """One scheduled game: its id (from 1), its pairing, its pair (shared with the colour-swapped twin), who plays
    black and white, and the opening."""

    game_id: int
    pairing: tuple[str, str]
    pair_index: int
    black: str
    white: str
    opening: Opening


def pairings(names: Sequence[str], format: str) -> list[tuple[str, str]]:
    """The pairings of a round: every two engines (round-robin) or the first engine against each other (gauntlet)."""
    if format == "round-robin":
        return list(combinations(names, 2))
    if format == "gauntlet":
        return [(names[0], other) for other in names[1:]]
    raise ValueError(f"unknown tournament format {format!r}")


def schedule(names: Sequence[str], format: str, openings: Sequence[Opening], *, games: int,
             rounds: int) -> list[GameSpec]:
    """Every game of the tournament: `rounds` rounds in which each pairing plays `games` (even) games."""
    if games < 2 or games % 2:
        raise ValueError(f"games per pairing must be even and at least 2, got {games}")
    book = list(openings) or [EMPTY_OPENING]
    pairs_per_round = games // 2
    result: list[GameSpec] = []
    pair_index = 0
    for round_no in range(rounds):
        for first, second in pairings(names, format):
            for k in range(pairs_per_round):
                opening = book[(round_no * pairs_per_round + k) % len(book)]
                for black, white in ((first, second), (second, first)):
                    result.append(GameSpec(len(result) + 1, (first, second), pair_index, black, white, opening))
                pair_index += 1
    return result
