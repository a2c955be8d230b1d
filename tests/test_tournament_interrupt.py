"""A run stopped by Ctrl-C or SIGTERM ends cleanly (no engine left, every finished game logged, hung engines killed
at once) and ``--resume`` completes it to the same games and totals as a run never interrupted; a log is never mixed
with another run's."""

from __future__ import annotations

import signal
import time

import pytest

from tournament_support import ENGINES, GATE, monte, outcomes, processes_in, wait_for, write_config
from monte.tournaments.config import build_config, read_toml
from monte.tournaments.records import read_jsonl
from monte.tournaments.report import engine_tallies
from monte.tournaments.runner import RunError, run_tournament

def test_ctrl_c_then_resume_gives_the_games_of_an_uninterrupted_run(tmp_path):
    engines_cwd = tmp_path / "engines"
    path = write_config(tmp_path, engines_cwd)
    (engines_cwd / GATE).touch()
    reference = run_tournament(build_config(read_toml(path), {"out": str(tmp_path / "reference")}))
    assert len(reference.records) == 12
    (engines_cwd / GATE).unlink()

    log = tmp_path / "killed" / "games.jsonl"
    run = monte(str(path), "--out", "killed", cwd=tmp_path)
    wait_for(lambda: log.exists() and log.read_text().count("\n") == 4, "the four ungated games")
    wait_for(lambda: len(processes_in(engines_cwd)) == 4, "games 5 and 6 to wait at the gate")
    run.send_signal(signal.SIGINT)
    _, err = run.communicate(timeout=30)
    assert run.returncode == 130, err
    assert "continue with: --resume --out killed" in err
    assert sorted(record.game_id for record in read_jsonl(log)) == [1, 2, 3, 4]
    assert processes_in(engines_cwd) == []
    (engines_cwd / GATE).touch()

    again = monte(str(path), "--out", "killed", cwd=tmp_path)
    _, err = again.communicate(timeout=30)
    assert again.returncode == 2
    assert "already holds" in err and "--resume" in err

    resumed = monte(str(path), "--out", "killed", "--resume", cwd=tmp_path)
    out, err = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, err
    final = read_jsonl(log)
    assert outcomes(final) == outcomes(reference.records)
    names = list(ENGINES)
    assert {n: t.score for n, t in engine_tallies(final, names).items()} == \
           {n: t.score for n, t in engine_tallies(reference.records, names).items()}
    assert len(list((tmp_path / "killed" / "games").glob("*.sgf"))) == 12
    assert "Engines (12 games" in out


def test_resuming_with_other_settings_is_refused(tmp_path):
    path = write_config(tmp_path, tmp_path / "engines")
    (tmp_path / "engines" / GATE).touch()
    first = build_config(read_toml(path), {"out": str(tmp_path / "run"), "games": 2, "rounds": 1})
    run_tournament(first)
    changed = build_config(read_toml(path), {"out": str(tmp_path / "run"), "games": 2, "rule": 4, "resume": True})
    with pytest.raises(RunError, match="setting 'rule' was 0 in the logged run, now 4"):
        run_tournament(changed)
    same = build_config(read_toml(path), {"out": str(tmp_path / "run"), "games": 2, "resume": True,
                                          "concurrency": 1})
    assert len(run_tournament(same).records) == 6  # nothing left to play; concurrency may change


def test_sigterm_stops_a_run_whose_engines_hang_without_waiting_for_their_deadline(tmp_path):
    engines_cwd = tmp_path / "engines"
    hung = {"a": "hang --at 2", "b": "hang --at 2"}
    path = write_config(tmp_path, engines_cwd, hung, game="timeout_turn_ms = 600000\n")
    run = monte(str(path), "--out", "hung", cwd=tmp_path)
    give_up = time.monotonic() + 30
    while len(processes_in(engines_cwd)) < 4 and time.monotonic() < give_up:
        time.sleep(0.05)  # two games, two engines each, all started
    run.send_signal(signal.SIGTERM)
    _, err = run.communicate(timeout=30)  # far less than the 600 s the hung engines were granted
    assert run.returncode == 130, err
    assert not (tmp_path / "hung" / "games.jsonl").exists()  # an interrupted game is not logged
    assert processes_in(engines_cwd) == []
