"""``--cluster local:N``: a Dask cluster of N worker processes on this machine, started for one run.

Each worker process has one thread, so it plays one game at a time. As it starts, a worker leaves the terminal's
process group (this module is its Dask preload): Ctrl-C then reaches the coordinator alone, which stops the games
and kills their engines before it closes the workers -- a worker interrupted by Ctrl-C itself would exit at once and
leave its game's engines running.
"""

from __future__ import annotations

import os

from distributed import LocalCluster


def start_local_cluster(workers: int) -> LocalCluster:
    """N worker processes of one thread each, their scheduler on 127.0.0.1 at a free port, no dashboard."""
    return LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                        preload=[__name__])


def dask_setup(worker: object) -> None:
    """Dask's preload hook, run in each worker process as it starts: put the process in a group of its own."""
    os.setpgid(0, 0)
