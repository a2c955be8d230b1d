"""The path a user takes to compare versions: a fresh venv, a normal (non-editable) ``pip install .``, and then,
from inside a clone, ``monte tournament`` with the real ``pbrain-monte`` at an earlier revision.

The earlier revision is the last commit that changed the brain. The brain's compiled kernels are filed by a hash of
its sources (``brain.cachedir``), not by the folder or the environment it is installed in, so with the brain's
sources committed that revision loads the kernels the rest of the suite compiled: its install costs pip's half a
minute, not a compile. (A fixed old commit, 9148c34, filed its kernels by the folder of its install, and the test's
venv -- a new folder every run, so a new environment of that revision every run -- compiled them again every time:
88 s of a 10-minute suite on a 2-core machine.) With uncommitted changes to the brain it compiles that revision's
kernels once.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import venv
from pathlib import Path

from tournament_support import FAKE_BRAIN
from monte.tournaments.revisions import WORKTREE, dependency_folders, pin_revision, revision_archive

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str, cwd: Path | None = None, input: bytes | None = None) -> subprocess.CompletedProcess:
    result = subprocess.run(args, cwd=cwd, input=input, capture_output=True, timeout=900)
    assert result.returncode == 0, f"{' '.join(args)} failed:\n{result.stdout[-2000:]!r}\n{result.stderr[-3000:]!r}"
    return result


def last_brain_commit() -> str:
    """The short sha of the last commit that changed ``brain/`` (see the module docstring)."""
    return run("git", "-C", str(ROOT), "log", "-1", "--format=%h", "--abbrev=9", "--", "brain").stdout.decode().strip()


def test_an_earlier_revision_plays_from_a_normal_install_run_inside_a_clone(tmp_path):
    clone = tmp_path / "clone"
    earlier = last_brain_commit()
    run("git", "clone", "--quiet", str(ROOT), str(clone))
    old_sha = run("git", "-C", str(clone), "rev-parse", f"{earlier}^{{commit}}").stdout.decode().strip()

    # A fresh venv that already has numpy and numba (this interpreter's copies), as a user's venv would after a
    # first install; `pip install .` then only builds and installs Monte itself, a normal wheel install.
    env = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True, symlinks=True).create(env)
    site_packages = next((env / "lib").glob("python*/site-packages"))
    (site_packages / "numba-from-the-test-runner.pth").write_text(
        "".join(f"{folder}\n" for folder in dependency_folders(["numpy", "numba"], "test")))
    source = tmp_path / "source"  # the code under test: this working tree, uncommitted changes included
    source.mkdir()
    archive = revision_archive(ROOT, pin_revision(WORKTREE, ROOT))
    run("tar", "-x", "-C", str(source), "-f", "-", input=archive)
    run(str(env / "bin" / "python"), "-m", "pip", "install", "--quiet", str(source))
    installed = run(str(env / "bin" / "python"), "-c", "import monte; print(monte.__file__)",
                    cwd=tmp_path).stdout.decode()
    assert installed.startswith(str(site_packages))  # not the clone: a real install

    # the revision's environment is named by the venv that installs it (tournaments.revisions.environment_folder),
    # a new one every run: removed afterwards, so that runs of the suite leave nothing in the user's cache
    made = Path(run(str(env / "bin" / "python"), "-c", "from monte.tournaments.revisions import default_revisions_dir,"
                    f" environment_folder; print(environment_folder(default_revisions_dir(), {old_sha!r}))",
                    cwd=tmp_path).stdout.decode().strip())
    try:
        result = run(str(env / "bin" / "monte"), "tournament", "--engine", f"old=pbrain-monte@{earlier}",
                     "--engine", f"fake={sys.executable} {FAKE_BRAIN}", "--games", "2", "--timeout-turn-ms", "300",
                     "--draw-after", "60", "--out", str(tmp_path / "out"), cwd=clone)
        assert made.is_dir()
    finally:
        shutil.rmtree(made, ignore_errors=True)
    assert f"old: {earlier} is commit {old_sha}" in result.stderr.decode()
    settings = json.loads((tmp_path / "out" / "tournament.json").read_text())
    assert settings["engines"][0]["revision"] == old_sha
    records = [json.loads(line) for line in (tmp_path / "out" / "games.jsonl").read_text().splitlines()]
    assert len(records) == 2
    for record in records:
        assert record["winner"] == "old" and record["termination"] == "five", record["detail"]
