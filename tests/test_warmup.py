"""The warm-up (``brain.warmup``): it finds the brain's entry points in its source, types each from its annotations,
and after it -- at START -- no compiled function compiles or loads during games of every rule, BOARD blocks with a
field-3 stone, SWAP2BOARD, a rectangular board and a node-limited move included."""

from __future__ import annotations

import json
import subprocess
import sys

from monte.brain import warmup
from monte.brain.position import block_cell

TIMEOUT_S = 300  # a fresh process that may have to compile on a cold cache; never a speed bound

GAMES = r'''
import gc, json
from monte.brain.engine import MctsPlayer
from monte.brain.warmup import dispatchers
from monte.protocol.session import Session
from monte.protocol.stdio import Command


def compiled():
    return {f"{d.py_func.__module__}.{d.py_func.__name__}": len(d.overloads) for d in dispatchers()}


def near_centre(board):
    """The empty cell nearest the board's centre (the opponent's move)."""
    cx, cy = board.width // 2, board.height // 2
    return min(board.empty_cells(), key=lambda p: (abs(p[0] - cx) + abs(p[1] - cy), p))


BOARD = ["BOARD", "7,7,1", "8,8,1", "7,8,2", "8,7,2", "3,3,3", "11,4,3", "DONE"]
report = {"moves": 0}


def lines():
    yield "START 15"
    report["before"] = compiled()
    report["frozen"] = gc.get_freeze_count()
    for rule in (0, 1, 4, 8, 9):
        yield from ("START 15", f"INFO rule {rule}", "INFO timeout_turn 60", "INFO max_memory 300000000", *BOARD)
        for _ in range(4):
            x, y = near_centre(session.board)
            yield f"TURN {x},{y}"
        yield from ("SWAP2BOARD", "DONE")
        yield from ("SWAP2BOARD", "7,7", "8,7", "7,9", "DONE")
        yield from ("SWAP2BOARD", "7,7", "8,7", "7,9", "6,6", "9,9", "DONE")
    yield from ("RECTSTART 20,12", "INFO rule 0", "INFO max_node 3000", "BEGIN")
    x, y = near_centre(session.board)
    yield f"TURN {x},{y}"


def send(line):
    if line.startswith("ERROR"):
        report.setdefault("errors", []).append(line)
    elif not line.startswith("MESSAGE"):
        report["moves"] += 1


session = Session(MctsPlayer(), send, (Command(line) for line in lines()))
session.run()
after = compiled()
report["compiled"] = {name: [count, after[name]] for name, count in report.pop("before").items()
                      if after[name] != count}
print(json.dumps(report))
'''


def test_every_entry_point_is_typed_by_its_annotations():
    for dispatcher in warmup.find_entry_points():
        assert len(warmup.signature(dispatcher)) == dispatcher.py_func.__code__.co_argcount


def test_the_kernel_behind_a_field_3_stone_is_an_entry_point():
    # a hand-kept warm-up list missed it: the first BOARD with a field-3 stone compiled for a second in its move
    assert block_cell in warmup.find_entry_points()


def test_nothing_compiles_during_games_of_every_rule_after_the_warm_up_at_start(warm_pbrain):
    result = subprocess.run([sys.executable, "-c", GAMES], capture_output=True, text=True, timeout=TIMEOUT_S,
                            check=True)
    report = json.loads(result.stdout)
    assert report["compiled"] == {}, "compiled after START (name: [before, after] overloads)"
    assert "errors" not in report
    assert report["moves"] == 1 + 5 * (1 + 1 + 4 + 3) + 3  # every OK, move and swap2 answer came
    assert report["frozen"] > 0  # the warm-up froze the heap
