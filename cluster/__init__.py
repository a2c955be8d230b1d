"""Tournaments on a Dask distributed cluster: a `GamePool` (tournaments/pool.py) whose games are Dask tasks.

The coordinator (the ``monte tournament`` process) keeps the schedule, the statistics and the records exactly as
on one machine; only the games travel. `connect` opens the pool on a running scheduler (``tcp://HOST:8786``) or on a
cluster of worker processes it starts here (``local:N``); `cluster.worker` is what the workers run. Dask is imported
only by this package, so a run without a cluster never loads it.
"""

from monte.cluster.dask_pool import DaskPool, connect

__all__ = ["DaskPool", "connect"]
