"""Engines at a git revision: each revision is pinned to a sha, installed once into a checked environment that uses
this interpreter's copies of its dependencies, runs its own code, and two revisions (or a revision and the working
tree) of one clone can play each other; a resume refuses an engine whose code moved."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pexpect
import pytest

from tournament_support import FAKE_BRAIN, FAKE_BRAIN_PYPROJECT, config, fake, fake_brain_repo, git
from monte.tournaments.engines import EngineError, EngineSpec, pin, prepare
from monte.tournaments.records import Termination
from monte.tournaments.revisions import (LEFT_OUT, MANIFEST, WORKTREE, RevisionError, environment_folder,
                                         install_revision, pin_revision, revision_archive)
from monte.tournaments.runner import RunError, run_tournament


@pytest.fixture
def repo(tmp_path) -> Path:
    """A git clone of the fake brain: v1 plays well, HEAD crashes at move 2 (see tournament_support)."""
    return fake_brain_repo(tmp_path / "repo")


def run_python(env: Path, code: str) -> str:
    return subprocess.run([str(env / "bin" / "python"), "-I", "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip()


def test_the_engine_flag_reads_a_revision_after_the_program():
    spec = EngineSpec.parse("old=pbrain-monte@v0.3 --engine mcts")
    assert (spec.name, spec.revision, spec.command) == ("old", "v0.3", ("pbrain-monte", "--engine", "mcts"))
    assert EngineSpec.parse("new=pbrain-monte@WORKTREE").revision == WORKTREE
    assert EngineSpec.parse("plain=pbrain-x -v").revision is None


def test_a_revision_is_installed_once_with_its_own_code_and_this_interpreters_dependencies(repo, tmp_path):
    cache = tmp_path / "cache"
    env = install_revision("v1", repo=repo, cache=cache)
    assert env == environment_folder(cache, git(repo, "rev-parse", "v1"))
    assert (env / "bin" / "pbrain-fake").is_file()
    assert run_python(env, "import fakebrain; print(fakebrain.__file__)") == str(env / "src" / "fakebrain.py")
    assert run_python(env, "import pexpect; print(pexpect.__file__)") == str(Path(pexpect.__file__).resolve())
    stamp = (env / "bin" / "pbrain-fake").stat().st_mtime_ns
    assert install_revision("v1", repo=repo, cache=cache) == env
    assert (env / "bin" / "pbrain-fake").stat().st_mtime_ns == stamp
    assert [p.name for p in cache.iterdir()] == [env.name]  # no temporary folder left behind


def test_a_pinned_revision_installs_from_a_shipped_archive_without_a_clone(repo, tmp_path, monkeypatch):
    """What a cluster worker does: no repository at hand, only the source archive the coordinator sent, asked for
    only when the revision is not installed yet."""
    sha = git(repo, "rev-parse", "v1")
    asked: list[str] = []

    def archive(wanted: str) -> bytes:
        asked.append(wanted)
        return revision_archive(repo, wanted)

    monkeypatch.chdir(tmp_path)  # not inside a git repository
    spec = EngineSpec("old", ("pbrain-fake",), revision=sha)
    ready = prepare(spec, cache=tmp_path / "cache", archive=archive)
    assert ready.command[0] == str(environment_folder(tmp_path / "cache", sha) / "bin" / "pbrain-fake")
    assert ready.revision is None
    assert prepare(spec, cache=tmp_path / "cache", archive=archive) == ready
    assert asked == [sha]
    with pytest.raises(EngineError, match="not pinned to a full sha"):
        prepare(EngineSpec("x", ("pbrain-fake",), revision="v1"), cache=tmp_path / "cache", archive=archive)


def test_a_revisions_archive_leaves_the_reports_out(repo, tmp_path):
    """The game records and reports (a hundred MB and more in this project) are not part of an engine: an environment
    and a cluster worker's archive do without them, and the rest of the tree is there."""
    (repo / LEFT_OUT).mkdir(parents=True)
    (repo / LEFT_OUT / "games.jsonl").write_text("{}\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "a report")
    sha = git(repo, "rev-parse", "HEAD")
    names = tarfile.open(fileobj=io.BytesIO(revision_archive(repo, sha))).getnames()
    assert "fakebrain.py" in names and "pyproject.toml" in names
    assert not [name for name in names if name.startswith(LEFT_OUT)]
    env = install_revision(sha, repo=repo, cache=tmp_path / "cache")
    assert (env / "src" / "fakebrain.py").is_file() and not (env / "src" / LEFT_OUT).exists()


def test_a_dependency_this_interpreter_lacks_is_a_clear_error(repo, tmp_path):
    (repo / "pyproject.toml").write_text(FAKE_BRAIN_PYPROJECT.replace('"pexpect>=4"', '"no-such-distribution-xyz>=1"'))
    git(repo, "commit", "-q", "-am", "needs more")
    with pytest.raises(RevisionError, match="needs 'no-such-distribution-xyz', which .* does not have: pip install"):
        install_revision("HEAD", repo=repo, cache=tmp_path / "cache")


def test_runs_from_two_python_environments_keep_an_environment_each(repo, tmp_path, monkeypatch):
    """Two venvs sharing one cache must not rebuild each other's environment under each other's running engines."""
    cache = tmp_path / "cache"
    first = install_revision("v1", repo=repo, cache=cache)
    stamp = (first / "bin" / "pbrain-fake").stat().st_mtime_ns
    monkeypatch.setattr(sys, "prefix", str(tmp_path / "another-venv"))
    notes: list[str] = []
    second = install_revision("v1", repo=repo, cache=cache, note=notes.append)
    assert second != first and second.name.startswith(git(repo, "rev-parse", "v1"))
    assert notes == []  # nothing was rebuilt
    assert (first / "bin" / "pbrain-fake").stat().st_mtime_ns == stamp
    assert run_python(first, "import fakebrain; print('ok')") == "ok"


@pytest.mark.parametrize("damage, reason", [
    (lambda env: (env / "bin" / "python").unlink(), "its Python does not start"),  # its base Python removed
    (lambda env: (env / MANIFEST).write_text((env / MANIFEST).read_text().replace(sys.version, "3.0.1")),
     "another Python version"),
    (lambda env: (env / MANIFEST).unlink(), "built by an older runner"),
    (lambda env: (env / MANIFEST).write_text((env / MANIFEST).read_text().replace("site-packages", "elsewhere")),
     "another Python environment"),
])
def test_an_environment_that_fails_its_check_is_rebuilt(repo, tmp_path, damage, reason):
    cache = tmp_path / "cache"
    env = install_revision("v1", repo=repo, cache=cache)
    damage(env)
    notes: list[str] = []
    assert install_revision("v1", repo=repo, cache=cache, note=notes.append) == env
    assert len(notes) == 1 and reason in notes[0] and "rebuilding" in notes[0]
    assert run_python(env, "import fakebrain, pexpect; print('ok')") == "ok"
    assert install_revision("v1", repo=repo, cache=cache, note=notes.append) == env and len(notes) == 1
    assert sorted(p.name for p in cache.iterdir()) == [env.name]


def test_two_revisions_of_one_clone_play_each_other(repo, tmp_path):
    cache = tmp_path / "cache"
    old = prepare(EngineSpec.parse("old=pbrain-fake@v1"), repo=repo, cache=cache)
    new = prepare(EngineSpec.parse("new=pbrain-fake@HEAD"), repo=repo, cache=cache)
    assert old.command[0] != new.command[0]
    result = run_tournament(config(tmp_path / "out", [old, new], games=2))
    for game in result.records:
        assert (game.winner, game.termination) == ("old", Termination.CRASH), game.detail


def test_the_working_tree_is_snapshotted_with_its_changes_and_new_files_only(repo, tmp_path):
    (repo / "fakebrain.py").write_text((repo / "fakebrain.py").read_text().replace('default="crash"',
                                                                                   'default="good"'))
    (repo / "newfile.py").write_text("NEW = 1\n")
    (repo / "ignored.txt").write_text("not part of the code\n")
    status = git(repo, "status", "--porcelain")
    tree = pin_revision(WORKTREE, repo)
    assert git(repo, "status", "--porcelain") == status  # the user's index is left alone
    assert git(repo, "cat-file", "-t", tree) == "tree" and pin_revision(tree, repo) == tree
    env = install_revision(tree, repo=repo, cache=tmp_path / "cache")
    (repo / "newfile.py").write_text("NEW = 2\n")  # an edit after the snapshot does not reach it
    assert run_python(env, "import newfile; print(newfile.NEW)") == "1"
    assert not (env / "src" / "ignored.txt").exists()
    assert 'default="good"' in (env / "src" / "fakebrain.py").read_text()
    assert pin_revision(WORKTREE, repo) != tree


def test_revisions_come_from_the_repository_of_the_current_folder(repo, tmp_path, monkeypatch):
    monkeypatch.chdir(repo)
    assert pin(EngineSpec.parse("old=pbrain-fake@v1"), None).revision == git(repo, "rev-parse", "v1")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(EngineError, match="is not inside one: run from a clone, or pass --repo DIR"):
        pin(EngineSpec.parse("old=pbrain-fake@v1"), None)


def test_a_resume_after_a_new_commit_refuses_the_moved_revision(repo, tmp_path):
    engines = [fake("good"), EngineSpec.parse("old=pbrain-fake@HEAD~1")]
    first = config(tmp_path / "out", engines, games=2, repo=str(repo))
    run_tournament(first, revisions_dir=tmp_path / "cache")
    recorded = json.loads((tmp_path / "out" / "tournament.json").read_text())["engines"][1]
    assert recorded["revision"] == git(repo, "rev-parse", "HEAD~1")
    git(repo, "commit", "-q", "--allow-empty", "-m", "one more")
    again = config(tmp_path / "out", engines, games=2, repo=str(repo), resume=True)
    with pytest.raises(RunError, match="engine 'old' played revision [0-9a-f]{40} in the logged run, now [0-9a-f]{40}"):
        run_tournament(again, revisions_dir=tmp_path / "cache")


def test_an_unknown_revision_or_script_is_a_clear_error(repo, tmp_path):
    with pytest.raises(RevisionError, match="'no-such-tag' is not a commit"):
        install_revision("no-such-tag", repo=repo, cache=tmp_path / "cache")
    with pytest.raises(EngineError, match="has no script 'pbrain-monte' .it has: pbrain-fake."):
        prepare(EngineSpec.parse("x=pbrain-monte@v1"), repo=repo, cache=tmp_path / "cache")


def test_an_engine_without_a_revision_is_left_as_it_is():
    spec = fake("plain")
    assert prepare(spec) is spec and pin(spec, None) is spec


def test_a_program_that_does_not_exist_stops_the_tournament_before_it_starts(tmp_path):
    with pytest.raises(EngineError, match="'pbrain-no-such-engine' is not an executable file on PATH"):
        prepare(EngineSpec.parse("x=pbrain-no-such-engine --fast"))
    with pytest.raises(EngineError, match="'./missing' is not an executable file"):
        prepare(EngineSpec("y", ("./missing",), cwd=str(tmp_path)))


def test_no_engine_inherits_the_runners_numba_cache_setting(tmp_path, monte_executable):
    """The runner imports the brain (for its referee); what that import configures must stay in the runner."""
    dump = tmp_path / "env.txt"
    brain = f"{sys.executable} {FAKE_BRAIN}"
    env = {key: value for key, value in os.environ.items() if key != "NUMBA_CACHE_DIR"}
    subprocess.run([monte_executable, "tournament", "--engine", f"a={brain}", "--engine",
                    f"b=sh -c 'env > {dump}; exec {brain}'", "--games", "2", "--timeout-turn-ms", "2000",
                    "--out", str(tmp_path / "out")], env=env, capture_output=True, check=True, timeout=120)
    seen = dump.read_text().splitlines()
    assert any(line.startswith("PATH=") for line in seen) and not any(line.startswith("NUMBA_") for line in seen)
