"""Where a tournament's games are played: the seam between the runner's loop and the machines that play them.

The runner keeps everything that makes a tournament (the schedule, the openings, the statistics, the records, the
stop); a `GamePool` only prepares the engines, plays the games it is handed and gives their records back as they
finish. `LocalPool` plays them on threads of this process, as many at once as ``concurrency`` says; the ``cluster``
package plays them on a Dask cluster through the same methods. A pool never decides which games exist, so a run,
its log and its ``--resume`` read the same whichever pool played them.
"""

from __future__ import annotations

import queue
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable, Protocol, Sequence

from monte.tournaments.engines import EngineSpec, prepare
from monte.tournaments.match import MatchRules, StopSignal, play_game
from monte.tournaments.records import GameRecord
from monte.tournaments.scheduler import GameSpec

Note = Callable[[str], None]


class GamePool(Protocol):
    """Plays games for the runner: `prepare` the engines, `start` a run, `submit` games while `running` is under
    `capacity`, take their records from `completed`, and `finish` (which stops what still runs)."""

    def prepare(self, engines: Sequence[EngineSpec], *, repo: Path | None, cache: Path | None,
                note: Note | None) -> dict[str, EngineSpec]:
        """The engines by name, made ready where the games will run (or checked there before each one's first
        game); EngineError when one cannot be."""

    def start(self, engines: dict[str, EngineSpec], rules: MatchRules, stop: StopSignal, log_dir: Path) -> None:
        """Begin a run: its games use these engines and rules, end early when `stop` is set, and leave their
        engines' stderr in `log_dir`."""

    def capacity(self) -> int:
        """How many games may run at once now (a cluster's count changes as workers come and go)."""

    def running(self) -> int:
        """Games submitted whose records have not been handed back yet."""

    def submit(self, game: GameSpec) -> None:
        """Start playing `game`."""

    def completed(self, timeout_s: float) -> list[GameRecord]:
        """The records of games that ended since the last call, waiting up to `timeout_s` for the first."""

    def finish(self) -> list[GameRecord]:
        """End the run: interrupt the games still running, drop those not started, wait for the rest, and return
        the records that came back meanwhile."""


class FinishedFutures:
    """The futures of games in flight, and a queue their done-callbacks feed: `wait` returns those that are done.

    Works for any future with ``add_done_callback`` (concurrent.futures and Dask alike), whichever thread calls
    the callback.
    """

    def __init__(self) -> None:
        self._done: queue.SimpleQueue = queue.SimpleQueue()
        self._pending: set[Any] = set()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            return len(self._pending)

    def pending(self) -> list[Any]:
        """The futures not yet returned by `wait`."""
        with self._lock:
            return list(self._pending)

    def track(self, future: Any) -> None:
        with self._lock:
            self._pending.add(future)
        future.add_done_callback(self._done.put)

    def wait(self, timeout_s: float | None) -> list[Any]:
        """The futures that finished since the last call, waiting up to `timeout_s` (None: forever) for one."""
        try:
            done = [self._done.get(timeout=timeout_s)]
        except queue.Empty:
            return []
        while True:
            try:
                done.append(self._done.get_nowait())
            except queue.Empty:
                break
        with self._lock:
            self._pending.difference_update(done)
        return done

    def wait_all(self) -> list[Any]:
        """Every future still pending, once all are done."""
        done = []
        while self:
            done += self.wait(None)
        return done


class LocalPool:
    """Games on `concurrency` threads of this process, each owning its two engine processes; engines are prepared
    here, once, before the first game."""

    def __init__(self, concurrency: int) -> None:
        self.concurrency = concurrency
        self._futures = FinishedFutures()
        self._executor: ThreadPoolExecutor | None = None

    def prepare(self, engines: Sequence[EngineSpec], *, repo: Path | None, cache: Path | None,
                note: Note | None) -> dict[str, EngineSpec]:
        return {spec.name: prepare(spec, repo=repo, cache=cache, note=note) for spec in engines}

    def start(self, engines: dict[str, EngineSpec], rules: MatchRules, stop: StopSignal, log_dir: Path) -> None:
        self._game = (engines, rules, stop, log_dir)
        self._stop = stop
        self._executor = ThreadPoolExecutor(self.concurrency, thread_name_prefix="game")

    def capacity(self) -> int:
        return self.concurrency

    def running(self) -> int:
        return len(self._futures)

    def submit(self, game: GameSpec) -> None:
        engines, rules, stop, log_dir = self._game
        self._futures.track(self._executor.submit(play_game, game, engines, rules, stop, log_dir))

    def completed(self, timeout_s: float) -> list[GameRecord]:
        return _records(self._futures.wait(timeout_s))

    def finish(self) -> list[GameRecord]:
        self._stop.set()  # kills the engines of games still running; they return at once
        try:
            return _records(self._futures.wait_all())
        finally:
            self._executor.shutdown()


def _records(futures: list[Future]) -> list[GameRecord]:
    """The records of finished local games (a game's own exception is raised: it is a bug, not a result)."""
    return [future.result() for future in futures]
