"""The manager-side pbrain client against the fake brain: every way a brain fails becomes the right Fault, with a
detail naming what was seen, and no brain process (or child of one) outlives its client."""

from __future__ import annotations

import gc
import io
import os
import queue
import sys
import threading
import time
import tracemalloc
from pathlib import Path

import pytest

from monte.protocol import client as client_module
from monte.protocol.client import (MAX_LINE_BYTES, BrainClient, CutLine, GameSettings, _read_lines, line_kind,
                             parse_about)
from monte.protocol.faults import BrainFault, Fault, describe_exit

FAKE = Path(__file__).parent / "fakes" / "fake_brain.py"
SETTINGS = GameSettings(15, 15, timeout_turn_ms=1000)
WAIT_S = 10.0  # generous bound for a fake brain's answer on a busy machine


def fake(mode: str = "good", *extra: str) -> list[str]:
    """The command line of the fake brain in `mode`."""
    return [sys.executable, str(FAKE), "--mode", mode, *extra]


@pytest.fixture
def spawn():
    """Start clients; every one is closed at the end of the test, whatever happened."""
    clients: list[BrainClient] = []

    def _spawn(command: list[str], **kwargs) -> BrainClient:
        client = BrainClient(command, **kwargs)
        clients.append(client)
        client.start()
        return client

    yield _spawn
    for client in clients:
        client.close(grace_s=0.2)


def playing(spawn, mode: str = "good", *extra: str, **kwargs) -> BrainClient:
    """A fake brain with a 15x15 game started."""
    client = spawn(fake(mode, *extra), **kwargs)
    client.new_game(SETTINGS, WAIT_S)
    return client


def fault_of(call) -> BrainFault:
    with pytest.raises(BrainFault) as caught:
        call()
    return caught.value


def process_gone(pid: int) -> bool:
    """Whether `pid` no longer exists at all (a zombie still exists: it was not reaped)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def dead_or_zombie(pid: int, within_s: float = WAIT_S) -> bool:
    """Whether `pid` stops running within `within_s`; an orphan's zombie counts as dead, since reaping it is
    the job of init (which this sandbox's pid 1 may not do), not ours."""
    give_up = time.monotonic() + within_s
    while time.monotonic() < give_up:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
        except OSError:
            return True
        if state in ("Z", "X"):
            return True
        time.sleep(0.02)
    return False


# --- pure parts ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("line, kind", [
    ("7,7", "move"), (" 10 , 3 ", "move"), ("-1,0", "move"), ("MESSAGE depth 5", "chat"), ("debug x", "chat"),
    ("SUGGEST 7,7", "chat"), ("OK", "ok"), ("ERROR no", "refusal"), ("UNKNOWN FOO", "refusal"), ("", "empty"),
    ("   ", "empty"), ("7,7,1", "other"), ("OK then", "other"), ("hello", "other"), ("7 7", "other"),
])
def test_line_kind_classifies_each_reply(line, kind):
    assert line_kind(line) == kind


def test_parse_about_reads_key_value_pairs():
    assert parse_about('name="Monte", version="0.1", AUTHOR="a, b", www="x"') == {
        "name": "Monte", "version": "0.1", "author": "a, b", "www": "x"}
    assert parse_about("no pairs here") == {}


def test_reader_tolerates_crlf_and_undecodable_bytes_and_ends_with_none():
    sink: queue.Queue = queue.Queue()
    _read_lines(io.BytesIO(b"MESSAGE hi\r\n7,7\r\n\xff\xfe\n"), sink)
    lines = [item[1] for item in iter(sink.get_nowait, None)]
    assert lines == ["MESSAGE hi", "7,7", "\ufffd\ufffd"]


def test_reader_ends_lines_at_cr_and_lf_only():
    """A brain reads lines ending at CR or LF; U+2028 or a form feed inside a MESSAGE must not split it (splitting
    ``MESSAGE pv 7,7<U+2028>8,8`` would make a move of its tail)."""
    sink: queue.Queue = queue.Queue()
    _read_lines(io.BytesIO("MESSAGE pv 7,7\u20288,8\nMESSAGE a\x0cb\x1cc\r6,6\r\n\n5,5".encode()), sink)
    lines = [item[1] for item in iter(sink.get_nowait, None)]
    assert lines == ["MESSAGE pv 7,7\u20288,8", "MESSAGE a\x0cb\x1cc", "6,6", "5,5"]


class Endless(io.RawIOBase):
    """A stream of `size` bytes of 'x' without a newline, then one line: what a runaway brain writes."""

    def __init__(self, size: int, tail: bytes) -> None:
        self.left, self.tail = size, tail

    def readable(self) -> bool:
        return True

    def read1(self, n: int = -1) -> bytes:
        if self.left > 0:
            chunk = min(self.left, 65536)
            self.left -= chunk
            return b"x" * chunk
        tail, self.tail = self.tail, b""
        return tail


def test_a_line_without_end_is_cut_and_costs_bounded_memory():
    sink: queue.Queue = queue.Queue()
    tracemalloc.start()
    try:
        _read_lines(Endless(40 * MAX_LINE_BYTES, b"\n7,7\n"), sink)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    lines = [item[1] for item in iter(sink.get_nowait, None)]
    assert [type(line) for line in lines] == [CutLine, str]
    assert len(lines[0]) == MAX_LINE_BYTES and lines[1] == "7,7"
    assert peak < 8 * MAX_LINE_BYTES  # not the 40 MiB written
    assert line_kind(CutLine("MESSAGE " + "x" * 100)) == "other"  # a cut line is never chat or a move


def test_fault_string_says_kind_detail_and_time():
    text = str(BrainFault(Fault.TIMEOUT, "no answer to 'BEGIN'", 512.3))
    assert text == "time: no answer to 'BEGIN' (after 512 ms)"
    assert describe_exit(3) == "exited with code 3" and describe_exit(-9) == "killed by SIGKILL"


def test_game_settings_send_start_or_rectstart_and_every_info_key():
    settings = GameSettings(20, 10, rule=4, timeout_turn_ms=500, extra_info=(("folder", "/tmp/x"),))
    assert settings.start_command() == "RECTSTART 20,10"
    assert GameSettings(15, 15).start_command() == "START 15"
    assert settings.info_lines() == [
        "INFO timeout_turn 500", "INFO timeout_match 0", f"INFO max_memory {350 * 1024 * 1024}",
        "INFO game_type 1", "INFO rule 4", "INFO folder /tmp/x"]


@pytest.mark.parametrize("kwargs, field", [
    ({"width": 0, "height": 15}, "width"), ({"width": 15, "height": 15, "timeout_turn_ms": -1}, "timeout_turn_ms"),
    ({"width": 15, "height": 15, "extra_info": (("bad key", "1"),)}, "extra_info"),
])
def test_bad_game_settings_are_refused_naming_the_field(kwargs, field):
    with pytest.raises(ValueError, match=field):
        GameSettings(**kwargs)


def test_bad_constructor_arguments_are_refused():
    with pytest.raises(ValueError, match="garbage policy"):
        BrainClient(fake(), garbage="shrug")
    with pytest.raises(ValueError, match="sequence"):
        BrainClient("pbrain-monte")


# --- a well-behaved brain -------------------------------------------------------------------------------------------
def test_good_brain_plays_through_begin_turn_and_board(spawn):
    client = playing(spawn)
    first = client.begin(WAIT_S)
    assert (first.x, first.y) == (7, 7)
    assert first.messages == ["MESSAGE fake move 1"]
    assert first.elapsed_ms > 0
    second = client.turn(7, 8, WAIT_S)
    assert (second.x, second.y) not in {(7, 7), (7, 8)}
    stones = [(7, 7, 1), (6, 6, 1), (7, 8, 2)]
    third = client.board(stones, WAIT_S)
    assert (third.x, third.y) not in {(x, y) for x, y, _ in stones}
    assert client.messages == ["MESSAGE fake move 1", "MESSAGE fake move 2", "MESSAGE fake move 3"]


def test_rectangular_game_uses_rectstart_and_its_size(spawn):
    client = spawn(fake())
    client.new_game(GameSettings(20, 10), WAIT_S)
    reply = client.begin(WAIT_S)
    assert (reply.x, reply.y) == (10, 5)


def test_new_game_forgets_the_previous_stones(spawn):
    client = playing(spawn)
    client.begin(WAIT_S)
    client.new_game(SETTINGS, WAIT_S)
    reply = client.begin(WAIT_S)  # the same centre move is legal again on the new board
    assert (reply.x, reply.y) == (7, 7)


def test_about_parses_the_brains_answer(spawn):
    client = spawn(fake())
    assert client.about(WAIT_S) == {"name": "fake-good", "version": "1.0", "author": "Monte tests",
                                    "country": "CZ"}


def test_about_is_empty_when_the_brain_says_unknown(spawn):
    assert spawn(fake("refuse")).about(WAIT_S) == {}


ANSWERS_HELLO = [sys.executable, "-c", "input(); print('hello', flush=True); input()"]


def test_about_answered_without_pairs_is_garbage(spawn):
    fault = fault_of(lambda: spawn(ANSWERS_HELLO).about(WAIT_S))
    assert fault.fault is Fault.GARBAGE and "'hello'" in fault.detail and "'ABOUT'" in fault.detail


def test_about_answered_without_pairs_is_empty_when_garbage_is_ignored(spawn):
    assert spawn(ANSWERS_HELLO, garbage="ignore").about(WAIT_S) == {}


def test_the_caller_cannot_send_an_occupied_or_off_board_stone(spawn):
    client = playing(spawn)
    client.begin(WAIT_S)
    with pytest.raises(ValueError, match="occupied"):
        client.turn(7, 7, WAIT_S)
    with pytest.raises(ValueError, match="off the 15x15"):
        client.turn(15, 0, WAIT_S)
    with pytest.raises(ValueError, match="field"):
        client.board([(0, 0, 4)], WAIT_S)
    with pytest.raises(ValueError, match="occupied"):
        client.board([(0, 0, 1), (0, 0, 2)], WAIT_S)


def test_moves_before_new_game_are_a_usage_error(spawn):
    client = spawn(fake())
    with pytest.raises(RuntimeError, match="new_game"):
        client.begin(WAIT_S)
    with pytest.raises(RuntimeError, match="start"):
        BrainClient(fake()).set_time_left(100)


# --- every fault ----------------------------------------------------------------------------------------------------
def test_crash_on_a_move_is_crash_with_the_exit_code(spawn):
    client = playing(spawn, "crash", "--at", "2")
    client.begin(WAIT_S)
    fault = fault_of(lambda: client.turn(0, 0, WAIT_S))
    assert fault.fault is Fault.CRASH
    assert "exited with code 3" in fault.detail and "'TURN 0,0'" in fault.detail
    assert process_gone(client.pid)


def test_writing_after_a_crash_is_crash_not_broken_pipe(spawn):
    client = playing(spawn, "crash")
    assert fault_of(lambda: client.begin(WAIT_S)).fault is Fault.CRASH
    fault = fault_of(lambda: client.set_time_left(1000))
    assert fault.fault is Fault.CRASH and "exited with code 3" in fault.detail
    assert fault_of(lambda: client.turn(0, 0, WAIT_S)).fault is Fault.CRASH


def test_writing_to_a_brain_that_died_unnoticed_is_crash(spawn):
    client = spawn([sys.executable, "-c", "pass"])
    assert dead_or_zombie(client.pid)
    fault = fault_of(lambda: client.set_time_left(1000))
    assert fault.fault is Fault.CRASH
    assert "exited with code 0" in fault.detail and "INFO time_left 1000" in fault.detail


def test_a_command_that_cannot_start_is_crash():
    client = BrainClient(["/nonexistent/pbrain-nothing"])
    fault = fault_of(client.start)
    assert fault.fault is Fault.CRASH and "/nonexistent/pbrain-nothing" in fault.detail
    assert client.close() is None


def test_hung_brain_is_killed_at_its_deadline(spawn):
    client = playing(spawn, "hang")
    asked: queue.Queue = queue.Queue()  # a brain that never answers: only the deadline can end the request
    threading.Thread(target=lambda: asked.put(fault_of(lambda: client.begin(0.5))), daemon=True).start()
    fault = asked.get(timeout=WAIT_S)
    assert fault.fault is Fault.TIMEOUT and "'BEGIN'" in fault.detail and "0.500 s" in fault.detail
    assert fault.elapsed_ms >= 500
    assert process_gone(client.pid)
    assert client.returncode == -9


def test_slow_brain_past_the_deadline_is_timeout(spawn):
    client = playing(spawn, "slow", "--delay-ms", "5000")
    assert fault_of(lambda: client.begin(0.5)).fault is Fault.TIMEOUT
    assert process_gone(client.pid)


def test_slow_brain_within_the_deadline_answers_and_its_time_is_measured(spawn):
    client = playing(spawn, "slow", "--delay-ms", "300")
    reply = client.begin(WAIT_S)
    assert reply.elapsed_ms >= 300


def test_garbage_line_forfeits_by_default(spawn):
    client = playing(spawn, "garbage")
    fault = fault_of(lambda: client.begin(WAIT_S))
    assert fault.fault is Fault.GARBAGE and "'this is not a move'" in fault.detail and "'BEGIN'" in fault.detail


def test_garbage_line_is_kept_as_a_message_when_ignored(spawn):
    client = playing(spawn, "garbage", garbage="ignore")
    reply = client.begin(WAIT_S)
    assert (reply.x, reply.y) == (7, 7)
    assert reply.messages == ["this is not a move", "MESSAGE fake move 1"]


def test_move_onto_an_occupied_cell_is_illegal(spawn):
    client = playing(spawn, "occupied")
    client.begin(WAIT_S)  # nothing to collide with yet: the fake waits for a stone
    fault = fault_of(lambda: client.turn(0, 0, WAIT_S))
    assert fault.fault is Fault.ILLEGAL and "'0,0'" in fault.detail and "occupied" in fault.detail


def test_move_off_the_board_is_off_board(spawn):
    client = playing(spawn, "offboard")
    fault = fault_of(lambda: client.begin(WAIT_S))
    assert fault.fault is Fault.OFF_BOARD and "'15,0'" in fault.detail and "15x15" in fault.detail


def test_error_without_a_move_is_error_at_the_deadline(spawn):
    client = playing(spawn, "refuse", "--at", "2")
    client.begin(WAIT_S)
    fault = fault_of(lambda: client.turn(0, 0, 0.5))
    assert fault.fault is Fault.ERROR and "refuses move 2" in fault.detail and "'TURN 0,0'" in fault.detail
    assert process_gone(client.pid)


def test_an_error_line_before_the_move_is_a_report_not_the_answer(spawn):
    """The protocol reports a setting the brain cannot meet as ERROR before its next answer (and Rapfi prints
    ERROR for an INFO it reads while finishing a move); the move that follows is the answer."""
    client = playing(spawn, "complain", "--at", "2")
    client.begin(WAIT_S)
    reply = client.turn(0, 0, WAIT_S)
    assert (reply.x, reply.y) not in {(7, 7), (0, 0)}
    assert reply.messages == ["ERROR the fake brain cannot meet this max_memory", "MESSAGE fake move 2"]


def test_a_line_longer_than_the_bound_is_garbage(spawn):
    client = spawn([sys.executable, "-c", "import sys; input(); print('OK', flush=True); input(); "
                                          "sys.stdout.write('MESSAGE ' + 'x' * 3_000_000); sys.stdout.flush(); "
                                          "sys.stdin.read()"])
    client.new_game(SETTINGS, WAIT_S)
    fault = fault_of(lambda: client.begin(WAIT_S))
    assert fault.fault is Fault.GARBAGE and "'BEGIN'" in fault.detail
    assert f"{MAX_LINE_BYTES} characters or more" in fault.detail and len(fault.detail) < 500


def test_a_brain_that_does_not_read_its_input_is_killed_at_the_write_deadline(spawn):
    client = spawn([sys.executable, "-c", "import time; time.sleep(60)"], write_timeout_s=0.2)
    with pytest.raises(BrainFault) as caught:
        for _ in range(100_000):  # far more than a pipe holds
            client.set_time_left(123456789)
    assert caught.value.fault is Fault.TIMEOUT and "did not read 'INFO time_left 123456789'" in caught.value.detail
    assert process_gone(client.pid)


def test_kill_from_another_thread_waits_for_a_reap_in_progress_and_then_sends_nothing(spawn, monkeypatch):
    """Once the brain is reaped its pid may belong to another process: kill() must not signal it then."""
    client = spawn([sys.executable, "-c", "import time; time.sleep(60)"])  # deaf to END: it is killed
    proc = client._proc
    in_wait, release = threading.Event(), threading.Event()
    real_wait = proc.wait

    def slow_wait(*args, **kwargs):
        in_wait.set()
        release.wait(WAIT_S)
        return real_wait(*args, **kwargs)

    monkeypatch.setattr(proc, "wait", slow_wait)
    reaper = threading.Thread(target=client.close, kwargs={"grace_s": 0.0})
    reaper.start()
    assert in_wait.wait(WAIT_S)  # the group is killed; the leader is being reaped
    signals = []
    monkeypatch.setattr(client_module, "_kill_group", signals.append)
    killer = threading.Thread(target=client.kill)
    killer.start()
    killer.join(0.2)
    still_waiting = killer.is_alive()
    release.set()
    reaper.join(WAIT_S)
    killer.join(WAIT_S)
    assert still_waiting and signals == [] and client.returncode == -9


def test_error_to_start_is_error(spawn):
    client = spawn(fake("start-error"))
    fault = fault_of(lambda: client.new_game(SETTINGS, WAIT_S))
    assert fault.fault is Fault.ERROR and "ERROR the fake brain refuses" in fault.detail and "START 15" in fault.detail


def test_crash_on_start_is_crash(spawn):
    client = spawn(fake("crash-on-start"))
    fault = fault_of(lambda: client.new_game(SETTINGS, WAIT_S))
    assert fault.fault is Fault.CRASH and "exited with code 4" in fault.detail


def test_unasked_garbage_between_requests_forfeits(spawn):
    # The fake reads stdin to its end, so it is still alive whenever the client writes (an input() that returns
    # after the first line let it exit mid-handshake and turned the expected GARBAGE into a CRASH on a busy machine).
    # It answers START before it prints 'oops': printed before START, both lines could be waiting when the client
    # sent it, and 'oops' was then caught before START instead of before BEGIN (seen on a busy machine).
    client = spawn([sys.executable, "-c",
                    "import sys; sys.stdin.readline(); print('OK', flush=True); print('oops', flush=True); "
                    "sys.stdin.read()"])
    client.new_game(SETTINGS, WAIT_S)  # reads the OK; 'oops' arrives after it
    give_up = time.monotonic() + WAIT_S
    while client._lines.empty() and time.monotonic() < give_up:  # until the reader has 'oops' (not a fixed nap)
        time.sleep(0.01)
    fault = fault_of(lambda: client.begin(WAIT_S))
    assert fault.fault is Fault.GARBAGE and "'oops'" in fault.detail and "unasked" in fault.detail


# --- process hygiene ------------------------------------------------------------------------------------------------
def test_close_reaps_the_brain_and_is_idempotent(spawn):
    client = playing(spawn)
    client.begin(WAIT_S)
    pid = client.pid
    assert client.close() == 0  # the fake exits 0 on END
    assert process_gone(pid)
    assert client.close() == 0


def test_close_kills_a_brain_that_ignores_end_and_sigterm(spawn):
    client = spawn([sys.executable, "-c", "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
                                          "print('OK', flush=True); time.sleep(60)"])
    client.new_game(SETTINGS, WAIT_S)  # it is up and deaf: END goes unread
    client.stop_thinking()
    assert client.close(grace_s=0.2) == -9
    assert process_gone(client.pid)


def test_close_kills_the_brains_children_too(spawn):
    client = playing(spawn, "spawn-child")
    child = next(int(line.split()[2]) for line in client.messages if line.startswith("MESSAGE child "))
    assert not dead_or_zombie(child, within_s=0.1)
    client.close()
    assert process_gone(client.pid)
    assert dead_or_zombie(child)


def test_a_dropped_client_still_kills_its_brain_and_children():
    client = BrainClient(fake("spawn-child"))
    client.start()
    client.new_game(SETTINGS, WAIT_S)
    pid = client.pid
    child = next(int(line.split()[2]) for line in client.messages if line.startswith("MESSAGE child "))
    del client
    gc.collect()
    assert process_gone(pid)
    assert dead_or_zombie(child)


def test_context_manager_starts_and_closes(spawn):
    with BrainClient(fake()) as client:
        client.new_game(SETTINGS, WAIT_S)
        pid = client.pid
    assert process_gone(pid)


def test_stderr_goes_to_the_named_file(tmp_path):
    log = tmp_path / "brain.err"
    with BrainClient([sys.executable, "-c", "import sys; sys.stderr.write('diag\\n')"],
                     stderr_path=str(log)) as client:
        assert dead_or_zombie(client.pid)
    assert log.read_text() == "diag\n"


def test_peak_rss_is_measured_from_proc(spawn):
    client = playing(spawn)
    assert client.peak_rss_bytes() > 1024 * 1024  # a Python process holds megabytes
    measured = client.peak_rss_bytes()
    client.close()
    assert client.peak_rss_bytes() >= measured  # remembered after exit


# --- the real brain -------------------------------------------------------------------------------------------------
def test_real_pbrain_monte_plays_a_few_moves(spawn, warm_pbrain):
    client = spawn([warm_pbrain])
    client.new_game(GameSettings(15, 15, timeout_turn_ms=500), 60.0)
    taken = set()
    reply = client.begin(30.0)
    for _ in range(3):
        taken.add((reply.x, reply.y))
        ours = next((x, y) for y in range(15) for x in range(15) if (x, y) not in taken)
        taken.add(ours)
        reply = client.turn(*ours, 30.0)
    assert (reply.x, reply.y) not in taken
