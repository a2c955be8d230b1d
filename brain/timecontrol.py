"""How long one move may take, from the manager's clock settings: one pure function, so it can be tested alone.

Managers forfeit a brain that answers late, and the time they measure includes starting the answer, the pipe and
Python's own overhead. So the hard limit keeps a safety margin below whatever binds first (``timeout_turn`` or the
match clock ``time_left``), and when the match clock binds the move gets only a share of what is left, sized by a
rough guess of how many moves of ours the game still has.

All inputs are the protocol's milliseconds; the answer is in seconds, counted from when the move request arrived.
"""

from __future__ import annotations

from typing import NamedTuple

NO_MATCH_LIMIT_MS = 2147483647
"""The ``time_left`` (and ``INFO`` value) managers send when the game has no match clock."""

FAST_MOVE_SECONDS = 0.03
"""The hard limit for ``timeout_turn 0`` ("play as fast as possible")."""

MIN_MARGIN_SECONDS = 0.03
"""The smallest safety margin kept below any limit: process wake-up, pipe and Python overhead."""

MARGIN_FRACTION = 0.08
"""The safety margin as a share of the limit, for long limits where timer slack and pauses grow too."""

SOFT_FRACTION = 1.0
"""Under a per-turn limit, the share of the hard limit after which a player with a settled choice may stop: all of
it, as time saved under a per-turn limit is lost (a search kept to the end also leaves a deeper tree for the next
move). Only a match clock makes saving worth it (its share per move is then the soft limit)."""

EXPECTED_GAME_STONES = 80
"""A guess of how many stones a game between engines lasts; sizes the share of the match clock per move."""

MIN_MOVES_TO_GO = 12
"""Never plan for fewer of our own moves than this while the board has room (the guess above can be wrong)."""

CLOCK_STRETCH = 2.5
"""How many shares of the match clock one hard move may use at most."""


class MoveBudget(NamedTuple):
    """Seconds for one move: stop once settled after ``soft``, answer by ``hard`` whatever happens."""

    soft: float
    hard: float


def safety_margin(limit_seconds: float) -> float:
    """How far below a limit of `limit_seconds` the brain must answer to be safe."""
    return max(MIN_MARGIN_SECONDS, MARGIN_FRACTION * limit_seconds)


def moves_to_go(stones_played: int, empty_cells: int) -> int:
    """A guess of how many moves of ours the game still has (at least 1).

    Planned from a typical game length, never below MIN_MOVES_TO_GO, and never above the moves the empty cells
    still allow (we play every other stone).
    """
    planned = max(MIN_MOVES_TO_GO, (EXPECTED_GAME_STONES - stones_played + 1) // 2)
    room = max(1, (empty_cells + 1) // 2)
    return min(planned, room)


def match_clock_ms(timeout_match_ms: int, time_left_ms: int) -> int | None:
    """The match clock that binds this move in ms, or None when the game has none.

    ``time_left`` is trusted whenever it is sent (even if ``timeout_match`` says 0); when it is absent (the
    no-limit value) but ``timeout_match`` is set, the whole match time is taken as what is left.
    """
    if time_left_ms < NO_MATCH_LIMIT_MS:
        return time_left_ms
    if timeout_match_ms > 0:
        return timeout_match_ms
    return None


def move_budget(
    timeout_turn_ms: int,
    timeout_match_ms: int,
    time_left_ms: int,
    stones_played: int,
    empty_cells: int,
) -> MoveBudget:
    """The (soft, hard) seconds this move may take under the manager's settings.

    - ``timeout_turn`` binds with a safety margin; ``timeout_turn 0`` means a fast move of FAST_MOVE_SECONDS.
    - A match clock at or below zero means the fastest possible move: (0, 0).
    - A match clock gives a share, ``clock / moves_to_go``, as the soft limit; the hard limit may stretch to
      CLOCK_STRETCH shares but never reaches the clock minus its safety margin.
    """
    if timeout_turn_ms <= 0:
        turn_hard = FAST_MOVE_SECONDS
    else:
        turn = timeout_turn_ms / 1000.0
        turn_hard = turn - safety_margin(turn)
    hard_caps = [turn_hard]
    soft_caps = [SOFT_FRACTION * turn_hard]

    clock_ms = match_clock_ms(timeout_match_ms, time_left_ms)
    if clock_ms is not None:
        if clock_ms <= 0:
            return MoveBudget(0.0, 0.0)
        left = clock_ms / 1000.0
        share = left / moves_to_go(stones_played, empty_cells)
        hard_caps += [left - safety_margin(left), CLOCK_STRETCH * share]
        soft_caps.append(share)

    hard = max(0.0, min(hard_caps))
    soft = max(0.0, min(soft_caps + [hard]))
    return MoveBudget(soft, hard)
