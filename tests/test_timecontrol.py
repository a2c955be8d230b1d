"""The move budget: what binds (turn limit or match clock), the safety margin, and the fast cases; Gomocup's clocks;
when a running search stops (stretched for an unsteady favourite or a threat, early for one that cannot be caught)."""

from __future__ import annotations

import pytest

from monte.brain.timecontrol import (
    BIG_DROP, CLOCK_STRETCH, FAST_MOVE_SECONDS, MIN_MARGIN_SECONDS, MIN_MOVES_TO_GO, MIN_VIEW_VISITS, NO_MATCH_LIMIT_MS,
    REPLY_SECONDS, LeaderWatch, MoveBudget, leader_safe, match_clock_ms, move_budget, moves_to_go, safety_margin,
    stop_after,
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
    share = (60.0 - REPLY_SECONDS * 110) / moves_to_go(**EARLY)  # 110: the later moves 221 empty cells leave us
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


# Gomocup's clocks (2024): (timeout_turn, timeout_match) in ms
FASTGAME, MAIN, FINAL = (5000, 120000), (30000, 180000), (300000, 1000000)


@pytest.mark.parametrize("turn, match", [FASTGAME, MAIN, FINAL])
def test_a_whole_game_at_gomocups_clocks_never_overdraws_the_clock(turn, match):
    # Every move spends its full maximum (the worst case: every position critical and unsteady), 120 stones long.
    left = match
    for stones in range(3, 123, 2):
        soft, hard = move_budget(turn, match, left, stones, 225 - stones)
        assert 0.0 <= soft <= hard < turn / 1000
        assert hard * 1000 < left or left <= 0
        left -= hard * 1000
    assert left > 0


@pytest.mark.parametrize("turn, match", [FASTGAME, MAIN])
def test_a_full_board_game_keeps_enough_clock_for_every_late_reply(turn, match):
    # Every move spends its maximum and then 4 ms more to reach the manager (the runner measured 2-4 ms): a 15x15
    # game played to the full board must still end inside the clock.
    left = match
    for stones in range(3, 225, 2):
        soft, hard = move_budget(turn, match, left, stones, 225 - stones)
        left -= hard * 1000 + 4
    assert left > 0


def test_when_only_the_late_replies_are_paid_for_the_move_is_the_fastest():
    assert move_budget(5000, 120000, 500, 25, 200) == MoveBudget(0.0, 0.0)


def test_at_the_fastgame_clock_the_optimum_is_a_share_below_the_turn_limit():
    # 120 s cannot pay 5 s for every one of ~30 moves: the first move's optimum is a share, the turn its maximum.
    soft, hard = move_budget(*FASTGAME, 120000, 3, 222)
    assert soft == pytest.approx((120.0 - REPLY_SECONDS * 110) / moves_to_go(3, 222))
    assert 3.5 < soft < hard == pytest.approx(5.0 - safety_margin(5.0))


def test_the_optimum_shrinks_with_the_clock_and_follows_the_games_phase():
    early = move_budget(*MAIN, 180000, 3, 222).soft
    later = move_budget(*MAIN, 180000, 41, 184).soft
    poorer = move_budget(*MAIN, 60000, 41, 184).soft
    assert early < later  # fewer moves left to pay for with the same clock
    assert poorer < later


BUDGET = MoveBudget(2.0, 5.0)
QUIET = dict(clear=True, leader_changes=0, value_drop=0.0, critical=False)


def test_a_clear_steady_choice_in_a_quiet_position_stops_at_the_optimum():
    assert stop_after(BUDGET, **QUIET) == 2.0


@pytest.mark.parametrize("change", [dict(clear=False), dict(leader_changes=2), dict(value_drop=0.1),
                                    dict(critical=True)])
def test_an_unsteady_or_critical_search_gets_more_than_the_optimum(change):
    assert 2.0 < stop_after(BUDGET, **{**QUIET, **change}) <= 5.0


def test_more_changes_and_a_bigger_fall_give_more_time_up_to_a_cap():
    times = [stop_after(MoveBudget(1.0, 100.0), **{**QUIET, "leader_changes": n}) for n in range(8)]
    assert times == sorted(times) and times[2] < times[4] == times[7]
    drops = [stop_after(MoveBudget(1.0, 100.0), **{**QUIET, "value_drop": d}) for d in (0.0, 0.05, BIG_DROP, 0.9)]
    assert drops[0] < drops[1] < drops[2] == drops[3]
    assert stop_after(MoveBudget(1.0, 100.0), **{**QUIET, "value_drop": -0.5}) == 1.0  # a rising value is quiet


def test_the_stretch_never_passes_the_maximum():
    worst = dict(clear=False, leader_changes=10, value_drop=1.0, critical=True)
    assert stop_after(BUDGET, **worst) == 5.0


def test_under_a_per_turn_limit_nothing_is_stretched_or_saved():
    budget = move_budget(1000, 0, NO_LIMIT, **EARLY)
    assert stop_after(budget, **QUIET) == budget.hard


def test_the_leader_is_safe_only_when_the_runner_up_cannot_catch_it_in_the_time_left():
    # 10,000 iterations a second, 0.5 s left: 5,000 more iterations at most
    assert leader_safe(9000, 3000, 10000.0, 0.5)
    assert not leader_safe(8000, 3000, 10000.0, 0.5)  # a gap of 5,000 can still be closed
    assert leader_safe(1, 0, 10000.0, 0.0)  # no time left: any lead stands
    assert not leader_safe(1000, 1000, 10000.0, -1.0)  # a tie is never safe


def test_the_watch_counts_changes_of_favourite_and_the_fall_of_its_value_once_it_has_a_view():
    watch = LeaderWatch()
    watch.look(7, MIN_VIEW_VISITS - 1, 0.9)  # too few visits to count
    watch.look(3, MIN_VIEW_VISITS, 0.2)
    assert (watch.changes, watch.value_drop) == (0, 0.0)
    watch.look(3, 500, 0.15)
    watch.look(5, 600, 0.1)
    watch.look(3, 900, 0.05)
    assert watch.changes == 2
    assert watch.value_drop == pytest.approx(0.15)


def test_an_unclear_favourite_goes_on_to_the_maximum_as_before():
    budget = move_budget(30000, 180000, 60000, **EARLY)  # the maximum is CLOCK_STRETCH optimums here
    assert stop_after(budget, **{**QUIET, "clear": False}) == pytest.approx(budget.hard)
