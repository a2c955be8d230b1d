"""The INSTALLED ``pbrain-monte`` answers on time on every path, measured over its pipes as a manager measures it
(``lab.clockcheck``, which ``monte clock`` runs over 100 replies a path for the README's table).

The bounds are the behaviour a manager judges, never a guess of this machine's speed (a busy 2-core machine delays
any process by tens of milliseconds; how late the brain really is, is ``monte clock``'s figure, not an assertion
here): a reply is on time when it comes within the manager's limit plus the lateness Piskvork and the Gomocup judge
forgive (``TOLERANCE_MS``, a second), so a brain that overruns by a compile or a search of its own fails. YXSTOP, END
and a closed stdin during a think of a minute must end the think: the move (or the exit) comes before half the limit
would have run out, where a search that does not poll its stop flag, or holds the GIL against the thread that sets
it, runs to its deadline.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from monte.brain.timecontrol import FAST_MOVE_SECONDS
from monte.lab import clockcheck
from monte.lab.clockcheck import PathResult, PipeBrain
from monte.protocol.client import TOLERANCE_MS

STOPPED_MS = clockcheck.THINK_MS / 2
"""A think of THINK_MS stopped by YXSTOP, END or a closed stdin has ended before this."""


@pytest.fixture
def command(warm_pbrain: str) -> list[str]:
    return [warm_pbrain]


@pytest.fixture(scope="module")
def brain(warm_pbrain: str) -> Iterator[PipeBrain]:
    """One brain process for the paths that need no fresh one (each starts its games with START)."""
    shared = PipeBrain([warm_pbrain])
    yield shared
    shared.kill()


def assert_on_time(result: PathResult, bound_ms: float | None = None) -> None:
    """Every reply of `result` within its limit (or `bound_ms`) plus the tolerance."""
    late = [f"{ms:.0f} ms (limit {limit})" for ms, limit in result.replies
            if ms > (limit if bound_ms is None else bound_ms) + TOLERANCE_MS]
    every = ", ".join(f"{ms:.0f}" for ms, _ in result.replies)
    assert not late, f"{result.name}: late replies {late}; every reply (ms): {every}"


@pytest.mark.parametrize("rule", [0, 4, 8])
def test_the_first_move_of_a_fresh_process_is_on_time(command, rule):
    assert_on_time(clockcheck.first_moves(command, 1, rule, seed=rule))


def test_every_move_of_games_at_timeout_turn_200_is_on_time_the_first_included(brain):
    first, later = clockcheck.timed_game(brain, 12, "turn", [f"INFO timeout_turn {clockcheck.TURN_MS}"],
                                         clockcheck.TURN_MS, seed=3)
    assert len(first.replies) >= 1 and len(later.replies) == 12
    assert_on_time(first)
    assert_on_time(later)


def test_timeout_turn_0_gets_fast_moves(brain):
    for result in clockcheck.timed_game(brain, 10, "fast", ["INFO timeout_turn 0"], None, seed=4):
        assert_on_time(result, bound_ms=FAST_MOVE_SECONDS * 1000)


def test_a_small_time_left_is_never_overrun(brain):
    for result in clockcheck.timed_game(brain, 10, "time_left", ["INFO timeout_turn 5000"], 5000,
                                        clock=clockcheck.small_time_left, seed=5):
        assert_on_time(result)


def test_a_match_clock_is_never_overrun(brain):
    for result in clockcheck.timed_game(brain, 12, "match", [f"INFO timeout_turn {clockcheck.THINK_MS}",
                                                               f"INFO timeout_match {clockcheck.MATCH_MS}"],
                                        clockcheck.THINK_MS, clock=clockcheck.match_clock, seed=6):
        assert_on_time(result)


@pytest.mark.parametrize("rule", [4, 8])
def test_renju_and_caro_games_are_on_time(brain, rule):
    for result in clockcheck.timed_game(brain, 6, f"rule {rule}", [f"INFO rule {rule}",
                                                                     f"INFO timeout_turn {clockcheck.TURN_MS}"],
                                        clockcheck.TURN_MS, seed=rule):
        assert_on_time(result)


def test_board_with_field_3_stones_is_on_time(brain):
    assert_on_time(clockcheck.board_with_blocks(brain, 3, seed=7))


@pytest.mark.parametrize("stones", [0, 3, 5])
def test_swap2board_is_on_time(brain, stones):
    assert_on_time(clockcheck.swap2(brain, 2, stones))


def test_yxstop_on_an_undecided_middle_game_brings_the_move_at_once(brain):
    result = clockcheck.yxstop(brain, 3, seed=8)
    slow = [ms for ms, _ in result.replies if ms > STOPPED_MS]
    assert not slow, f"YXSTOP answered after {slow} ms"


def test_the_stopped_position_is_an_undecided_search(brain):
    # what the YXSTOP and END paths stop is a real search, not a forced move or a proof (which carry a note)
    clockcheck.start(brain, "INFO timeout_turn 300")
    brain.ask(*clockcheck.board_request(clockcheck.MIDDLE_GAME))
    summary, rapfi = brain.messages
    words = rapfi.split()  # MESSAGE depth D-SD ev E n N ...
    evaluation, nodes = words[words.index("ev") + 1], words[words.index("n") + 1]
    assert int(nodes) > 1000 and not evaluation.lstrip("+-").startswith("M"), rapfi  # no proof
    # no note after the time and the tree's fill: neither forced nor a threat
    assert re.search(r" ms, tree \d+%; ev ", summary), summary


@pytest.mark.parametrize("how", ["END", "EOF"])
def test_end_and_a_closed_stdin_end_a_long_think_at_once(command, how):
    result = clockcheck.exits(command, 1, seed=9, how=how)
    slow = [ms for ms, _ in result.replies if ms > STOPPED_MS]
    assert not slow, f"{result.name}: {slow} ms"
