"""The brain's protocol loop driven in-process: a scripted list of command lines in, the answered lines out.

Also the stdin reader thread and the line splitter, over a real pipe, for YXSTOP and END while thinking.
"""

from __future__ import annotations

import io
import os
import threading
import time
from importlib import metadata

import pytest

from monte.brain.baselines import GreedyPlayer
from monte.brain.board import BLACK, EMPTY, WALL, WHITE, Board
from monte.brain.player import MoveChoice, ThinkLimits
from monte.brain.rules import RULE_CONTINUOUS, RULE_RENJU
from monte.brain.swap2 import balanced_opening
from monte.brain.timecontrol import move_budget
from monte.protocol.session import COMMANDS, DEFAULT_TIMEOUT_TURN_MS, MAX_LINE_CHARS, Session, about_line
from monte.protocol.stdio import MAX_LINE_BYTES, Command, LineSplitter, LineWriter, StdinReader

WAIT_S = 10.0  # generous bound for a thread to react on a busy machine; never a speed assertion


class RecordingPlayer(GreedyPlayer):
    """The greedy player, recording what the session asked of it."""

    def __init__(self) -> None:
        self.warm_ups = 0
        self.new_games = 0
        self.limits: list[ThinkLimits] = []

    def warm_up(self) -> None:
        self.warm_ups += 1

    def new_game(self, board) -> None:
        self.new_games += 1

    def choose(self, board, limits):
        self.limits.append(limits)
        return super().choose(board, limits)


class FixedPlayer(RecordingPlayer):
    """Always answers the same move (legal or not), with an optional info line and evaluation."""

    def __init__(self, x: int, y: int, info: str | None = None, evaluation: float = 0.0) -> None:
        super().__init__()
        self.move = MoveChoice(x, y, info)
        self.evaluation = evaluation

    def choose(self, board, limits):
        self.limits.append(limits)
        return self.move

    def evaluate(self, board) -> float:
        return self.evaluation


class Opinionated(RecordingPlayer):
    """The greedy player's moves with a fixed evaluation."""

    def __init__(self, evaluation: float) -> None:
        super().__init__()
        self.evaluation = evaluation

    def evaluate(self, board) -> float:
        return self.evaluation


class PreparingPlayer(RecordingPlayer):
    """Records the (rule, max_memory) of every ``prepare``."""

    def __init__(self) -> None:
        super().__init__()
        self.prepared: list[tuple[int, int]] = []

    def prepare(self, board, max_memory) -> None:
        self.prepared.append((board.rule, max_memory))


class FailingPlayer(RecordingPlayer):
    def __init__(self, text: str = "kaboom") -> None:
        super().__init__()
        self.text = text

    def choose(self, board, limits):
        raise RuntimeError(self.text)


def run(*lines: str, player=None) -> tuple[list[str], Session]:
    """Run a session over `lines`; the lines it sent and the session itself."""
    sent: list[str] = []
    session = Session(player or RecordingPlayer(), sent.append, [Command(line) for line in lines])
    session.run()
    return sent, session


def moves(sent: list[str]) -> list[str]:
    """The sent lines without MESSAGE lines."""
    return [line for line in sent if not line.startswith("MESSAGE")]


def point(line: str) -> tuple[int, int]:
    x, y = line.split(",")
    return int(x), int(y)


# --- START, RECTSTART, RESTART ------------------------------------------------------------------------------

def test_start_answers_ok_with_an_empty_square_board():
    sent, session = run("START 15")
    assert sent == ["OK"]
    assert (session.board.width, session.board.height, session.board.stone_count) == (15, 15, 0)


def test_start_warms_the_player_up_and_starts_its_game_before_answering_ok():
    player = RecordingPlayer()
    run("START 20", player=player)
    assert (player.warm_ups, player.new_games) == (1, 1)


@pytest.mark.parametrize("argument", ["0", "4", "33", "99", "x", "", "15,15", "-5"])
def test_start_with_a_bad_size_answers_error_and_keeps_going(argument):
    sent, session = run(f"START {argument}".strip(), "ABOUT")
    assert sent[0].startswith("ERROR ")
    assert sent[1] == about_line()
    assert session.board is None


def test_failed_start_keeps_the_game_that_was_running():
    sent, session = run("START 15", "BEGIN", "START 99")
    assert sent[-1].startswith("ERROR ")
    assert session.board.stone_count == 1


def test_rectstart_makes_a_rectangular_board():
    sent, session = run("RECTSTART 20,10")
    assert sent == ["OK"]
    assert (session.board.width, session.board.height) == (20, 10)


@pytest.mark.parametrize("argument", ["4,10", "10,33", "10", "a,b", "10,10,10"])
def test_rectstart_with_a_bad_size_answers_error(argument):
    assert run(f"RECTSTART {argument}")[0][0].startswith("ERROR ")


def test_restart_clears_the_board_and_keeps_its_size():
    sent, session = run("RECTSTART 12,9", "BEGIN", "RESTART")
    assert sent[-1] == "OK"
    assert (session.board.width, session.board.height, session.board.stone_count) == (12, 9, 0)


def test_restart_before_start_answers_error():
    assert run("RESTART")[0] == ["ERROR no game: send START first"]


def test_a_new_start_on_a_live_session_starts_a_new_game():
    sent, session = run("START 15", "BEGIN", "TURN 0,0", "START 20", "TURN 10,10")
    assert moves(sent)[-2] == "OK"
    assert session.board.width == 20 and session.board.stone_count == 2
    assert session.board.at(*point(moves(sent)[-1])) == WHITE
    assert session.me == WHITE  # the first TURN of the new game made us white again


def test_settings_survive_a_new_start():
    _, session = run("START 15", "INFO timeout_turn 1234", "START 20")
    assert session.settings.timeout_turn == 1234


# --- who is black ---------------------------------------------------------------------------------------------

def test_begin_makes_us_black_and_plays_the_centre():
    sent, session = run("START 15", "BEGIN")
    assert moves(sent) == ["OK", "7,7"]
    assert session.me == BLACK
    assert session.board.at(7, 7) == BLACK


def test_first_turn_on_an_empty_board_makes_us_white():
    sent, session = run("START 15", "TURN 7,7")
    assert session.me == WHITE
    assert session.board.at(7, 7) == BLACK
    x, y = point(moves(sent)[-1])
    assert session.board.at(x, y) == WHITE


def test_board_with_equal_stone_counts_makes_us_black():
    _, session = run("START 15", "BOARD", "7,7,1", "8,8,2", "DONE")
    assert session.me == BLACK
    assert session.board.at(7, 7) == BLACK and session.board.at(8, 8) == WHITE


def test_board_with_one_more_opponent_stone_makes_us_white():
    _, session = run("START 15", "BOARD", "7,7,2", "DONE")
    assert session.me == WHITE
    assert session.board.at(7, 7) == BLACK


def test_board_keeps_the_given_move_order_under_renju():
    _, session = run("START 15", f"INFO rule {RULE_RENJU}", "BOARD", "9,9,2", "7,7,1", "8,8,2", "DONE")
    history = [(m.x, m.y, m.color) for m in session.board.history[:3]]
    assert history == [(9, 9, BLACK), (7, 7, WHITE), (8, 8, BLACK)]


def test_board_marker_stone_becomes_a_wall_for_both_sides():
    _, session = run("START 15", "BOARD", "7,7,3", "DONE")
    board = session.board
    assert board.cells[board.index(7, 7)] == WALL
    assert [(m.x, m.y, m.color) for m in board.history if (m.x, m.y) == (7, 7)] == [(7, 7, WALL)]
    assert board.stone_count == 2  # the marker and our answer: a full board is detected with markers too


def test_board_replaces_the_previous_position():
    _, session = run("START 15", "BEGIN", "TURN 0,0", "BOARD", "3,3,2", "DONE")
    assert session.board.at(7, 7) == EMPTY
    assert session.board.at(3, 3) == BLACK


def test_board_answers_with_a_move_on_an_empty_cell():
    sent, session = run("START 15", "BOARD", "7,7,1", "8,7,2", "DONE")
    x, y = point(moves(sent)[-1])
    assert (x, y) not in {(7, 7), (8, 7)} and session.board.at(x, y) == BLACK


# --- moves ----------------------------------------------------------------------------------------------------

def test_turn_answers_a_move_and_plays_it_as_ours():
    sent, session = run("START 15", "BEGIN", "TURN 8,8")
    x, y = point(moves(sent)[-1])
    assert session.board.at(8, 8) == WHITE
    assert session.board.at(x, y) == BLACK
    assert session.board.stone_count == 3


def test_the_brain_completes_its_own_five():
    sent, _ = run("START 15", "BOARD", "3,7,1", "4,7,1", "5,7,1", "6,7,1", "3,9,2", "4,9,2", "5,9,2", "9,2,2", "DONE")
    assert moves(sent)[-1] in {"2,7", "7,7"}


def test_the_brain_blocks_the_opponents_four():
    sent, _ = run("START 15", "BOARD", "3,7,2", "4,7,2", "5,7,2", "6,7,2", "2,7,1", "10,10,1", "11,11,1", "DONE")
    assert moves(sent)[-1] == "7,7"


def test_one_message_line_precedes_the_move_when_the_player_gives_info():
    sent, _ = run("START 15", "BEGIN", player=FixedPlayer(3, 3, "depth 1\nnodes 9"))
    assert sent == ["OK", "MESSAGE depth 1 nodes 9", "3,3"]


def test_no_message_line_when_the_player_gives_no_info():
    sent, _ = run("START 15", "BEGIN", player=FixedPlayer(3, 3))
    assert sent == ["OK", "3,3"]


def test_an_occupied_choice_from_the_player_is_replaced_by_a_legal_move():
    sent, session = run("START 15", "TURN 3,3", player=FixedPlayer(3, 3))
    x, y = point(sent[-1])
    assert (x, y) != (3, 3) and session.board.at(x, y) == WHITE


def test_a_forbidden_choice_for_black_under_renju_is_replaced_by_a_legal_move():
    stones = ["5,7,1", "6,7,1", "7,5,1", "7,6,1", "1,1,2", "13,1,2", "1,13,2", "13,13,2"]
    sent, session = run("START 15", f"INFO rule {RULE_RENJU}", "BOARD", *stones, "DONE", player=FixedPlayer(7, 7))
    x, y = point(sent[-1])
    assert (x, y) != (7, 7)
    assert session.board.at(x, y) == BLACK


def test_the_player_gets_limits_from_the_budget_counted_from_the_arrival_of_the_line():
    player = RecordingPlayer()
    sent: list[str] = []
    begin = Command("BEGIN", arrived=1000.0)
    script = [Command("START 15"), Command("INFO timeout_turn 2000"), Command("INFO max_memory 123456"), begin]
    Session(player, sent.append, script).run()
    limits = player.limits[-1]
    soft, hard = move_budget(2000, 0, 2147483647, 0, 225)
    assert (limits.soft_deadline, limits.hard_deadline) == (1000.0 + soft, 1000.0 + hard)
    assert limits.max_memory == 123456
    assert limits.stop is begin.stop


def test_info_max_node_gives_every_move_that_node_budget():
    player = RecordingPlayer()
    Session(player, [].append, [Command("START 15"), Command("INFO max_node 5000"), Command("BEGIN")]).run()
    assert player.limits[-1].max_nodes == 5000


def test_info_thread_num_gives_every_move_that_many_threads_and_one_by_default():
    player = RecordingPlayer()
    Session(player, [].append, [Command("START 15"), Command("BEGIN"), Command("INFO thread_num 2"),
                                Command("TURN 3,3")]).run()
    assert [limits.threads for limits in player.limits] == [1, 2]


def test_the_time_left_sent_before_a_move_shapes_its_limits():
    player = RecordingPlayer()
    Session(player, [].append, [Command("START 15"), Command("INFO time_left 0"), Command("BEGIN", arrived=5.0)]).run()
    assert (player.limits[-1].soft_deadline, player.limits[-1].hard_deadline) == (5.0, 5.0)


def test_the_default_turn_limit_applies_until_info_says_otherwise():
    _, session = run("START 15")
    assert session.settings.timeout_turn == DEFAULT_TIMEOUT_TURN_MS


# --- bad input ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("lines, error", [
    (["BEGIN"], "ERROR no game: send START first"),
    (["TURN 7,7"], "ERROR no game: send START first"),
    (["START 15", "TURN 15,0"], "ERROR 15,0 is off the 15x15 board"),
    (["START 15", "TURN -1,3"], "ERROR -1,3 is off the 15x15 board"),
    (["START 15", "TURN 7"], "ERROR bad coordinates '7': expected 2 comma-separated integers"),
    (["START 15", "TURN a,b"], "ERROR bad coordinates 'a,b': expected 2 comma-separated integers"),
    (["START 15", "TURN"], "ERROR bad coordinates '': expected 2 comma-separated integers"),
    (["START 15", "TURN 7,7", "TURN 7,7"], "ERROR 7,7 is occupied"),
    (["START 15", "BEGIN", "BEGIN"], "ERROR BEGIN needs an empty board; it holds 1 stone(s)"),
    (["START 15", "TAKEBACK 3,3"], "ERROR 3,3 holds no stone to take back"),
    (["START 15", "PLAY 3,3", "PLAY 3,3"], "ERROR 3,3 is occupied"),
    (["START 15", "PLAY 30,3"], "ERROR 30,3 is off the 15x15 board"),
])
def test_bad_input_gets_an_error_naming_what_was_wrong(lines, error):
    sent, _ = run(*lines, "ABOUT")
    assert sent[-2:] == [error, about_line()]


def test_a_rejected_turn_leaves_the_board_unchanged():
    _, session = run("START 15", "TURN 7,7", "TURN 7,7")
    assert session.board.stone_count == 2


def test_unknown_command_answers_unknown_with_the_line():
    sent, _ = run("FROBNICATE 1,2", "ABOUT")
    assert sent == ["UNKNOWN FROBNICATE 1,2", about_line()]


@pytest.mark.parametrize("bad_line, what", [
    ("7,7", "expected 3 comma-separated integers"),
    ("7,7,4", "field 4 is not 1, 2 or 3"),
    ("15,7,1", "15,7 is off the 15x15 board"),
    ("8,8,1", "8,8 is given twice"),
    ("x,y,z", "expected 3 comma-separated integers"),
])
def test_board_with_a_bad_line_reads_to_done_answers_error_and_leaves_the_board_unchanged(bad_line, what):
    sent, session = run("START 15", "TURN 1,1", "BOARD", "8,8,2", bad_line, "9,9,1", "DONE", "ABOUT")
    assert sent[-2].startswith("ERROR line 2 of the block: ") and what in sent[-2]
    assert sent[-1] == about_line()
    assert session.board.stone_count == 2 and session.board.at(1, 1) == BLACK


def test_board_before_start_reads_to_done_then_answers_error():
    sent, _ = run("BOARD", "7,7,1", "DONE", "ABOUT")
    assert sent == ["ERROR no game: send START first", about_line()]


def test_board_cut_off_by_the_end_of_input_answers_error():
    sent, _ = run("START 15", "BOARD", "7,7,1")
    assert sent[-1] == "ERROR input ended before DONE"


def test_an_exception_inside_a_handler_answers_internal_error_and_the_loop_goes_on():
    sent, _ = run("START 15", "BEGIN", "ABOUT", player=FailingPlayer())
    assert sent == ["OK", "ERROR internal: RuntimeError: kaboom", about_line()]


def test_an_error_or_unknown_line_stays_one_line_of_bounded_length_whatever_it_quotes():
    sent, _ = run("START 15", "BEGIN", player=FailingPlayer("two\nlines\u2028and\x0cmore"))
    assert sent[-1] == "ERROR internal: RuntimeError: two lines and more"
    sent, _ = run("FROB\u2028" + "x" * 100_000)
    assert sent[0].startswith("UNKNOWN FROB xxx") and sent[0].endswith("...") and len(sent[0]) == MAX_LINE_CHARS
    assert sent[0].splitlines() == [sent[0]]


def test_end_inside_a_board_block_ends_the_session_after_one_error():
    sent, session = run("START 15", "BOARD", "7,7,1", "END", "ABOUT")
    assert sent == ["OK", "ERROR END came before DONE"]
    assert not session.running


def test_commands_are_case_insensitive():
    sent, _ = run("start 15", "Begin", "about")
    assert moves(sent) == ["OK", "7,7", about_line()]


def test_full_board_answers_error_instead_of_a_move():
    stones = [f"{x},{y},{1 if (x + 2 * y) % 4 < 2 else 2}" for y in range(5) for x in range(5)]
    sent, _ = run("START 5", "BOARD", *stones, "DONE")
    assert sent[-1] == "ERROR the board is full"


# --- INFO -----------------------------------------------------------------------------------------------------

def test_every_info_key_is_stored_and_never_answered():
    sent, session = run(
        "START 15", "INFO timeout_turn 5000", "INFO timeout_match 180000", "INFO time_left -20",
        "INFO max_memory 350000000", "INFO game_type 2", "INFO rule 1", "INFO evaluate 3,4", "INFO folder /tmp/x y",
    )
    assert sent == ["OK"]
    s = session.settings
    assert (s.timeout_turn, s.timeout_match, s.time_left, s.max_memory, s.game_type, s.rule) == (
        5000, 180000, -20, 350000000, 2, 1)
    assert (s.evaluate, s.folder) == ("3,4", "/tmp/x y")


def test_info_keys_are_case_insensitive():
    _, session = run("INFO TIMEOUT_TURN 777")
    assert session.settings.timeout_turn == 777


def test_unknown_info_key_is_ignored_silently():
    sent, _ = run("INFO colour purple", "INFO", "ABOUT")
    assert sent == [about_line()]


@pytest.mark.parametrize("line", ["INFO timeout_turn abc", "INFO max_memory -1", "INFO rule", "INFO time_left 1.5",
                                  "INFO thread_num 0", "INFO thread_num -2", "INFO thread_num two"])
def test_malformed_info_value_is_ignored_with_one_message_and_the_old_value_kept(line):
    sent, session = run("INFO timeout_turn 900", "INFO max_memory 5", "INFO rule 4", "INFO time_left 60",
                        "INFO thread_num 3", line)
    assert len(sent) == 1 and sent[0].startswith("MESSAGE ignored INFO ")
    s = session.settings
    assert (s.timeout_turn, s.max_memory, s.rule, s.time_left, s.thread_num) == (900, 5, 4, 60, 3)


def test_info_rule_applies_to_the_current_board_and_later_games():
    _, session = run("START 15", f"INFO rule {RULE_RENJU}")
    assert session.board.rule == RULE_RENJU
    _, session = run(f"INFO rule {RULE_RENJU}", "START 15")
    assert session.board.rule == RULE_RENJU


def test_continuous_rule_bit_gets_one_message_saying_it_is_played_as_a_normal_game():
    sent, _ = run("START 15", f"INFO rule {RULE_CONTINUOUS | 1}")
    assert sent[1:] == ["MESSAGE continuous game (rule bit 2): Monte plays it as a normal game"]


# --- END, ABOUT, TAKEBACK, PLAY, YXSTOP ------------------------------------------------------------------------

def test_end_stops_the_session_without_an_answer():
    sent, session = run("START 15", "END", "BEGIN")
    assert sent == ["OK"]
    assert not session.running


def test_about_names_monte_and_the_installed_version():
    line = run("ABOUT")[0][0]
    assert line.startswith('name="Monte", ')
    assert f'version="{metadata.version("monte-gomoku")}"' in line
    for key in ("author", "country", "www"):
        assert f', {key}="' in line


def test_takeback_removes_the_stone_and_answers_ok():
    sent, session = run("START 15", "BEGIN", "TURN 3,3", "TAKEBACK 3,3")
    assert sent[-1] == "OK"
    assert session.board.at(3, 3) == EMPTY


def test_play_echoes_the_move_and_plays_it_as_ours():
    sent, session = run("START 15", "TURN 7,7", "PLAY 8,8")
    assert sent[-1] == "8,8"
    assert session.board.at(8, 8) == session.me == WHITE


def test_play_on_a_fresh_board_makes_us_black():
    sent, session = run("START 15", "PLAY 2,2")
    assert sent == ["OK", "2,2"]
    assert session.me == BLACK and session.board.at(2, 2) == BLACK


def test_yxstop_with_nothing_to_stop_is_not_answered():
    sent, _ = run("START 15", "YXSTOP", "ABOUT")
    assert sent == ["OK", about_line()]


def test_every_protocol_command_has_a_handler():
    assert set(COMMANDS) == {"START", "RECTSTART", "RESTART", "BEGIN", "TURN", "BOARD", "SWAP2BOARD", "INFO", "END",
                             "ABOUT", "TAKEBACK", "PLAY", "YXSTOP"}


# --- SWAP2BOARD -----------------------------------------------------------------------------------------------

def test_swap2board_with_no_stones_answers_three_distinct_empty_stones():
    sent, session = run("START 15", "SWAP2BOARD", "DONE")
    stones = [point(part) for part in sent[-1].split()]
    assert len(set(stones)) == 3
    assert [session.board.at(x, y) for x, y in stones] == [BLACK, WHITE, BLACK]
    assert session.me is None


OPENING = ["SWAP2BOARD", "7,7", "8,7", "7,9"]


def test_swap2board_with_three_stones_swaps_when_white_looks_worse():
    sent, session = run("START 15", *OPENING, "DONE", player=Opinionated(-0.9))
    assert sent[-1] == "SWAP"
    assert session.me == BLACK and session.board.stone_count == 3


def test_swap2board_with_three_stones_plays_the_fourth_move_when_white_looks_better():
    sent, session = run("START 15", *OPENING, "DONE", player=Opinionated(0.9))
    (x, y), = [point(part) for part in sent[-1].split()]
    assert session.me == WHITE and session.board.at(x, y) == WHITE
    assert session.board.stone_count == 4


def test_swap2board_with_three_near_even_stones_adds_two_and_leaves_the_choice():
    sent, session = run("START 15", *OPENING, "DONE", player=Opinionated(0.0))
    stones = [point(part) for part in sent[-1].split()]
    assert len(stones) == 2
    assert [session.board.at(x, y) for x, y in stones] == [WHITE, BLACK]
    assert session.me is None


@pytest.mark.parametrize("evaluation, reply", [(-0.1, "SWAP"), (0.1, "3,3")])
def test_swap2board_with_five_stones_swaps_or_plays_the_sixth_move(evaluation, reply):
    sent, _ = run("START 15", *OPENING, "6,6", "9,9", "DONE", player=FixedPlayer(3, 3, evaluation=evaluation))
    assert sent[-1] == reply


def test_swap2board_two_stones_share_the_moves_time_the_first_gets_half():
    player = Opinionated(0.0)
    done = Command("DONE")
    Session(player, [].append, [Command(line) for line in ("START 15", "INFO timeout_turn 10000", *OPENING)] + [done]
            ).run()
    after = time.monotonic()
    first, second = player.limits
    hard = done.arrived + move_budget(10000, 0, 2147483647, 3, 222).hard
    assert second.hard_deadline == hard
    assert first.hard_deadline <= (after + hard) / 2  # half of what was left when the first search began
    assert first.stop is second.stop is done.stop


def test_swap2board_with_no_stones_stops_choosing_when_its_time_is_up():
    evaluations = []

    def evaluate(board):
        evaluations.append(board.stone_count)
        return 0.5

    stones = balanced_opening(Board(15), evaluate, ThinkLimits.seconds(0.0))
    assert len(stones) == 3 and len(set(stones)) == 3
    assert len(evaluations) == 23  # the blacks of the first white stone only, of 24 x 23 pairs


def test_info_rule_and_max_memory_prepare_the_player_for_the_game():
    player = PreparingPlayer()
    run("START 15", f"INFO rule {RULE_RENJU}", "INFO max_memory 123456", "INFO timeout_turn 5", player=player)
    assert player.prepared == [(0, 0), (RULE_RENJU, 0), (RULE_RENJU, 123456)]


def test_swap2board_with_a_wrong_stone_count_answers_error():
    sent, _ = run("START 15", "SWAP2BOARD", "7,7", "8,8", "DONE", "ABOUT")
    assert sent[-2:] == ["ERROR SWAP2BOARD needs 0, 3 or 5 stones, not 2", about_line()]


def test_swap2board_with_a_bad_line_answers_error():
    sent, _ = run("START 15", "SWAP2BOARD", "7,7", "8,x", "9,9", "DONE")
    assert sent[-1].startswith("ERROR line 2 of the block: ")


# --- the reader thread, the splitter and the writer -----------------------------------------------------------

@pytest.mark.parametrize("data, lines", [
    (b"START 15\r\nBEGIN\r\n", ["START 15", "BEGIN"]),
    (b"START 15\nBEGIN\n", ["START 15", "BEGIN"]),
    (b"START 15\rBEGIN\r", ["START 15", "BEGIN"]),
    (b"\r\n\n  \nSTART 15\n\r\n", ["START 15"]),
    (b"  TURN 7,7  \n", ["TURN 7,7"]),
    (b"ABOUT\xff\n", ["ABOUT\ufffd"]),
])
def test_splitter_accepts_every_line_end_and_drops_blank_lines(data, lines):
    splitter = LineSplitter()
    assert splitter.feed(data) + splitter.finish() == lines


def test_splitter_ends_a_line_at_a_cr_without_waiting_for_the_next_chunk():
    splitter = LineSplitter()
    assert splitter.feed(b"START 15\r") == ["START 15"]
    assert splitter.feed(b"\nBEGIN") == []
    assert splitter.finish() == ["BEGIN"]


def test_splitter_cuts_a_line_of_megabytes_to_its_first_max_line_bytes_and_reads_on():
    splitter = LineSplitter()
    chunk = b"x" * 65536
    lines = []
    for _ in range(128):  # 8 MB without a line end, in the reader's chunks
        lines += splitter.feed(chunk)
    lines += splitter.feed(b"y\nABOUT\n")
    assert lines == ["x" * MAX_LINE_BYTES, "ABOUT"]


def test_writer_sends_each_line_with_a_newline_at_once():
    stream = io.BytesIO()
    LineWriter(stream).send("7,7")
    assert stream.getvalue() == b"7,7\n"


class WaitingPlayer(RecordingPlayer):
    """Thinks until its stop event is set (or WAIT_S passes), then plays 1,1."""

    def __init__(self) -> None:
        super().__init__()
        self.thinking = threading.Event()
        self.stopped = False

    def choose(self, board, limits):
        self.limits.append(limits)
        self.thinking.set()
        self.stopped = limits.stop.wait(WAIT_S)
        return MoveChoice(1, 1)


def wait_for(condition, timeout: float = WAIT_S) -> bool:
    give_up = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > give_up:
            return False
        time.sleep(0.01)
    return True


def thinking_session(batch: bytes = b"START 15\nINFO timeout_turn 60000\nBEGIN\n"
                     ) -> tuple[int, WaitingPlayer, list[str], threading.Thread]:
    """A session on a pipe whose player is thinking about the move `batch` asks for (a minute to think): the pipe's
    write end, the player, the lines the session sent and its thread."""
    read_end, write_end = os.pipe()
    player = WaitingPlayer()
    sent: list[str] = []
    reader = StdinReader(read_end).start()
    session_thread = threading.Thread(target=Session(player, sent.append, reader.commands()).run, daemon=True)
    session_thread.start()
    os.write(write_end, batch)
    assert player.thinking.wait(WAIT_S)
    return write_end, player, sent, session_thread


def test_yxstop_read_while_the_player_thinks_stops_it_and_the_move_is_answered():
    write_end, player, sent, session_thread = thinking_session()
    try:
        os.write(write_end, b"YXSTOP\n")
        assert wait_for(lambda: len(sent) == 2)
    finally:
        os.close(write_end)
        session_thread.join(WAIT_S)
    assert player.stopped
    assert sent == ["OK", "1,1"]
    assert not session_thread.is_alive()  # the end of input ended the session


def session_ended_by(batch: bytes, then: bytes = b"") -> tuple[WaitingPlayer, list[str]]:
    """A session fed `batch`, and `then` once its player thinks, which must end it while its input stays open: the
    player and what was sent."""
    write_end, player, sent, session_thread = thinking_session(batch)
    try:
        os.write(write_end, then)
        session_thread.join(WAIT_S)
        assert not session_thread.is_alive()
    finally:
        os.close(write_end)
    return player, sent


def test_end_read_while_the_player_thinks_stops_it_answers_the_move_and_ends_the_session():
    player, sent = session_ended_by(b"START 15\nINFO timeout_turn 60000\nBEGIN\n", then=b"END\n")
    assert player.stopped and sent == ["OK", "1,1"]


def test_a_batch_ending_in_end_is_answered_in_order_and_nothing_after_end_is():
    player, sent = session_ended_by(b"START 15\nINFO timeout_turn 60000\nBEGIN\nABOUT\nTURN 3,3\nEND\nABOUT\n")
    assert sent[:3] == ["OK", "1,1", about_line()] and len(sent) == 4  # the TURN's move, nothing for the last ABOUT
    assert len(player.limits) == 2 and all(limits.stop.is_set() for limits in player.limits)


def test_end_stops_a_queued_think_before_it_begins():
    player, sent = session_ended_by(b"START 15\nINFO timeout_turn 60000\nBEGIN\nTURN 3,3\nEND\n")
    assert sent[:2] == ["OK", "1,1"] and len(sent) == 3
    assert len(player.limits) == 2 and player.limits[1].stop.is_set()  # set before the TURN's think began


def test_closed_input_stops_the_move_being_thought_about():
    write_end, player, sent, session_thread = thinking_session()
    os.close(write_end)
    session_thread.join(WAIT_S)
    assert player.stopped and sent == ["OK", "1,1"]
    assert not session_thread.is_alive()


def test_reader_ends_its_commands_when_input_closes():
    read_end, write_end = os.pipe()
    reader = StdinReader(read_end).start()
    os.write(write_end, b"START 15\r\nBEGIN")
    os.close(write_end)
    assert [command.text for command in reader.commands()] == ["START 15", "BEGIN"]


def test_reader_stops_every_command_before_end_and_reads_nothing_after_it():
    read_end, write_end = os.pipe()
    reader = StdinReader(read_end).start()
    os.write(write_end, b"TURN 7,7\nTURN 8,8\nEND\nABOUT\n")  # the input stays open
    try:
        first, second, end = reader.commands()
    finally:
        os.close(write_end)
    assert first.stop.is_set() and second.stop.is_set() and end.verb == "END"


def test_reader_points_yxstop_at_the_latest_command_before_it():
    read_end, write_end = os.pipe()
    reader = StdinReader(read_end).start()
    os.write(write_end, b"INFO time_left 100\nTURN 7,7\nYXSTOP\n")  # the input stays open: nothing ends yet
    try:
        commands = reader.commands()
        info, turn, yxstop = next(commands), next(commands), next(commands)
        assert turn.stop.is_set() and not info.stop.is_set()
        assert yxstop.verb == "YXSTOP"
    finally:
        os.close(write_end)
