"""Engines at a git revision: each revision is installed once into its own cached environment, runs its own code,
and two revisions of one checkout can play each other."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tournament_support import FAKE_BRAIN, config, fake
from tournaments.engines import EngineError, EngineSpec, install_revision, prepare
from tournaments.records import Termination
from tournaments.runner import run_tournament

PYPROJECT = """\
[project]
name = "fakebrain"
version = "0.0.1"
[project.scripts]
pbrain-fake = "fakebrain:main"
"""


def git(repo: Path, *args: str) -> str:
    result = subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
                            capture_output=True, text=True, check=True)
    return result.stdout.strip()


@pytest.fixture
def repo(tmp_path) -> Path:
    """A git checkout with two commits of a pure-Python brain: the first plays well, the second crashes at move 2."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "pyproject.toml").write_text(PYPROJECT)
    source = FAKE_BRAIN.read_text()
    (repo / "fakebrain.py").write_text(source)
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "good")
    git(repo, "tag", "v1")
    (repo / "fakebrain.py").write_text(source.replace('default="good"', 'default="crash"')
                                       .replace("default=1,", "default=2,"))
    git(repo, "commit", "-q", "-am", "crashes")
    return repo


def test_the_engine_flag_reads_a_revision_after_the_program():
    spec = EngineSpec.parse("old=pbrain-monte@v0.3 --engine mcts")
    assert (spec.name, spec.revision, spec.command) == ("old", "v0.3", ("pbrain-monte", "--engine", "mcts"))
    assert EngineSpec.parse("plain=pbrain-x -v").revision is None


def test_a_revision_is_installed_once_with_its_own_code(repo, tmp_path):
    cache = tmp_path / "cache"
    env = install_revision("v1", repo=repo, cache=cache)
    assert env == cache / git(repo, "rev-parse", "v1")
    assert (env / "bin" / "pbrain-fake").is_file()
    where = subprocess.run([str(env / "bin" / "python"), "-c", "import fakebrain; print(fakebrain.__file__)"],
                           capture_output=True, text=True, check=True).stdout.strip()
    assert where == str(env / "src" / "fakebrain.py")
    stamp = (env / "bin" / "pbrain-fake").stat().st_mtime_ns
    assert install_revision("v1", repo=repo, cache=cache) == env
    assert (env / "bin" / "pbrain-fake").stat().st_mtime_ns == stamp
    assert [p.name for p in cache.iterdir()] == [env.name]  # no temporary folder left behind


def test_two_revisions_of_one_checkout_play_each_other(repo, tmp_path):
    cache = tmp_path / "cache"
    old = prepare(EngineSpec.parse("old=pbrain-fake@v1"), repo=repo, cache=cache)
    new = prepare(EngineSpec.parse("new=pbrain-fake@HEAD"), repo=repo, cache=cache)
    assert old.command[0] != new.command[0]
    result = run_tournament(config(tmp_path / "out", [old, new], games=2))
    for game in result.records:
        assert (game.winner, game.termination) == ("old", Termination.CRASH), game.detail


def test_an_unknown_revision_or_script_is_a_clear_error(repo, tmp_path):
    with pytest.raises(EngineError, match="'no-such-tag' is not a commit"):
        install_revision("no-such-tag", repo=repo, cache=tmp_path / "cache")
    with pytest.raises(EngineError, match="has no script 'pbrain-monte' .it has: pbrain-fake."):
        prepare(EngineSpec.parse("x=pbrain-monte@v1"), repo=repo, cache=tmp_path / "cache")


def test_an_engine_without_a_revision_is_left_as_it_is():
    spec = fake("plain")
    assert prepare(spec) is spec


def test_a_program_that_does_not_exist_stops_the_tournament_before_it_starts(tmp_path):
    with pytest.raises(EngineError, match="'pbrain-no-such-engine' is not an executable file on PATH"):
        prepare(EngineSpec.parse("x=pbrain-no-such-engine --fast"))
    with pytest.raises(EngineError, match="'./missing' is not an executable file"):
        prepare(EngineSpec("y", ("./missing",), cwd=str(tmp_path)))
