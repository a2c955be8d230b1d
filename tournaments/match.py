"""One game between two engine processes, from start-up to a `GameRecord`, with every ending a `Termination`.

The game is a straight sequence of steps, each of which may end it: start both engines (an engine that fails START
loses, whatever its colour), set up the opening, then ask the side to move for a move until the referee or a fault
ends the game. The runner times every move itself (the client stamps the reply when it is read): a move later than
``timeout_turn + tolerance``, or beyond the side's match clock plus tolerance, loses on time, and an engine that
does not answer by then is killed at that deadline. Each side is held to its own clock: the game's, or the one its
engine was given (``EngineSpec.clock``, time odds). Both processes are always closed before the record is returned.

A `StopSignal` shared with the runner ends games early (Ctrl-C, or an SPRT that has decided): setting it kills every
registered engine's process group, so a game blocked on a slow engine returns at once, as ``INTERRUPTED``.
"""

from __future__ import annotations

import datetime as _dt
import os
import re
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path

from monte.brain.board import BLACK, WHITE
from monte.protocol.client import LOAD_BEFORE_OK, BrainClient, BrainFault, Fault, GameSettings, MoveReply
from monte.tournaments.engines import EngineSpec
from monte.tournaments.records import GameRecord, Termination
from monte.tournaments.referee import COLOR_NAMES, Referee, Ruling
from monte.tournaments.scheduler import GameSpec

NO_MATCH_LIMIT_MS = 2147483647
"""``INFO time_left`` when there is no match clock, as the protocol specifies."""


def engine_environment() -> dict[str, str]:
    """The environment engines start with: the shell's (the runner sets nothing in its own for itself), plus
    MONTE_LOAD_BEFORE_OK=1: a Monte brain then loads its engine before it answers START (about a second from a warm
    cache), so that every move of a game is its engine's, not its quick player's (``brain.loading``). Other brains,
    older Monte revisions included, ignore it."""
    return {**os.environ, LOAD_BEFORE_OK: "1"}



def with_clock(settings: GameSettings, turn_ms: int, match_ms: int) -> GameSettings:
    """`settings` with a time control: `turn_ms` a move (0: no per-move limit, only the match clock) and
    `match_ms` a game (0: none). ``INFO timeout_turn 0`` would mean "play as fast as you can", so an engine without
    a per-move limit is told that a move may take the whole match time instead."""
    return replace(settings, timeout_turn_ms=turn_ms or match_ms, timeout_match_ms=match_ms)


FAULT_TERMINATIONS = {
    Fault.CRASH: Termination.CRASH,
    Fault.TIMEOUT: Termination.TIME,
    Fault.GARBAGE: Termination.GARBAGE,
    Fault.ILLEGAL: Termination.ILLEGAL,
    Fault.OFF_BOARD: Termination.OFF_BOARD,
    Fault.ERROR: Termination.GARBAGE,  # ERROR/UNKNOWN where a move was owed: not a move, like any other bad line
}
STDERR_TAIL_BYTES = 4096
"""How much of a crashed brain's stderr log is read for its last line (``fault_text``)."""
STDERR_LINE_CHARS = 300
"""The most of that line a game's detail quotes."""


class StopSignal:
    """A stop flag for all running games; setting it also kills every engine registered with it."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._clients: set[BrainClient] = set()

    def is_set(self) -> bool:
        """Whether games should stop."""
        return self._event.is_set()

    def set(self) -> None:
        """Stop every game: kill the process group of every live engine (the games then close their clients)."""
        with self._lock:
            self._event.set()
            clients = list(self._clients)
        for client in clients:
            client.kill()

    def register(self, client: BrainClient) -> None:
        """Watch a started client; if a stop came first, kill it at once."""
        with self._lock:
            self._clients.add(client)
            stopped = self._event.is_set()
        if stopped:
            client.kill()

    def unregister(self, client: BrainClient) -> None:
        """Stop watching a client (its game has closed it)."""
        with self._lock:
            self._clients.discard(client)


@dataclass(frozen=True)
class MatchRules:
    """How every game of a tournament is played: what the engines are told, and what the referee enforces."""

    settings: GameSettings
    """Board, rule, clocks and memory, sent to the engines as START and INFO."""
    first_move: str = "board"
    """"board": an engine's first move request is a BOARD block (BEGIN on an empty board); "begin": BEGIN/TURN."""
    draw_after: int = 0
    """Draw once this many stones are on the board (0: never)."""
    memory_loses: bool = False
    """An engine whose peak memory exceeds ``settings.max_memory`` loses."""
    start_timeout_s: float = 15.0
    """How long an engine may take to answer START."""
    first_move_grace_ms: int = 0
    """Lateness forgiven on an engine's first move of a game on top of the tolerance. An engine that answers START
    at once and sets itself up at its first search (a hash table allocated and cleared) pays for it there, as the
    Gomocup judge counts it; with two games starting together on a small machine that start-up, not the game,
    decided some of them (Rapfi at its first BOARD, 1 s a move)."""
    garbage: str = "forfeit"
    """A line that is neither an answer nor a message: "forfeit" (the engine loses) or "ignore" (kept with its
    messages, as the Gomocup judge and c-gomoku-cli do)."""


@dataclass
class _Side:
    """One colour's engine in one game: its client, what it is told at START (the game's settings with its own
    clock and INFO), its match clock, and whether it has seen the position yet."""

    color: int
    spec: EngineSpec
    client: BrainClient
    settings: GameSettings
    time_left_ms: float
    needs_board: bool
    stderr_path: Path | None = None
    fault: BrainFault | None = None
    moved: bool = False

    @property
    def label(self) -> str:
        return f"{COLOR_NAMES[self.color]} ({self.spec.name})"

    def fault_text(self, fault: BrainFault) -> str:
        return fault_text(fault, self.stderr_path)


def fault_text(fault: BrainFault, stderr_path: Path | None) -> str:
    """A brain's fault as a game's detail says it; for a brain that exited, with the last line it wrote on stderr
    (kept at `stderr_path`) -- most say why they stop (a bad setting, a missing file, a traceback's last line)."""
    if fault.fault is not Fault.CRASH or stderr_path is None:
        return str(fault)
    try:
        with open(stderr_path, "rb") as log:
            log.seek(max(0, log.seek(0, os.SEEK_END) - STDERR_TAIL_BYTES))
            tail = log.read().decode("utf-8", errors="replace")
    except OSError:
        return str(fault)
    said = [line.strip() for line in tail.splitlines() if line.strip()]
    return f"{fault}; its stderr ends: {said[-1][:STDERR_LINE_CHARS]}" if said else str(fault)


class _Game:
    """The state of one game while it is played; `run` is the whole game."""

    def __init__(self, game: GameSpec, engines: dict[str, EngineSpec], rules: MatchRules, stop: StopSignal,
                 log_dir: Path | None) -> None:
        self.game = game
        self.engines = engines
        self.rules = rules
        self.stop = stop
        self.log_dir = log_dir
        settings = rules.settings
        self.referee = Referee(settings.width, settings.height, settings.rule, draw_after=rules.draw_after)
        self.referee.set_up(game.opening.stones)
        self.sides = {color: self._side(color) for color in (BLACK, WHITE)}
        self.moves: list[tuple[int, int, int]] = []

    def run(self) -> GameRecord:
        started_at = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
        clock = time.monotonic()
        try:
            ruling = self._start() or self._play()
        finally:
            for side in self.sides.values():
                side.client.close(grace_s=0.5)
                self.stop.unregister(side.client)
                if side.stderr_path is not None and side.stderr_path.exists() and not side.stderr_path.stat().st_size:
                    side.stderr_path.unlink()  # keep only the logs that say something
        return self._record(ruling, started_at, time.monotonic() - clock)

    # --- steps ----------------------------------------------------------------------------------------------------
    def _side(self, color: int) -> _Side:
        spec = self.engines[self.game.black if color == BLACK else self.game.white]
        stderr = None
        if self.log_dir is not None:
            safe_name = re.sub(r"[^\w.-]+", "_", spec.name)
            stderr = self.log_dir / f"game{self.game.game_id:05d}-{COLOR_NAMES[color]}-{safe_name}.stderr"
        client = BrainClient(spec.command, name=spec.name, cwd=spec.cwd, env=engine_environment(),
                             stderr_path=None if stderr is None else str(stderr), garbage=self.rules.garbage)
        needs_board = self.rules.first_move == "board" or bool(self.game.opening.stones)
        settings = self.rules.settings
        if spec.clock is not None:
            settings = with_clock(settings, spec.clock.timeout_turn_ms, spec.clock.timeout_match_ms)
        time_left = settings.timeout_match_ms or NO_MATCH_LIMIT_MS
        if spec.info:
            settings = replace(settings, extra_info=settings.extra_info + spec.info)
        return _Side(color, spec, client, settings, time_left, needs_board, stderr)

    def _start(self) -> Ruling | None:
        """Spawn both engines (they load in parallel), then START each; a failure loses for that engine."""
        for side in self.sides.values():
            try:
                side.client.start()
                self.stop.register(side.client)
            except BrainFault as fault:
                side.fault = fault
        for side in self.sides.values():
            if side.fault is None:
                try:
                    side.client.new_game(side.settings, timeout_s=self.rules.start_timeout_s)
                except BrainFault as fault:
                    side.fault = fault
        failed = [side for side in self.sides.values() if side.fault is not None]
        if self.stop.is_set():
            return Ruling(Termination.INTERRUPTED, None, "stopped while the engines started")
        if not failed:
            return None
        detail = "; ".join(f"{side.label} failed to start: {side.fault_text(side.fault)}" for side in failed)
        winner = None if len(failed) == 2 else 3 - failed[0].color
        return Ruling(Termination.START_ERROR, winner, detail)

    def _play(self) -> Ruling:
        while True:
            if self.stop.is_set():
                return Ruling(Termination.INTERRUPTED, None, "stopped by the runner")
            side = self.sides[self.referee.to_move]
            reply, ruling = self._ask(side)
            if ruling is not None:
                return ruling
            self.moves.append((reply.x, reply.y, round(reply.elapsed_ms)))
            ruling = self.referee.move(reply.x, reply.y)
            if ruling is not None:
                return ruling

    # --- one move -------------------------------------------------------------------------------------------------
    def _ask(self, side: _Side) -> tuple[MoveReply | None, Ruling | None]:
        """Request a move from `side` and judge its timing (by its own clock) and memory: (reply, None), or (None,
        the ending)."""
        settings = side.settings
        limits = [settings.timeout_turn_ms] if settings.timeout_turn_ms else []
        if settings.timeout_match_ms:
            limits.append(max(side.time_left_ms, 0.0))
        tolerance_ms = settings.tolerance_ms + (0 if side.moved else self.rules.first_move_grace_ms)
        timeout_s = (min(limits) + tolerance_ms) / 1000.0
        try:
            side.client.set_time_left(int(side.time_left_ms))
            reply = self._request(side, timeout_s)
        except BrainFault as fault:
            if self.stop.is_set():
                return None, Ruling(Termination.INTERRUPTED, None, "stopped by the runner")
            return None, Ruling(FAULT_TERMINATIONS[fault.fault], 3 - side.color,
                                f"{side.label}: {side.fault_text(fault)}")
        side.needs_board = False
        side.moved = True
        late = self._lateness(side, reply.elapsed_ms, tolerance_ms)
        if late:
            return None, Ruling(Termination.TIME, 3 - side.color, f"{side.label} {late}")
        if self.rules.memory_loses and settings.max_memory:
            peak = side.client.peak_rss_bytes()
            if peak > settings.max_memory:
                return None, Ruling(Termination.MEMORY, 3 - side.color,
                                    f"{side.label} used {peak} bytes, over max_memory {settings.max_memory}")
        return reply, None

    def _request(self, side: _Side, timeout_s: float) -> MoveReply:
        return ask_move(side.client, self.referee.stones(), side.color, side.needs_board, timeout_s)

    def _lateness(self, side: _Side, elapsed_ms: float, tolerance_ms: int) -> str | None:
        """Charge the move to the side's match clock (if there is one: without, time_left stays "no limit"); a
        sentence if it was too slow (by its own clock, with `tolerance_ms` forgiven), else None."""
        settings = side.settings
        if settings.timeout_match_ms:
            side.time_left_ms -= elapsed_ms
        turn = settings.timeout_turn_ms
        if settings.timeout_match_ms and side.time_left_ms < -tolerance_ms:
            return (f"ran out of match time ({settings.timeout_match_ms} ms + tolerance {tolerance_ms} ms) "
                    f"with a move of {elapsed_ms:.0f} ms")
        if turn and elapsed_ms > turn + tolerance_ms:
            return f"took {elapsed_ms:.0f} ms, over timeout_turn {turn} + tolerance {tolerance_ms} ms"
        return None

    # --- the record -----------------------------------------------------------------------------------------------
    def _record(self, ruling: Ruling, started_at: str, duration_s: float) -> GameRecord:
        game, settings = self.game, self.rules.settings
        winner = None if ruling.winner is None else (game.black if ruling.winner == BLACK else game.white)
        return GameRecord(
            game_id=game.game_id, pairing=game.pairing, pair_index=game.pair_index, black=game.black,
            white=game.white, width=settings.width, height=settings.height, rule=settings.rule,
            opening=[tuple(s) for s in game.opening.stones], moves=list(self.moves), winner=winner,
            termination=ruling.termination, detail=ruling.detail, opening_id=game.opening.source,
            started_at=started_at, duration_s=round(duration_s, 3))


def ask_move(client: BrainClient, stones: list[tuple[int, int, int]], color: int, needs_board: bool,
             timeout_s: float) -> MoveReply:
    """Ask `client`, playing `color`, for its move on the position `stones` ((x, y, colour) in the order played):
    BEGIN on an empty board, BOARD when the engine has not seen the position yet (`needs_board`: its first move
    after an opening, a loaded game or a takeback), else TURN with the opponent's last stone."""
    if not stones:
        return client.begin(timeout_s)
    if needs_board:
        own = [(x, y, 1 if stone == color else 2) for x, y, stone in stones]
        return client.board(own, timeout_s)
    x, y, _ = stones[-1]
    return client.turn(x, y, timeout_s)


def play_game(game: GameSpec, engines: dict[str, EngineSpec], rules: MatchRules, stop: StopSignal,
              log_dir: Path | None = None) -> GameRecord:
    """Play one game to its end (or until `stop`); engines' stderr goes to `log_dir` when given.

    The opening must fit the board and not end the game (ValueError otherwise; the runner checks openings first).
    """
    return _Game(game, engines, rules, stop, log_dir).run()
