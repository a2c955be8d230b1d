"""``monte play`` driven as a person drives it: the INSTALLED ``monte`` in a pseudo-terminal (pexpect), typing moves
and commands at the prompt and reading the screen. Engines think for 0.1 s a move; waits are generous bounds for a
shared machine, never speed assertions."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pexpect
import pytest

from monte.brain.board import Board
from monte.brain.rules import RULE_RENJU
from monte.tournaments.records import read_sgf

pytestmark = pytest.mark.filterwarnings("ignore:setDaemon:DeprecationWarning")  # inside pexpect 4.8

WAIT_S = 30.0
FAKE_BRAIN = Path(__file__).parent / "fakes" / "fake_brain.py"
PROMPT = r"to move: "
ENGINE_MOVE = re.compile(r"\((?:Monte|[\w-]+)[^)]*\) played ([A-O]\d+) in")


def spawn(monte: str, *args: str, tmp_path: Path, **options) -> pexpect.spawn:
    """``monte play ARGS`` in a 120-column pseudo-terminal, in `tmp_path`."""
    return pexpect.spawn(monte, ["play", *args], cwd=str(tmp_path), encoding="utf-8", timeout=WAIT_S,
                         dimensions=(50, 120), **options)


def _ignore_ctrl_c() -> None:
    """As a shell without job control starts a background job (a script's ``pytest &``): SIGINT ignored."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def type_line(child: pexpect.spawn, text: str) -> None:
    child.expect(PROMPT)
    child.sendline(text)


def test_bad_input_is_answered_and_undo_takes_back_the_move_pair(monte_executable, warm_pbrain, tmp_path):
    child = spawn(monte_executable, "--time", "0.1", tmp_path=tmp_path)
    child.expect("● black")  # on a terminal: Unicode stones (and colours)
    type_line(child, "h8")
    child.expect(ENGINE_MOVE)
    reply = child.match.group(1)
    type_line(child, "Z99")
    child.expect(r"Z99 is off the 15x15 board \(columns A-O, rows 1-15\)")
    type_line(child, "hello")
    child.expect(r"'hello' is not a point")
    type_line(child, "7,7")  # the protocol's x,y of H8
    child.expect("H8 is occupied")
    type_line(child, reply)
    child.expect(f"{reply} is occupied")
    type_line(child, "undo")
    child.expect("move 1: black")  # the board again, empty
    child.expect("took back 2 moves")
    type_line(child, "hint")
    child.expect(r"hint: ([A-O]\d+) \(win rate [\d.]+%")
    type_line(child, "quit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_a_whole_game_against_monte_ends_with_its_five_and_is_saved(monte_executable, warm_pbrain, tmp_path):
    """The person plays the edge of the board, far from Monte's stones; Monte makes five and the game is saved."""
    child = spawn(monte_executable, "--time", "0.1", "--ascii", tmp_path=tmp_path)
    ours = iter(f"{column}{row}" for row in (1, 15, 3, 13) for column in "ACEGIKMO")
    played: list[str] = []
    while True:
        index = child.expect([PROMPT, r"Game over: (.*)\.\r?\n"])
        if index == 1:
            break
        move = next(point for point in ours if point not in played)
        child.sendline(move)
        played.append(move)
        child.expect([ENGINE_MOVE, r"Game over: (.*)\.\r?\n"])
        if child.match.re is ENGINE_MOVE:
            played.append(child.match.group(1))
        else:
            break
    assert child.match.group(1).startswith("white (Monte) wins: five in a row with ")
    child.expect("game over")
    child.sendline("save finished.sgf")
    child.expect("saved: finished.sgf")
    child.sendline("quit")
    child.expect(pexpect.EOF)
    saved = read_sgf((tmp_path / "finished.sgf").read_text())
    assert saved.result == "W+" and (saved.black, saved.white) == ("human", "Monte")
    height = 15
    names = [f"{'ABCDEFGHIJKLMNO'[x]}{height - y}" for x, y, _ in saved.stones]
    assert names == played


def test_a_forbidden_renju_point_is_refused_and_shown_off_a_terminal(monte_executable, tmp_path):
    """Two people on a pipe (no terminal: plain ASCII); black's double three at I8 is refused, the game goes on."""
    moves = ["G8", "A1", "H8", "A3", "I10", "A5", "I9", "A7", "I8", "J8", "quit"]
    result = subprocess.run([monte_executable, "play", "--black", "human", "--white", "human", "--rule", "renju"],
                            input="\n".join(moves) + "\n", capture_output=True, text=True, timeout=WAIT_S)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "\x1b[" not in out and "●" not in out  # no colours, no Unicode off a terminal
    assert "I8 is forbidden for black under renju" in out
    board = Board(15, 15, RULE_RENJU)
    for x, y in [(6, 7), (0, 14), (7, 7), (0, 12), (8, 5), (0, 10), (8, 6), (0, 8)]:
        board.place(x, y, board.to_move)
    assert board.is_forbidden(8, 7)
    row_8 = next(line for line in out.split("black played I9")[1].splitlines() if line.startswith(" 8 "))
    assert row_8.split()[1:11] == [".", ".", ".", ".", ".", ".", "X", "X", "*", "."]
    assert "black played J8" in out  # refused, then another move: the game went on


def _processes_with(marker: str) -> list[int]:
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if marker in cmdline and "pytest" not in cmdline:
                pids.append(int(entry))
    return pids


@pytest.mark.parametrize("inherited", ["default", "ignored"])
def test_ctrl_c_while_monte_thinks_leaves_no_engine_behind(monte_executable, warm_pbrain, tmp_path, inherited):
    marker = f"--seed {os.getpid()}"  # the seed means nothing to Monte's search: it only marks the process
    child = spawn(monte_executable, "--white", f"pbrain-monte {marker}", "--time", "30", tmp_path=tmp_path,
                  preexec_fn=_ignore_ctrl_c if inherited == "ignored" else None)
    type_line(child, "h8")
    child.expect(r"white \(Monte --seed \d+\) thinking")
    engines = _processes_with(marker)
    assert engines, "the engine should be running while it thinks"
    child.sendintr()
    child.expect("interrupted")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130 or child.signalstatus == signal.SIGINT
    deadline = time.monotonic() + WAIT_S
    while _processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _processes_with(marker) == []


def test_an_engine_that_dies_at_start_is_named_with_what_it_said(monte_executable, tmp_path):
    """The engine's stderr is kept in a temporary file for the game (and removed after it) so the reason can quote
    its last line."""
    engine = f"{sys.executable} {FAKE_BRAIN} --mode crash-on-start"
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    child = spawn(monte_executable, "--white", engine, "--time", "1", "--ascii", tmp_path=tmp_path,
                  env={**os.environ, "TMPDIR": str(scratch)})
    child.expect(r"white \(.*crash-on-start\) failed to start: .*exited with code 4.*; "
                 r"its stderr ends: fake brain: told to exit at START")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus != 0
    assert not list(scratch.glob("monte-engine-*.stderr"))


def test_a_crashing_engine_loses_with_the_reason_named(monte_executable, tmp_path):
    engine = f"{sys.executable} {FAKE_BRAIN} --mode crash --at 2"
    child = spawn(monte_executable, "--white", engine, "--time", "1", "--ascii", tmp_path=tmp_path)
    type_line(child, "h8")
    child.expect(ENGINE_MOVE)
    type_line(child, "a1")
    child.expect(r"Game over: black \(you\) wins: white \(fake-crash --mode crash --at 2\): .*exited with code 3.*; "
                 r"its stderr ends: fake brain: told to crash at move 2")
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_two_engines_play_a_game_to_its_end_and_save_it(monte_executable, warm_pbrain, tmp_path):
    result = subprocess.run([monte_executable, "play", "--black", "monte", "--white", "pbrain-monte --engine random",
                             "--size", "9", "--time", "0.1", "--save", "ai.psq"], cwd=tmp_path, capture_output=True,
                            text=True, timeout=WAIT_S, stdin=subprocess.DEVNULL)
    assert result.returncode == 0, result.stderr
    assert re.search(r"Game over: black \(Monte\) wins: five in a row with [A-I]\d\.", result.stdout)
    saved = (tmp_path / "ai.psq").read_text().splitlines()
    assert saved[0].startswith("Piskvorky 9x9") and saved[-2:] == ["Monte", "Monte --engine random"]
