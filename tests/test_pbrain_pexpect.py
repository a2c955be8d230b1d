"""pexpect drives the INSTALLED ``pbrain-monte`` the way a manager does: over pipes, a line at a time, with the
brain's stderr kept apart in a file so that stdout can be held to protocol lines only.

Replies are awaited for up to REPLY_S: a generous bound on a shared machine, never a speed assertion. The brain
gets a generous ``timeout_turn`` except where time is the point.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from importlib import metadata
from pathlib import Path

import pexpect
import pytest
from pexpect.popen_spawn import PopenSpawn

from monte.brain.baselines import RandomPlayer
from monte.brain.board import MOVE_FORBIDDEN, MOVE_WINS, Board
from monte.brain.player import ThinkLimits
from monte.brain.rules import RULE_CARO, RULE_EXACT_FIVE, RULE_FREESTYLE, RULE_RENJU
from monte.lab import clockcheck
from monte.lab.clockcheck import board_request

pytestmark = pytest.mark.filterwarnings("ignore:setDaemon:DeprecationWarning")  # inside pexpect 4.8

REPLY_S = 20.0
GENEROUS_TURN_MS = 20000
MOVE = re.compile(r"^(\d+),(\d+)$")
MIDDLE_GAME = "\n".join(board_request(clockcheck.MIDDLE_GAME))
"""A BOARD block of an undecided middle game, white to move."""


class Brain:
    """One ``pbrain-monte`` process on pipes, its stderr written to a file."""

    def __init__(self, executable: str, stderr_path: Path, *args: str) -> None:
        def stderr_to_file() -> None:  # runs in the child between fork and exec
            fd = os.open(stderr_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(fd, 2)
            os.close(fd)

        self.stderr_path = stderr_path
        self.child = PopenSpawn([executable, *args], timeout=REPLY_S, encoding="utf-8", preexec_fn=stderr_to_file)

    def send(self, line: str, end: str = "\n") -> None:
        self.child.send(line + end)

    def line(self) -> str:
        """The next line the brain prints, whatever it is."""
        self.child.expect("\n")
        return self.child.before

    def reply(self) -> str:
        """The next line that is not a MESSAGE."""
        while (line := self.line()).startswith("MESSAGE "):
            pass
        return line

    def ask(self, line: str) -> str:
        self.send(line)
        return self.reply()

    def move(self, line: str) -> tuple[int, int]:
        """Send a move request; the answered move (which must look like one)."""
        answer = self.ask(line)
        match = MOVE.match(answer)
        assert match, f"expected a move after {line!r}, got {answer!r}"
        return int(match.group(1)), int(match.group(2))

    def exit_status(self, timeout: float = REPLY_S) -> int:
        return self.child.proc.wait(timeout)

    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")

    def cpu_seconds(self) -> float:
        """The CPU time the brain's process has used so far (user and system, every thread)."""
        fields = Path(f"/proc/{self.child.proc.pid}/stat").read_text().rpartition(")")[2].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def wait_for_cpu(self, seconds: float) -> None:
        """Return once the brain has spent `seconds` more of CPU than now: it has worked that long, however busy
        the machine (a wall-clock nap would not say so); fail after REPLY_S."""
        target = self.cpu_seconds() + seconds
        give_up = time.monotonic() + REPLY_S
        while self.cpu_seconds() < target:
            assert time.monotonic() < give_up, f"the brain did not use {seconds} s of CPU in {REPLY_S:.0f} s"
            time.sleep(0.01)

    def kill(self) -> None:
        if self.child.proc.poll() is None:
            self.child.proc.kill()
            self.child.proc.wait(REPLY_S)


@pytest.fixture
def brain(warm_pbrain, tmp_path):
    """Start brains (greedy engine unless told otherwise); every one is killed at the end of the test."""
    started: list[Brain] = []

    def spawn(*args: str) -> Brain:
        brain = Brain(warm_pbrain, tmp_path / f"stderr-{len(started)}.txt", *(args or ("--engine", "greedy")))
        started.append(brain)
        return brain

    yield spawn
    for brain in started:
        brain.kill()


def started(brain, size: int = 15, *settings: str) -> Brain:
    """A brain with a game of `size` started and a generous turn time."""
    b = brain()
    assert b.ask(f"START {size}") == "OK"
    for line in (f"INFO timeout_turn {GENEROUS_TURN_MS}", *settings):
        b.send(line)
    return b


# --- whole games ---------------------------------------------------------------------------------------------

def play_out(b: Brain, board: Board, first_request: str, opponent_seed: int) -> None:
    """Play the brain against a seeded random opponent until someone wins, the board fills, or 20 brain moves;
    every brain move must be an empty, on-board cell and never a renju foul for black."""
    opponent = RandomPlayer(opponent_seed)
    request = first_request
    for _ in range(20):
        x, y = b.move(request)
        assert board.is_empty(x, y), f"{x},{y} is not an empty cell of the board"
        verdict = board.play(x, y)
        assert verdict != MOVE_FORBIDDEN, f"{x},{y} is a forbidden point for black"
        if verdict == MOVE_WINS or board.is_full():
            return
        choice = opponent.choose(board, ThinkLimits.seconds(1.0))
        if board.play(choice.x, choice.y) == MOVE_WINS or board.is_full():
            return
        b.send("INFO time_left 100000")
        request = f"TURN {choice.x},{choice.y}"


@pytest.mark.parametrize("rule", [RULE_FREESTYLE, RULE_EXACT_FIVE, RULE_RENJU, RULE_CARO])
def test_a_whole_game_as_black_gets_a_legal_move_for_every_request(brain, rule):
    b = started(brain, 15, f"INFO rule {rule}")
    play_out(b, Board(15, rule=rule), "BEGIN", opponent_seed=rule)


def test_a_whole_game_as_white_under_renju_gets_a_legal_move_for_every_request(brain):
    b = started(brain, 15, f"INFO rule {RULE_RENJU}")
    board = Board(15, rule=RULE_RENJU)
    board.play(7, 7)
    play_out(b, board, "TURN 7,7", opponent_seed=7)


def test_the_brain_wins_at_once_and_blocks_a_four(brain):
    b = started(brain)
    win = b.move("BOARD\n3,7,1\n4,7,1\n5,7,1\n6,7,1\n3,9,2\n4,9,2\n5,9,2\n9,2,2\nDONE")
    assert win in {(2, 7), (7, 7)}
    block = b.move("BOARD\n3,7,2\n4,7,2\n5,7,2\n6,7,2\n2,7,1\n10,10,1\n11,11,1\nDONE")
    assert block == (7, 7)


# --- game set-up -----------------------------------------------------------------------------------------------

def test_start_rectstart_and_restart_each_answer_ok_and_set_the_board(brain):
    b = brain()
    assert b.ask("START 15") == "OK"
    assert b.ask("RECTSTART 20,10") == "OK"
    x, y = b.move("BEGIN")
    assert 0 <= x < 20 and 0 <= y < 10
    assert b.ask("RESTART") == "OK"
    assert b.move("BEGIN") == (x, y)  # the board was empty again


def test_a_new_start_on_a_live_process_starts_a_new_game(brain):
    b = started(brain)
    b.move("BEGIN")
    b.move("TURN 0,0")
    assert b.ask("START 20") == "OK"
    assert b.move("BEGIN") == (10, 10)  # an empty 20x20 board: its centre


def test_about_names_monte_and_its_installed_version(brain):
    line = brain().ask("ABOUT")
    assert line.startswith('name="Monte", ')
    assert f'version="{metadata.version("monte-gomoku")}"' in line


def test_info_is_never_answered(brain):
    b = brain()
    for line in ("INFO timeout_turn 5000", "INFO timeout_match 180000", "INFO time_left 180000",
                 "INFO max_memory 367001600", "INFO game_type 1", "INFO rule 1", "INFO evaluate 7,7",
                 "INFO folder /tmp", "INFO some_future_key 42"):
        b.send(line)
    b.send("ABOUT")
    assert b.line().startswith('name="Monte"')  # the very next line: nothing came out for INFO


def test_continuous_rule_gets_one_message(brain):
    b = brain()
    b.send("INFO rule 2")
    assert b.line() == "MESSAGE continuous game (rule bit 2): Monte plays it as a normal game"


def test_takeback_answers_ok_and_frees_the_cell(brain):
    b = started(brain)
    x, y = b.move("BEGIN")
    assert b.ask(f"TAKEBACK {x},{y}") == "OK"
    assert b.move("BEGIN") == (x, y)


def test_play_echoes_the_move_and_takes_the_cell(brain):
    b = started(brain)
    assert b.ask("PLAY 7,7") == "7,7"
    assert b.ask("TURN 7,7") == "ERROR 7,7 is occupied"


# --- SWAP2BOARD ---------------------------------------------------------------------------------------------

STONE = r"\d+,\d+"


def test_swap2board_with_no_stones_answers_three_stones(brain):
    reply = started(brain).ask("SWAP2BOARD\nDONE")
    assert re.fullmatch(rf"{STONE} {STONE} {STONE}", reply), reply


def test_swap2board_with_three_stones_answers_swap_or_one_or_two_stones(brain):
    reply = started(brain).ask("SWAP2BOARD\n7,7\n8,7\n7,9\nDONE")
    assert re.fullmatch(rf"SWAP|{STONE}|{STONE} {STONE}", reply), reply


def test_swap2board_with_five_stones_answers_swap_or_one_stone(brain):
    reply = started(brain).ask("SWAP2BOARD\n7,7\n8,7\n7,9\n6,6\n9,9\nDONE")
    assert re.fullmatch(rf"SWAP|{STONE}", reply), reply


# --- time and stopping -----------------------------------------------------------------------------------------

def engine_loaded(b: Brain, patience_s: float = 120.0) -> None:
    """Short moves until the compiled engine answers one (a fresh brain's quick player answers while it loads). The
    requests are spaced out: back to back, the interpreted quick player would keep the loader thread from the GIL."""
    b.send("INFO timeout_turn 200")
    give_up = time.monotonic() + patience_s
    while time.monotonic() < give_up:
        b.send(MIDDLE_GAME)
        first = b.line()
        assert MOVE.match(b.reply())
        if first.startswith("MESSAGE Monte: "):
            return
        time.sleep(0.25)
    pytest.fail(f"the compiled engine never answered in {patience_s:.0f} s")


def test_yxstop_while_thinking_gets_the_move_and_is_not_answered_itself(brain):
    """With the default engine and a minute to think about an undecided middle game (not a forced move), YXSTOP
    must bring the move well within REPLY_S, after a search."""
    b = brain("--log", os.devnull)  # the default engine
    assert b.ask("START 15") == "OK"
    engine_loaded(b)
    b.send("INFO timeout_turn 60000")
    b.send(MIDDLE_GAME)
    b.wait_for_cpu(0.3)  # into the search, its root threat searches behind it, however busy the machine
    b.send("YXSTOP")
    summary = b.line()
    assert summary.startswith("MESSAGE Monte: ") and " 0 iterations " not in summary, summary
    assert MOVE.match(b.reply())
    assert b.ask("ABOUT").startswith('name="Monte"')


def test_end_exits_at_once_with_status_0_and_prints_nothing(brain):
    b = started(brain)
    b.send("END")
    assert b.exit_status() == 0
    with pytest.raises(pexpect.EOF):
        b.line()


def test_closed_stdin_exits_with_status_0_and_no_traceback(brain):
    b = started(brain)
    b.move("BEGIN")
    b.child.sendeof()
    assert b.exit_status() == 0
    assert "Traceback" not in b.stderr()


def test_info_max_node_gives_the_same_move_and_search_in_every_process(brain):
    answers = []
    for _ in range(2):
        b = brain("--engine", "mcts")
        assert b.ask("START 15") == "OK"
        b.send(f"INFO timeout_turn {GENEROUS_TURN_MS}")
        b.send("INFO max_node 20000")
        b.send(MIDDLE_GAME)
        summary, move = move_summary(b)
        answers.append((move, summary.split(" in ")[0]))  # the time is the clock's
    assert answers[0] == answers[1]
    iterations = int(answers[0][1].split(" iterations")[0].split()[-1])
    assert 0 < iterations <= 20000


def move_summary(b: Brain) -> tuple[str, str]:
    """(Monte's summary of the move's search, the move) for a move request just sent: the last summary before the
    move (a long search also reports while it thinks)."""
    summaries = []
    while (line := b.line()).startswith("MESSAGE "):
        if line.startswith("MESSAGE Monte: "):
            summaries.append(line)
    assert summaries, f"no summary before {line!r}"
    return summaries[-1], line


def test_a_long_search_reports_what_it_has_found_while_it_thinks(brain):
    b = brain("--engine", "mcts")
    assert b.ask("START 15") == "OK"
    engine_loaded(b)
    b.send("INFO timeout_turn 3000")
    b.send(MIDDLE_GAME)
    lines = []
    while (line := b.line()).startswith("MESSAGE "):
        lines.append(line)
    assert MOVE.match(line)
    progress = [text for text in lines if text.startswith("MESSAGE Monte: ") and "searching" in text]
    realtime = [text for text in lines if text.startswith("MESSAGE depth ")]
    assert progress, lines  # at least one report a second into a 3 s search, before the move's own
    assert len(realtime) == len(progress) + 1  # each report and the move's carry the realtime line for GUIs
    assert "searching" not in lines[-2]  # the move's own summary comes last, with the realtime line after it


def test_timeout_turn_zero_still_gets_a_move(brain):
    b = started(brain, 15, "INFO timeout_turn 0")
    assert b.move("BEGIN") == (7, 7)


# --- line ends ---------------------------------------------------------------------------------------------------

def test_cr_lf_cr_and_blank_lines_are_all_accepted(brain):
    b = brain()
    b.send("START 15", end="\r\n")
    assert b.reply() == "OK"
    b.send("", end="\r\n\n\r")
    b.send("ABOUT", end="\r")
    assert b.reply().startswith('name="Monte"')
    b.send("begin", end="\n")
    assert MOVE.match(b.reply())


# --- bad input -----------------------------------------------------------------------------------------------
# Two long-lived brains take every case (a process start costs most of a second): one that never starts a game,
# for the cases before START, and one that gets a fresh START before each case.

@pytest.fixture(scope="module")
def gameless_brain(warm_pbrain, tmp_path_factory):
    b = Brain(warm_pbrain, tmp_path_factory.mktemp("gameless") / "stderr.txt", "--engine", "greedy")
    yield b
    b.kill()


@pytest.fixture(scope="module")
def playing_brain(warm_pbrain, tmp_path_factory):
    b = Brain(warm_pbrain, tmp_path_factory.mktemp("playing") / "stderr.txt", "--engine", "greedy")
    yield b
    b.kill()


def still_answers(b: Brain) -> None:
    """The brain answers the next command, and nothing went wrong behind the scenes."""
    assert b.ask("ABOUT").startswith('name="Monte"')
    assert "Traceback" not in b.stderr()


@pytest.mark.parametrize("bad, answer", [
    ("FROBNICATE", "UNKNOWN FROBNICATE"),
    ("BEGIN", "ERROR no game: send START first"),
    ("TURN 7,7", "ERROR no game: send START first"),
    ("BOARD\n7,7,1\nDONE", "ERROR no game: send START first"),
    ("START 0", "ERROR board size 0x0 is outside 5..32"),
    ("START 99", "ERROR board size 99x99 is outside 5..32"),
    ("START x", "ERROR bad board size 'x': expected an integer"),
    ("RECTSTART 40,10", "ERROR board size 40x10 is outside 5..32"),
])
def test_bad_input_before_a_game_gets_an_answer_and_the_brain_goes_on(gameless_brain, bad, answer):
    assert gameless_brain.ask(bad) == answer
    still_answers(gameless_brain)


@pytest.mark.parametrize("setup, bad, answer", [
    ([], "TURN 7", "ERROR bad coordinates '7': expected 2 comma-separated integers"),
    ([], "TURN x,y", "ERROR bad coordinates 'x,y': expected 2 comma-separated integers"),
    ([], "TURN 15,3", "ERROR 15,3 is off the 15x15 board"),
    ([], "TURN -1,3", "ERROR -1,3 is off the 15x15 board"),
    (["PLAY 3,3"], "TURN 3,3", "ERROR 3,3 is occupied"),
    ([], "BOARD\n7,7,1\n7,7\n8,8,2\nDONE",
     "ERROR line 2 of the block: bad block line '7,7': expected 3 comma-separated integers"),
    ([], "BOARD\n7,7,5\nDONE", "ERROR line 1 of the block: field 5 is not 1, 2 or 3"),
    ([], "SWAP2BOARD\n7,7\nDONE", "ERROR SWAP2BOARD needs 0, 3 or 5 stones, not 1"),
    ([], "TAKEBACK 4,4", "ERROR 4,4 holds no stone to take back"),
])
def test_bad_input_in_a_game_gets_an_answer_and_the_brain_goes_on(playing_brain, setup, bad, answer):
    for line in ["START 15", *setup]:
        playing_brain.ask(line)
    assert playing_brain.ask(bad) == answer
    still_answers(playing_brain)


def test_warmup_flag_exits_0_with_one_line_on_stderr(warm_pbrain):
    result = subprocess.run([warm_pbrain, "--warmup"], capture_output=True, text=True, timeout=REPLY_S * 5)
    assert result.returncode == 0
    assert result.stdout == ""
    assert re.fullmatch(r"pbrain-monte: warm-up of .+ took \d+\.\d\d s\n", result.stderr)


def test_unknown_engine_is_refused_with_one_line(pbrain_executable):
    result = subprocess.run([pbrain_executable, "--engine", "nope"], capture_output=True, text=True, timeout=REPLY_S)
    assert result.returncode == 2
    assert "invalid choice: 'nope'" in result.stderr
    assert "Traceback" not in result.stderr
