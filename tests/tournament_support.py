"""Helpers shared by the tournament tests: engine specs for the fake brains, a fast config, a process census, a
git clone of the fake brain for engines at a revision, and a gated tournament that an interruption stops at a known
point (with the `monte` command to run it and what to compare afterwards)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from monte.tournaments.config import TournamentConfig, validate
from monte.tournaments.engines import EngineSpec

FAKE_BRAIN = Path(__file__).resolve().parent / "fakes" / "fake_brain.py"

FAST_GAME = {"timeout_turn_ms": 1000, "tolerance_ms": 500, "start_timeout_ms": 5000}
"""Limits that keep games among the instant fake brains short, with room for a loaded machine."""


def fake(name: str, mode: str = "good", *args: str, cwd: Path | None = None) -> EngineSpec:
    """An engine running the fake brain in `mode` with extra arguments (e.g. "--at", "3")."""
    command = (sys.executable, str(FAKE_BRAIN), "--mode", mode, *args)
    return EngineSpec(name, command, cwd=None if cwd is None else str(cwd))


def config(out: Path, engines: list[EngineSpec], **settings) -> TournamentConfig:
    """A checked config writing to `out`, with fast limits unless `settings` says otherwise."""
    result = TournamentConfig(engines=tuple(engines), out=str(out), **{**FAST_GAME, **settings})
    validate(result)
    return result


def processes_in(folder: Path) -> list[int]:
    """The pids of live processes whose working directory is inside `folder` (engines and their children inherit
    theirs; an exited process has none)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cwd = os.readlink(f"/proc/{entry}/cwd")
        except OSError:
            continue
        if cwd == str(folder) or cwd.startswith(f"{folder}/"):
            found.append(int(entry))
    return found


FAKE_BRAIN_PYPROJECT = """\
[project]
name = "fakebrain"
version = "0.0.1"
dependencies = ["pexpect>=4"]
[project.scripts]
pbrain-fake = "fakebrain:main"
"""


def git(repo: Path, *args: str) -> str:
    result = subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
                            capture_output=True, text=True, check=True)
    return result.stdout.strip()


def fake_brain_repo(repo: Path) -> Path:
    """A git clone at `repo` with two commits of a pure-Python brain that needs pexpect (which a venv has and its
    base Python may not): the first (tag v1) plays well, the second crashes at move 2."""
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "pyproject.toml").write_text(FAKE_BRAIN_PYPROJECT)
    (repo / ".gitignore").write_text("ignored.txt\n")
    source = FAKE_BRAIN.read_text() + "\nimport pexpect  # a dependency, found where the running interpreter finds it\n"
    (repo / "fakebrain.py").write_text(source)
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "good")
    git(repo, "tag", "v1")
    (repo / "fakebrain.py").write_text(source.replace('default="good"', 'default="crash"')
                                       .replace("default=1,", "default=2,"))
    git(repo, "commit", "-q", "-am", "crashes")
    return repo


GATE = "gate-open"
ENGINES = {"good": "good", "crasher": "crash --at 6", "gated": f"gate --at 2 --gate {GATE}"}
"""Round-robin: games 1-4 are good vs crasher; every later game has the gated engine, which does not answer its
second move until the file GATE exists in the engines' folder -- so an interrupted run stops at a known point."""


def write_config(folder: Path, engines_cwd: Path, engines: dict[str, str] = ENGINES,
                 game: str = "timeout_turn_ms = 60000\ntolerance_ms = 500\n") -> Path:
    engines_cwd.mkdir(exist_ok=True)
    text = f"[tournament]\ngames = 4\nconcurrency = 2\n[game]\n{game}[openings]\nrandom = 4\nseed = 11\n"
    for name, mode in engines.items():
        text += (f'[[engine]]\nname = "{name}"\ncommand = "{sys.executable} {FAKE_BRAIN} --mode {mode}"\n'
                 f'cwd = "{engines_cwd}"\n')
    path = folder / "tournament.toml"
    path.write_text(text)
    return path


def outcomes(records):
    """What a game was, independent of timing: who played which colour, the moves, the result and why."""
    return sorted((r.game_id, r.black, r.white, tuple((x, y) for x, y, _ in r.moves), r.winner, r.termination)
                  for r in records)


def monte(*args: str, cwd: Path, **kwargs) -> subprocess.Popen:
    return subprocess.Popen(["monte", "tournament", *args], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kwargs)


def wait_for(condition, what: str, within_s: float = 60.0) -> None:
    """Poll `condition` until it holds; fail naming `what` if it does not within the (generous) bound."""
    give_up = time.monotonic() + within_s
    while not condition():
        assert time.monotonic() < give_up, f"still waiting for {what}"
        time.sleep(0.02)
