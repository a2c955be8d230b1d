"""Engine specs: what process to start for each player of a tournament, what it is told, and where its code is.

An engine is a name, a command line, and optionally INFO settings of its own. A command whose program is written
``pbrain-monte@REV`` (or an engine with ``revision = "REV"``) means "Monte as it was at git revision REV", and
``pbrain-monte@WORKTREE`` Monte as the working tree is when the run starts: before the tournament starts the
revision is pinned to a sha and installed once into its own environment (tournaments/revisions.py), so versions of
Monte can play each other from one clone.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

from monte.tournaments.revisions import (RevisionError, find_repository, install_pinned, install_revision, pin_revision,
                                  warm_up)

REVISION_MARK = "@"
DEFAULT_REVISION_PROGRAM = "pbrain-monte"
RUNNER_INFO_KEYS = ("timeout_turn", "timeout_match", "time_left", "max_memory", "game_type", "rule")
"""INFO keys the runner sends itself from the ``[game]`` settings: an engine's own INFO may not contradict them."""
_INFO_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class EngineError(ValueError):
    """An engine that cannot be prepared: a bad spec, an unknown revision, a revision without the script."""


@dataclass(frozen=True)
class EngineSpec:
    """One player: a unique name, the command that starts it, and optionally the git revision it comes from.

    With a revision, ``command[0]`` is the name of a console script that revision declares (usually
    ``pbrain-monte``); ``prepare`` turns it into the path of that script in the revision's environment.
    """

    name: str
    command: tuple[str, ...]
    revision: str | None = None
    cwd: str | None = None
    info: tuple[tuple[str, str], ...] = ()
    """This engine's own ``INFO key value`` lines, sent after the standard ones (e.g. Rapfi's ``max_node``)."""
    clock: "EngineClock | None" = None
    """This engine's own time control (time odds), in place of the ``[game]`` one; None: the game's."""

    @classmethod
    def parse(cls, text: str) -> "EngineSpec":
        """An engine from ``NAME=COMMAND`` (the ``--engine`` flag); ``pbrain-monte@REV ...`` selects a revision."""
        name, sep, command = text.partition("=")
        if not sep or not name.strip():
            raise EngineError(f"engine {text!r}: write NAME=COMMAND, e.g. greedy='pbrain-monte --engine greedy'")
        return cls.from_command(name.strip(), shlex.split(command))

    @classmethod
    def from_command(cls, name: str, argv: list[str], revision: str | None = None,
                     cwd: str | None = None) -> "EngineSpec":
        """An engine from an argument list, splitting ``program@REV`` in its first word into program and revision."""
        if not argv:
            raise EngineError(f"engine {name!r}: the command is empty")
        program, mark, rev = argv[0].partition(REVISION_MARK)
        if mark:
            if revision is not None and revision != rev:
                raise EngineError(f"engine {name!r}: revision given twice ({revision!r} and {rev!r})")
            if not rev:
                raise EngineError(f"engine {name!r}: {argv[0]!r} names no revision after '@'")
            argv = [program or DEFAULT_REVISION_PROGRAM, *argv[1:]]
            revision = rev
        return cls(name, tuple(argv), revision, cwd)


@dataclass(frozen=True)
class EngineClock:
    """An engine's own time control, as c-gomoku-cli's and fastchess's per-engine ``tc`` give one: it is told these
    limits (``INFO timeout_turn`` / ``timeout_match``) and the referee holds it to them. Either may be None in a
    config, meaning the ``[game]`` value (``TournamentConfig`` fills it in)."""

    timeout_turn_ms: int | None = None
    """Milliseconds per move (0: no per-move limit, only the match clock)."""
    timeout_match_ms: int | None = None
    """Milliseconds per game for this engine (0: no match clock)."""

    def describe(self) -> str:
        """``TURN_MS/MATCH_MS`` as the ``--clock`` flag writes it."""
        return f"{self.timeout_turn_ms}/{self.timeout_match_ms}"


def parse_clock_flag(text: str) -> tuple[str, EngineClock]:
    """(engine name, its clock) from the ``--clock NAME=TURN_MS[/MATCH_MS]`` flag, e.g. ``monte2x=2000`` or
    ``fast=5000/120000``; EngineError (one line) when it is not of that form."""
    name, sep, limits = text.partition("=")
    turn, slash, match = limits.partition("/")
    try:
        clock = EngineClock(int(turn), int(match) if slash else None)
    except ValueError:
        clock = None
    if not sep or not name.strip() or clock is None or clock.timeout_turn_ms < 0 or (clock.timeout_match_ms or 0) < 0:
        raise EngineError(f"--clock {text!r}: write NAME=TURN_MS or NAME=TURN_MS/MATCH_MS with integers >= 0, "
                          f"e.g. monte2x=2000 or fast=5000/120000")
    return name.strip(), clock


def engine_info(pairs: dict[str, object]) -> tuple[tuple[str, str], ...]:
    """Checked ``INFO`` pairs for an engine from a mapping of key to value (an integer or a string).

    EngineError (one line, naming the key) for a key that is not a plain word, a key the runner sends itself, or a
    value that is not an integer or a one-line string -- a bad value would reach the engine as a broken INFO line.
    """
    checked = []
    for key, value in pairs.items():
        if not isinstance(key, str) or not _INFO_KEY.fullmatch(key):
            raise EngineError(f"info key {key!r}: must be a word of letters, digits and '_'")
        if key.lower() in RUNNER_INFO_KEYS:
            raise EngineError(f"info.{key}: the runner sends INFO {key.lower()} itself from the [game] settings")
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            raise EngineError(f"info.{key}: must be an integer or a string, got {value!r}")
        text = str(value)
        if not text.strip() or any(ch in text for ch in "\r\n"):
            raise EngineError(f"info.{key}: must be a non-empty string on one line, got {value!r}")
        checked.append((key, text))
    return tuple(checked)


def parse_info_flag(text: str) -> tuple[str, str, str]:
    """(engine name, key, value) from the ``--info NAME:KEY=VALUE`` flag, e.g. ``rapfi:max_node=20000``."""
    target, sep, value = text.partition("=")
    name, colon, key = target.rpartition(":")
    if not sep or not colon or not name.strip() or not key.strip():
        raise EngineError(f"--info {text!r}: write NAME:KEY=VALUE, e.g. rapfi:max_node=20000")
    return name.strip(), key.strip(), value


def check_program(spec: EngineSpec) -> None:
    """EngineError unless the engine's program exists: a path (relative to the engine's folder) or a name on PATH.

    A misspelt command is a mistake in the tournament, not a start-up fault of the engine in every game.
    """
    program = spec.command[0]
    if os.sep in program:
        path = Path(spec.cwd or ".") / program
        found, where = path.is_file() and os.access(path, os.X_OK), ""
    else:
        found, where = shutil.which(program) is not None, " on PATH"
    if not found:
        raise EngineError(f"engine {spec.name!r}: program {program!r} is not an executable file{where}")


def pin(spec: EngineSpec, repo: Path | None) -> EngineSpec:
    """The spec with its revision (if any) pinned to a full sha in `repo` (default: the git repository holding the
    current folder), so that the run records, and ``--resume`` checks, exactly which code it plays."""
    if spec.revision is None:
        return spec
    try:
        return replace(spec, revision=pin_revision(spec.revision, repo or find_repository(Path.cwd())))
    except RevisionError as exc:
        raise EngineError(f"engine {spec.name!r}: {exc}") from None


def prepare(spec: EngineSpec, *, repo: Path | None = None, cache: Path | None = None,
            note: Callable[[str], None] | None = None,
            archive: Callable[[str], bytes] | None = None) -> EngineSpec:
    """The spec ready to run: its program checked; a revision installed (see tournaments/revisions.py), its script
    put in place of ``command[0]`` and warmed up, and the revision cleared, so preparing again changes nothing.

    A revision's source comes from `repo` (default: the current folder's), or, when `archive` is given, from
    ``archive(sha)`` for a revision already pinned: a cluster worker without a clone gets it from the coordinator.
    """
    if spec.revision is None:
        check_program(spec)
        return spec
    try:
        if archive is None:
            env = install_revision(spec.revision, repo=repo or find_repository(Path.cwd()), cache=cache, note=note)
        else:
            sha = spec.revision
            env = install_pinned(sha, lambda: archive(sha), cache=cache, note=note)
        script = env / "bin" / spec.command[0]
        if not script.is_file():
            available = ", ".join(sorted(p.name for p in (env / "bin").iterdir() if p.name.startswith("pbrain-")))
            raise EngineError(f"engine {spec.name!r}: revision {spec.revision!r} has no script "
                              f"{spec.command[0]!r} (it has: {available or 'none'})")
        warm_up(script)
    except RevisionError as exc:
        raise EngineError(f"engine {spec.name!r}: {exc}") from None
    return replace(spec, command=(str(script), *spec.command[1:]), revision=None)
