"""The c-gomoku-cli cross-check (``monte.lab.cgomoku_crosscheck``): the openings it hands c-gomoku-cli are the
runner's for that pairing, its command line carries each engine's clock and INFO lines, and c-gomoku-cli's SGF
comes back as the runner's records, with a note on the games it ended at START. Only the last two tests run
c-gomoku-cli, and they are skipped when it is absent."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from monte.lab import cgomoku_crosscheck as cc
from monte.tournaments.config import build_config
from monte.tournaments.engines import EngineSpec
from monte.tournaments.openings import parse_opening_line
from monte.tournaments.records import Termination, read_jsonl
from monte.tournaments.runner import build_openings

FAKE_BRAIN = Path(__file__).parent / "fakes" / "fake_brain.py"
SPARRING = {"tournament": {"format": "gauntlet", "games": 6},
            "game": {"timeout_turn_ms": 1000, "timeout_match_ms": 110000},
            "openings": {"file": "freestyle15-balanced-test.txt", "order": "shuffle", "seed": 2026},
            "engine": [{"name": "monte", "command": "pbrain-monte"}, {"name": "pela", "command": "pbrain-pela"},
                       {"name": "rapfi", "command": "pbrain-rapfi", "info": {"thread_num": 1}}]}

# two games as c-gomoku-cli writes them (game.cpp, export_sgf): pela black wins the first by a five, monte (black)
# loses the second on time
SGF = """(;FF[4]GM[4]GN[1]EV[pela x monte]DT[2026.11.25 02:21:39]RO[1.1]RU[0]SZ[15]PB[pela]PW[monte]RE[B+1]TE[Black win by five connection]
;B[hf]C[opening move];W[gi]C[opening move];B[fj]C[opening move]
;W[gh]C[916ms];B[gg]C[397ms];W[fh]C[915ms])

(;FF[4]GM[4]GN[2]EV[monte x pela]DT[2026.11.25 02:22:10]RO[1.2]RU[0]SZ[15]PB[monte]PW[pela]RE[W+1]TE[White win by time forfeit]
;B[hf]C[opening move];W[gi]C[opening move];B[fj]C[opening move]
;W[gh]C[12ms];B[gg]C[4100ms])

"""


def test_the_openings_are_the_runners_for_the_pairing_and_survive_the_offset_format():
    config = build_config(SPARRING, only=["monte", "pela"])
    pairs = cc.pair_openings(config)
    arranged, _ = build_openings(config)
    assert pairs == [opening.stones for opening in arranged[:3]]
    for stones in pairs:
        line = cc.offset_line(stones, 15, 15)
        assert parse_opening_line(line, 15, 15).stones == stones
        assert parse_opening_line(line, 20, 20).stones == tuple((x + 3, y + 3) for x, y in stones)  # centre 10,10


def test_the_command_line_gives_each_engine_its_clock_and_info_and_pairs_the_colours(tmp_path):
    config = build_config(SPARRING, {"rule": 4}, [EngineSpec.parse("monte=pbrain-monte --set quiet_share=0")],
                          only=["monte", "rapfi"], extra_clocks=["monte=5000/120000"])
    command = cc.command_line(config, "c-gomoku-cli", tmp_path / "o.txt", tmp_path / "g.sgf")
    first, second = command.index("-engine"), command.index("-engine", command.index("-engine") + 1)
    monte, rapfi = command[first:second], command[second:command.index("-rule")]
    assert monte[1].startswith("cmd=") and monte[1].endswith("pbrain-monte --set quiet_share=0")
    assert "tc=120/5" in monte and "name=monte" in monte
    assert "tc=110/1" in rapfi and "option.thread_num=1" in rapfi
    assert command[command.index("-rule") + 1] == "4" and command[command.index("-games") + 1] == "6"
    assert "-repeat" in command and f"file={tmp_path / 'o.txt'}" in command


def test_one_pairing_only():
    with pytest.raises(ValueError, match="--only"):
        cc.two_engines(build_config(SPARRING))


def test_the_sgf_comes_back_as_records_with_pairs_endings_and_times():
    records = cc.read_games(SGF, ("monte", "pela"), 0)
    assert [(r.black, r.white, r.winner, r.termination) for r in records] == [
        ("pela", "monte", "pela", Termination.FIVE), ("monte", "pela", "pela", Termination.TIME)]
    assert records[0].opening == [(7, 5), (6, 8), (5, 9)] and records[1].moves == [(6, 7, 12), (6, 6, 4100)]
    assert records[0].pair_index == records[1].pair_index == 0
    report = cc.standings(records, ["monte", "pela"], "gauntlet", 1000)
    assert "time 1" in report and "0/2" in report


def test_a_game_ended_at_start_is_flagged_with_what_the_log_says():
    """c-gomoku-cli scores a failed START by colour order, not by the engine that failed; the cross-check says so."""
    at_start = SGF.replace(";W[gh]C[12ms];B[gg]C[4100ms])", ")")
    records = cc.read_games(at_start, ("monte", "pela"), 0)
    log = ("[1] engine pela output error: Unknown command: 15\n[1] Started game 1 of 2 (pela vs monte)\n"
           "[2] engine monte timeout before answering START\n")
    note = cc.start_note(records, log)
    assert note is not None and note.startswith("note: c-gomoku-cli ended game 2 at START")
    assert note.endswith("its log says: [1] engine pela output error: Unknown command: 15; "
                         "[2] engine monte timeout before answering START")
    assert cc.start_note(cc.read_games(SGF, ("monte", "pela"), 0), log) is None  # a move was made: no note


def test_an_ending_it_does_not_know_is_named():
    with pytest.raises(ValueError, match="TE\\[Black win by magic\\]"):
        cc.read_games(SGF.replace("five connection", "magic"), ("monte", "pela"), 0)


def test_print_only_needs_no_c_gomoku_cli(tmp_path, capsys):
    status = cc.main(["--engine", "a=pbrain-a", "--engine", "b=pbrain-b", "--games", "4", "--openings",
                      "freestyle15-balanced-test.txt", "--out", str(tmp_path), "--cgomoku", "no-such-cgomoku",
                      "--print-only"])
    assert status == 0
    assert len((tmp_path / "openings.txt").read_text().splitlines()) == 2
    assert capsys.readouterr().out.startswith("no-such-cgomoku -engine")


def test_a_missing_manager_is_one_line(tmp_path, capsys):
    status = cc.main(["--engine", "a=pbrain-a", "--engine", "b=pbrain-b", "--out", str(tmp_path),
                      "--cgomoku", "no-such-cgomoku"])
    assert status == 2
    assert capsys.readouterr().err.strip() == "cgomoku_crosscheck: cannot run 'no-such-cgomoku': no such program"


def _cgomoku() -> str | None:
    return shutil.which(os.environ.get("MONTE_CGOMOKU", "c-gomoku-cli")) or shutil.which(
        "/tmp/sparring/bin/c-gomoku-cli")


@pytest.mark.skipif(_cgomoku() is None, reason="c-gomoku-cli is not installed (MONTE_CGOMOKU or PATH)")
def test_c_gomoku_cli_referees_two_fake_brains(tmp_path, capsys):
    brain = f"{sys.executable} {FAKE_BRAIN} --mode good"
    status = cc.main(["--engine", f"a={brain}", "--engine", f"b={brain}", "--games", "2", "--openings",
                      "freestyle15-balanced-test.txt", "--timeout-turn-ms", "2000", "--out", str(tmp_path / "run"),
                      "--cgomoku", _cgomoku()])
    assert status == 0, capsys.readouterr()
    records = read_jsonl(tmp_path / "run" / "games.jsonl")
    assert len(records) == 2 and {records[0].black, records[1].black} == {"a", "b"}
    assert records[0].opening == records[1].opening and len(records[0].opening) == 3


@pytest.mark.skipif(_cgomoku() is None, reason="c-gomoku-cli is not installed (MONTE_CGOMOKU or PATH)")
def test_games_an_engine_failed_at_start_are_flagged_with_its_name(tmp_path, capsys):
    """An engine that answers ERROR to START: c-gomoku-cli ends each game before a move as a time loss (here 1-1:
    one of the two charged to the engine that did nothing wrong); the cross-check names the engine its log blames."""
    good = f"{sys.executable} {FAKE_BRAIN} --mode good"
    refuses = f"{sys.executable} {FAKE_BRAIN} --mode start-error"
    status = cc.main(["--engine", f"good={good}", "--engine", f"bad={refuses}", "--games", "2", "--openings",
                      "freestyle15-balanced-test.txt", "--timeout-turn-ms", "2000", "--out", str(tmp_path / "run"),
                      "--cgomoku", _cgomoku()])
    out = capsys.readouterr().out
    assert status == 0, out
    records = read_jsonl(tmp_path / "run" / "games.jsonl")
    assert [(r.termination, r.moves) for r in records] == [(Termination.TIME, [])] * 2
    assert "note: c-gomoku-cli ended game 1, 2 at START" in out
    assert "[1] engine bad output error: the fake brain refuses every board" in out
