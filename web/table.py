"""One browser tab's live game: the board (``play.game.Game``, judged by the tournament's referee), who sits at each
colour, the engines' processes, and the messages that go back to the page.

The page sends commands (``web.messages``); the table answers each with the new state, or with an error reply that
says why nothing changed (a move out of turn, an occupied cell, a forbidden renju point, undo while an engine thinks).
Engine turns are played by one driver task at a time, which asks the engine to move, reports its search info while it
thinks, and plays its answer -- or ends the game with the engine's fault named (a crash, a hang, garbage, an illegal
move). The engines are stopped and reaped as soon as the game ends, a new one starts, or the tab goes away.

Games with an engine take a slot of the server's `GameSlots` from their start to their end, so only so many run at
once; two people at one board cost nothing and take none.
"""

from __future__ import annotations

import asyncio
import re
import time
from dataclasses import dataclass
from typing import Any, Awaitable, Callable

from monte.protocol.notation import rule_name
from monte.brain.board import BLACK, WHITE
from monte.brain.codes import RULE_RENJU
from monte.play.game import Game
from monte.protocol.client import TOLERANCE_MS, BrainFault, GameSettings
from monte.tournaments.engines import EngineSpec
from monte.tournaments.match import FAULT_TERMINATIONS
from monte.tournaments.records import SavedGame, Termination, to_psq, to_sgf
from monte.tournaments.referee import COLOR_NAMES, Ruling
from monte.web.analysis import Analyst
from monte.web.messages import (HUMAN, Analyze, BadMessage, Command, NewGame, PlayMove, Resign, Save, Stop,
                                StopAnalysis, Undo, parse_message)
from monte.web.players import POLL_S, EnginePlayers, finished
from monte.analysis.positions import winning_line
from monte.web.views import ending, search_view

THINKING_REPORT_S = 0.25
"""How often the page hears how long the engine has been thinking, and its latest search info."""

Send = Callable[[dict[str, Any]], Awaitable[None]]


class GameSlots:
    """How many games with engines may run at once, server-wide."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0

    def take(self) -> bool:
        if self.used >= self.limit:
            return False
        self.used += 1
        return True

    def give_back(self) -> None:
        self.used -= 1


@dataclass
class Seat:
    """Who plays one colour: a person (`engine` None) or an engine of the server's roster."""

    name: str
    engine: EngineSpec | None


class Table:
    """The game of one tab, driven by its messages; `close` ends everything it runs."""

    def __init__(self, roster: dict[str, EngineSpec], slots: GameSlots, send: Send) -> None:
        self.roster = roster
        self.slots = slots
        self._send = send
        self.game: Game | None = None
        self.seats: dict[int, Seat] = {}
        self.time_ms = 0
        self.players: EnginePlayers | None = None
        self.holds_slot = False
        self.driver: asyncio.Task | None = None
        self.thinking: tuple[int, float] | None = None  # the colour thinking and when it started (monotonic)
        self.searches: dict[int, dict[str, Any]] = {}  # the engines' search info, by the number of the move it chose
        self.analyst = Analyst(send, slots)  # Monte's analysis of the position the page shows, when asked for
        self.turn_started = time.monotonic()

    # --- the page's messages --------------------------------------------------------------------------------------
    async def receive(self, text: str) -> None:
        """Act on one message from the page; a bad one gets an error reply and changes nothing."""
        try:
            command = parse_message(text, list(self.roster))
            await self._act(command)
        except BadMessage as exc:
            await self._send({"type": "error", "message": str(exc)})

    async def _act(self, command: Command) -> None:
        if isinstance(command, Analyze):
            await self.analyst.search(command)
        elif isinstance(command, StopAnalysis):
            await self.analyst.close()
        elif isinstance(command, NewGame):
            await self._new_game(command)
        elif isinstance(command, Save):
            await self._save(command.format)
        elif isinstance(command, Resign):
            await self._end(self._resignation(self._game_in_play()))
        elif isinstance(command, Stop):
            self._game_in_play()
            await self._end(Ruling(Termination.INTERRUPTED, None, "the game was stopped from the page"))
        else:
            if isinstance(command, Undo):
                await self._undo(self._any_game())
            else:
                self._person_moves(self._game_in_play(), command.x, command.y)
            await self.publish()
            self._drive()

    def _any_game(self) -> Game:
        if self.game is None:
            raise BadMessage("there is no game yet: start one with New game")
        return self.game

    def _game_in_play(self) -> Game:
        game = self._any_game()
        if game.over:
            raise BadMessage("the game is over: start a new one (or undo)")
        return game

    async def _new_game(self, command: NewGame) -> None:
        seats = {BLACK: self._seat(command.black), WHITE: self._seat(command.white)}
        names = {color: seat.name for color, seat in seats.items()}
        saved = SavedGame(command.width, command.height, command.rule,
                          [(x, y, BLACK if i % 2 == 0 else WHITE) for i, (x, y) in enumerate(command.moves)])
        try:
            game = Game.from_saved(saved, len(saved.stones), names)
        except ValueError as exc:
            raise BadMessage(f"cannot start from those moves: {exc}") from None
        await self._stop_engines()
        if any(seat.engine for seat in seats.values()) and not self._take_slot():
            raise BadMessage(f"{self.slots.limit} games with engines are running on this server already: "
                             f"wait for one to end, or play two people")
        self.game, self.seats, self.time_ms = game, seats, command.time_ms
        self.searches = {}
        self.turn_started = time.monotonic()
        await self.publish()
        self._drive()

    def _seat(self, who: str) -> Seat:
        return Seat(HUMAN, None) if who == HUMAN else Seat(who, self.roster[who])

    def _take_slot(self) -> bool:
        if not self.holds_slot:
            self.holds_slot = self.slots.take()
        return self.holds_slot

    def _humans(self) -> set[int]:
        return {color for color, seat in self.seats.items() if seat.engine is None}

    def _labels(self) -> dict[int, str]:
        """Who plays each colour, as the page says it: an engine's name, "you" facing an engine, nothing between
        two people."""
        people = len(self._humans())
        return {color: seat.name if seat.engine else "you" if people == 1 else ""
                for color, seat in self.seats.items()}

    def _person_moves(self, game: Game, x: int, y: int) -> None:
        color = game.to_move
        if color not in self._humans():
            raise BadMessage(f"it is {COLOR_NAMES[color]}'s turn ({self.seats[color].name}), not yours")
        board = game.board
        if not (x < board.width and y < board.height):
            raise BadMessage(f"{x},{y} is off the {board.width}x{board.height} board")
        refusal = game.refusal(x, y)
        if refusal:
            raise BadMessage(refusal)
        game.play(x, y, (time.monotonic() - self.turn_started) * 1000)
        self.turn_started = time.monotonic()

    async def _undo(self, game: Game) -> None:
        humans = self._humans()
        if not humans:
            raise BadMessage("undo is for games with a person at the board")
        if self.thinking is not None:
            raise BadMessage(f"wait for {self.seats[self.thinking[0]].name}'s move before taking back")
        engines = any(seat.engine for seat in self.seats.values())
        if game.over and engines and not self._take_slot():
            raise BadMessage(f"{self.slots.limit} games with engines are running on this server already: "
                             f"the game cannot go on now")
        if not game.undo(humans):
            if game.over:
                self._give_back_slot()
            raise BadMessage("nothing to take back")
        stones = game.board.stone_count  # the moves taken back take their search info with them
        self.searches = {number: search for number, search in self.searches.items() if number <= stones}
        if self.players is not None:
            self.players.tell_position_again()
        self.turn_started = time.monotonic()

    def _resignation(self, game: Game) -> Ruling:
        humans = self._humans()
        if not humans:
            raise BadMessage("only a person can resign; stop a game between engines")
        color = game.to_move if len(humans) == 2 else next(iter(humans))
        return Ruling(Termination.RESIGN, 3 - color, f"{COLOR_NAMES[color]} resigned")

    async def _save(self, format: str) -> None:
        game = self._any_game()
        record = game.record()
        text = to_sgf(record) if format == "sgf" else to_psq(record)
        stem = re.sub(r"[^A-Za-z0-9_.-]+", "-", f"{game.names[BLACK]}-vs-{game.names[WHITE]}")
        await self._send({"type": "record", "format": format, "filename": f"{stem}.{format}", "text": text})

    # --- engine turns ---------------------------------------------------------------------------------------------
    def _drive(self) -> None:
        """Let the engines play while it is an engine's turn (one driver at a time)."""
        if self.driver is None or self.driver.done():
            self.driver = asyncio.create_task(self._engine_turns())

    async def _engine_turns(self) -> None:
        game = self.game
        while game is self.game and not game.over and self.seats[game.to_move].engine is not None:
            players = self.players or await self._start_engines(game)
            if players is None:
                break
            await self._engine_moves(game, players, game.to_move)
        if game is self.game and game.over:
            await self._stop_engines()
            await self.publish()

    async def _start_engines(self, game: Game) -> EnginePlayers | None:
        """The game's engines, started; None (and the game ended) if one failed to start."""
        self.players = EnginePlayers({c: s.engine for c, s in self.seats.items() if s.engine is not None})
        board = game.board
        settings = GameSettings(board.width, board.height, board.rule, timeout_turn_ms=self.time_ms,
                                game_type=0 if self._humans() else 1, tolerance_ms=TOLERANCE_MS)
        failed = await self.players.start(settings)
        if failed is None:
            return self.players
        color, why = failed
        game.end(Ruling(Termination.START_ERROR, 3 - color,
                        f"{COLOR_NAMES[color]} ({self.seats[color].name}) failed to start: {why}"))
        return None

    async def _engine_moves(self, game: Game, players: EnginePlayers, color: int) -> None:
        height = game.board.height
        thinking = players.think(color, game.referee.stones(), (self.time_ms + TOLERANCE_MS) / 1000)
        self.thinking = (color, thinking.started)
        await self.publish()
        try:
            reported = time.monotonic()
            while not thinking.wait(0):
                await asyncio.sleep(POLL_S)
                if time.monotonic() - reported >= THINKING_REPORT_S:
                    reported = time.monotonic()
                    await self._send({"type": "thinking", "color": color, "elapsed": round(thinking.elapsed, 2),
                                      "search": search_view(players.seats[color].latest_chat, height)})
        finally:
            self.thinking = None
        search = search_view(players.seats[color].latest_chat, height)
        if thinking.fault is not None:
            game.end(self._fault_ruling(color, thinking.fault, players))
            return
        reply = thinking.reply
        game.play(reply.x, reply.y, reply.elapsed_ms)
        if search is not None:
            self.searches[game.board.stone_count] = search
        self.turn_started = time.monotonic()
        await self.publish()

    def _fault_ruling(self, color: int, fault: BrainFault, players: EnginePlayers) -> Ruling:
        return Ruling(FAULT_TERMINATIONS[fault.fault], 3 - color,
                      f"{COLOR_NAMES[color]} ({self.seats[color].name}): {players.seats[color].fault_text(fault)}")

    # --- the end --------------------------------------------------------------------------------------------------
    async def _end(self, ruling: Ruling) -> None:
        """End the game in play now (a resignation, a stop): its engines are stopped, whatever they were doing."""
        self.game.end(ruling)
        await self._stop_engines()
        await self.publish()

    async def _stop_engines(self) -> None:
        """Cancel the driver, stop and reap the engines, free the slot."""
        if self.driver is not None and self.driver is not asyncio.current_task():
            self.driver.cancel()
            await asyncio.gather(self.driver, return_exceptions=True)
            self.driver = None
        if self.players is not None:
            players, self.players = self.players, None
            await players.close()
        self._give_back_slot()

    def _give_back_slot(self) -> None:
        if self.holds_slot:
            self.holds_slot = False
            self.slots.give_back()

    async def close(self) -> None:
        """The tab went away or the server stops: nothing of this game, nor its analysis, may go on running."""
        await self._stop_engines()
        await self.analyst.close()

    # --- what the page sees ---------------------------------------------------------------------------------------
    async def publish(self) -> None:
        """Send the whole state of the game to the page."""
        await self._send(self.state())

    def state(self) -> dict[str, Any]:
        game = self.game
        if game is None:
            return {"type": "state", "game": None}
        board = game.board
        ruling = game.ruling
        over = None if ruling is None else {
            "winner": ruling.winner, "termination": ruling.termination.value, "detail": ruling.detail,
            "message": ending(ruling, self._labels(), board.width, board.height),
            "line": winning_line(board) if ruling.termination == Termination.FIVE else []}
        thinking = None if self.thinking is None else {
            "color": self.thinking[0], "elapsed": round(time.monotonic() - self.thinking[1], 2)}
        return {"type": "state", "game": {
            "width": board.width, "height": board.height, "rule": board.rule, "rule_name": rule_name(board.rule),
            "renju": bool(board.rule & RULE_RENJU), "time_ms": self.time_ms,
            "players": {str(color): {"name": seat.name, "engine": seat.engine is not None}
                        for color, seat in self.seats.items()},
            "stones": [[m.x, m.y, m.color, ms] for m, ms in zip(board.history, game.times_ms)],
            "to_move": game.to_move, "forbidden": sorted([x, y] for x, y in game.forbidden_points()),
            "over": over, "thinking": thinking,
            "searches": {str(number): search for number, search in self.searches.items()}}}
