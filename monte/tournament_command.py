"""``monte tournament``: the runner's games on this machine or a Dask cluster, the standings, and a report with a
picture of each decisive game. It sits beside the dispatcher because it joins three rooms: the runner
(``monte.tournaments``), the cluster (``monte.cluster``, imported only for ``--cluster``) and the pictures
(``monte.analysis``)."""

from __future__ import annotations

import argparse
import sys
from contextlib import nullcontext
from pathlib import Path
from typing import ContextManager

from monte.errors import UsageError
from monte.tournaments.config import ConfigError, add_flags, config_from_args, engine_clock
from monte.tournaments.engines import EngineError
from monte.tournaments.pool import GamePool
from monte.tournaments.records import LOG_NAME
from monte.tournaments.report import standings
from monte.tournaments.runner import RunError, run_tournament

EXIT_INTERRUPTED = 130


def configure(parser: argparse.ArgumentParser) -> None:
    """The config file and the flags that override it."""
    parser.add_argument("config", nargs="?", help="a TOML file (see tournaments/configs/); flags override it")
    add_flags(parser)


def _game_pool(address: str) -> ContextManager[GamePool | None]:
    """The pool that plays the games: None (the runner's own threads) without a cluster, else a Dask pool --
    imported only then, so a run on one machine never loads Dask."""
    if not address:
        return nullcontext(None)
    try:
        from monte.cluster import connect
    except ImportError as exc:
        raise UsageError(f"--cluster needs Dask ({exc}): pip install 'monte-gomoku[cluster]' "
                         f"(from a clone: pip install '.[cluster]')") from None
    return connect(address)


def run(args: argparse.Namespace) -> int:
    """Play the tournament, print the standings, write the report; 130 when interrupted (resumable)."""
    try:
        config = config_from_args(args)
        with _game_pool(config.cluster) as pool:
            where = f"{config.concurrency} at a time" if pool is None else pool.describe()
            print(f"monte tournament: {config.total_games} games, {where}, logging to {config.out}/",
                  file=sys.stderr)
            result = run_tournament(config, progress=sys.stderr, pool=pool)
    except (ConfigError, EngineError, RunError) as exc:
        raise UsageError(str(exc)) from None
    turn_ms = {name: engine_clock(config, name).timeout_turn_ms or 0 for name in result.names}
    print(standings(result.records, result.names, config.format, turn_ms))
    if result.sprt_line:
        print(result.sprt_line)
    from monte.analysis.tournament_report import write_report

    report = write_report(Path(config.out), result.records, result.names, config.format, result.sprt_line,
                          turn_ms)
    print(f"games: {config.out}/{LOG_NAME}, SGF and PSQ in {config.out}/games/; report with a picture of "
          f"each decisive game: {report}", file=sys.stderr)
    if result.interrupted:
        print(f"interrupted after {len(result.records)} of {result.total} games; "
              f"continue with: --resume --out {config.out}", file=sys.stderr)
        return EXIT_INTERRUPTED
    return 0
