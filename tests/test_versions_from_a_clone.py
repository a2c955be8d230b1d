"""The path a user takes to compare versions: a fresh venv, a normal (non-editable) ``pip install .``, and then,
from inside a clone, ``monte tournament`` with the real ``pbrain-monte`` at an earlier revision.

Slow on its first run on a machine (the earlier revision's kernels compile once, a minute or more), then about half a
minute (pip builds and installs the wheel): the earlier revision is a fixed commit of main, not ``HEAD~1``, and its
environment lives in the usual cache (``~/.cache/monte/revisions/``), so it is built and compiled once per machine,
not after every commit.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import venv
from pathlib import Path

from tournament_support import FAKE_BRAIN
from monte.tournaments.revisions import WORKTREE, dependency_folders, pin_revision

ROOT = Path(__file__).resolve().parents[1]
EARLIER = "9148c34"
"""An earlier commit of main: the one issue 7 measured against the C++ engines."""


def run(*args: str, cwd: Path | None = None, input: bytes | None = None) -> subprocess.CompletedProcess:
    result = subprocess.run(args, cwd=cwd, input=input, capture_output=True, timeout=900)
    assert result.returncode == 0, f"{' '.join(args)} failed:\n{result.stdout[-2000:]!r}\n{result.stderr[-3000:]!r}"
    return result


def test_an_earlier_revision_plays_from_a_normal_install_run_inside_a_clone(tmp_path):
    clone = tmp_path / "clone"
    run("git", "clone", "--quiet", str(ROOT), str(clone))
    old_sha = run("git", "-C", str(clone), "rev-parse", f"{EARLIER}^{{commit}}").stdout.decode().strip()

    # A fresh venv that already has numpy and numba (this interpreter's copies), as a user's venv would after a
    # first install; `pip install .` then only builds and installs Monte itself, a normal wheel install.
    env = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True, symlinks=True).create(env)
    site_packages = next((env / "lib").glob("python*/site-packages"))
    (site_packages / "numba-from-the-test-runner.pth").write_text(
        "".join(f"{folder}\n" for folder in dependency_folders(["numpy", "numba"], "test")))
    source = tmp_path / "source"  # the code under test: this working tree, uncommitted changes included
    source.mkdir()
    archive = run("git", "-C", str(ROOT), "archive", "--format=tar", pin_revision(WORKTREE, ROOT)).stdout
    run("tar", "-x", "-C", str(source), "-f", "-", input=archive)
    run(str(env / "bin" / "python"), "-m", "pip", "install", "--quiet", str(source))
    installed = run(str(env / "bin" / "python"), "-c", "import monte; print(monte.__file__)",
                    cwd=tmp_path).stdout.decode()
    assert installed.startswith(str(site_packages))  # not the clone: a real install

    result = run(str(env / "bin" / "monte"), "tournament", "--engine", f"old=pbrain-monte@{EARLIER}",
                 "--engine", f"fake={sys.executable} {FAKE_BRAIN}", "--games", "2", "--timeout-turn-ms", "300",
                 "--draw-after", "60", "--out", str(tmp_path / "out"), cwd=clone)
    assert f"old: {EARLIER} is commit {old_sha}" in result.stderr.decode()
    settings = json.loads((tmp_path / "out" / "tournament.json").read_text())
    assert settings["engines"][0]["revision"] == old_sha
    records = [json.loads(line) for line in (tmp_path / "out" / "games.jsonl").read_text().splitlines()]
    assert len(records) == 2
    for record in records:
        assert record["winner"] == "old" and record["termination"] == "five", record["detail"]
