"""The web board's pieces without a server: the winning row drawn under each rule, an engine's search line as the
page shows it, the runs the replay lists (and only those), and the engines a server may run."""

from __future__ import annotations

from pathlib import Path

import pytest

from monte.analysis.positions import winning_line
from monte.brain.board import BLACK, WHITE, Board
from monte.brain.rules import RULE_CARO, RULE_RENJU
from monte.tournaments.engines import EngineError
from monte.tournaments.records import GameRecord, Termination, append_jsonl
from monte.web.replay import RunFolders, RunNotFound
from monte.web.roster import load_roster
from monte.tournaments.referee import Ruling
from monte.web.views import ending, result_text, search_view


def played(moves: list[tuple[int, int]], rule: int = 0, size: int = 9) -> Board:
    board = Board(size, size, rule)
    for x, y in moves:
        board.play(x, y)
    return board


def test_winning_line_is_the_five_the_last_stone_made() -> None:
    # black on row 4 from x=1 to x=5, the last stone in the middle of the row
    board = played([(1, 4), (1, 0), (2, 4), (2, 0), (4, 4), (3, 0), (5, 4), (5, 0), (3, 4)])
    assert winning_line(board) == [[1, 4], [2, 4], [3, 4], [4, 4], [5, 4]]
    board.undo()
    assert winning_line(board) == []


def test_winning_line_follows_the_rule() -> None:
    six = [(0, 2), (0, 0), (1, 2), (1, 0), (2, 2), (2, 0), (4, 2), (3, 0), (5, 2), (8, 8), (3, 2)]
    assert len(winning_line(played(six))) == 6  # freestyle: an overline wins
    assert winning_line(played(six, RULE_RENJU)) == []  # renju: not for black
    blocked = [(1, 4), (0, 4), (2, 4), (6, 4), (3, 4), (8, 8), (4, 4), (8, 7), (5, 4)]
    assert winning_line(played(blocked, RULE_CARO)) == []  # caro: a five blocked at both ends
    assert len(winning_line(played(blocked))) == 5


def test_search_view_draws_the_protocol_points_of_the_line() -> None:
    view = search_view("MESSAGE depth 12 winrate 62.5% iterations 4000 speed 100.0k/s time 40ms pv 4,4 5,5 6,3", 9)
    assert view["pv"] == [[4, 4], [5, 5], [6, 3]] and view["winrate"] == 0.625
    assert view["summary"] == "depth 12  4000 visits" and view["evaluation"] == "win rate 62.5%"
    # the realtime format writes the protocol's 8,8 as i9 (row from the top plus one); the page names it I7 itself
    rapfi = search_view("MESSAGE depth 8-12 ev 35 n 9000 pv h8 i9", 15)
    assert rapfi["pv"] == [[7, 7], [8, 8]] and rapfi["evaluation"] == "win rate 52.2%"
    proof = search_view("MESSAGE depth 5-5 ev +M5 n 0 pv h8 i9", 15)
    assert proof["evaluation"] == "win in 3" and proof["winrate"] == 1.0 and proof["mate"] == 5
    forced = search_view("MESSAGE depth 1-1 ev 0 n 0 n/ms 0 tm 0 pv H8", 15)
    assert forced["evaluation"] == "" and forced["winrate"] is None  # a move searched with 0 nodes: no win rate
    assert search_view("MESSAGE hello", 15) is None


def test_endings_and_results_name_points_as_the_board_does() -> None:
    ruling = Ruling(Termination.ILLEGAL, BLACK, "white played 11,12, which is occupied")
    assert ending(ruling, {BLACK: "you", WHITE: "monte"}, 15, 15) == ("Black (you) wins: white played L3, which is "
                                                                       "occupied.")
    board = Board(9, 9)
    assert result_text("W+R", board) == "White won by resignation" and result_text("Void", board) == "Unfinished"
    assert result_text("B+", board) == "Black won" and result_text("0", board) == "Draw"


def _record(game_id: int) -> GameRecord:
    return GameRecord(game_id=game_id, pairing=("a", "b"), pair_index=0, black="a", white="b", width=9, height=9,
                      rule=0, opening=[(4, 4)], moves=[(5, 5, 12)], winner=None, termination=Termination.DRAW_MOVES,
                      detail="drawn after 2 stones")


def test_replay_lists_run_folders_and_finds_games_by_name_only(tmp_path: Path) -> None:
    append_jsonl(tmp_path / "first" / "games.jsonl", _record(1))
    (tmp_path / "empty").mkdir()
    folders = RunFolders(tmp_path)
    assert list(folders.runs()) == ["first"]
    assert folders.games("first")[0] == {"id": 1, "black": "a", "white": "b", "result": "1/2-1/2",
                                         "termination": "draw-moves", "detail": "drawn after 2 stones", "moves": 2,
                                         "size": "9x9", "rule": "freestyle"}
    game = folders.game("first", 1)
    assert game["stones"] == [[4, 4, 1, None], [5, 5, 2, 12]] and game["opening"] == 1
    assert list(RunFolders(tmp_path / "first").runs()) == ["first"]  # a run's own folder
    for run, game_id in [("empty", 1), ("../first", 1), ("first", 2)]:
        with pytest.raises(RunNotFound):
            folders.game(run, game_id)


def test_roster_has_monte_and_the_named_engines_only(tmp_path: Path) -> None:
    config = tmp_path / "engines.toml"
    config.write_text('[tournament]\ngames = 2\n\n[[engine]]\nname = "greedy"\ncommand = "pbrain-monte --engine '
                      'greedy"\ninfo = { max_node = 500 }\n')
    roster = load_roster(["random=pbrain-monte --engine random"], str(config))
    assert list(roster) == ["monte", "greedy", "random"]
    assert roster["greedy"].info == (("max_node", "500"),)
    with pytest.raises(EngineError, match="engine name 'human' is taken"):
        load_roster(["human=pbrain-monte"], None)
