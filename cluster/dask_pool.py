"""The coordinator's side of a cluster run: games go out as Dask tasks, records come back as they finish.

A game is one task, keyed by its game id and the run's token. The runner submits only as many as the cluster has
worker threads (re-counted as workers come and go), so nothing waits in a queue when the SPRT decides, and a worker
that joins mid-run gets work at once. A worker that dies mid-game takes nothing with it: the scheduler gives the
task to another worker and the game is played again from the start; Dask gives up on a game only after workers have
died under it ``distributed.scheduler.allowed-failures`` times (3), and the run then stops with the games logged so
far kept for ``--resume``. Engines are prepared on each worker before its first game there (cluster.worker); a git
revision's source is archived here, where the clone is, and kept on the scheduler for the workers to install.
"""

from __future__ import annotations

import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Sequence

from distributed import CancelledError, Client, Future, KilledWorker, Variable

from monte.cluster import worker
from monte.cluster.local import start_local_cluster
from monte.tournaments.engines import EngineError, EngineSpec
from monte.tournaments.match import MatchRules, StopSignal
from monte.tournaments.pool import FinishedFutures, Note
from monte.tournaments.records import GameRecord
from monte.tournaments.revisions import RevisionError, find_repository, revision_archive
from monte.tournaments.runner import RunError
from monte.tournaments.scheduler import GameSpec

LOCAL_PREFIX = "local:"
CONNECT_TIMEOUT_S = 20


class DaskPool:
    """Games played by the workers of the Dask cluster `client` is connected to (see the module docstring)."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self._token = ""
        self._sources: str | None = None
        self._cache: str | None = None

    def describe(self) -> str:
        """Where the games go, in words, for the run's first line."""
        threads = self.capacity()
        workers = f"{threads} worker thread{'s' * (threads != 1)}" if threads else "no worker yet"
        return f"on the Dask cluster at {self.client.scheduler.address} ({workers})"

    def prepare(self, engines: Sequence[EngineSpec], *, repo: Path | None, cache: Path | None,
                note: Note | None) -> dict[str, EngineSpec]:
        """Archive the revisions' source here and leave it on the scheduler; the workers prepare the engines."""
        self._token = uuid.uuid4().hex
        self._cache = None if cache is None else str(cache)
        archives: dict[str, bytes] = {}
        for spec in engines:
            if spec.revision is not None and spec.revision not in archives:
                try:
                    archives[spec.revision] = revision_archive(repo or find_repository(Path.cwd()), spec.revision)
                except RevisionError as exc:
                    raise EngineError(f"engine {spec.name!r}: {exc}") from None
        self._sources = None
        if archives:
            self._sources = f"monte-sources-{self._token}"
            Variable(self._sources, client=self.client).set(archives)
            if note is not None:
                size = sum(map(len, archives.values())) / 1e6
                note(f"{len(archives)} revision source{'s' * (len(archives) > 1)} ({size:.1f} MB) left on the "
                     f"scheduler: each worker installs them before its first game")
        return {spec.name: spec for spec in engines}

    def start(self, engines: dict[str, EngineSpec], rules: MatchRules, stop: StopSignal, log_dir: Path) -> None:
        """Begin a run. `stop` is not watched here: the runner sees it and calls `finish`, which stops the workers'
        games."""
        self._engines = engines
        self._rules = rules
        self._log_dir = log_dir
        self._futures = FinishedFutures()
        self._games: dict[str, int] = {}
        self._ending = False

    def capacity(self) -> int:
        return sum(self.client.nthreads().values())

    def running(self) -> int:
        return len(self._futures)

    def submit(self, game: GameSpec) -> None:
        key = f"monte-game{game.game_id:05d}-{self._token}"
        self._games[key] = game.game_id
        self._futures.track(self.client.submit(worker.play, self._token, game, self._engines, self._rules,
                                               self._sources, self._cache, key=key))

    def completed(self, timeout_s: float) -> list[GameRecord]:
        return self._records(self._futures.wait(timeout_s))

    def finish(self) -> list[GameRecord]:
        """Stop the games on the workers (their engines are killed), take what has come back, cancel the rest."""
        self._ending = True
        try:
            self.client.run(worker.stop_run, self._token, on_error="ignore")
            records = self._records(self._futures.wait(0))
            self.client.cancel(self._futures.pending())
            return records + self._records(self._futures.wait_all())
        finally:
            self.client.run(worker.end_run, self._token, on_error="ignore")
            if self._sources is not None:
                Variable(self._sources, client=self.client).delete()

    def _records(self, futures: list[Future]) -> list[GameRecord]:
        return [record for record in map(self._record, futures) if record is not None]

    def _record(self, future: Future) -> GameRecord | None:
        """A finished game's record, its engines' stderr written to the log folder; None for a game this pool
        cancelled; RunError for a game the cluster lost; the worker's exception for a game that failed there."""
        game_id = self._games.pop(future.key)
        try:
            record, logs = future.result()
        except CancelledError:
            if self._ending:
                return None
            raise RunError(f"the Dask cluster dropped game {game_id} (scheduler restarted or out of reach?); the "
                           f"games logged so far are kept: continue with --resume") from None
        except KilledWorker as exc:
            allowed = exc.allowed_failures
            raise RunError(f"game {game_id} was lost: {allowed + 1} workers died while playing it, and Dask gives "
                           f"up then (distributed.scheduler.allowed-failures = {allowed}); the games logged so far "
                           f"are kept: check the workers and continue with --resume") from None
        for name, data in logs.items():
            (self._log_dir / name).write_bytes(data)
        return record


@contextmanager
def connect(address: str) -> Iterator[DaskPool]:
    """A pool on the Dask scheduler at `address` (``tcp://HOST:8786``), or on ``local:N``: N worker processes on this
    machine (cluster.local), started here and shut down on leaving. RunError if the scheduler cannot be reached."""
    cluster = None
    try:
        if address.startswith(LOCAL_PREFIX):
            cluster = start_local_cluster(int(address[len(LOCAL_PREFIX):]))
            client = Client(cluster, set_as_default=False)
        else:
            client = Client(address, timeout=CONNECT_TIMEOUT_S, set_as_default=False)
    except OSError as exc:
        if cluster is not None:
            cluster.close()
        raise RunError(f"cluster {address}: cannot reach the Dask scheduler ({exc})") from None
    try:
        yield DaskPool(client)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
