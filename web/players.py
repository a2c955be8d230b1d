"""The engine processes of one live game, started, asked and always stopped without blocking the server.

Each engine is an ``EngineSeat`` of ``monte play`` (``play.seats``: the manager-side client, asked for moves as the
tournament runner asks). Every blocking call -- START, a move -- runs on a thread of its own that the event loop
polls, so one slow engine never holds up another tab. `close` is the one way out, whatever is under way: while a
start or a move is pending it kills the engines' process groups until those threads have returned, then closes each
client (END, then the group is killed and reaped), so no process outlives its game.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import replace
from typing import Callable, Protocol

from monte.play.seats import EngineSeat, Thinking
from monte.protocol.client import BrainFault, GameSettings
from monte.tournaments.engines import EngineSpec

POLL_S = 0.05
"""How often the event loop looks at a pending call, and the killer at a thread it is waiting for."""


class _Pending(Protocol):
    def wait(self, seconds: float) -> bool: ...


class _Job:
    """A blocking call on a daemon thread (what `Thinking` is for a move, for anything else)."""

    def __init__(self, call: Callable[[], None], name: str) -> None:
        self._thread = threading.Thread(target=call, name=name, daemon=True)
        self._thread.start()

    def wait(self, seconds: float) -> bool:
        """Wait up to `seconds`; whether the call has returned."""
        self._thread.join(seconds)
        return not self._thread.is_alive()


async def finished(pending: _Pending) -> None:
    """Return once `pending` has (polled without blocking the event loop)."""
    while not pending.wait(0):
        await asyncio.sleep(POLL_S)


class EnginePlayers:
    """The engines seated at one game, by colour, each from its spec (command, folder, INFO settings)."""

    def __init__(self, specs: dict[int, EngineSpec]) -> None:
        self.specs = specs
        self.seats = {color: EngineSeat(list(spec.command), color, cwd=spec.cwd) for color, spec in specs.items()}
        self._pending: list[_Pending] = []
        self._lock = threading.Lock()
        self._closing = False

    def _track(self, pending: _Pending) -> None:
        with self._lock:
            self._pending = [p for p in self._pending if not p.wait(0)] + [pending]

    async def start(self, settings: GameSettings) -> tuple[int, str] | None:
        """Start every engine at once (START and the INFO settings, its own last); the first colour that failed
        and its fault in words (``EngineSeat.fault_text``), or None when all are ready."""
        faults: dict[int, BrainFault] = {}

        def start(color: int, seat: EngineSeat) -> None:
            if self._closing:
                return
            try:
                seat.start(replace(settings, extra_info=self.specs[color].info))
            except BrainFault as fault:
                faults[color] = fault

        jobs = [_Job(lambda c=color, s=seat: start(c, s), f"start-{color}") for color, seat in self.seats.items()]
        for job in jobs:
            self._track(job)
        for job in jobs:
            await finished(job)
        failed = sorted(faults)
        return (failed[0], self.seats[failed[0]].fault_text(faults[failed[0]])) if failed else None

    def think(self, color: int, stones: list[tuple[int, int, int]], timeout_s: float) -> Thinking:
        """Ask `color`'s engine for its move on `stones`, on a thread; poll the answer with `finished`."""
        thinking = self.seats[color].think(stones, timeout_s)
        self._track(thinking)
        return thinking

    def tell_position_again(self) -> None:
        """After a takeback, each engine gets the whole position (BOARD) with its next request."""
        for seat in self.seats.values():
            seat.needs_board = True

    async def close(self) -> None:
        """Stop and reap every engine, whatever it is doing; safe to call more than once."""
        await asyncio.to_thread(self._close_now)

    def _close_now(self) -> None:
        self._closing = True
        while True:
            with self._lock:
                pending = [p for p in self._pending if not p.wait(0)]
            if not pending:
                break
            for seat in self.seats.values():
                seat.stop()  # a START or a move under way ends with a fault at once
            pending[0].wait(POLL_S)
        for seat in self.seats.values():
            seat.close()
