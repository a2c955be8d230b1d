"""A brain never forfeits while its compiled code loads: ``START`` is answered without numba (``brain.loading``), the
quick player (``brain.quick``) moves meanwhile with the kernels interpreted (``brain.kernels``), the engine takes over
once loaded, and processes sharing a cold cache take turns compiling (``brain.cachedir``).

One test runs the installed brain on an empty cache, for its first moves only (a whole compile costs a minute of
CPU); the hand-over to the compiled engine is run for real from the warm cache.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import signal
import subprocess
import sys
import threading

import pytest
from tournament_support import wait_for

from monte.brain import cachedir, kernels, loading
from monte.brain.board import BLACK, MOVE_FORBIDDEN, WHITE, Board
from monte.brain.codes import RULE_RENJU
from monte.brain.loading import LoadingPlayer
from monte.brain.player import MoveChoice, ThinkLimits
from monte.brain.quick import QuickPlayer
from monte.lab import clockcheck
from monte.lab.clockcheck import PipeBrain, board_request

WAIT_S = 30.0  # a generous bound for threads and processes on a busy machine; never a speed assertion
FORFEIT_MS = 1000 + 1000
"""A move of a 1000 ms turn later than this loses with Piskvork, the Gomocup judge and c-gomoku-cli alike."""


@pytest.fixture
def held():
    """Kernels interpreted, as in a brain that is compiling; released afterwards for the other tests."""
    kernels.hold()
    yield
    kernels.release()


# --- nothing before OK needs numba ----------------------------------------------------------------------------

NO_NUMBA = r'''
import json, sys, threading
from monte.brain.loading import LoadingPlayer
from monte.brain.quick import QuickPlayer
from monte.protocol.brain_main import main  # everything pbrain-monte imports before it reads a line
from monte.protocol.session import Session
from monte.protocol.stdio import Command

never = threading.Event()
player = LoadingPlayer("mcts", lambda: never.wait(), QuickPlayer())  # an engine that never loads
sent = []
Session(player, sent.append, [Command(line) for line in ("START 15", "INFO timeout_turn 2000", "TURN 7,7",
                                                           "TURN 9,9", "SWAP2BOARD", "DONE")]).run()
print(json.dumps({"sent": sent, "numba": sorted(m for m in sys.modules if m.split(".")[0] == "numba")}))
'''


def test_start_moves_and_swap2_are_answered_without_numba_while_the_engine_loads(warm_pbrain):
    # warm_pbrain: the cache is warm, so that the loader loads in-process (and imports numba: not before the moves)
    result = subprocess.run([sys.executable, "-c", NO_NUMBA], capture_output=True, text=True, timeout=WAIT_S,
                            check=True)
    report = json.loads(result.stdout)
    assert report["numba"] == []
    moves = [line for line in report["sent"] if not line.startswith("MESSAGE")]
    assert moves[0] == "OK" and len(moves) == 4, report["sent"]
    assert all(line.startswith("MESSAGE quick: ") for line in report["sent"] if line.startswith("MESSAGE"))


# --- the quick player ---------------------------------------------------------------------------------------

def quick_move(diagram: str, rule: int = 0, seconds: float = 5.0) -> MoveChoice:
    return QuickPlayer().choose(Board.from_diagram(diagram, rule), ThinkLimits.seconds(seconds))


FOURS = """
. . . . . . . . .
. X X X X . . . .
. . . . . . . . .
. O O O O . . . .
. . . . . . . . .
. . . . . . . . .
"""


def test_the_quick_player_takes_a_five_before_blocking_one(held):
    move = quick_move(FOURS)  # black to move: both sides have a four
    assert (move.x, move.y) in {(0, 1), (5, 1)}


def test_the_quick_player_blocks_a_four(held):
    move = quick_move(FOURS.replace("X X X X", "X X . X"))  # black's four broken, white's stands
    assert (move.x, move.y) in {(0, 3), (5, 3)}


def test_the_quick_player_makes_an_open_four_from_its_open_three(held):
    move = quick_move("""
        . . . . . . . . . .
        . . . . . . . . . .
        . . . X X X . . . .
        . . . . . . . . . .
        . . O . . . . O . .
        . . . . . . O . . .
        . . . . . . . . . .
    """)
    assert (move.x, move.y) in {(2, 2), (6, 2)}


def test_the_quick_player_never_plays_a_renju_foul_for_black(held):
    diagram = """
        . . . . . . . . .
        . . . . . . . . .
        . . . . X . . . .
        . . . . X . . . .
        . . X X . . . O .
        . . . . . . . . .
        . O . . . . O . .
        . . . . . . . . .
    """
    freestyle = QuickPlayer().choose(Board.from_diagram(diagram, to_move=BLACK), ThinkLimits.seconds(5.0))
    assert (freestyle.x, freestyle.y) == (4, 4)  # the double three is the greedy score's favourite
    board = Board.from_diagram(diagram, RULE_RENJU, to_move=BLACK)
    assert board.judge(4, 4, BLACK) == MOVE_FORBIDDEN
    move = QuickPlayer().choose(board, ThinkLimits.seconds(5.0))
    assert board.judge(move.x, move.y, BLACK) != MOVE_FORBIDDEN


def test_the_quick_player_stops_scanning_when_its_time_is_up(held):
    board = Board(32)
    for i in range(30):  # stones all over a big board: hundreds of cells to scan
        board.place((i * 7) % 32, (i * 11) % 32, BLACK if i % 2 == 0 else WHITE)
    board.to_move = BLACK
    move = QuickPlayer().choose(board, ThinkLimits.seconds(0.0))
    assert board.is_empty(move.x, move.y)
    assert "no time to scan" in move.info


# --- the loading player -------------------------------------------------------------------------------------

class FakeEngine:
    """An engine that records what it is told and always answers 1,1."""

    name = "fake"

    def __init__(self) -> None:
        self.calls: list[str] = []

    def warm_up(self) -> None:
        self.calls.append("warm_up")

    def new_game(self, board: Board) -> None:
        self.calls.append(f"new_game {board.width}")

    def prepare(self, board: Board, max_memory: int) -> None:
        self.calls.append(f"prepare {board.width} {max_memory}")

    def choose(self, board: Board, limits: ThinkLimits) -> MoveChoice:
        return MoveChoice(1, 1, "engine")


def loading_player(engine: FakeEngine | Exception, gate: threading.Event, warm: bool, monkeypatch,
                   load_before_ok: bool = False) -> LoadingPlayer:
    """A LoadingPlayer whose engine (or failure) comes when `gate` is set, on a cache that is `warm` or not (a cold
    one is 'compiled' by a stand-in that records the call in ``engine.calls``)."""
    monkeypatch.setattr(loading, "cache_is_warm", lambda: warm)
    monkeypatch.setattr(loading, "compile_in_children", lambda cap: engine.calls.append("compile_in_children"))

    def load() -> FakeEngine:
        assert gate.wait(WAIT_S)
        if isinstance(engine, Exception):
            raise engine
        return engine

    return LoadingPlayer("fake", load, QuickPlayer(), load_before_ok=load_before_ok)


def test_the_quick_player_moves_until_the_engine_is_loaded_then_the_engine_gets_the_game(monkeypatch):
    engine, gate = FakeEngine(), threading.Event()
    player = loading_player(engine, gate, warm=False, monkeypatch=monkeypatch)
    board = Board(15)
    try:
        player.warm_up()
        player.new_game(board)
        player.prepare(board, 123_000_000)
        board.place(7, 7, BLACK)
        assert player.choose(board, ThinkLimits.seconds(0.5)).info.startswith("quick: ")  # waited for it 0.25 s
        gate.set()
        assert player.wait_loaded(WAIT_S) and player.engine is engine
        assert engine.calls == ["compile_in_children", "warm_up", "new_game 15", "prepare 15 123000000"]
        assert player.choose(board, ThinkLimits.seconds(5.0)).info == "engine"
        player.prepare(board, 5)  # from now on straight to the engine
        assert engine.calls[-1] == "prepare 15 5"
    finally:
        gate.set()
        kernels.release()


def test_from_a_warm_cache_a_move_waits_for_the_engine(monkeypatch):
    engine, gate = FakeEngine(), threading.Event()
    player = loading_player(engine, gate, warm=True, monkeypatch=monkeypatch)
    player.warm_up()
    threading.Timer(0.1, gate.set).start()  # loaded while the move waits (up to its soft deadline)
    try:
        assert player.choose(Board(15), ThinkLimits.seconds(WAIT_S)).info == "engine"
    finally:
        gate.set()
        kernels.release()


@pytest.mark.parametrize("warm", [True, False])
def test_told_to_load_before_ok_a_brain_waits_for_a_warm_cache_only(monkeypatch, warm):
    engine, gate = FakeEngine(), threading.Event()
    player = loading_player(engine, gate, warm=warm, monkeypatch=monkeypatch, load_before_ok=True)
    if warm:
        threading.Timer(0.1, gate.set).start()  # a cold cache's compile never ends here
    try:
        player.warm_up()
        assert player.engine is (engine if warm else None)
    finally:
        gate.set()
        kernels.release()


def test_a_short_move_does_not_wait_for_a_loading_engine(monkeypatch):
    engine, gate = FakeEngine(), threading.Event()  # the engine never comes
    player = loading_player(engine, gate, warm=True, monkeypatch=monkeypatch)
    player.warm_up()
    try:
        assert player.choose(Board(15), ThinkLimits.seconds(0.2)).info.startswith("quick: ")
    finally:
        gate.set()
        kernels.release()


def test_an_engine_that_fails_to_load_leaves_the_quick_player_playing(monkeypatch):
    gate = threading.Event()
    gate.set()
    player = loading_player(RuntimeError("no compiler"), gate, warm=True, monkeypatch=monkeypatch)
    try:
        player.warm_up()
        assert player.wait_loaded(WAIT_S) and player.engine is None
        assert player.choose(Board(15), ThinkLimits.seconds(5.0)).info.startswith("quick: ")
    finally:
        kernels.release()



def failed_load_record(player: LoadingPlayer, caplog) -> logging.LogRecord:
    """Let `player` try to load its engine and fail; the one ERROR the loader logs about it."""
    caplog.clear()
    try:
        player.warm_up()
        assert player.wait_loaded(WAIT_S) and player.engine is None
    finally:
        kernels.release()
    [record] = [r for r in caplog.records if r.name == "monte.brain.loading" and r.levelname == "ERROR"]
    return record


def test_a_memory_limit_too_small_to_compile_in_is_logged_in_one_line_and_a_bug_with_its_traceback(monkeypatch,
                                                                                                    caplog):
    def too_small(cap) -> None:
        raise MemoryError("no kernel compiles within the memory limit (0 MiB for the brain and its compile child)")

    gate = threading.Event()
    gate.set()
    player = loading_player(RuntimeError("a bug"), gate, warm=False, monkeypatch=monkeypatch)
    monkeypatch.setattr(loading, "compile_in_children", too_small)  # INFO max_memory 1 on a cold cache
    record = failed_load_record(player, caplog)
    assert "within the memory limit" in record.getMessage() and record.exc_info is None
    player = loading_player(RuntimeError("a bug"), gate, warm=True, monkeypatch=monkeypatch)
    assert failed_load_record(player, caplog).exc_info is not None  # what nobody foresaw keeps its traceback


# --- the cache folder -----------------------------------------------------------------------------------------

def test_the_cache_folder_lock_keeps_a_second_holder_out_until_released(tmp_path):
    with cachedir.folder_lock(tmp_path):
        other = os.open(tmp_path, os.O_RDONLY)
        try:
            with pytest.raises(BlockingIOError):
                fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
        finally:
            os.close(other)
    other = os.open(tmp_path, os.O_RDONLY)
    try:
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)  # free again
    finally:
        os.close(other)


def test_a_folder_is_warm_once_marked_and_only_for_the_same_python_and_numba(tmp_path, monkeypatch):
    monkeypatch.setattr(cachedir, "BRAIN_CACHE_DIR", str(tmp_path))
    assert not cachedir.cache_is_warm()
    cachedir.mark_warm()
    assert cachedir.cache_is_warm()
    (tmp_path / cachedir.WARM_MARKER).write_text("python 3.11 numba 0.1")
    assert not cachedir.cache_is_warm()


# --- the installed brain ----------------------------------------------------------------------------------------

def test_a_brain_on_an_empty_cache_answers_ok_and_its_first_moves_while_it_compiles(pbrain_executable, tmp_path):
    brain = PipeBrain([pbrain_executable], env={**os.environ, "MONTE_CACHE_DIR": str(tmp_path)}, own_group=True)
    try:
        assert brain.ask("START 15")[0] == "OK"
        assert not any(tmp_path.glob(f"*/{cachedir.WARM_MARKER}"))  # OK came while the compile is under way
        brain.send("INFO timeout_turn 1000")
        board = Board(15)
        for request in ("BEGIN", "TURN 0,0", "TURN 14,0", "TURN 0,14"):  # the opponent plays far away
            if request != "BEGIN":
                board.place(*map(int, request.split()[1].split(",")), WHITE)
            move, ms = brain.ask(request)
            x, y = map(int, move.split(","))
            assert board.is_empty(x, y)
            board.place(x, y, BLACK)
            assert brain.messages[-1].startswith("MESSAGE quick: ")
            assert ms < FORFEIT_MS, f"{request}: {ms:.0f} ms"
        assert not any(tmp_path.glob(f"*/{cachedir.WARM_MARKER}"))  # all of it before the compile ended
        brain.send("END")
        assert brain.process.wait(WAIT_S) == 0  # END does not wait for the compile either
        wait_for(lambda: not group_alive(brain.process.pid), "the compile child to die with the brain")
    finally:
        brain.kill()
        if group_alive(brain.process.pid):
            os.killpg(brain.process.pid, signal.SIGKILL)


def group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True


def test_a_fresh_brain_on_a_warm_cache_hands_its_moves_to_the_compiled_engine(warm_pbrain):
    brain = PipeBrain([warm_pbrain])
    try:
        assert brain.ask("START 15")[0] == "OK"
        brain.send("INFO timeout_turn 300")
        for _ in range(100):
            brain.ask(*board_request(clockcheck.MIDDLE_GAME))
            if brain.messages[-1].startswith("MESSAGE depth "):
                break
        assert brain.messages[-1].startswith("MESSAGE depth "), brain.messages  # the engine's Rapfi line
        assert brain.messages[0].startswith("MESSAGE Monte: ")
    finally:
        brain.kill()
