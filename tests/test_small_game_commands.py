"""``monte games`` played by a person at a terminal (pexpect drives the installed command), and a short ``monte seeds``
writing its report."""

from __future__ import annotations

import re
import subprocess

import pexpect

from monte.cli import main

ENDINGS = ["your move: ", "you win", "engine wins", "draw"]


def play_through(child: pexpect.spawn, tries: list[str]) -> tuple[str, list[str]]:
    """Answer every prompt with the next of `tries` that the game accepts; the game's last line, and the errors."""
    errors = []
    moves = iter(tries)
    while True:
        index = child.expect(ENDINGS + ["error: [^\r\n]*"], timeout=60)
        if index == len(ENDINGS):
            errors.append(child.after.strip())
            continue
        if index > 0:
            child.expect(pexpect.EOF, timeout=10)
            return ENDINGS[index], errors
        child.sendline(next(moves))


def test_a_person_never_beats_perfect_tictactoe_and_bad_moves_are_explained(monte_executable: str):
    child = pexpect.spawn(monte_executable, ["games", "tictactoe", "--engine", "perfect", "--seed", "3"],
                          encoding="utf-8", timeout=60)
    tries = ["z9", "b2", "b2"] + [f"{c}{r}" for r in "123" for c in "abc"]
    ending, errors = play_through(child, tries)
    assert ending in ("engine wins", "draw")
    assert errors[0] == "error: 'z9' is not a cell: give a column letter and a row number, a1 to c3"
    assert "error: b2 is taken" in errors
    child.close()
    assert child.exitstatus == 0


def test_connect_four_in_the_terminal_drops_stones_and_refuses_a_full_column(monte_executable: str):
    child = pexpect.spawn(monte_executable, ["games", "connect4", "--simulations", "300", "--first", "engine"],
                          encoding="utf-8", timeout=60)
    child.expect("engine plays ([1-7])")
    ending, errors = play_through(child, ["8"] + ["1"] * 7 + [str(c) for c in range(2, 8)] * 6)
    assert ending in ENDINGS[1:]
    assert errors[0] == "error: '8' is not a column: give a number from 1 to 7"
    assert all(re.fullmatch(r"error: ('8' is not a column.*|column \d is full)", e) for e in errors)
    child.close()
    assert child.exitstatus == 0


def test_a_person_can_quit_and_perfect_connect_four_is_refused_in_one_line(monte_executable: str):
    child = pexpect.spawn(monte_executable, ["games", "connect4"], encoding="utf-8", timeout=60)
    child.expect("your move: ")
    child.sendline("q")
    child.expect("bye")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    refused = subprocess.run([monte_executable, "games", "connect4", "--engine", "perfect"], capture_output=True,
                             text=True, timeout=60)
    assert refused.returncode == 2
    assert refused.stderr.strip().splitlines() == [
        "monte games: error: --engine perfect is for tic-tac-toe only: the Connect Four solver needs minutes to "
        "hours in the first moves"]


def test_monte_seeds_writes_every_section_with_its_command(tmp_path, capsys):
    out = tmp_path / "seeds.md"
    code = main(["seeds", "--out", str(out), "--ttt-games", "3", "--sweep", "5,500", "--c4-simulations", "50",
                 "--c4-games", "2", "--runs", "2", "--max-iterations", "100"])
    assert code == 0
    report = out.read_text()
    for heading in ("## Tic-tac-toe: UCT at 200 simulations", "## Tic-tac-toe: how few simulations",
                    "## Connect Four: UCT's exploration constant", "## How the chosen move and its value settle"):
        assert heading in report
    for section in ("tictactoe", "sweep", "connect4", "iterations"):
        assert re.search(rf"`monte seeds --only {section} .*--ttt-games 3 .*` -- [\d.]+ s \([\d.]+ s of CPU\)",
                         report), section
    assert "| 10. c=2 aware |" in report and "| 100 |" in report and "| 1000 |" not in report


def test_monte_seeds_only_prints_its_sections_and_leaves_the_report_alone(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["seeds", "--only", "tictactoe", "--ttt-games", "2"]) == 0
    printed = capsys.readouterr().out
    assert "## Tic-tac-toe: UCT at 200 simulations" in printed and "## Connect Four" not in printed
    assert "`monte seeds --only tictactoe --ttt-games 2` -- " in printed
    assert list(tmp_path.iterdir()) == []


def test_monte_seeds_refuses_bad_sizes_in_one_line(tmp_path, capsys):
    assert main(["seeds", "--out", str(tmp_path / "x.md"), "--c4-games", "3"]) == 2
    assert main(["seeds", "--out", str(tmp_path / "x.md"), "--sweep", "5,x"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["monte seeds: error: need positive counts, got --c4-games 3 (must be even: colours are swapped)",
                   "monte seeds: error: need positive counts, got --sweep 5,x"]
    assert not (tmp_path / "x.md").exists()


def test_monte_play_game_plays_a_small_game_as_monte_games_does(monte_executable: str):
    # the engine (UCT) is X when black is not a person, so the first prompt comes after its move
    child = pexpect.spawn(monte_executable, ["play", "--game", "tictactoe", "--black", "monte", "--white", "human"],
                          encoding="utf-8", timeout=60)
    child.expect("you are O against UCT")
    child.expect("engine plays [a-c][1-3]")
    ending, errors = play_through(child, [f"{c}{r}" for r in "123" for c in "abc"])
    assert ending in ("you win", "engine wins", "draw")
    assert all("is taken" in error for error in errors), errors
    child.close()
    assert child.exitstatus == 0
