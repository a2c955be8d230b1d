"""The blunder harness's reading of games (``monte.lab.blunders``): which games are read, which positions of a game
are kept -- the last one with Monte to move that the judge calls undecided, and the earliest of the walk where Monte
has a forced win -- and how a move there is judged. The judge and the brains are scripted here; no engine runs."""

from __future__ import annotations

import json

import pytest

from monte.lab import blunders
from monte.lab.position_judge import Verdict

GAME = {"pairing": ["monte", "rapfi"], "black": "monte", "white": "rapfi", "width": 15, "height": 15, "rule": 0,
        "opening": [[7, 7], [8, 8], [6, 6]], "winner": "rapfi", "termination": "five",
        "moves": [[m % 15, m // 15 + 1, 5] for m in range(1, 15)]}
WON_GAME = {**GAME, "winner": "monte"}


def mate_verdict(plies: int) -> Verdict:
    """The judge's verdict of a forced result `plies` away (> 0: the side to move wins)."""
    return Verdict((30_000 - abs(plies)) * (1 if plies > 0 else -1), plies, 1000, (0, 0))


def scripted_judge(decided_at: int, monte_wins: bool, won_from: int | None = None, silent: tuple[int, ...] = (),
                   cut_short: tuple[int, ...] = ()):
    """A judge that sees the position undecided before `decided_at` stones and decided from there on (for Monte if
    `monte_wins`); with `won_from`, Monte (black, to move after an even number of stones) has a forced win in the
    positions from `won_from` stones up to `decided_at`, though it loses after. After a number of stones in `silent`
    it gives no verdict (as Rapfi making five at once), after one in `cut_short` an undecided verdict of a search
    that stopped at 100 nodes (one move alone does not lose)."""
    def judge(command, nodes, stones, width, height, rule=0, timeout_s=120.0):
        ply = len(stones)
        monte_to_move = ply % 2 == 0
        if ply in silent:
            return None
        if ply in cut_short:
            return Verdict(300, 0, 100, (0, 0))
        if won_from is not None and won_from <= ply < decided_at:
            return mate_verdict(11 if monte_to_move else -11)
        if ply >= decided_at:
            return mate_verdict(9 if monte_to_move == monte_wins else -9)
        return Verdict(20, 0, 500_000, (0, 0))
    return judge


def test_only_games_decided_by_a_five_with_the_engine_in_them_are_read(tmp_path):
    on_time = {**GAME, "termination": "time"}
    drawn = {**GAME, "winner": None, "termination": "draw"}
    others = {**GAME, "pairing": ["pela", "rapfi"]}
    path = tmp_path / "games.jsonl"
    path.write_text("\n".join(json.dumps(g) for g in (GAME, WON_GAME, on_time, drawn, others)) + "\n")
    games = blunders.decided_games([path], "monte")
    assert [source for source, _ in games] == [f"{tmp_path.name}/games.jsonl:{n}" for n in (1, 2)]


def test_the_last_undecided_position_before_a_loss_is_kept(monkeypatch):
    """Black (Monte) is to move after 4, 6, 8, ... stones: the judge sees black lost once it has played its move
    after 8 stones, undecided before."""
    monkeypatch.setattr(blunders, "judge", scripted_judge(9, monte_wins=False))
    [position] = blunders.critical_positions("g:1", GAME, "monte", ["judge"], 500_000)
    assert position.kind == blunders.UNDECIDED and len(position.stones) == 8
    assert position.played == (GAME["moves"][5][0], GAME["moves"][5][1])
    assert position.opponent == "rapfi" and position.mate_after == 9 and position.eval_before == 20
    assert not blunders.passes(position, position.mate_after)


def test_a_won_game_gives_the_earliest_won_position_and_the_undecided_one_before_it(monkeypatch):
    monkeypatch.setattr(blunders, "judge", scripted_judge(9, monte_wins=True))
    undecided, won = blunders.critical_positions("g:1", WON_GAME, "monte", ["judge"], 500_000)
    assert (undecided.kind, len(undecided.stones), undecided.mate_after) == (blunders.UNDECIDED, 8, -9)
    assert (won.kind, len(won.stones), won.mate_after) == (blunders.WON, 10, -9)
    assert blunders.passes(undecided, undecided.mate_after) and blunders.passes(won, won.mate_after)


def test_the_walk_passes_positions_without_a_verdict_or_with_a_search_cut_short(monkeypatch):
    """The judge says nothing with Monte to move after 16 stones (it would make five at once) and stops its search
    early after 8: the undecided position kept is the one after 6 stones."""
    monkeypatch.setattr(blunders, "judge", scripted_judge(9, monte_wins=True, silent=(16,), cut_short=(8,)))
    undecided, won = blunders.critical_positions("g:1", WON_GAME, "monte", ["judge"], 500_000)
    assert (len(undecided.stones), len(won.stones)) == (6, 10)


def test_a_win_thrown_away_is_kept_as_a_won_position_that_failed(monkeypatch):
    """Monte wins from 8 stones to 11 and loses from 12: the earliest won position is the one after 8 stones."""
    monkeypatch.setattr(blunders, "judge", scripted_judge(12, monte_wins=False, won_from=8))
    positions = blunders.critical_positions("g:1", GAME, "monte", ["judge"], 500_000)
    assert [(p.kind, len(p.stones)) for p in positions] == [(blunders.UNDECIDED, 6), (blunders.WON, 8)]
    thrown = blunders.Position(**json.loads(json.dumps(blunders.asdict(positions[1]))))
    assert thrown.kind == blunders.WON and blunders.passes(thrown, -11) and not blunders.passes(thrown, 0)


def test_a_game_the_judge_never_calls_undecided_gives_nothing(monkeypatch):
    monkeypatch.setattr(blunders, "judge", lambda *a, **k: mate_verdict(-5))
    assert blunders.critical_positions("g:1", GAME, "monte", ["judge"], 500_000) == []


def test_positions_written_before_the_won_kind_read_as_undecided():
    old = {"stones": [[7, 7]], "width": 15, "height": 15, "rule": 0, "played": [8, 8], "opponent": "rapfi",
           "source": "g:1", "eval_before": 10, "mate_after": 7}
    assert blunders.Position(**old).kind == blunders.UNDECIDED


def test_count_with_held_by_counts_the_others_where_that_engine_passes(monkeypatch, tmp_path, capsys):
    """Two undecided positions; the strong engine passes in the first only, Monte fails in both: Monte has two
    blunders in all, one where the strong engine holds."""
    position = blunders.Position([(7, 7), (8, 8), (6, 6), (9, 9)], 15, 15, 0, (5, 5), "rapfi", "g:1", 0, 9)
    path = tmp_path / "positions.jsonl"
    path.write_text("".join(json.dumps(blunders.asdict(p)) + "\n" for p in (position, position)))
    asked = []

    def ask_move(command, position, max_node, turn_ms):
        asked.append(command[0])
        return (1, 1) if command == ["strong"] and len(asked) == 1 else (2, 2)

    monkeypatch.setattr(blunders, "ask_move", ask_move)
    monkeypatch.setattr(blunders, "judge", lambda cmd, nodes, stones, *a: (
        Verdict(5, 0, 500_000, (0, 0)) if stones[-1] == (1, 1) else mate_verdict(7)))
    assert blunders.main(["count", "--judge", "judge", "--positions", str(path), "--engine", "rapfi=strong",
                          "--engine", "monte=weak", "--held-by", "rapfi"]) == 0
    out = capsys.readouterr().out
    assert "monte: 2 blunders in 2 undecided positions" in out
    assert "in the 1 positions where rapfi passes:\n  monte: 1 blunders in 1 undecided positions" in out


def test_a_verdict_cut_short_is_read_past_the_forced_reply(monkeypatch):
    """After Monte's four the judge plays the block at once (a search of 267 nodes, "undecided"); after the block it
    sees Monte, to move, win in 7: for the opponent after Monte's move that is a loss in 8, and the win is kept."""
    four, block = (3, 0), (4, 1)
    position = blunders.Position([(7, 7), (8, 8), (6, 6), (9, 9)], 15, 15, 0, (5, 5), "rapfi", "g:1", 0, -9,
                                 blunders.WON)

    def judge(command, nodes, stones, *size):
        if stones[-1] == four:
            return Verdict(206, 0, 267, block)
        assert stones[-2:] == [four, block]
        return mate_verdict(7)

    monkeypatch.setattr(blunders, "judge", judge)
    monkeypatch.setattr(blunders, "ask_move", lambda *a: four)
    row = blunders.judged_move(["monte"], position, ["judge"], 1_000_000, 0, 1000)
    assert (row["mate_after"], row["forced_plies"], row["passed"]) == (-8, 1, True)
    assert row["eval_after"] == -mate_verdict(7).eval


def test_a_loss_behind_two_forced_replies_is_counted_for_the_opponent(monkeypatch):
    """Two searches cut short in a row (the opponent's four blocked, then ours), then the opponent, to move, wins in
    5: after the move judged, the opponent wins in 7."""
    calls = []

    def judge(command, nodes, stones, *size):
        calls.append(len(stones))
        return Verdict(0, 0, 10, (len(stones), 0)) if len(calls) < 3 else mate_verdict(5)

    monkeypatch.setattr(blunders, "judge", judge)
    assert blunders.verdict_after(["judge"], 1_000_000, [(7, 7)], 15, 15, 0)[::2] == (7, 2)
    assert calls == [1, 2, 3]


def test_held_by_must_name_one_of_the_engines(tmp_path, capsys):
    path = tmp_path / "positions.jsonl"
    path.write_text("")
    with pytest.raises(SystemExit):
        blunders.main(["count", "--judge", "j", "--positions", str(path), "--engine", "a=x", "--held-by", "rapfi"])
    assert "--held-by rapfi: not one of the engines (a)" in capsys.readouterr().err


def test_the_summary_counts_blunders_and_wins_kept_apart():
    rows = [{"kind": "undecided", "passed": False}, {"kind": "undecided", "passed": True},
            {"kind": "won", "passed": True}, {"kind": "won", "passed": False, "fault": "no reply"}]
    assert blunders.summary(rows) == ("1 blunders in 2 undecided positions, 1 wins kept of 2, "
                                      "1 faults (counted as failed)")
