"""Whole tournaments among the fake brains: every fault loses with the right reason, for the right side, in either
colour; clocks and memory are enforced; the SPRT stops early; no engine process outlives the run."""

from __future__ import annotations

import dataclasses

import pytest

from tournament_support import config, fake, processes_in
from monte.tournaments.engines import EngineClock
from monte.tournaments.records import Termination, read_jsonl
from monte.tournaments.runner import run_tournament

FAULTS = [
    # (fake mode and arguments, the termination it must cause)
    (("crash", "--at", "3"), Termination.CRASH),
    (("hang", "--at", "2"), Termination.TIME),
    (("garbage", "--at", "2"), Termination.GARBAGE),
    (("occupied", "--at", "2"), Termination.ILLEGAL),
    (("offboard", "--at", "2"), Termination.OFF_BOARD),
    (("slow", "--at", "2", "--delay-ms", "3000"), Termination.TIME),
    (("refuse", "--at", "2"), Termination.GARBAGE),
    (("start-error",), Termination.START_ERROR),
    (("crash-on-start",), Termination.START_ERROR),
]


@pytest.mark.parametrize("mode, termination", FAULTS, ids=[" ".join(mode) for mode, _ in FAULTS])
def test_a_faulty_engine_loses_both_colours_with_its_reason(tmp_path, mode, termination):
    engines = [fake("good", cwd=tmp_path), fake("bad", *mode, cwd=tmp_path)]
    result = run_tournament(config(tmp_path / "out", engines, games=2, concurrency=2))

    assert not result.interrupted
    games = sorted(result.records, key=lambda r: r.game_id)
    assert [(g.black, g.white) for g in games] == [("good", "bad"), ("bad", "good")]
    for game in games:
        assert game.termination is termination, game.detail
        assert game.winner == "good", game.detail
        colour = "black" if game.black == "bad" else "white"
        assert f"{colour} (bad)" in game.detail
    assert read_jsonl(tmp_path / "out" / "games.jsonl") == result.records
    assert processes_in(tmp_path) == []


@pytest.mark.parametrize("mode, said", [(("crash", "--at", "2"), "told to crash at move 2"),
                                        (("crash-on-start",), "told to exit at START")])
def test_a_crash_is_told_with_the_last_line_the_engine_wrote_on_stderr(tmp_path, mode, said):
    engines = [fake("good", cwd=tmp_path), fake("bad", *mode, cwd=tmp_path)]
    result = run_tournament(config(tmp_path / "out", engines, games=2))
    for game in result.records:
        assert f"its stderr ends: fake brain: {said}" in game.detail, game.detail


def test_under_garbage_ignore_a_stray_line_before_a_move_is_kept_and_the_game_goes_on(tmp_path):
    # Some engines print their own info lines (PentaZen's search lines): the Gomocup judge ignores them.
    engines = [fake("good", cwd=tmp_path), fake("chatty", "garbage", "--at", "2", cwd=tmp_path)]
    result = run_tournament(config(tmp_path / "out", engines, games=2, garbage="ignore"))
    for game in result.records:
        assert game.termination is not Termination.GARBAGE, game.detail
        chatty_moves = [m for i, m in enumerate(game.moves) if (i % 2 == 0) == (game.black == "chatty")]
        assert len(chatty_moves) >= 2  # its second move, the one after the stray line, was played
    assert processes_in(tmp_path) == []


def test_two_engines_that_both_fail_to_start_draw(tmp_path):
    engines = [fake("refuses", "start-error"), fake("dies", "crash-on-start")]
    result = run_tournament(config(tmp_path / "out", engines, games=2))
    for game in result.records:
        assert game.termination is Termination.START_ERROR
        assert game.winner is None
        assert "refuses" in game.detail and "dies" in game.detail


def test_a_move_late_but_within_the_tolerance_counts(tmp_path):
    # 1.0 s late against a 0.5 s turn and 2 s of tolerance: slow, but forgiven.
    engines = [fake("good"), fake("slow", "slow", "--at", "2", "--delay-ms", "1000")]
    result = run_tournament(config(tmp_path / "out", engines, games=2, timeout_turn_ms=500, tolerance_ms=2000))
    for game in result.records:
        assert game.termination is not Termination.TIME, game.detail
        slow_moves = [m for i, m in enumerate(game.moves) if (i % 2 == 0) == (game.black == "slow")]
        assert max(ms for _, _, ms in slow_moves) >= 1000


@pytest.mark.parametrize("slow_move, loses", [(1, False), (2, True)])
def test_the_first_move_grace_forgives_the_first_move_alone(tmp_path, slow_move, loses):
    # 1.2 s against a 0.3 s turn and 0.3 s of tolerance: forgiven with 2 s of first-move grace on an engine's first
    # move of the game (a cold start lands there), a time loss on its second.
    engines = [fake("good"), fake("slow", "slow", "--at", str(slow_move), "--delay-ms", "1200")]
    result = run_tournament(config(tmp_path / "out", engines, games=2, timeout_turn_ms=300, tolerance_ms=300,
                                   first_move_grace_ms=2000))
    for game in result.records:
        if loses:
            assert (game.termination, game.winner) == (Termination.TIME, "good"), game.detail
            assert "(slow)" in game.detail
        else:
            assert game.termination is not Termination.TIME, game.detail


def test_the_match_clock_runs_out(tmp_path):
    # Each side has 3 s for the whole game; one 4 s move spends it (the turn limit alone would allow it), while the
    # good engine's few instant replies stay far inside it however busy the machine.
    engines = [fake("good"), fake("slow", "slow", "--at", "3", "--delay-ms", "4000")]
    result = run_tournament(config(tmp_path / "out", engines, games=2, timeout_turn_ms=5000,
                                   timeout_match_ms=3000, tolerance_ms=100))
    for game in result.records:
        assert (game.termination, game.winner) == (Termination.TIME, "good"), game.detail


def test_each_engine_is_held_to_its_own_clock(tmp_path):
    # Both engines take 0.8 s over their second move; the game allows 0.3 s a move, the patient engine 3 s of its
    # own (time odds): only the hasty one loses on time, in either colour.
    patient = dataclasses.replace(fake("patient", "slow", "--at", "2", "--delay-ms", "800"),
                                  clock=EngineClock(3000, 0))
    hasty = fake("hasty", "slow", "--at", "2", "--delay-ms", "800")
    result = run_tournament(config(tmp_path / "out", [patient, hasty], games=2, timeout_turn_ms=300,
                                   tolerance_ms=300))
    for game in result.records:
        assert (game.termination, game.winner) == (Termination.TIME, "patient"), game.detail
        assert "(hasty)" in game.detail  # killed at its own deadline: 300 ms + the tolerance


def test_an_engines_own_match_clock_runs_out_while_the_games_would_not(tmp_path):
    # A move of 1.5 s spends the 600 ms match clock given to one engine; the other has the game's 60 s.
    short = dataclasses.replace(fake("short", "slow", "--at", "3", "--delay-ms", "1500"), clock=EngineClock(5000, 600))
    long = fake("long", "slow", "--at", "3", "--delay-ms", "1500")
    result = run_tournament(config(tmp_path / "out", [short, long], games=2, timeout_turn_ms=5000,
                                   timeout_match_ms=60000, tolerance_ms=100))
    for game in result.records:
        assert (game.termination, game.winner) == (Termination.TIME, "long"), game.detail
        assert "(short)" in game.detail  # killed at its own match clock's deadline


def test_memory_over_the_limit_loses_only_when_asked(tmp_path):
    # A Python process needs far more than 1 MiB: the first engine to move (black) is over the limit.
    engines = [fake("one"), fake("two")]
    strict = run_tournament(config(tmp_path / "strict", engines, games=2, max_memory=1 << 20, memory_loses=True))
    for game in strict.records:
        assert game.termination is Termination.MEMORY
        assert game.winner == game.white
        assert game.moves == []
    lenient = run_tournament(config(tmp_path / "lenient", engines, games=2, max_memory=1 << 20))
    assert all(game.termination is not Termination.MEMORY for game in lenient.records)


def test_engine_children_are_killed_with_the_engine(tmp_path):
    engines = [fake("parent", "spawn-child", cwd=tmp_path), fake("good", cwd=tmp_path)]
    result = run_tournament(config(tmp_path / "out", engines, games=2))
    assert len(result.records) == 2
    assert processes_in(tmp_path) == []


def test_the_sprt_stops_the_run_once_it_decides(tmp_path):
    # Every pair ends 2-0, so H1 (elo1 = 200) is accepted after 8 pairs, long before the 40 scheduled games.
    engines = [fake("strong"), fake("weak", "crash", "--at", "1")]
    result = run_tournament(config(tmp_path / "out", engines, games=40, sprt=True, sprt_elo0=0.0, sprt_elo1=200.0))
    assert result.sprt_decision == "H1"
    assert len(result.records) == 16
    assert "H1 accepted" in result.sprt_line


def test_games_start_from_the_opening_given_by_board(tmp_path):
    engines = [fake("one"), fake("two")]
    result = run_tournament(config(tmp_path / "out", engines, games=2, random_openings=1, opening_stones=3))
    first, second = sorted(result.records, key=lambda r: r.game_id)
    assert len(first.opening) == 3 and first.opening == second.opening
    assert first.opening_id == "random:0" or first.opening_id.startswith("random")
    stones = set(map(tuple, first.opening))
    assert not stones & {(x, y) for x, y, _ in first.moves}


def test_openings_that_do_not_fit_are_skipped_with_a_warning(tmp_path):
    book = tmp_path / "book.txt"
    book.write_text("0,0, 1,0, 1,1\n"      # fits
                    "9,9, 1,1\n"           # off a 15x15 board
                    "not an opening\n"     # malformed
                    "0,0, 0,3, 1,0, 0,4, 2,0, 0,-3, 3,0, 0,-4, 4,0\n")  # black already has five
    engines = [fake("one"), fake("two")]
    result = run_tournament(config(tmp_path / "out", engines, games=4, openings_file=str(book)))
    assert [w.split(":")[:2] for w in result.warnings] == [["book.txt", "2"], ["book.txt", "3"], ["book.txt", "4"]]
    assert "already ends the game" in result.warnings[2]
    assert {tuple(map(tuple, game.opening)) for game in result.records} == {((7, 7), (8, 7), (8, 8))}
