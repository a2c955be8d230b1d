"""How long one move may take, from the manager's clock settings and from what the search says while it runs: small
pure functions, so that each can be tested alone (minigo's ``strategies``; Rapfi's optimum and maximum).

Managers forfeit a brain that answers late, and the time they measure includes starting the answer, the pipe and
Python's own overhead. So the hard limit (the maximum) keeps a safety margin below whatever binds first
(``timeout_turn`` or the match clock ``time_left``). When the match clock binds, the move's optimum (the soft limit)
is only a share of what is left, sized by the game's phase -- a guess of how many moves of ours the game still has
-- since a clock cannot pay every move its full turn: at Gomocup's fastgame clock (5 s a move, 120 s a game) thirty
moves of ours would spend 150 s. The maximum stretches to a few shares for the moves that need them.

Between the two, ``stop_after`` decides while the search runs: a settled choice stops at the optimum, one whose
favourite keeps changing, whose value is falling, or that answers a threat (a critical position) is given more, up
to the maximum; and ``leader_safe`` ends the search early once the favourite cannot be overtaken in the time left.
Under a per-turn limit alone the optimum is the maximum: time saved there is time lost.

The budget's inputs are the protocol's milliseconds; its answer is in seconds, counted from when the move request
arrived.
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

EXPECTED_GAME_STONES = 60
"""A guess of how many stones a game between engines lasts; sizes the share of the match clock per move. Three in
four of the 3,130 15x15 freestyle games in tournaments/reports/ (Monte against itself and against the sparring
engines) ended by 60 stones, half by 39. The guess was 80 (nine games in ten): at Gomocup's fastgame clock Monte then
spent a median 20 s of its 120 s in its 20 games against Rapfi, 1.5 s on a median move of its first eight, and lost
15 of them with the rest unspent (tournaments/reports/sparring/spar-fast-41813d9); planned for 60, 42 s and 4.1 s
(spar-fast-3f6a8cb). A game that outlasts the guess is paid for by MIN_MOVES_TO_GO."""

MIN_MOVES_TO_GO = 12
"""Never plan for fewer of our own moves than this while the board has room (the guess above can be wrong)."""

REPLY_SECONDS = 0.01
"""What a reply costs on the manager's clock however fast the brain answers (pipe, wake-up, Python; the runner
measured 2-4 ms a move on this machine). The match clock keeps this much for each later move the board still has
room for: in two full-board draws at the fastgame clock Monte reached 0 with 20-30 moves to go and ended 31 and 61 ms
past its 120 s (inside every manager's tolerance, but past the clock)."""

CLOCK_STRETCH = 2.5
"""How many shares of the match clock one hard move may use at most (the maximum, in optimums)."""

UNCLEAR_STRETCH = CLOCK_STRETCH - 1.0
"""The optimum is stretched by this share when the favourite is not clearly ahead of the runner-up (visits and
value, ``Options.clear_visit_ratio`` and ``clear_value_slack``): to the maximum, as Monte did before the other
stretches came. Half an optimum instead scored -53 Elo [-144, +32] in 20 games at 1 s a move and 24 s a game against
that rule (tournaments/reports/scaling.md), so the rule stayed..."""
CHANGE_STRETCH = 0.3
"""...by this share for each time the favourite changed during the move (counted up to MAX_COUNTED_CHANGES)..."""
MAX_COUNTED_CHANGES = 4
DROP_STRETCH = 1.0
"""...by up to this share as the favourite's value falls, all of it at a fall of BIG_DROP or more (in the value's
units, -1 to 1)..."""
BIG_DROP = 0.15
CRITICAL_STRETCH = 1.0
"""...and by this share when the position is critical: the opponent threatens a forced win that must be answered."""


class MoveBudget(NamedTuple):
    """Seconds for one move: stop once settled after ``soft``, answer by ``hard`` whatever happens."""

    soft: float
    hard: float


def safety_margin(limit_seconds: float) -> float:
    """How far below a limit of `limit_seconds` the brain must answer to be safe."""
    return max(MIN_MARGIN_SECONDS, MARGIN_FRACTION * limit_seconds)


def room_for_our_moves(empty_cells: int) -> int:
    """How many moves of ours, this one included, the empty cells still allow (we play every other stone)."""
    return (empty_cells + 1) // 2


def moves_to_go(stones_played: int, empty_cells: int) -> int:
    """A guess of how many moves of ours the game still has (at least 1).

    Planned from a typical game length, never below MIN_MOVES_TO_GO, and never above ``room_for_our_moves``.
    """
    planned = max(MIN_MOVES_TO_GO, (EXPECTED_GAME_STONES - stones_played + 1) // 2)
    return min(planned, max(1, room_for_our_moves(empty_cells)))


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
    - A match clock at or below zero (or below what the later replies cost) means the fastest possible move: (0, 0).
    - A match clock, less REPLY_SECONDS for each later move the board has room for, gives a share,
      ``clock / moves_to_go``, as the soft limit; the hard limit may stretch to CLOCK_STRETCH shares but never
      reaches that clock minus its safety margin.
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
        later_replies = max(0, room_for_our_moves(empty_cells) - 1)
        left = clock_ms / 1000.0 - REPLY_SECONDS * later_replies
        if left <= 0:  # the clock is spent, or holds only what the later replies will cost
            return MoveBudget(0.0, 0.0)
        share = left / moves_to_go(stones_played, empty_cells)
        hard_caps += [left - safety_margin(left), CLOCK_STRETCH * share]
        soft_caps.append(share)

    hard = max(0.0, min(hard_caps))
    soft = max(0.0, min(soft_caps + [hard]))
    return MoveBudget(soft, hard)


def stop_after(budget: MoveBudget, *, clear: bool, leader_changes: int, value_drop: float, critical: bool) -> float:
    """When a search under `budget` should stop, in seconds from the move's start: the optimum (``soft``) for a
    clear, steady choice in a quiet position, stretched toward the maximum (``hard``) -- never beyond it -- when the
    favourite is not clearly ahead (`clear` False), when it changed `leader_changes` times during the move, when its
    value fell by `value_drop` since the search first had a view, and when the position is `critical`.

    Under a per-turn limit alone the optimum already is the maximum, so nothing changes there."""
    stretch = 1.0
    if not clear:
        stretch += UNCLEAR_STRETCH
    stretch += CHANGE_STRETCH * min(max(leader_changes, 0), MAX_COUNTED_CHANGES)
    stretch += DROP_STRETCH * min(max(value_drop, 0.0) / BIG_DROP, 1.0)
    if critical:
        stretch += CRITICAL_STRETCH
    return min(budget.hard, budget.soft * stretch)


def leader_safe(leader_visits: int, runner_visits: int, iterations_per_second: float, seconds_left: float) -> bool:
    """Whether the most-visited root move can no longer be overtaken: its lead in visits is larger than every
    iteration the search could still make in `seconds_left` at its current rate (all of them given to the
    runner-up), so that searching on cannot change the move played."""
    return leader_visits - runner_visits > iterations_per_second * max(seconds_left, 0.0)


MIN_VIEW_VISITS = 200
"""The favourite needs this many visits before its changes and its value are watched (earlier ones are noise)."""


class LeaderWatch:
    """The favourite's story during one move, for ``stop_after``: how often it changed, and how far its value fell
    since the search first had a view of it. Fed with plain numbers after each slice of the search."""

    def __init__(self) -> None:
        self.leader = -1
        self.changes = 0
        self.first_value: float | None = None
        self.value_drop = 0.0

    def look(self, leader: int, leader_visits: int, leader_value: float) -> None:
        """Record the favourite now (an id, its visits and mean value for the side to move)."""
        if leader_visits < MIN_VIEW_VISITS:
            return
        if self.first_value is None:
            self.leader, self.first_value = leader, leader_value
            return
        if leader != self.leader:
            self.leader = leader
            self.changes += 1
        self.value_drop = self.first_value - leader_value
