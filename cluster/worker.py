"""What a Dask worker runs for a tournament: one game per task, with engines prepared once per run and worker.

A worker keeps, per run (named by the coordinator's token), the engines it has prepared -- programs checked, git
revisions installed in this machine's cache from the source the coordinator sent, warmed up -- and one `StopSignal`
that the coordinator sets through `stop_run` when the run ends early, which kills the engines of the games playing
here. Each game writes its engines' stderr to a scratch folder; the task returns those files with the record, and the
coordinator writes them into the run's ``logs/`` folder, so the run's files all live where the coordinator is.
"""

from __future__ import annotations

import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from distributed import Variable, get_client, get_worker

from monte.tournaments.engines import EngineError, EngineSpec, prepare
from monte.tournaments.match import MatchRules, StopSignal, play_game
from monte.tournaments.records import GameRecord
from monte.tournaments.scheduler import GameSpec

LOG_LIMIT_BYTES = 4 << 20
"""The most of one engine's stderr a worker sends back (its end is kept): a chatty engine must not flood the
scheduler."""
SOURCES_TIMEOUT_S = 120


@dataclass
class _RunHere:
    """One run's state on this worker."""

    stop: StopSignal = field(default_factory=StopSignal)
    engines: dict[str, EngineSpec] | None = None
    preparing: threading.Lock = field(default_factory=threading.Lock)


_lock = threading.Lock()
_runs: dict[str, _RunHere] = {}
_ended: set[str] = set()
"""Tokens of runs that have ended: a game of theirs that still starts here is stopped at once."""


def _run(token: str) -> _RunHere:
    with _lock:
        if token in _ended:
            ended = _RunHere()
            ended.stop.set()
            return ended
        return _runs.setdefault(token, _RunHere())


def play(token: str, game: GameSpec, engines: dict[str, EngineSpec], rules: MatchRules, sources: str | None,
         cache: str | None) -> tuple[GameRecord, dict[str, bytes]]:
    """The task: play `game` here and return its record with its engines' stderr files (name -> contents).

    `sources` names the Dask Variable holding the source archives of the run's revisions (None: there are none);
    `cache` is the revisions cache to install into (None: this machine's default).
    """
    run = _run(token)
    ready = _prepared(run, engines, sources, None if cache is None else Path(cache))
    with tempfile.TemporaryDirectory(prefix="monte-game-") as folder:
        record = play_game(game, ready, rules, run.stop, Path(folder))
        logs = {path.name: _tail(path) for path in sorted(Path(folder).iterdir())}
    return record, logs


def _prepared(run: _RunHere, engines: dict[str, EngineSpec], sources: str | None,
              cache: Path | None) -> dict[str, EngineSpec]:
    """The run's engines ready on this worker, prepared by its first game (the others wait for it)."""
    with run.preparing:
        if run.engines is None:
            archive = None if sources is None else _archive_fetcher(sources)
            try:
                run.engines = {name: prepare(spec, cache=cache, archive=archive) for name, spec in engines.items()}
            except EngineError as exc:
                raise EngineError(f"on worker {get_worker().address}: {exc}") from None
        return run.engines


def _archive_fetcher(sources: str) -> Callable[[str], bytes]:
    """A function giving the source archive of a revision, fetched from the scheduler only if an install needs it."""
    client = get_client()  # in the task's thread, where the worker's client is known

    def fetch(sha: str) -> bytes:
        return Variable(sources, client=client).get(timeout=SOURCES_TIMEOUT_S)[sha]

    return fetch


def _tail(path: Path) -> bytes:
    data = path.read_bytes()
    if len(data) <= LOG_LIMIT_BYTES:
        return data
    cut = len(data) - LOG_LIMIT_BYTES
    return f"[the first {cut} bytes were cut on the worker]\n".encode() + data[cut:]


def stop_run(token: str) -> None:
    """Stop the run's games on this worker: kill their engines (they return as interrupted), and any that start."""
    _run(token).stop.set()


def end_run(token: str) -> None:
    """Forget the run here; a game of it that still starts is stopped at once."""
    with _lock:
        _runs.pop(token, None)
        _ended.add(token)
