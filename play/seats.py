"""Who sits at each colour in ``monte play``: a person at the keyboard, or an engine -- any pbrain command, Monte's
``pbrain-monte`` by default -- driven through the manager-side client (``protocol.client``) exactly as the
tournament runner drives it (``tournaments.match.ask_move``), so a crash, a hang, garbage or an illegal move ends the
game the same way, with the fault named -- and, for an engine that exited, the last line it wrote on stderr (kept in
a temporary file while the seat lives, unless a log file is asked for).

An engine's move is awaited on a thread of its own, so the terminal can show the clock and the engine's search
info while it thinks, and Ctrl-C can kill the engine's process group at once (``stop``).
"""

from __future__ import annotations

import os
import shlex
import tempfile
import threading
import time
from pathlib import Path

from monte.protocol.client import BrainClient, BrainFault, GameSettings, MoveReply
from monte.tournaments.match import ask_move, engine_environment, fault_text

HUMAN = "human"
MONTE = "pbrain-monte"
START_TIMEOUT_S = 180.0
"""How long an engine may take to answer START: a cold numba cache makes Monte compile first (about a minute)."""
ABOUT_TIMEOUT_S = 5.0


def engine_command(who: str) -> list[str] | None:
    """The command line of a seat given as `who` ("human", "monte" or a pbrain command), None for a person;
    ValueError for an empty or unparsable command."""
    if who.strip().lower() == HUMAN:
        return None
    if who.strip().lower() == "monte":
        return [MONTE]
    try:
        command = shlex.split(who)
    except ValueError as exc:
        raise ValueError(f"engine command {who!r}: {exc}") from None
    if not command:
        raise ValueError("an engine command is empty")
    return command


def seat_label(name: str, command: list[str]) -> str:
    """How a person sees an engine: the name it gave (ABOUT), with the options of its command line (from its first
    ``-`` word on) when it has any, so that ``pbrain-monte --engine greedy`` is not taken for Monte itself."""
    options = next((command[i:] for i, word in enumerate(command) if i and word.startswith("-")), [])
    return " ".join([name, *options])


class EngineSeat:
    """One engine process for one colour: started once, asked for moves, told the whole position again (BOARD)
    after a takeback or a loaded game."""

    def __init__(self, command: list[str], color: int, log_path: Path | None = None, cwd: str | None = None) -> None:
        """`cwd` is the folder the engine runs in (None: the current one), as a tournament config's ``cwd``."""
        self.color = color
        self.latest_chat = ""
        """The last MESSAGE line the engine printed (updated while it thinks)."""
        self._scratch_log = log_path is None
        if log_path is None:
            handle, name = tempfile.mkstemp(prefix="monte-engine-", suffix=".stderr")
            os.close(handle)
            log_path = Path(name)
        self.log_path = log_path
        # as in tournaments, a Monte brain loads its engine before it answers START: a person meets the engine
        # from the first move, not the quick player that covers a cold start
        self.client = BrainClient(command, cwd=cwd, env=engine_environment(), stderr_path=str(log_path),
                                  on_chat=self._heard)
        self.name = self.client.name
        self.needs_board = True

    def _heard(self, line: str) -> None:
        self.latest_chat = line

    def start(self, settings: GameSettings) -> None:
        """Spawn the engine, ask its name (ABOUT; the command's name if it gives none) and start the game."""
        self.client.start()
        self.name = self.client.about(ABOUT_TIMEOUT_S).get("name") or self.name
        self.client.new_game(settings, START_TIMEOUT_S)

    def think(self, stones: list[tuple[int, int, int]], timeout_s: float) -> "Thinking":
        """Ask for a move on the position `stones` on a thread of its own; poll or wait on the result."""
        self.latest_chat = ""
        return Thinking(self, stones, timeout_s)

    def stop(self) -> None:
        """Kill the engine now (from any thread): a move awaited ends with a fault."""
        self.client.kill()

    def fault_text(self, fault: BrainFault) -> str:
        """The engine's fault as a person reads it: for an engine that exited, with its stderr's last line."""
        return fault_text(fault, self.log_path)

    def close(self) -> None:
        self.client.close(grace_s=0.5)
        if self._scratch_log:
            self.log_path.unlink(missing_ok=True)


class Thinking:
    """A move being awaited from an engine on a helper thread."""

    def __init__(self, seat: EngineSeat, stones: list[tuple[int, int, int]], timeout_s: float) -> None:
        self.seat = seat
        self.started = time.monotonic()
        self.reply: MoveReply | None = None
        self.fault: BrainFault | None = None
        self._thread = threading.Thread(target=self._ask, args=(stones, timeout_s), daemon=True,
                                        name=f"think-{seat.name}")
        self._thread.start()

    def _ask(self, stones: list[tuple[int, int, int]], timeout_s: float) -> None:
        try:
            self.reply = ask_move(self.seat.client, stones, self.seat.color, self.seat.needs_board, timeout_s)
            self.seat.needs_board = False
        except BrainFault as fault:
            self.fault = fault

    def wait(self, seconds: float) -> bool:
        """Wait up to `seconds` for the answer; whether it has come (a move or a fault)."""
        self._thread.join(seconds)
        return not self._thread.is_alive()

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.started
