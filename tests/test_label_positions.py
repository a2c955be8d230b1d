"""monte label-positions: a judge engine (a fake one here, which drops a command after each move as Rapfi does) asked
about every distinct position of the games, none from a held-out opening, a file continued where it stopped; and a
judged position as a move for monte fit-policy to learn."""

from __future__ import annotations

import sys
from pathlib import Path

from monte import cli
from monte.brain.board import MOVE_WINS, Board
from monte.lab import fit_policy
from monte.lab.position_judge import KeptJudge
from monte.lab.value_labels import JUDGE, Label, game_positions, label_key, read_labels, tree_positions
from monte.tournaments.records import GameRecord, Termination, append_jsonl

FAKE_JUDGE = [sys.executable, str(Path(__file__).parent / "fakes" / "fake_brain.py"), "--mode", "judge"]
# black builds a row on y = 7 while white plays on y = 0; black's fifth stone (ply 9) makes five
BLACK_WINS = [(3, 7), (0, 0), (4, 7), (2, 0), (5, 7), (4, 0), (6, 7), (8, 0), (7, 7)]


def record(moves: list[tuple[int, int]], winner: str | None, game_id: int = 1,
           opening_id: str = "random:0") -> GameRecord:
    return GameRecord(game_id=game_id, pairing=("a", "b"), pair_index=0, black="a", white="b", width=15, height=15,
                      rule=0, opening=[], moves=[(x, y, 5) for x, y in moves], winner=winner,
                      termination=Termination.FIVE, detail="", opening_id=opening_id)


def test_label_positions_asks_a_judge_that_drops_commands_and_continues_a_file(tmp_path, capsys):
    games, out = tmp_path / "games.jsonl", tmp_path / "labels.jsonl"
    append_jsonl(games, record(BLACK_WINS, "a"))
    append_jsonl(games, record(BLACK_WINS, "a", game_id=2, opening_id="mine-test.txt:1"))  # held out: never asked
    judge = " ".join(FAKE_JUDGE)
    assert cli.main(["label-positions", str(games), "--judge", judge, "--out", str(out), "--limit", "3"]) == 0
    assert len(read_labels(out)) == 3
    assert cli.main(["label-positions", str(games), "--judge", judge, "--out", str(out), "--skip-plies", "1"]) == 0
    labels = read_labels(out)
    assert len(labels) == 8 and len({lb.stones for lb in labels}) == 8  # plies 1..8, none asked twice
    assert all(lb.eval == 10 * len(lb.stones) and lb.nodes == 100 for lb in labels)
    assert "left out: 1 game played from held-out openings" in capsys.readouterr().err


def test_a_kept_judge_is_not_restarted_for_a_dropped_command():
    with KeptJudge(FAKE_JUDGE, 100, 15, 15) as judge:
        verdicts = [judge.verdict(stones) for stones in ([(7, 7)], [(7, 7), (8, 8)], [(7, 7), (8, 8), (6, 6)])]
    assert [v.eval for v in verdicts] == [10, 20, 30] and judge.restarts == 0


def test_positions_are_distinct_and_their_order_is_a_shuffle():
    positions = game_positions([record(BLACK_WINS, "a"), record(BLACK_WINS, "a", game_id=2)], skip_plies=1)
    assert sorted(len(p[3]) for p in positions) == list(range(1, 9))


def test_tree_positions_are_distinct_unfinished_continuations_of_the_searched_positions():
    start = (15, 15, 0, ((7, 7), (8, 8), (7, 8)))
    positions = tree_positions([start], nodes=2000, per_tree=8)
    assert len(positions) == 8 and len({label_key(*p) for p in positions}) == 8
    for width, height, rule, stones in positions:
        assert (width, height, rule) == start[:3] and stones[:3] == start[3] and len(stones) > 3
        assert len(set(stones)) == len(stones)
        board = Board(width, height, rule)
        assert all(board.play(x, y) != MOVE_WINS for x, y in stones)  # no line is a game already over


def test_a_judged_position_teaches_the_move_policy_the_judge_s_move(tmp_path, capsys):
    label = Label(15, 15, 0, ((7, 7), (8, 8), (7, 8)), 10, 0, 100, (7, 9))
    game = label.as_move_record(0)
    assert game.white == JUDGE and game.opening == [(7, 7), (8, 8), (7, 8)] and game.moves == [(7, 9, 0)]
    assert fit_policy.collect([game], {JUDGE}).positions == 1
    assert fit_policy.collect([game], {"someone else"}).positions == 0
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(Label(15, 15, 0, tuple(BLACK_WINS[:n]), 0, 0, 100, BLACK_WINS[n]).line() + "\n"
                              for n in range(3, 6)))
    assert cli.main(["fit-policy", "--labels", str(labels), "--steps", "5", "--holdout", "0.4"]) == 0
    assert "3 games, 3 positions of every engine to move" in capsys.readouterr().out
    assert cli.main(["fit-policy"]) == cli.EXIT_USAGE
