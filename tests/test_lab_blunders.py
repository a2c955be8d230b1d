"""The blunder harness's reading of games (``monte.lab.blunders``): which games Monte lost, and which position of a
lost game is kept -- the last one with Monte to move that the judge calls undecided, Monte's move there leading to
the opponent's forced win. The judge is scripted here; no engine runs."""

from __future__ import annotations

import json

from monte.lab import blunders
from monte.lab.position_judge import Verdict

GAME = {"pairing": ["monte", "rapfi"], "black": "monte", "white": "rapfi", "width": 15, "height": 15, "rule": 0,
        "opening": [[7, 7], [8, 8], [6, 6]], "winner": "rapfi", "termination": "five",
        "moves": [[m % 15, m // 15 + 1, 5] for m in range(1, 15)]}


def test_only_games_the_engine_lost_by_a_five_are_read(tmp_path):
    won = {**GAME, "winner": "monte"}
    on_time = {**GAME, "termination": "time"}
    path = tmp_path / "games.jsonl"
    path.write_text("\n".join(json.dumps(g) for g in (GAME, won, on_time)) + "\n")
    games = blunders.lost_games([path], "monte")
    assert [source for source, _ in games] == [f"{tmp_path.name}/games.jsonl:1"]


def test_the_last_undecided_position_before_the_loss_is_kept(monkeypatch):
    """Black (Monte) is to move after 4, 6, 8, ... stones: the judge sees black lost once it has played its move
    after 8 stones, undecided before."""
    def scripted(command, nodes, stones, width, height, rule=0, timeout_s=120.0):
        ply = len(stones)
        to_move_is_monte = ply % 2 == 0
        if ply >= 9:
            return Verdict(-29_990 if to_move_is_monte else 29_990, -9 if to_move_is_monte else 9, 1000, (0, 0))
        return Verdict(20, 0, 500_000, (0, 0))

    monkeypatch.setattr(blunders, "judge", scripted)
    position = blunders.last_undecided("g:1", GAME, "monte", ["judge"], 500_000)
    assert position is not None
    assert len(position.stones) == 8 and position.played == (GAME["moves"][5][0], GAME["moves"][5][1])
    assert position.opponent == "rapfi" and position.mate_after == 9 and position.eval_before == 20


def test_a_game_the_judge_never_calls_undecided_gives_nothing(monkeypatch):
    monkeypatch.setattr(blunders, "judge", lambda *a, **k: Verdict(-29_990, -5, 10, (0, 0)))
    assert blunders.last_undecided("g:1", GAME, "monte", ["judge"], 500_000) is None
