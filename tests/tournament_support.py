"""Helpers shared by the tournament tests: engine specs for the fake brains, a fast config, and a process census."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from tournaments.config import TournamentConfig, validate
from tournaments.engines import EngineSpec

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
