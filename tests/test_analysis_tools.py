"""``monte analyze`` and ``monte render``, their parts (notation, positions, the brain's analysis, the SVG and DOT
writers, the tournament report's pictures) and the small pieces of ``monte play`` that need no terminal: the
board's text, the game model and the reading of engines' search info."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from monte.protocol.notation import (column_index, column_name, parse_moves, parse_point, parse_rule, point_name,
                                     search_summary)
from monte.analysis.positions import board_at, load_game
from monte.analysis.render import game_svg, to_png
from monte.analysis.tournament_report import write_report
from monte.analysis.tree_dot import render_dot, tree_dot
from monte.brain.search_view import PROOF_WIN, analyze
from monte.brain.board import BLACK, WHITE, Board
from monte.brain.player import ThinkLimits
from monte.brain.rules import RULE_RENJU
from monte.play.board_view import Look, draw_board
from monte.play.game import Game
from monte.protocol.search_info import parse_search_info
from monte.tournaments.records import GameRecord, SavedGame, Termination, append_jsonl, read_psq, read_sgf

QUIET_OPENING = "h8 i9 j7"
"""Three stones, white to move: nothing forced, a real search."""


def budget(nodes: int) -> ThinkLimits:
    limits = ThinkLimits.seconds(3600.0)
    limits.max_nodes = nodes
    return limits


# --- notation and positions ---------------------------------------------------------------------------------------

def test_points_are_column_letters_from_the_left_and_rows_from_the_bottom():
    assert point_name(7, 7, 15) == "H8" and point_name(0, 14, 15) == "A1" and point_name(14, 0, 15) == "O15"
    assert [column_name(x) for x in (0, 25, 26, 31)] == ["A", "Z", "AA", "AF"]
    assert all(column_index(column_name(x)) == x for x in range(32))
    assert parse_point("h8", 15, 15) == parse_point(" 7,7 ", 15, 15) == (7, 7)
    assert parse_point("AF1", 32, 32) == (31, 31)


@pytest.mark.parametrize("text, error", [("P1", "P1 is off the 15x15 board (columns A-O, rows 1-15)"),
                                         ("H0", "H0 is off"), ("15,0", "15,0 is off"), ("8h", "'8h' is not a point")])
def test_bad_points_say_what_is_wrong(text, error):
    with pytest.raises(ValueError, match=error.replace("(", r"\(").replace(")", r"\)")):
        parse_point(text, 15, 15)


def test_move_lists_take_spaces_pairs_and_names_run_together():
    assert parse_moves("h8 i9 7,5", 15, 15) == parse_moves("h8i9h10", 15, 15) == [(7, 7), (8, 6), (7, 5)]
    with pytest.raises(ValueError, match="'h8x' is not a point"):
        parse_moves("h8x", 15, 15)


def test_rules_by_name_or_number():
    assert parse_rule("renju") == parse_rule("4") == RULE_RENJU
    with pytest.raises(ValueError, match="unknown rule 'go'"):
        parse_rule("go")


def test_a_game_loads_from_sgf_psq_jsonl_and_a_move_list_alike(tmp_path):
    record = GameRecord(game_id=7, pairing=("a", "b"), pair_index=3, black="a", white="b", width=15, height=15,
                        rule=4, opening=[(7, 7)], moves=[(8, 6, 10), (7, 5, 10)], winner=None,
                        termination=Termination.DRAW_MOVES, detail="")
    append_jsonl(tmp_path / "games.jsonl", record)
    from monte.tournaments.records import to_psq, to_sgf
    (tmp_path / "g.sgf").write_text(to_sgf(record))
    (tmp_path / "g.psq").write_text(to_psq(record))
    stones = [(7, 7, BLACK), (8, 6, WHITE), (7, 5, BLACK)]
    assert load_game(str(tmp_path / "games.jsonl"), game_id=7).stones == stones
    assert load_game(str(tmp_path / "g.sgf")).rule == RULE_RENJU
    assert load_game(str(tmp_path / "g.psq"), rule=4).stones == stones
    assert load_game("h8 i9 h10").stones == stones
    with pytest.raises(ValueError, match="pick one with --game"):
        load_game(str(tmp_path / "games.jsonl"))
    with pytest.raises(ValueError, match="no game 8"):
        load_game(str(tmp_path / "games.jsonl"), game_id=8)
    with pytest.raises(ValueError, match="move 3: 7,7 is occupied"):
        load_game("h8 i9 h8")
    with pytest.raises(ValueError, match="move 9 is outside the game's 0..3 moves"):
        board_at(load_game("h8 i9 h10"), 9)


# --- the brain's analysis -------------------------------------------------------------------------------------------

def test_analysis_lists_root_moves_by_visits_with_lines_and_the_same_answer_for_the_same_budget():
    board = board_at(load_game(QUIET_OPENING), 3)
    first = analyze(board, budget(4000), top=5, tree_depth=2, tree_width=3)
    again = analyze(board, budget(4000), top=5)
    assert first.move == again.move and [m.visits for m in first.moves] == [m.visits for m in again.moves]
    assert first.move == first.moves[0].move == first.pv[0]
    visits = [m.visits for m in first.moves]
    assert visits == sorted(visits, reverse=True) and 0 < sum(visits) <= first.iterations <= first.nodes <= 4000
    assert all(m.pv[0] == m.move and 0 < m.prior < 1 and 0 <= m.winrate <= 1 for m in first.moves)
    assert board.stone_count == 3  # the caller's board is left as it was
    tree = first.tree
    assert tree.move is None and 1 <= len(tree.children) <= 3
    assert [c.visits for c in tree.children] == sorted((c.visits for c in tree.children), reverse=True)
    assert tree.children[0].move == first.move and all(len(c.children) <= 3 for c in tree.children)
    assert all(not c.children[0].children for c in tree.children if c.children)  # two plies deep, no more


def test_a_win_by_continuous_fours_is_marked_as_proven():
    """Black to move: F8 makes a four and an open three at once, so continuous fours win (the root VCF)."""
    board = Board.from_diagram("""
        O . . . . . . . O
        . . . . . . . . .
        . . . . . X . . .
        . . . . . X . . .
        . O X X X . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        O . . . . . . . O
    """)
    assert board.to_move == BLACK
    result = analyze(board, budget(20000), top=3)
    assert result.winrate == 1.0 and result.note == "vcf" and result.move == (5, 4)
    assert result.moves[0].proof == PROOF_WIN and result.moves[0].proof_by == "vcf"
    assert result.moves[0].move == result.move and result.moves[0].pv == result.pv and len(result.pv) >= 3


def test_monte_analyze_prints_json_and_the_growth_table(monte_executable, warm_pbrain, tmp_path):
    run = [monte_executable, "analyze", QUIET_OPENING, "--nodes", "3000", "--json", "--top", "3"]
    data = json.loads(subprocess.run(run, capture_output=True, text=True, timeout=120, check=True).stdout)
    assert data["move_name"] == point_name(*data["move"], 15) and len(data["moves"]) == 3
    assert data["moves"][0]["move_name"] == data["pv_names"][0]
    growth = [monte_executable, "analyze", QUIET_OPENING, "--iterations", "2000,6000", "--json"]
    rows = json.loads(subprocess.run(growth, capture_output=True, text=True, timeout=120, check=True).stdout)
    assert [row["node_budget"] for row in rows] == [2000, 6000] and rows[0]["iterations"] < rows[1]["iterations"]
    table = subprocess.run([*growth[:-1]], capture_output=True, text=True, timeout=120, check=True).stdout
    assert table.splitlines()[0].split()[:5] == ["nodes", "iterations", "move", "evaluation", "visits"]
    assert table.splitlines()[2].startswith("2000 ") and table.splitlines()[3].startswith("6000 ")
    assert table.splitlines()[3].count("win rate") <= 1  # the value may say it; the header does not repeat it


def test_monte_analyze_refuses_bad_input_in_one_line(monte_executable):
    for args, error in [(["h8 q3"], "q3 is off the 15x15 board"), (["h8", "--iterations", "10,x"], "--iterations"),
                        (["missing.sgf"], "missing.sgf: no such file")]:
        result = subprocess.run([monte_executable, "analyze", *args], capture_output=True, text=True, timeout=60)
        assert result.returncode == 2 and error in result.stderr and len(result.stderr.splitlines()) == 1


def fake_tool(folder: Path, name: str) -> Path:
    """A stand-in for Graphviz's dot or rsvg-convert: it records its arguments and writes its -o file."""
    script = folder / name
    script.write_text(f"#!{sys.executable}\nimport sys\nargs = sys.argv[1:]\n"
                      f"open({str(folder / (name + '.args'))!r}, 'w').write(' '.join(args))\n"
                      "open(args[args.index('-o') + 1], 'w').write('drawn')\n")
    script.chmod(0o755)
    return script


def test_the_search_tree_goes_to_dot_and_through_graphviz_when_it_is_installed(tmp_path, monkeypatch):
    board = board_at(load_game(QUIET_OPENING), 3)
    result = analyze(board, budget(3000), tree_depth=2, tree_width=2)
    dot = tree_dot(result.tree, 15)
    assert dot.startswith("digraph monte {") and dot.count(" -> ") == sum(1 + len(c.children)
                                                                          for c in result.tree.children)
    first = result.tree.children[0]
    assert f'label="{point_name(*first.move, 15)}\\n{first.visits} visits\\n{100 * first.winrate:.1f}%"' in dot
    path = tmp_path / "tree.dot"
    path.write_text(dot)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert render_dot(path) is None  # no Graphviz: nothing drawn, no error
    fake_tool(tmp_path, "dot")
    assert render_dot(path) == tmp_path / "tree.svg"
    assert (tmp_path / "dot.args").read_text() == f"-Tsvg {path} -o {tmp_path / 'tree.svg'}"


# --- pictures ---------------------------------------------------------------------------------------------------------

def test_a_game_picture_numbers_the_stones_and_marks_the_last_one():
    game = load_game("h8 i9 h10 j8")
    svg = game_svg(game, title="a <game>")
    assert svg.startswith("<svg ") and svg.count('r="14.7"') == 4  # four stones
    assert ">a &lt;game&gt;</text>" in svg
    assert 'fill="#d62728">4</text>' in svg and 'fill="#fff">1</text>' in svg  # the last move's number is red
    assert game_svg(game, 2).count('r="14.7"') == 2
    assert 'fill="#fff">3</text>' not in game_svg(game, 2) and 'fill="#d62728">2</text>' in game_svg(game, 2)
    unnumbered = game_svg(game, numbers=False)
    assert 'fill="#fff">1</text>' not in unnumbered and unnumbered.count('fill="#d62728"') == 1  # a red dot on the last one


def test_forbidden_points_are_crossed_for_black_under_renju():
    game = load_game("g8 a1 h8 a3 i10 a5 i9 a7", rule=RULE_RENJU)
    board = board_at(game, 8)
    forbidden = [p for p in board.empty_cells() if board.is_forbidden(*p)]
    assert (8, 7) in forbidden
    assert game_svg(game, forbidden=True).count('stroke="#d62728" stroke-width="3"') == len(forbidden)
    assert 'stroke-width="3"' not in game_svg(game)


def test_monte_render_draws_a_game_of_a_tournament_log(monte_executable, tmp_path):
    record = GameRecord(game_id=3, pairing=("a", "b"), pair_index=1, black="a", white="b", width=9, height=9,
                        rule=0, opening=[], moves=[(4, 4, 1), (5, 5, 1)], winner="a",
                        termination=Termination.TIME, detail="")
    append_jsonl(tmp_path / "games.jsonl", record)
    result = subprocess.run([monte_executable, "render", "games.jsonl", "--game", "3"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    svg = (tmp_path / "game00003.svg").read_text()
    assert "a (black) vs b (white), B+T, move 2 of 2" in svg and svg.count('r="14.7"') == 2
    assert subprocess.run([monte_executable, "render", "games.jsonl"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60).returncode == 2


def test_png_goes_through_rsvg_convert_when_it_is_installed(tmp_path, monkeypatch):
    svg = tmp_path / "x.svg"
    svg.write_text(game_svg(load_game("h8")))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ValueError, match="a PNG needs rsvg-convert"):
        to_png(svg, tmp_path / "x.png")
    fake_tool(tmp_path, "rsvg-convert")
    to_png(svg, tmp_path / "x.png")
    assert (tmp_path / "x.png").read_text() == "drawn"


def test_the_tournament_report_links_a_picture_of_each_decisive_game(tmp_path):
    def game(game_id: int, winner: str | None, termination: Termination) -> GameRecord:
        return GameRecord(game_id=game_id, pairing=("a", "b"), pair_index=game_id // 2, black="a", white="b",
                          width=15, height=15, rule=0, opening=[(7, 7)], moves=[(8, 8, 5), (6, 6, 5)],
                          winner=winner, termination=termination, detail=f"game {game_id} | ended")

    records = [game(0, "a", Termination.FIVE), game(1, None, Termination.DRAW_FULL), game(2, "b", Termination.CRASH)]
    report = write_report(tmp_path, records, ["a", "b"], "round-robin").read_text()
    assert "## Decisive games (2 of 3)" in report
    assert "[game00000.svg](games/game00000.svg) | [game00000.sgf](games/game00000.sgf)" in report
    assert "| 2 | a | b | b | crash: game 2 / ended | [game00002.svg](games/game00002.svg)" in report
    assert "game00001" not in report and not (tmp_path / "games" / "game00001.svg").exists()
    assert (tmp_path / "games" / "game00002.svg").read_text().count('r="14.7"') == 3


def test_monte_tournament_writes_the_report_with_the_pictures(monte_executable, tmp_path):
    fake = f"{sys.executable} {Path(__file__).parent / 'fakes' / 'fake_brain.py'}"
    result = subprocess.run([monte_executable, "tournament", "--engine", f"steady={fake} --mode good", "--engine",
                             f"crashy={fake} --mode crash --at 2", "--games", "2", "--width", "9", "--out", "run"],
                            cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    report = (tmp_path / "run" / "report.md").read_text()
    assert "## Decisive games (2 of 2)" in report and "| 2 | crashy | steady | steady | crash:" in report
    assert all((tmp_path / "run" / "games" / f"game0000{n}.svg").exists() for n in (1, 2))


# --- monte play's parts -----------------------------------------------------------------------------------------------

def test_the_ascii_board_brackets_the_last_move_and_stars_forbidden_points():
    board = Board(5, 5)
    board.place(0, 4, BLACK)
    board.place(4, 4, WHITE)
    text = draw_board(board, Look(unicode=False, colour=False), last=(4, 4), forbidden=frozenset({(2, 2)}))
    assert text.splitlines() == ["   A B C D E",
                                 "5  . . . . . 5", "4  . . . . . 4", "3  . . * . . 3", "2  . . . . . 2",
                                 "1  X . . .(O)1",
                                 "   A B C D E"]


def test_search_info_is_read_from_rapfi_mcts_and_monte_lines():
    rapfi = parse_search_info("MESSAGE depth 12-18 ev 35 n 123456 n/ms 300 tm 1200 pv h8 i9")
    # the realtime format's points: a column letter and the row from the top plus one (i9 is the protocol's 8,8)
    assert (rapfi.depth, rapfi.seldepth, rapfi.eval, rapfi.nodes, rapfi.pv) == ("12", "18", "35", "123456",
                                                                                   ["7,7", "8,8"])
    # the board counts rows from the bottom; the evaluation becomes a win rate by the GUIs' logistic curve
    assert search_summary(rapfi, 15) == "depth 12-18  win rate 52.2%  123456 nodes  pv H8 I7"
    mcts = parse_search_info("depth 9 seldepth 20 w 0.623 v 24353 pv 7,7 8,8")
    assert mcts.winrate == pytest.approx(0.623)
    assert search_summary(mcts, 15) == "depth 9-20  win rate 62.3%  24353 visits  pv H8 I7"
    monte = parse_search_info("MESSAGE depth 20 winrate 62.3% iterations 24353 speed 162.2k/s time 150ms pv 8,9 7,6")
    assert monte.winrate == pytest.approx(0.623) and monte.visits == "24353" and monte.pv == ["8,9", "7,6"]
    assert parse_search_info("MESSAGE depth 0 winrate 50.0% iterations 0 pv 7,7 forced").pv == ["7,7"]
    assert parse_search_info("MESSAGE fake move 3") is None
    summary = parse_search_info("MESSAGE Monte: winrate 80.7%, depth 11-18, 24896 iterations in 167 ms; ev 572 pv I8 H7")
    assert (summary.winrate, summary.depth, summary.seldepth, summary.pv) == (pytest.approx(0.807), "11", "18",
                                                                              ["8,7", "7,6"])
    assert summary.visits == "24896"  # the number before its word, as Monte's summary writes it


def test_proofs_in_search_lines_read_as_win_in_n_and_a_forced_move_has_no_win_rate():
    proof = parse_search_info("MESSAGE depth 3-9 ev +M7 n 100 n/ms 0 tm 0 pv H8 I9")
    assert proof.mate == 7 and proof.win_rate() == 1.0 and search_summary(proof, 15).split("  ")[1] == "win in 4"
    assert search_summary(parse_search_info("depth 2-2 ev -M4 n 5 pv H8"), 15).split("  ")[1] == "loss in 2"
    forced = parse_search_info("MESSAGE depth 1-1 ev 0 n 0 n/ms 0 tm 0 pv H8")
    assert forced.win_rate() is None and "win rate" not in search_summary(forced, 15)


def test_undo_against_an_engine_takes_back_the_pair_and_a_resignation_is_saved(tmp_path):
    game = Game(15, 15, 0, {BLACK: "human", WHITE: "Monte"})
    for x, y in [(7, 7), (8, 8), (6, 6), (9, 9)]:
        game.play(x, y, 100)
    assert game.undo(keep_turn_of={BLACK}) == 2 and game.board.stone_count == 2 and game.to_move == BLACK
    assert game.undo(keep_turn_of={BLACK, WHITE}) == 1 and game.to_move == WHITE  # two people: one stone
    game.play(9, 9, 100)
    game.resign()
    saved = read_sgf(game.save(str(tmp_path / "g"))[0].read_text())
    assert saved.result == "W+R" and saved.stones == [(7, 7, BLACK), (9, 9, WHITE)]
    assert read_psq((tmp_path / "g.psq").read_text()).stones == saved.stones


def test_a_loaded_game_must_alternate_and_be_unfinished():
    out_of_turn = SavedGame(15, 15, 0, [(7, 7, BLACK), (8, 8, BLACK)])
    with pytest.raises(ValueError, match="move 2 of the saved game is black's, out of turn"):
        Game.from_saved(out_of_turn, 2, {BLACK: "a", WHITE: "b"})
    five = SavedGame(15, 15, 0, [(x, y, 1 + i % 2) for i, (x, y) in enumerate(
        [(0, 14), (1, 14), (0, 13), (1, 13), (0, 12), (1, 12), (0, 11), (1, 11), (0, 10), (1, 10)])])
    with pytest.raises(ValueError, match="over after move 9"):
        Game.from_saved(five, 10, {BLACK: "a", WHITE: "b"})
    assert Game.from_saved(five, 8, {BLACK: "a", WHITE: "b"}).to_move == BLACK
