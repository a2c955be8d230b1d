"""``monte gui``: its arguments, and starting the server. aiohttp (the ``[gui]`` extra) is imported only when the
command runs, so every other ``monte`` tool starts without it."""

from __future__ import annotations

import argparse
import asyncio
import webbrowser
from pathlib import Path


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--engine", action="append", default=[], metavar="NAME=COMMAND",
                        help="an engine the page may seat, e.g. greedy='pbrain-monte --engine greedy' (repeatable; "
                             "Monte is always there as 'monte')")
    parser.add_argument("--config", metavar="FILE.toml",
                        help="a file with [[engine]] tables (a tournament config serves as it is)")
    parser.add_argument("--runs", default="runs",
                        help="the folder of tournament runs to replay, or one run's folder (default: runs)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="the address to listen on (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=int, default=0, help="the port (default: a free one, printed)")
    parser.add_argument("--max-games", type=int, default=4,
                        help="games with engines that may run at once, over all tabs (default 4)")
    parser.add_argument("--open", action="store_true", help="open the page in the default browser")


def run(args: argparse.Namespace) -> int:
    """Serve the page until Ctrl-C; ValueError for an argument the user can fix."""
    if args.max_games < 1:
        raise ValueError(f"--max-games must be at least 1, not {args.max_games}")
    if not 0 <= args.port <= 65535:
        raise ValueError(f"--port must be 0..65535, not {args.port}")
    try:
        from monte.web.server import make_app, serve
    except ImportError as exc:
        raise ValueError(f"monte gui needs aiohttp ({exc}): pip install 'monte-gomoku[gui]' "
                         f"(from a clone: pip install '.[gui]')") from None
    from monte.web.replay import RunFolders
    from monte.web.roster import load_roster

    roster = load_roster(args.engine, args.config)
    app = make_app(roster, RunFolders(Path(args.runs)), args.max_games, args.host)
    asyncio.run(serve(app, args.host, args.port, webbrowser.open if args.open else None))
    return 0
