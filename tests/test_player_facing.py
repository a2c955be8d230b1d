"""What a Gomoku player reads from ``monte analyze``, ``monte play``, ``monte render`` and ``monte games``: won, lost,
forced and finished positions analysed right, one evaluation scale (a win rate in %, "win in N" / "loss in N" for a
proof), bad files and paths refused in one line naming them (never a raw errno), and the winning five marked."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest

from monte.protocol.evaluation import UNMEASURED_PLIES, evaluation_text, mate_plies, proof_text
from monte.analysis.positions import board_at, load_game
from monte.analysis.render import game_svg
from monte.brain.player import ThinkLimits
from monte.brain.search_view import PROOF_WIN, analyze
from monte.play.board_view import Look, draw_board
from monte.small_games.spec import GAMES
from monte.small_games.terminal import render

pytestmark = pytest.mark.filterwarnings("ignore:setDaemon:DeprecationWarning")  # inside pexpect 4.8

OPEN_THREE = "h8 a1 i8 a2 j8 a3"
"""Black to move with an open three (H8 I8 J8): G8 or K8 makes an open four, a win in 2 (the four, then five)."""
BLOCK = "a1 h8 a2 l12 a3 d13 a4"
"""White to move against black's four A1-A4 on the edge: white must block at A5, the only move that does not lose at
once, and the game goes on."""
OPEN_FOUR = "h8 a1 i8 a2 j8 a3 k8"
"""White to move against black's open four: lost, black makes five next whatever white does (a loss in 1)."""
FIVE = "h8 a1 i8 a2 j8 a3 k8 a4 l8"
"""Black has made five: the game is over."""
CORRUPT_SGF = "(;FF[4]GM[4]SZ[15];B[hh];W[zz"


def budget(nodes: int) -> ThinkLimits:
    limits = ThinkLimits.seconds(3600.0)
    limits.max_nodes = nodes
    return limits


def run_monte(monte: str, *args: str, cwd: Path | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([monte, *args], capture_output=True, text=True, timeout=300, cwd=cwd, env=env,
                          stdin=subprocess.DEVNULL)


def refused(result: subprocess.CompletedProcess, *words: str) -> None:
    """One line on stderr, exit code 2, no errno or traceback, and every one of `words` in it."""
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert "Errno" not in result.stderr and "Traceback" not in result.stderr
    for word in words:
        assert word in result.stderr, result.stderr


# --- one scale --------------------------------------------------------------------------------------------------------

def test_proofs_are_counted_in_the_winners_stones_and_win_rates_in_percent():
    assert proof_text(1) == "win in 1" and proof_text(3) == "win in 2" and proof_text(7) == "win in 4"
    assert proof_text(-2) == "loss in 1" and proof_text(-4) == "loss in 2" and proof_text(0) == ""
    assert proof_text(-UNMEASURED_PLIES) == "loss" and proof_text(UNMEASURED_PLIES) == "win"
    assert evaluation_text(0.623) == "win rate 62.3%" and evaluation_text(1.0, 5) == "win in 3"
    assert mate_plies("+M7") == 7 and mate_plies("-M4") == -4 and mate_plies("35") is None


# --- won, lost, forced, finished --------------------------------------------------------------------------------------

def test_a_won_position_is_a_proven_win_not_fifty_percent():
    result = analyze(board_at(load_game(OPEN_THREE), 6), budget(3000))
    assert result.move in [(6, 7), (10, 7)] and result.mate > 0 and result.winrate == 1.0
    assert proof_text(result.mate) == "win in 2"
    assert result.moves[0].proof == PROOF_WIN


def test_a_forced_block_gets_the_win_rate_of_the_position_after_it():
    result = analyze(board_at(load_game(BLOCK), 7), budget(3000))
    assert result.move == (0, 10) and result.note == "forced"
    assert result.iterations > 0 and result.winrate != 0.5 and result.mate <= 0
    assert [m.move for m in result.moves] == [(0, 10)] and result.pv[0] == (0, 10)


def test_the_progress_of_a_forced_block_is_the_block_turned_round():
    """The web board's analysis hears the search as it deepens: for a forced move, the search after it, turned round."""
    heard = []
    limits = ThinkLimits.seconds(600.0)

    def hear(so_far):  # the first report is enough: the search is stopped there, as the page stops it
        heard.append(so_far)
        limits.stop.set()

    result = analyze(board_at(load_game(BLOCK), 7), limits, on_progress=hear)
    assert heard, "a long search reports its progress"
    assert all(a.move == (0, 10) and a.moves[0].move == (0, 10) and a.note == "forced" for a in heard)
    assert result.move == (0, 10)


def test_a_lost_position_is_a_loss_in_1_not_a_fallback():
    result = analyze(board_at(load_game(OPEN_FOUR), 7), budget(3000))
    assert result.mate == -2 and result.winrate == 0.0 and "fallback" not in result.note
    assert proof_text(result.mate) == "loss in 1"


def test_monte_analyze_says_win_in_n_and_loss_in_n(monte_executable, warm_pbrain):
    won = run_monte(monte_executable, "analyze", OPEN_THREE, "--nodes", "3000")
    assert won.returncode == 0, won.stderr
    assert "win in 2" in won.stdout.splitlines()[1] and "50.0%" not in won.stdout.splitlines()[1]
    lost = run_monte(monte_executable, "analyze", OPEN_FOUR, "--nodes", "3000")
    assert lost.returncode == 0, lost.stderr
    assert "loss in 1" in lost.stdout and "fallback" not in lost.stdout and "1000 plies" not in lost.stdout


def test_a_loss_of_unmeasured_length_is_not_shown_as_1000_plies():
    from monte.analysis.analyze import _note
    from monte.brain.search_view import Analysis

    unmeasured = Analysis((0, 0), 0.0, "lost, longest defence (1000 plies)", 10, 10, 0.1, 1, [(0, 0)], [],
                          mate=-UNMEASURED_PLIES)
    assert _note(unmeasured) == "lost" and proof_text(unmeasured.mate) == "loss"
    measured = Analysis((0, 0), 0.0, "lost, longest defence (6 plies)", 10, 10, 0.1, 1, [(0, 0)], [], mate=-6)
    assert _note(measured) == "lost, longest defence (6 plies)" and proof_text(measured.mate) == "loss in 3"


def test_the_hint_in_a_won_position_says_win_in_n(monte_executable, warm_pbrain, tmp_path):
    moves = ["h8", "a1", "i8", "a2", "j8", "a3", "hint", "quit"]
    result = subprocess.run([monte_executable, "play", "--black", "human", "--white", "human", "--time", "1"],
                            input="\n".join(moves) + "\n", capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    hint = next(line for line in result.stdout.splitlines() if "hint: " in line)
    assert "(win in 2" in hint and "%" not in hint, hint


def test_a_finished_game_is_not_analysed(monte_executable):
    refused(run_monte(monte_executable, "analyze", FIVE), "the game is over: black made five (H8 I8 J8 K8 L8)")


def test_stones_after_a_five_are_refused():
    with pytest.raises(ValueError, match="move 10: the game was over after move 9"):
        load_game(FIVE + " b1")


# --- bad input: one line naming the file ------------------------------------------------------------------------------

def test_a_corrupt_sgf_is_refused_by_analyze_render_and_play(monte_executable, tmp_path):
    (tmp_path / "cut.sgf").write_text(CORRUPT_SGF)
    for args in (["analyze", "cut.sgf"], ["render", "cut.sgf"], ["play", "--load", "cut.sgf"]):
        refused(run_monte(monte_executable, *args, cwd=tmp_path), "cut.sgf", "cut short")
    assert not (tmp_path / "cut.svg").exists()


def test_missing_files_folders_and_empty_names_are_named_without_errno(monte_executable, tmp_path):
    refused(run_monte(monte_executable, "analyze", "", cwd=tmp_path), "no game given")
    refused(run_monte(monte_executable, "analyze", "missing.sgf", cwd=tmp_path), "missing.sgf: no such file")
    (tmp_path / "games.sgf").mkdir()
    refused(run_monte(monte_executable, "render", "games.sgf", cwd=tmp_path), "games.sgf is a folder")
    refused(run_monte(monte_executable, "play", "--load", "missing.psq", cwd=tmp_path), "missing.psq: no such file")


def test_analyze_refuses_a_time_that_is_no_number_and_a_tree_it_cannot_write(monte_executable, tmp_path):
    for seconds in ("nan", "inf", "0"):
        refused(run_monte(monte_executable, "analyze", "--time", seconds, "h8", cwd=tmp_path), "--time", "above 0")
    (tmp_path / "afile").write_text("")
    refused(run_monte(monte_executable, "analyze", "--nodes", "50", "--tree", "afile/t.dot", "h8", cwd=tmp_path),
            "afile/t.dot: Not a directory")


def test_play_refuses_a_save_into_a_missing_folder_and_a_negative_move_at_the_start(monte_executable, tmp_path):
    refused(run_monte(monte_executable, "play", "--black", "human", "--white", "human", "--save", "nowhere/g.sgf",
                      cwd=tmp_path), "--save nowhere/g.sgf", "folder nowhere does not exist")
    (tmp_path / "g.sgf").write_text("(;GM[4]SZ[15];B[hh];W[ii];B[jj])")
    refused(run_monte(monte_executable, "play", "--load", "g.sgf", "--move", "-3", cwd=tmp_path),
            "--move -3 is outside the game's 0..3 moves")


def test_render_writes_only_what_its_name_says(monte_executable, tmp_path):
    refused(run_monte(monte_executable, "render", "h8 i9", "-o", "x.jpg", cwd=tmp_path), "-o x.jpg", ".svg or .png")
    assert not (tmp_path / "x.jpg").exists()
    tool = tmp_path / "bin" / "rsvg-convert"  # a stand-in for librsvg: writes its -o file
    tool.parent.mkdir()
    tool.write_text(f"#!{sys.executable}\nimport sys\nargs = sys.argv[1:]\n"
                    "open(args[args.index('-o') + 1], 'w').write('png')\n")
    tool.chmod(0o755)
    env = {**os.environ, "PATH": f"{tool.parent}{os.pathsep}{os.environ['PATH']}"}
    result = run_monte(monte_executable, "render", "h8 i9", "-o", "e.png", cwd=tmp_path, env=env)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "e.png").read_text() == "png" and not (tmp_path / "e.svg").exists()


# --- the winning five, marked -----------------------------------------------------------------------------------------

def test_the_winning_five_is_marked_on_the_terminal_board_and_in_pictures():
    game = load_game(FIVE)
    board = board_at(game, len(game.stones))
    five = frozenset({(x, 7) for x in range(7, 12)})
    ascii_board = draw_board(board, Look(unicode=False, colour=False), (11, 7), five=five)
    row_8 = next(line for line in ascii_board.splitlines() if line.startswith(" 8 "))
    assert row_8 == " 8  . . . . . . . # # # #(#). . . 8"  # H8..L8, the last one bracketed
    assert "# the winning five" in Look(unicode=False, colour=False).legend(False, five=True)
    assert draw_board(board, Look(unicode=True, colour=False), five=five).count("◉") == 5
    svg = game_svg(game)
    assert svg.count('class="five"') == 1 and 'class="five"' not in game_svg(game, len(game.stones) - 1)


def test_a_person_sees_the_five_on_the_terminal_at_the_end(monte_executable, tmp_path):
    moves = ["h8", "a1", "i8", "a2", "j8", "a3", "k8", "a4", "l8", "quit"]
    result = subprocess.run([monte_executable, "play", "--black", "human", "--white", "human"],
                            input="\n".join(moves) + "\n", capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    before, last_board = result.stdout.split("move 10:")
    assert "#" not in before  # no five, no mark
    assert last_board.count("#") == 5 + 1 and "# the winning five" in last_board  # five stones and the legend
    assert "Game over: black wins: five in a row with L8" in last_board


# --- who sits at the board --------------------------------------------------------------------------------------------

def test_an_engine_run_with_options_is_not_shown_as_monte(monte_executable, warm_pbrain, tmp_path):
    child = pexpect.spawn(monte_executable, ["play", "--white", "pbrain-monte --engine greedy", "--time", "0.1",
                                             "--ascii"], cwd=str(tmp_path), encoding="utf-8", timeout=120)
    child.expect(r"black \(you\) vs white \(([^)\r\n]*)\)")
    assert child.match.group(1) == "Monte --engine greedy"
    child.expect("to move: ")
    child.sendline("quit")
    child.expect(pexpect.EOF)


# --- the small games --------------------------------------------------------------------------------------------------

def test_small_games_count_rows_from_the_bottom_as_they_read_moves():
    game = GAMES["tictactoe"]
    board = game.new_board()
    x, y = game.parse_move("a1", board)
    assert (x, y) == (0, 2) and game.move_name(x, y) == "a1"
    board.play(x, y)
    assert render(game, board).splitlines()[-1] == " 1 X . ."


def test_small_games_print_the_engines_win_rate_in_percent(monte_executable):
    child = pexpect.spawn(monte_executable, ["games", "tictactoe", "--first", "engine", "--simulations", "200"],
                          encoding="utf-8", timeout=60)
    child.expect(r"engine plays [a-c][1-3] \(its win rate (\S+)\)")
    assert child.match.group(1).endswith("%")
    child.sendline("q")
    child.expect(pexpect.EOF)
