"""monte selfplay: a tiny run writes games fit-eval reads, with the searched move and the root's visits per move;
a run continues where it stopped; a held-out openings file and bad arguments get one line; the node budget makes a
game the same wherever it is played (in this process, in a spawned one, on a Dask worker)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from monte import cli
from monte.cluster import dask_pool
from monte.brain.board import Board
from monte.lab import fit_value
from monte.lab.selfplay import Job, Recipe, play
from monte.lab.selfplay_pool import results
from monte.tournaments.records import Termination, read_jsonl

TINY = ["--size", "9", "--nodes", "2000", "--workers", "1", "--explore-plies", "4"]
"""Games on a 9x9 board at 2000 nodes a move: a second or so each, even on a loaded machine."""


def selfplay(out: Path, *extra: str) -> int:
    return cli.main(["selfplay", str(out), *TINY, *extra])


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_tiny_run_writes_finished_games_that_fit_eval_learns_from(tmp_path, capsys):
    out = tmp_path / "games.jsonl"
    assert selfplay(out, "--games", "2") == 0
    records = read_jsonl(out)
    assert sorted(r.game_id for r in records) == [0, 1]
    for record, raw in zip(records, lines(out)):
        assert record.termination in (Termination.FIVE, Termination.DRAW_FULL)
        assert record.opening_id.startswith("freestyle15-balanced-fit.txt:") and len(record.opening) == 3
        board = Board(9, 9, 0)
        for x, y in record.opening + [(x, y) for x, y, _ in record.moves]:
            board.play(x, y)  # raises on an occupied or off-board cell
        assert (record.winner is None) == (record.termination == Termination.DRAW_FULL)
        assert raw["selfplay"]["nodes"] == 2000 and raw["selfplay"]["openings"] == "freestyle15-balanced-fit.txt"
        search = raw["search"]
        assert len(search) == len(record.moves)
        first = search[0]
        assert sum(n for _, _, n in first["visits"]) > 100 and 0.0 <= first["winrate"] <= 1.0
        # past the drawn plies the move played is the one the search chose
        assert all(tuple(s["move"]) == (x, y) for s, (x, y, _) in zip(search[4:], record.moves[4:]))
    examples = fit_value.from_games(records)
    assert examples.size > 0 and set(examples.y.tolist()) <= {0.0, 0.5, 1.0}
    capsys.readouterr()
    assert cli.main(["fit-eval", str(out), "--holdout", "0.2", "--steps", "20"]) == 0
    assert "0 labelled positions" in capsys.readouterr().out


def test_a_run_continues_where_it_stopped_and_refuses_another_recipe(tmp_path, capsys):
    out = tmp_path / "games.jsonl"
    assert selfplay(out, "--games", "1") == 0
    first = out.read_text()
    capsys.readouterr()
    assert selfplay(out, "--games", "2") == 0
    assert "1 game(s) to play (1 logged already)" in capsys.readouterr().out
    assert out.read_text().startswith(first) and [r.game_id for r in read_jsonl(out)] == [0, 1]
    assert selfplay(out, "--games", "2", "--seed", "5") == cli.EXIT_USAGE
    err = capsys.readouterr().err.strip()
    assert "made another way" in err and "\n" not in err


@pytest.mark.parametrize("extra, named", [
    (["--openings", "freestyle15-balanced-test.txt"], "held-out"),
    (["--nodes", "0"], "--nodes"),
    (["--workers", "0"], "--workers"),
    (["--games", "-1"], "--games"),
    (["--rule", "3"], "--rule"),
    (["--size", "40"], "--size"),
    (["--set", "no_such_knob=1"], "no_such_knob"),
    (["--set", "c_puct"], "NAME=VALUE"),
    (["--openings", "no-such-file.txt"], "no-such-file.txt"),
])
def test_bad_arguments_get_one_line(tmp_path, capsys, extra, named):
    out = tmp_path / "games.jsonl"
    assert cli.main(["selfplay", str(out), *extra]) == cli.EXIT_USAGE
    err = capsys.readouterr().err.strip()
    assert named in err and "\n" not in err and "Traceback" not in err
    assert not out.exists()


def test_a_scheduler_out_of_reach_gets_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(dask_pool, "CONNECT_TIMEOUT_S", 2)  # the 20 s a user waits for a scheduler: not needed here
    assert selfplay(tmp_path / "games.jsonl", "--games", "1", "--scheduler", "tcp://127.0.0.1:1") == cli.EXIT_USAGE
    err = capsys.readouterr().err.strip()
    assert "cannot reach the Dask scheduler" in err and "\n" not in err


def test_a_held_out_set_is_played_only_when_asked_and_then_with_a_warning(tmp_path, capsys):
    out = tmp_path / "judge.jsonl"
    assert selfplay(out, "--games", "1", "--openings", "freestyle15-balanced-test.txt", "--allow-test") == 0
    assert "HELD-OUT" in capsys.readouterr().err
    assert read_jsonl(out)[0].opening_id.startswith("freestyle15-balanced-test.txt:")


def test_the_node_budget_makes_a_game_the_same_in_a_spawned_process(tmp_path):
    recipe = Recipe(nodes=2000, width=9, rule=0, explore_plies=4, seed=3, openings="x")
    jobs = [Job(7, ((4, 4), (5, 5), (3, 5)), "x:1", recipe), Job(8, ((4, 4), (5, 5), (3, 5)), "x:1", recipe)]
    here = [play(job) for job in jobs]
    spawned = sorted(results(jobs, 2, None), key=lambda result: result[0].game_id)
    for (a, a_extra), (b, b_extra) in zip(here, spawned):
        assert [m[:2] for m in a.moves] == [m[:2] for m in b.moves]
        assert a_extra["search"] == b_extra["search"]


def test_games_on_a_dask_cluster_are_the_games_played_here():
    recipe = Recipe(nodes=2000, width=9, rule=0, explore_plies=4, seed=4, openings="x")
    job = Job(2, ((4, 4), (5, 5), (3, 5)), "x:1", recipe)
    (on_dask, _), = results([job], 1, "local:1")
    assert [m[:2] for m in on_dask.moves] == [m[:2] for m in play(job)[0].moves]
