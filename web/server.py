"""The web server of ``monte gui`` on aiohttp: the page and its files, one WebSocket per tab for the live game, and a
small JSON API for replays and for reading an uploaded game file.

Routes: ``/`` the page; ``/static/...`` its script and style; ``/ws`` the live game (a `Table` per connection, closed
with it); ``GET /api/runs``, ``/api/runs/{run}`` and ``/api/runs/{run}/{id}`` the tournament runs, their games and
one game; ``POST /api/record?name=FILE&rule=RULE`` an .sgf or .psq file's text, read back as a game.

A WebSocket whose Origin is another site is refused, so a page elsewhere cannot start engines here. When the server
stops, every table is closed first: no engine outlives it.
"""

from __future__ import annotations

import asyncio
import ipaddress
import signal
import sys
from pathlib import Path
from typing import Any, Callable
from urllib.parse import urlsplit

from aiohttp import WSMsgType, web

from monte.protocol.notation import RULES, parse_rule
from monte.analysis.positions import read_game_text
from monte.tournaments.engines import EngineSpec
from monte.web.replay import RunFolders, RunNotFound
from monte.web.table import GameSlots, Table
from monte.web.views import saved_game_view

STATIC = Path(__file__).parent / "static"
MAX_MESSAGE_BYTES = 64 * 1024
"""The largest message a page may send over the WebSocket (a new game's moves take a few kilobytes)."""
MAX_UPLOAD_BYTES = 1024 * 1024
HEARTBEAT_S = 20.0

ROSTER = web.AppKey("roster", dict)
SLOTS = web.AppKey("slots", GameSlots)
RUNS = web.AppKey("runs", RunFolders)
TABLES = web.AppKey("tables", dict)
HOST_NAME = web.AppKey("host_name", str)


def make_app(roster: dict[str, EngineSpec], runs: RunFolders, max_games: int,
             host: str = "127.0.0.1") -> web.Application:
    """The application: its routes, the engines it may run, the runs it can replay, its limit of games at once, and
    the `host` it listens on (a name there is one its own page may be reached by)."""
    app = web.Application(client_max_size=MAX_UPLOAD_BYTES)
    app[HOST_NAME] = host
    app[ROSTER] = roster
    app[SLOTS] = GameSlots(max_games)
    app[RUNS] = runs
    app[TABLES] = {}
    app.router.add_get("/", _index)
    app.router.add_static("/static", STATIC)
    app.router.add_get("/ws", _live_game)
    app.router.add_get("/api/runs", _runs)
    app.router.add_get("/api/runs/{run}", _run_games)
    app.router.add_get("/api/runs/{run}/{game}", _run_game)
    app.router.add_post("/api/record", _read_record)
    app.on_shutdown.append(_close_tables)
    return app


async def _index(request: web.Request) -> web.FileResponse:
    return web.FileResponse(STATIC / "index.html")


def _same_origin(request: web.Request) -> bool:
    """Whether the request comes from this server's own page (or from no page at all: a script, a test).

    The Origin must be the Host the request was sent to, and that Host must name this server as only it can be named:
    an IP address, ``localhost``, or the name given to ``--host``. A page on another site whose domain has been
    pointed at this machine (DNS rebinding) sends its own domain as both Origin and Host, and is refused."""
    origin = request.headers.get("Origin")
    if origin is None:
        return True
    if urlsplit(origin).netloc != request.host:
        return False
    name = (urlsplit(f"//{request.host}").hostname or "").lower()
    return name in ("localhost", request.app[HOST_NAME].lower()) or _is_ip(name)


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


async def _live_game(request: web.Request) -> web.WebSocketResponse:
    if not _same_origin(request):
        raise web.HTTPForbidden(text="the live game is for this server's own page")
    ws = web.WebSocketResponse(heartbeat=HEARTBEAT_S, max_msg_size=MAX_MESSAGE_BYTES)
    await ws.prepare(request)
    app = request.app

    async def send(message: dict[str, Any]) -> None:
        if not ws.closed:
            try:
                await ws.send_json(message)
            except ConnectionError:
                pass  # the tab is going away; its table is closed below

    table = Table(app[ROSTER], app[SLOTS], send)
    app[TABLES][table] = ws
    try:
        await send({"type": "hello", "engines": list(app[ROSTER]), "rules": list(RULES),
                    "max_games": app[SLOTS].limit})
        async for message in ws:
            if message.type == WSMsgType.TEXT:
                await table.receive(message.data)
            elif message.type == WSMsgType.BINARY:
                await send({"type": "error", "message": "send text (JSON) messages, not binary ones"})
    finally:
        app[TABLES].pop(table, None)
        await table.close()
    return ws


async def _close_tables(app: web.Application) -> None:
    """Server shutdown: end every live game (its engines stopped and reaped), then close the tabs' connections."""
    tables = list(app[TABLES].items())
    await asyncio.gather(*(table.close() for table, _ in tables))
    await asyncio.gather(*(ws.close(code=1001, message=b"the server is stopping") for _, ws in tables))


async def _runs(request: web.Request) -> web.Response:
    runs = request.app[RUNS]
    return web.json_response({"root": str(runs.root), "runs": list(runs.runs())})


async def _run_games(request: web.Request) -> web.Response:
    try:
        return web.json_response(request.app[RUNS].games(request.match_info["run"]))
    except (RunNotFound, ValueError) as exc:
        raise web.HTTPNotFound(text=str(exc)) from None


async def _run_game(request: web.Request) -> web.Response:
    run, game = request.match_info["run"], request.match_info["game"]
    if not game.isdigit():
        raise web.HTTPNotFound(text=f"game id {game!r} is not a number")
    try:
        return web.json_response(request.app[RUNS].game(run, int(game)))
    except (RunNotFound, ValueError) as exc:
        raise web.HTTPNotFound(text=str(exc)) from None


async def _read_record(request: web.Request) -> web.Response:
    """An uploaded .sgf or .psq file's text as a game to step through (a .psq has no rule: ``rule`` gives it)."""
    name = request.query.get("name", "")
    try:
        game = read_game_text(await request.text(), Path(name).suffix,
                              parse_rule(request.query.get("rule", "freestyle")))
        return web.json_response({**saved_game_view(game), "name": name})
    except (ValueError, UnicodeDecodeError) as exc:
        raise web.HTTPBadRequest(text=f"{name or 'the file'}: {exc}") from None


async def serve(app: web.Application, host: str, port: int,
                on_ready: Callable[[str], object] | None = None) -> None:
    """Serve `app` on host:port (port 0: a free one) until SIGINT or SIGTERM; print the address when listening
    and call `on_ready(url)` if given (to open a browser). Live games are closed before it returns."""
    runner = web.AppRunner(app, handle_signals=False, access_log=None)
    await runner.setup()
    try:
        site = web.TCPSite(runner, host, port)
        await site.start()
        bound_host, bound_port = runner.addresses[0][:2]
        shown = f"[{bound_host}]" if ":" in bound_host else bound_host
        url = f"http://{shown}:{bound_port}/"
        print(f"monte gui: {url}  (Ctrl-C stops the server)", flush=True)
        if on_ready is not None:
            on_ready(url)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
        print("monte gui: stopping", file=sys.stderr, flush=True)
    finally:
        await runner.cleanup()
