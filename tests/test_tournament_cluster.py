"""Tournaments on a local Dask cluster of two worker processes: the same games and totals as without Dask, a worker
killed mid-game loses nothing and counts nothing twice, the SPRT stops the run and leaves no task behind, a killed
coordinator's run resumes, engines at a git revision are installed on the workers, and an engine a worker cannot run
stops the run with the worker's name; Ctrl-C at a terminal stops a local cluster's run cleanly."""

from __future__ import annotations

import os
import signal
import sys
import threading

import pytest
from distributed import Client

from monte.cluster import connect
from monte.cluster.local import start_local_cluster
from tournament_support import (ENGINES, GATE, FAKE_BRAIN, config, fake, fake_brain_repo, git, monte, outcomes,
                                processes_in, wait_for, write_config)
from monte.tournaments.config import build_config, read_toml
from monte.tournaments.engines import EngineError, EngineSpec
from monte.tournaments.records import Termination, read_jsonl
from monte.tournaments.report import engine_tallies
from monte.tournaments.revisions import environment_folder
from monte.tournaments.runner import run_tournament

WORKERS = 2


@pytest.fixture(scope="module")
def dask_cluster():
    """Two worker processes of one thread each (their nannies restart a killed one), and a client to look at them."""
    with start_local_cluster(WORKERS) as cluster, Client(cluster, set_as_default=False) as client:
        yield cluster, client


@pytest.fixture
def scheduler(dask_cluster) -> tuple[str, Client]:
    """The cluster's address once both workers are up (a test may have killed one), and the looking client."""
    cluster, client = dask_cluster
    client.wait_for_workers(WORKERS, timeout=120)
    return cluster.scheduler_address, client


def on_cluster(address: str, cfg, **kwargs):
    with connect(address) as pool:
        return run_tournament(cfg, pool=pool, **kwargs)


def run_tasks(client: Client) -> list[str]:
    """The game tasks the scheduler still knows about."""
    return client.run_on_scheduler(lambda dask_scheduler: [str(key) for key in dask_scheduler.tasks
                                                            if str(key).startswith("monte-game")])


def test_a_cluster_run_plays_the_games_of_a_run_without_dask(tmp_path, scheduler):
    engines_cwd = tmp_path / "engines"
    path = write_config(tmp_path, engines_cwd)
    (engines_cwd / GATE).touch()
    chatty = f"sh -c 'echo said on stderr >&2; exec {sys.executable} {FAKE_BRAIN} --mode crash --at 6'"
    settings = read_toml(path)
    settings["engine"][1]["command"] = chatty
    reference = run_tournament(build_config(settings, {"out": str(tmp_path / "local")}))
    result = on_cluster(scheduler[0], build_config(settings, {"out": str(tmp_path / "cluster")}))

    assert len(reference.records) == 12
    assert outcomes(result.records) == outcomes(reference.records)
    assert outcomes(read_jsonl(tmp_path / "cluster" / "games.jsonl")) == outcomes(reference.records)
    names = list(ENGINES)
    assert {n: (t.wins, t.losses, t.draws, t.pentanomial) for n, t in engine_tallies(result.records, names).items()} \
        == {n: (t.wins, t.losses, t.draws, t.pentanomial) for n, t in engine_tallies(reference.records, names).items()}
    for folder in ("games", "logs"):  # SGF and PSQ; the engines' stderr, brought back from the workers
        local = {p.name: p.read_bytes() for p in (tmp_path / "local" / folder).iterdir()}
        remote = {p.name: p.read_bytes() for p in (tmp_path / "cluster" / folder).iterdir()}
        assert sorted(remote) == sorted(local) and len(remote) == (24 if folder == "games" else 8)
    said = "said on stderr\nfake brain: told to crash at move 6\n"
    assert (tmp_path / "cluster" / "logs" / "game00001-white-crasher.stderr").read_text() == said
    crashes = [r for r in result.records if r.termination is Termination.CRASH]
    assert crashes and all(r.detail.endswith("its stderr ends: fake brain: told to crash at move 6") for r in crashes)
    assert processes_in(engines_cwd) == []


def test_a_worker_killed_mid_game_loses_no_game_and_counts_none_twice(tmp_path, scheduler):
    address, client = scheduler
    engines_cwd = tmp_path / "engines"
    engines_cwd.mkdir()
    engines = [fake("good", cwd=engines_cwd), fake("gated", "gate", "--at", "2", "--gate", GATE, cwd=engines_cwd)]
    settings = {"games": 4, "random_openings": 2, "seed": 5, "timeout_turn_ms": 60000}
    (engines_cwd / GATE).touch()
    reference = run_tournament(config(tmp_path / "local", engines, **settings))
    (engines_cwd / GATE).unlink()

    finished = {}
    runner = threading.Thread(target=lambda: finished.setdefault(
        "result", on_cluster(address, config(tmp_path / "cluster", engines, **settings))))
    runner.start()
    wait_for(lambda: len(processes_in(engines_cwd)) == 4, "two games, one per worker, held at the gate")
    playing = [worker for worker, keys in client.processing().items() if keys]
    assert len(playing) == WORKERS
    victim = playing[0]
    os.kill(client.run(os.getpid, workers=[victim])[victim], signal.SIGKILL)
    wait_for(lambda: victim not in client.nthreads(), "the scheduler to notice the dead worker")
    (engines_cwd / GATE).touch()
    runner.join(timeout=120)
    assert not runner.is_alive()

    logged = read_jsonl(tmp_path / "cluster" / "games.jsonl")
    assert sorted(record.game_id for record in logged) == [1, 2, 3, 4]
    assert outcomes(logged) == outcomes(finished["result"].records) == outcomes(reference.records)
    assert len(list((tmp_path / "cluster" / "games").glob("*.sgf"))) == 4
    wait_for(lambda: processes_in(engines_cwd) == [], "the dead worker's orphaned engines to go")


def test_the_sprt_stops_a_cluster_run_and_leaves_no_game_behind(tmp_path, scheduler):
    # Every pair ends 2-0, so H1 (elo1 = 200) is accepted after 8 pairs, long before the 40 scheduled games.
    address, client = scheduler
    engines = [fake("strong", cwd=tmp_path), fake("weak", "crash", "--at", "1", cwd=tmp_path)]
    result = on_cluster(address, config(tmp_path / "out", engines, games=40, sprt=True, sprt_elo0=0.0,
                                        sprt_elo1=200.0))
    assert result.sprt_decision == "H1" and "H1 accepted" in result.sprt_line
    ids = sorted(record.game_id for record in result.records)
    assert set(range(1, 17)) <= set(ids) and len(ids) <= 16 + WORKERS  # at most the games already under way
    assert len(read_jsonl(tmp_path / "out" / "games.jsonl")) == len(ids)
    wait_for(lambda: run_tasks(client) == [], "the scheduler to forget the run's games")
    assert processes_in(tmp_path) == []


def test_resume_after_the_coordinator_is_killed(tmp_path):
    engines_cwd = tmp_path / "engines"
    path = write_config(tmp_path, engines_cwd)
    (engines_cwd / GATE).touch()
    reference = run_tournament(build_config(read_toml(path), {"out": str(tmp_path / "reference")}))
    (engines_cwd / GATE).unlink()

    log = tmp_path / "killed" / "games.jsonl"
    run = monte(str(path), "--out", "killed", "--cluster", f"local:{WORKERS}", cwd=tmp_path)
    wait_for(lambda: log.exists() and log.read_text().count("\n") == 4, "the four ungated games", within_s=120)
    wait_for(lambda: len(processes_in(engines_cwd)) == 4, "games 5 and 6 to wait at the gate")
    run.kill()  # SIGKILL: no clean-up of any kind
    run.communicate(timeout=30)
    (engines_cwd / GATE).touch()
    wait_for(lambda: processes_in(tmp_path) == [], "the killed coordinator's workers and engines to go")
    assert sorted(record.game_id for record in read_jsonl(log)) == [1, 2, 3, 4]

    resumed = monte(str(path), "--out", "killed", "--resume", "--cluster", f"local:{WORKERS}", cwd=tmp_path)
    out, err = resumed.communicate(timeout=180)
    assert resumed.returncode == 0, err
    assert "on the Dask cluster at tcp://127.0.0.1:" in err
    assert outcomes(read_jsonl(log)) == outcomes(reference.records)
    assert "Engines (12 games" in out


def test_ctrl_c_at_the_terminal_stops_a_local_cluster_run_and_leaves_no_engine(tmp_path):
    """A terminal sends Ctrl-C to the whole foreground process group: the local workers must not die of it before
    the coordinator has stopped their games, or the engines held at the gate would be left running."""
    engines_cwd = tmp_path / "engines"
    path = write_config(tmp_path, engines_cwd)
    run = monte(str(path), "--out", "stopped", "--cluster", f"local:{WORKERS}", cwd=tmp_path, start_new_session=True)
    log = tmp_path / "stopped" / "games.jsonl"
    wait_for(lambda: log.exists() and log.read_text().count("\n") == 4, "the four ungated games", within_s=120)
    wait_for(lambda: len(processes_in(engines_cwd)) == 4, "games 5 and 6 to wait at the gate")
    os.killpg(run.pid, signal.SIGINT)
    _, err = run.communicate(timeout=60)
    assert run.returncode == 130, err
    assert "continue with: --resume --out stopped" in err
    assert processes_in(tmp_path) == []  # the gate never opened: the engines were killed, and the workers closed
    assert sorted(record.game_id for record in read_jsonl(log)) == [1, 2, 3, 4]


def test_engines_at_a_revision_are_installed_on_the_workers(tmp_path, scheduler):
    repo = fake_brain_repo(tmp_path / "repo")
    engines = [EngineSpec.parse("old=pbrain-fake@v1"), EngineSpec.parse("new=pbrain-fake@HEAD")]
    cache = tmp_path / "cache"
    result = on_cluster(scheduler[0], config(tmp_path / "out", engines, games=4, repo=str(repo)),
                        revisions_dir=cache)
    for game in result.records:
        assert (game.winner, game.termination) == ("old", Termination.CRASH), game.detail
    assert sorted(p.name for p in cache.iterdir()) == sorted(environment_folder(cache, git(repo, "rev-parse", rev)).name
                                                             for rev in ("v1", "HEAD"))


def test_an_engine_a_worker_cannot_run_stops_the_run_naming_the_worker(tmp_path, scheduler):
    engines = [fake("good"), EngineSpec("ghost", (str(tmp_path / "no-such-brain"),))]
    with pytest.raises(EngineError, match=r"on worker tcp://127\.0\.0\.1:\d+: engine 'ghost': program .* is not an "
                                          r"executable file"):
        on_cluster(scheduler[0], config(tmp_path / "out", engines, games=2))
    assert not (tmp_path / "out" / "games.jsonl").exists()
    wait_for(lambda: run_tasks(scheduler[1]) == [], "the scheduler to forget the run's games")
