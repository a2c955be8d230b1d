"""A tab's analysis: the worker process (``web.analyst``) that searches the position the page shows, started with the
first request, told each new position, and killed when the analysis is stopped or the tab goes.

Each report it writes goes to the page as an ``analysis`` message, tagged with the key the page gave the position,
so that the page draws only the reports of the position it shows. The worker takes one of the server's slots for
games with engines (``GameSlots``: it searches as hard as an engine) while it runs.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import TYPE_CHECKING, Any, Awaitable, Callable

from monte.web.messages import Analyze, BadMessage

if TYPE_CHECKING:
    from monte.web.table import GameSlots

Send = Callable[[dict[str, Any]], Awaitable[None]]
WORKER = [sys.executable, "-m", "monte.web.analyst"]


class Analyst:
    """The analysis worker of one tab (none until the page asks for an analysis)."""

    def __init__(self, send: Send, slots: "GameSlots") -> None:
        self._send = send
        self._slots = slots
        self._holds_slot = False
        self._process: asyncio.subprocess.Process | None = None
        self._reader: asyncio.Task | None = None

    async def search(self, request: Analyze) -> None:
        """Search `request`'s position from now on (the one searched until now is dropped)."""
        await self._tell({"key": request.key, "width": request.width, "height": request.height,
                          "rule": request.rule, "moves": [list(p) for p in request.moves], "graph": request.graph})

    async def _tell(self, message: dict[str, Any]) -> None:
        if self._process is None or self._process.returncode is not None:
            if not self._holds_slot and not self._slots.take():
                raise BadMessage(f"{self._slots.limit} games with engines are running on this server already: the "
                                 f"analysis must wait for one to end")
            self._holds_slot = True
            self._process = await asyncio.create_subprocess_exec(
                *WORKER, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.DEVNULL, start_new_session=True, limit=1 << 20)
            self._reader = asyncio.create_task(self._read(self._process))
        try:
            self._process.stdin.write((json.dumps(message) + "\n").encode())
            await self._process.stdin.drain()
        except ConnectionError:
            await self._send({"type": "error", "message": "the analysis stopped unexpectedly: try again"})

    async def _read(self, process: asyncio.subprocess.Process) -> None:
        while line := await process.stdout.readline():
            try:
                report = json.loads(line)
            except ValueError:
                continue  # not a report (a library's chatter): the page need not see it
            await self._send({"type": "analysis", **report})

    async def close(self) -> None:
        """Stop the analysis: kill the worker, reap it and give back its slot; safe to call more than once."""
        process, self._process = self._process, None
        if process is not None and process.returncode is None:
            process.kill()
            await process.wait()
        if self._reader is not None:
            await asyncio.gather(self._reader, return_exceptions=True)
            self._reader = None
        if self._holds_slot:
            self._holds_slot = False
            self._slots.give_back()
