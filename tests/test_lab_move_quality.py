"""The move-quality screen (``monte.lab.move_quality``): which positions of a game it keeps, how a move's kept win
rate is read from the judge, that verdicts are cached by position and move, and the paired difference it reports.
The judge and the brains are scripted here; no engine runs."""

from __future__ import annotations

import json
import math

import pytest

from monte.lab import move_quality
from monte.lab.blunders import Position
from monte.lab.position_judge import Verdict
from monte.lab.value_labels import win_rate

GAME = {"pairing": ["monte", "rapfi"], "black": "rapfi", "white": "monte", "width": 15, "height": 15, "rule": 0,
        "opening": [[7, 7], [8, 8], [6, 6]], "winner": "rapfi", "termination": "five",
        "moves": [[m % 15, m // 15 + 1, 5] for m in range(1, 25)]}


def test_win_rate_reads_mates_as_certain_and_evaluations_through_the_judge_scale():
    assert win_rate(7, -500) == 1.0
    assert win_rate(-7, 500) == 0.0
    assert win_rate(0, 0) == 0.5
    assert win_rate(0, 200) == pytest.approx(1 / (1 + math.exp(-1)))


def test_the_first_moves_of_the_engine_are_kept_where_the_judge_sees_no_mate(monkeypatch):
    """White (Monte) moves after 3, 5, 7, ... stones; the judge sees a mate after 7 stones and cuts its search short
    after 9: those two are left out, and only FIRST_MOVES of Monte's moves are looked at."""
    asked = []

    def judge(command, nodes, stones, width, height, rule=0, timeout_s=120.0):
        asked.append(len(stones))
        if len(stones) == 7:
            return Verdict(29_990, 10, 5000, (0, 0))
        if len(stones) == 9:
            return Verdict(40, 0, 10, (0, 0))
        return Verdict(-len(stones), 0, 1_000_000, (0, 0))

    monkeypatch.setattr(move_quality, "judge", judge)
    kept = move_quality.early_positions("g:1", GAME, "monte", ["judge"], 1_000_000)
    assert asked == [3, 5, 7, 9, 11, 13]
    assert [len(p.stones) for p in kept] == [3, 5, 11, 13]
    assert [p.eval_before for p in kept] == [-3, -5, -11, -13]
    stones = [tuple(s) for s in GAME["opening"]] + [(m[0], m[1]) for m in GAME["moves"]]
    assert all(p.played == stones[len(p.stones)] and p.opponent == "rapfi" for p in kept)


def _position(n: int) -> Position:
    return Position([(7, 7), (8, 8), (6, 6 + n)], 15, 15, 0, (9, 9), "rapfi", "g", 0, 0)


def test_a_move_is_judged_once_and_the_verdict_is_kept_in_the_cache_file(monkeypatch, tmp_path):
    judged = []

    def verdict_after(command, nodes, stones, width, height, rule):
        judged.append(tuple(stones[-1]))
        return 0, 200, 0  # the opponent, to move, rated +200: the mover keeps 1 - sigmoid(1)

    monkeypatch.setattr(move_quality, "verdict_after", verdict_after)
    monkeypatch.setattr(move_quality, "ask_move", lambda command, position, max_node, turn_ms: (3, 4))
    cache = move_quality.VerdictCache(tmp_path / "cache.json")
    first = move_quality.score_move(["a"], 0, _position(0), ["judge"], 1000, 100, 1000, cache)
    again = move_quality.score_move(["b"], 0, _position(0), ["judge"], 1000, 100, 1000, cache)
    assert judged == [(3, 4)]
    assert first == again
    assert first.kept == pytest.approx(1 - 1 / (1 + math.exp(-1)))
    cache.save()
    reread = move_quality.VerdictCache(tmp_path / "cache.json")
    assert reread.get(_position(0), (3, 4)) == (0, 200)
    assert reread.get(_position(1), (3, 4)) is None


def test_the_paired_difference_counts_only_positions_both_scored_and_the_moves_that_differ():
    Scored = move_quality.Scored
    reference = [Scored(0, (1, 1), 0.5), Scored(1, (2, 2), 0.4), Scored(2, (3, 3), 0.6), Scored(3, (4, 4), 0.5)]
    rows = [Scored(0, (1, 1), 0.5), Scored(1, (5, 5), 0.6), Scored(2, (6, 6), 0.5), Scored(3, None, None, "crash")]
    mean, se, n, differ = move_quality.paired(rows, reference)
    assert n == 3 and differ == 2
    assert mean == pytest.approx((0.0 + 0.2 - 0.1) / 3)
    diffs = [0.0, 0.2, -0.1]
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / 2)
    assert se == pytest.approx(sd / math.sqrt(3))


def test_score_asks_every_engine_in_every_position_and_reports_against_the_first(monkeypatch, tmp_path):
    moves = {"main": (1, 1), "new": (2, 2)}
    monkeypatch.setattr(move_quality, "ask_move", lambda command, position, max_node, turn_ms: moves[command[0]])
    monkeypatch.setattr(move_quality, "verdict_after",
                        lambda command, nodes, stones, w, h, rule: (0, 0 if stones[-1] == (1, 1) else -200, 0))
    positions = [_position(n) for n in range(4)]
    cache = move_quality.VerdictCache(None)
    results = move_quality.score(positions, [("main", ["main"]), ("new", ["new"])], ["judge"], 1000, 100, 1000,
                                 cache, workers=2)
    assert [r.position for r in results["new"]] == [0, 1, 2, 3]
    lines = move_quality.report(results, positions)
    assert lines[0].startswith("main: mean win rate kept 0.500 over 4 positions")
    better = 1 / (1 + math.exp(-1)) - 0.5
    assert f"against main: {better:+.4f}" in lines[1] and "4 of 4 moves differ" in lines[1]


def test_a_bad_positions_file_is_one_line_not_a_traceback(tmp_path, capsys):
    path = tmp_path / "positions.jsonl"
    path.write_text("not json\n")
    code = move_quality.main(["score", "--judge", "judge", "--positions", str(path), "--engine", "a=b"])
    assert code == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("move_quality: ")


def test_compare_pairs_the_scores_of_separate_runs(tmp_path, capsys):
    first = {"main": [{"position": 0, "move": [1, 1], "kept": 0.5}, {"position": 1, "move": [2, 2], "kept": 0.4}]}
    second = {"more": [{"position": 0, "move": [1, 1], "kept": 0.5}, {"position": 1, "move": [3, 3], "kept": 0.6}]}
    paths = []
    for n, rows in enumerate((first, second)):
        paths.append(tmp_path / f"s{n}.json")
        paths[-1].write_text(json.dumps(rows))
    assert move_quality.main(["compare", *map(str, paths)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "main: mean win rate kept 0.450 over 2 positions"
    assert out[1].startswith("more: mean win rate kept 0.550 over 2 positions; against main: +0.1000")
    assert "1 of 2 moves differ" in out[1]


def test_build_writes_the_positions_of_every_game_of_the_engine(monkeypatch, tmp_path, capsys):
    """Any result counts (a draw too); a game without the engine is skipped; the file reads back as positions."""
    monkeypatch.setattr(move_quality, "judge",
                        lambda command, nodes, stones, width, height, rule=0, timeout_s=120.0:
                        Verdict(10, 0, 1_000_000, (0, 0)))
    drawn = {**GAME, "winner": None, "termination": "draw"}
    others = {**GAME, "pairing": ["pela", "rapfi"], "white": "pela"}
    games = tmp_path / "games.jsonl"
    games.write_text("\n".join(json.dumps(g) for g in (GAME, drawn, others)) + "\n")
    out = tmp_path / "positions.jsonl"
    assert move_quality.main(["build", "--judge", "judge", "--out", str(out), str(games)]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 2 * move_quality.FIRST_MOVES
    assert {row["source"] for row in rows} == {f"{tmp_path.name}/games.jsonl:1", f"{tmp_path.name}/games.jsonl:2"}
    assert Position(**rows[0]).eval_before == 10
    assert capsys.readouterr().out.strip() == f"{len(rows)} positions -> {out}"
