"""Where ``monte selfplay``'s games are played: in this process, in N local processes, or on a Dask cluster.

Each game is one task (``lab.selfplay.play``), finished games come back as they end, in any order, for the caller to
log at once; a stop (Ctrl-C) cancels what has not started. Local processes are spawned, not forked: numba's
compiled state is not fork-safe, and each worker loads the kernels from the on-disk cache once.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from typing import Any

from monte.lab.selfplay import Job, play
from monte.tournaments.records import GameRecord

Result = tuple[GameRecord, dict[str, Any]]


def results(jobs: Sequence[Job], workers: int, scheduler: str | None) -> Iterator[Result]:
    """Each job's game, as it finishes: on the Dask scheduler at `scheduler` (``tcp://HOST:8786`` or ``local:N``)
    when given, else in `workers` processes of this machine (1: in this process)."""
    if scheduler:
        yield from _on_dask(jobs, scheduler)
    elif workers == 1:
        yield from map(play, jobs)
    else:
        yield from _in_processes(jobs, workers)


def _in_processes(jobs: Sequence[Job], workers: int) -> Iterator[Result]:
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"))
    try:
        pending = {pool.submit(play, job) for job in jobs}
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                yield future.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _on_dask(jobs: Sequence[Job], scheduler: str) -> Iterator[Result]:
    from distributed import as_completed

    from monte.cluster import connect

    with connect(scheduler) as cluster:
        futures = [cluster.client.submit(play, job, pure=False) for job in jobs]
        try:
            for future in as_completed(futures, loop=cluster.client.loop):
                yield future.result()
        finally:
            cluster.client.cancel(futures)
