"""The move budget: what binds (turn limit or match clock), the safety margin, and the fast cases."""

from __future__ import annotations

import pytest

from monte.brain.timecontrol import (
    CLOCK_STRETCH, FAST_MOVE_SECONDS, MIN_MARGIN_SECONDS, MIN_MOVES_TO_GO, NO_MATCH_LIMIT_MS, MoveBudget,
    match_clock_ms, move_budget, moves_to_go, safety_margin,
)

NO_LIMIT = NO_MATCH_LIMIT_MS
EARLY = dict(stones_played=4, empty_cells=221)  # a 15x15 opening


def test_turn_limit_alone_binds_with_a_margin_below_it_and_all_of_it_is_for_searching():
    soft, hard = move_budget(5000, 0, NO_LIMIT, **EARLY)
    assert hard == pytest.approx(5.0 - safety_margin(5.0))
    assert soft == hard  # time saved under a per-turn limit is time lost


def test_safety_margin_is_at_least_the_fixed_minimum_and_grows_with_the_limit():
    assert safety_margin(0.1) == MIN_MARGIN_SECONDS
    assert safety_margin(100.0) > safety_margin(10.0) > MIN_MARGIN_SECONDS


@pytest.mark.parametrize("turn_ms", [100, 1000, 5000, 30000, 300000])
def test_hard_limit_always_stays_below_the_turn_limit(turn_ms):
    assert move_budget(turn_ms, 0, NO_LIMIT, **EARLY).hard < turn_ms / 1000


def test_zero_turn_timeout_gives_a_fast_move():
    soft, hard = move_budget(0, 0, NO_LIMIT, **EARLY)
    assert hard == FAST_MOVE_SECONDS
    assert soft <= hard


@pytest.mark.parametrize("time_left_ms", [0, -1, -5000])
def test_no_time_left_gives_the_fastest_move(time_left_ms):
    assert move_budget(5000, 180000, time_left_ms, **EARLY) == MoveBudget(0.0, 0.0)


def test_match_clock_gives_a_share_of_time_left_when_it_binds():
    budget = move_budget(30000, 180000, 60000, **EARLY)
    share = 60.0 / moves_to_go(**EARLY)
    assert budget.soft == pytest.approx(share)
    assert budget.hard == pytest.approx(CLOCK_STRETCH * share)


def test_turn_limit_still_binds_when_the_match_clock_is_generous():
    assert move_budget(1000, 1000000, 900000, **EARLY).hard == pytest.approx(1.0 - safety_margin(1.0))


def test_hard_limit_never_reaches_a_nearly_empty_match_clock():
    budget = move_budget(30000, 180000, 100, stones_played=200, empty_cells=2)
    assert budget.hard == pytest.approx(0.1 - safety_margin(0.1))
    assert budget.hard < 0.1


def test_tiny_limits_never_give_negative_times():
    budget = move_budget(10, 0, 20, **EARLY)
    assert budget == MoveBudget(0.0, 0.0)


def test_soft_limit_never_exceeds_hard_limit_over_a_range_of_settings():
    for turn in (0, 50, 1000, 30000):
        for left in (10, 500, 60000, NO_LIMIT):
            for stones in (0, 40, 150):
                soft, hard = move_budget(turn, 180000, left, stones, 225 - stones)
                assert 0.0 <= soft <= hard


def test_time_left_is_trusted_even_when_timeout_match_says_no_limit():
    assert match_clock_ms(0, 4000) == 4000


def test_whole_match_time_stands_in_when_time_left_was_never_sent():
    assert match_clock_ms(120000, NO_LIMIT) == 120000


def test_no_match_clock_without_timeout_match_or_time_left():
    assert match_clock_ms(0, NO_LIMIT) is None


def test_moves_to_go_shrinks_as_the_game_goes_on_but_not_below_the_floor():
    assert moves_to_go(0, 225) > moves_to_go(40, 185) >= MIN_MOVES_TO_GO
    assert moves_to_go(150, 75) == MIN_MOVES_TO_GO


def test_moves_to_go_is_bounded_by_the_empty_cells_left():
    assert moves_to_go(220, 5) == 3
    assert moves_to_go(224, 1) == 1
