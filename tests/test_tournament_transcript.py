"""What the runner sends each engine, read from a transcript of its stdin: the board by START or RECTSTART, the first
move request by BEGIN, BOARD or TURN as configured, and the match clock as INFO time_left before every move."""

from __future__ import annotations

import dataclasses
import shlex
import sys
from pathlib import Path

from tournament_support import FAKE_BRAIN, config
from monte.tournaments.engines import EngineClock, EngineSpec
from monte.tournaments.runner import run_tournament


def recorded(name: str, log: Path) -> EngineSpec:
    """A good fake brain whose stdin is copied to `log` on the way in."""
    brain = f"{shlex.quote(sys.executable)} {shlex.quote(str(FAKE_BRAIN))} --mode good"
    return EngineSpec(name, ("sh", "-c", f"tee -a {shlex.quote(str(log))} | {brain}"))


def requests(log: Path) -> list[str]:
    """The move requests of the first game in a transcript, each with the lines that belong to it."""
    lines = log.read_text().splitlines()
    first_game = lines[:lines.index("END")]
    return [line for line in first_game if line.split()[0] in ("BEGIN", "BOARD", "TURN")]


def play(tmp_path: Path, **settings) -> tuple[list[str], list[str], Path, Path]:
    black_log, white_log = tmp_path / "one.log", tmp_path / "two.log"
    engines = [recorded("one", black_log), recorded("two", white_log)]
    run_tournament(config(tmp_path / "out", engines, games=2, concurrency=1, **settings))
    return requests(black_log), requests(white_log), black_log, white_log


def test_by_default_the_first_request_is_begin_then_board_for_the_second_engine(tmp_path):
    black, white, _, white_log = play(tmp_path)
    assert black[0] == "BEGIN" and all(line.startswith("TURN") for line in black[1:])
    assert white[0] == "BOARD" and all(line.startswith("TURN") for line in white[1:])
    game = white_log.read_text().splitlines()
    board = game[game.index("BOARD") + 1:game.index("DONE")]
    assert len(board) == 1 and board[0].endswith(",2")  # the opponent's one stone


def test_begin_mode_sends_turn_to_the_second_engine(tmp_path):
    black, white, _, _ = play(tmp_path, first_move="begin")
    assert black[0] == "BEGIN"
    assert all(line.startswith("TURN") for line in white)


def test_an_opening_reaches_both_engines_as_a_board_in_move_order(tmp_path):
    _, _, black_log, white_log = play(tmp_path, random_openings=1, opening_stones=3)
    # Black, white, black: 1 marks the receiving engine's own stones, 2 its opponent's.
    for log, fields in ((black_log, ["1", "2", "1"]), (white_log, ["2", "1", "2"])):
        game = log.read_text().splitlines()
        board = game[game.index("BOARD") + 1:game.index("DONE")]
        assert [line.rsplit(",", 1)[1] for line in board[:3]] == fields


def test_a_rectangular_board_starts_with_rectstart(tmp_path):
    _, _, black_log, _ = play(tmp_path, width=15, height=10)
    assert black_log.read_text().splitlines()[0] == "RECTSTART 15,10"


def test_time_left_is_sent_before_every_move_and_runs_down(tmp_path):
    _, _, black_log, _ = play(tmp_path, timeout_match_ms=60000)
    game = black_log.read_text().splitlines()
    game = game[:game.index("END")]
    assert "INFO timeout_match 60000" in game
    for i, line in enumerate(game):
        if line.split()[0] in ("BEGIN", "BOARD", "TURN"):
            assert game[i - 1].startswith("INFO time_left ")
    left = [int(line.split()[2]) for line in game if line.startswith("INFO time_left")]
    assert left[0] == 60000 and left == sorted(left, reverse=True)


def test_without_a_match_clock_time_left_says_unlimited_before_every_move(tmp_path):
    """Some engines need time_left even without a match clock (AIWine answers -4,-4 without it)."""
    _, _, black_log, _ = play(tmp_path)
    game = black_log.read_text().splitlines()
    game = game[:game.index("END")]
    assert "INFO timeout_match 0" in game
    requests = [i for i, line in enumerate(game) if line.split()[0] in ("BEGIN", "BOARD", "TURN")]
    assert len(requests) > 3
    assert all(game[i - 1] == "INFO time_left 2147483647" for i in requests)


def test_an_engines_own_info_follows_the_standard_lines_and_reaches_only_that_engine(tmp_path):
    black_log, white_log = tmp_path / "one.log", tmp_path / "two.log"
    one = recorded("one", black_log)
    two = dataclasses.replace(recorded("two", white_log), info=(("max_node", "20000"), ("thread_num", "1")))
    run_tournament(config(tmp_path / "out", [one, two], games=2, concurrency=1))
    game = white_log.read_text().splitlines()
    game = game[:game.index("END")]
    start = game.index("INFO rule 0")
    assert game[start + 1:start + 3] == ["INFO max_node 20000", "INFO thread_num 1"]
    assert [line for line in game if line.startswith("INFO")][:5] == [
        "INFO timeout_turn 1000", "INFO timeout_match 0", f"INFO max_memory {350 * 1024 * 1024}",
        "INFO game_type 2", "INFO rule 0"]
    assert not any("max_node" in line for line in black_log.read_text().splitlines())


def test_no_per_move_limit_is_sent_as_the_match_time_not_as_zero(tmp_path):
    """``timeout_turn_ms = 0`` means no per-move limit; ``INFO timeout_turn 0`` would mean "play as fast as you can"."""
    _, _, black_log, _ = play(tmp_path, timeout_turn_ms=0, timeout_match_ms=60000)
    info = [line for line in black_log.read_text().splitlines() if line.startswith("INFO timeout_")]
    assert info[:2] == ["INFO timeout_turn 60000", "INFO timeout_match 60000"]


def test_an_engine_with_a_clock_of_its_own_is_told_it_and_the_other_the_games(tmp_path):
    black_log, white_log = tmp_path / "one.log", tmp_path / "two.log"
    one = recorded("one", black_log)
    two = dataclasses.replace(recorded("two", white_log), clock=EngineClock(0, 30000))
    run_tournament(config(tmp_path / "out", [one, two], games=2, concurrency=1, timeout_turn_ms=1000))
    for log, turn, match, left in ((black_log, 1000, 0, 2147483647), (white_log, 30000, 30000, 30000)):
        game = log.read_text().splitlines()
        game = game[:game.index("END")]
        # no per-move limit is told as the whole match time (INFO timeout_turn 0 would mean "play at once")
        assert [line for line in game if line.startswith("INFO")][:2] == [f"INFO timeout_turn {turn}",
                                                                         f"INFO timeout_match {match}"]
        assert int(next(line for line in game if line.startswith("INFO time_left")).split()[2]) == left
