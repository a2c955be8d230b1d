"""What the page may ask of a live game, checked before anything happens.

A message is one JSON object with a ``type`` and that type's fields, nothing else. Anything else -- text that is not
JSON, an unknown type or field, a value of the wrong kind or out of range, an engine the server was not started
with -- raises `BadMessage` with one sentence naming the field and the value, which the page shows; the game is left
as it was. Whether a well-formed move is legal on the board is the table's question (``web.table``), not this one's.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any, Union

from monte.protocol.notation import RULES
from monte.brain.board import MAX_SIZE, MIN_SIZE

HUMAN = "human"
MIN_TIME_MS = 50
MAX_TIME_MS = 600_000
SAVE_FORMATS = ("sgf", "psq")


class BadMessage(ValueError):
    """A message from the page that cannot be acted on; its text is the reply."""


@dataclass(frozen=True)
class NewGame:
    """Start a game: who sits at each colour (``human`` or an engine's name), the board, the rule, the time an engine
    may think per move, and the stones already on the board (black first, alternating)."""

    black: str
    white: str
    width: int
    height: int
    rule: int
    time_ms: int
    moves: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class PlayMove:
    """A person's stone on (x, y), the protocol's coordinates (0-based, x the column, y the row from the top)."""

    x: int
    y: int


@dataclass(frozen=True)
class Undo:
    """Take back the last move (and the engine's answer, against an engine)."""


@dataclass(frozen=True)
class Resign:
    """The person (or, with two people, the side to move) gives up."""


@dataclass(frozen=True)
class Stop:
    """End the game here, unfinished (e.g. two engines that need not play on)."""


@dataclass(frozen=True)
class Save:
    """Send the game back as a record in `format` (sgf or psq) for the page to download."""

    format: str


@dataclass(frozen=True)
class Analyze:
    """Search this position until told otherwise (``web.analysis``): the board, the rule, the stones played (black
    first, alternating) and the page's `key` for it, which tags every report of its search. With `graph`, instead
    a quick search of every position of the game, from the empty board to the last stone, for the win-rate graph."""

    key: int
    width: int
    height: int
    rule: int
    moves: tuple[tuple[int, int], ...]
    graph: bool = False


@dataclass(frozen=True)
class StopAnalysis:
    """Stop the analysis."""


Command = Union[NewGame, PlayMove, Undo, Resign, Stop, Save, Analyze, StopAnalysis]


def parse_message(text: str, engines: Collection[str]) -> Command:
    """The command in `text`, a message from the page; `engines` are the names the server may run.
    BadMessage says what is wrong."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        raise BadMessage("the message is not JSON") from None
    if not isinstance(data, dict):
        raise BadMessage("the message is not a JSON object")
    kind = data.get("type")
    parser = _PARSERS.get(kind) if isinstance(kind, str) else None
    if parser is None:
        raise BadMessage(f"unknown message type {_shown(kind)}; known: {', '.join(_PARSERS)}")
    fields = _Fields(kind, data)
    command = parser(fields, engines)
    fields.refuse_unknown()
    return command


class _Fields:
    """The fields of one message, read with checks; remembers which were read, so any other is refused."""

    def __init__(self, kind: str, data: dict[str, Any]) -> None:
        self.kind = kind
        self.data = data
        self.read = {"type"}

    def get(self, name: str, default: Any = None) -> Any:
        self.read.add(name)
        if name not in self.data:
            if default is None:
                raise BadMessage(f"a {self.kind} message needs the field {name!r}")
            return default
        return self.data[name]

    def integer(self, name: str, low: int, high: int, default: int | None = None) -> int:
        value = self.get(name, default)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise BadMessage(f"{self.kind}.{name} must be a whole number from {low} to {high}, not {_shown(value)}")
        return value

    def choice(self, name: str, choices: Collection[str], default: str | None = None) -> str:
        value = self.get(name, default)
        if not isinstance(value, str) or value not in choices:
            raise BadMessage(f"{self.kind}.{name} must be one of {', '.join(choices)}, not {_shown(value)}")
        return value

    def refuse_unknown(self) -> None:
        unknown = sorted(set(self.data) - self.read)
        if unknown:
            raise BadMessage(f"a {self.kind} message has no field {unknown[0]!r}")


def _points(fields: _Fields, width: int, height: int) -> tuple[tuple[int, int], ...]:
    """The message's ``moves``: a list of [x, y] points on the board."""
    moves = fields.get("moves", [])
    if not isinstance(moves, list) or len(moves) > width * height:
        raise BadMessage(f"{fields.kind}.moves must be a list of at most {width * height} [x, y] points")
    points = []
    for number, point in enumerate(moves, start=1):
        if (not isinstance(point, list) or len(point) != 2
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in point)
                or not (0 <= point[0] < width and 0 <= point[1] < height)):
            raise BadMessage(f"{fields.kind}.moves[{number - 1}] must be an [x, y] point on the {width}x{height} "
                             f"board, not {_shown(point)}")
        points.append((point[0], point[1]))
    return tuple(points)


def _new_game(fields: _Fields, engines: Collection[str]) -> NewGame:
    seats = [HUMAN, *engines]
    width = fields.integer("width", MIN_SIZE, MAX_SIZE)
    height = fields.integer("height", MIN_SIZE, MAX_SIZE, default=width)
    points = _points(fields, width, height)
    return NewGame(black=fields.choice("black", seats), white=fields.choice("white", seats), width=width,
                   height=height, rule=RULES[fields.choice("rule", list(RULES), default="freestyle")],
                   time_ms=fields.integer("time_ms", MIN_TIME_MS, MAX_TIME_MS), moves=points)


def _analyze(fields: _Fields, engines: Collection[str]) -> Analyze:
    width = fields.integer("width", MIN_SIZE, MAX_SIZE)
    height = fields.integer("height", MIN_SIZE, MAX_SIZE, default=width)
    return Analyze(key=fields.integer("key", 0, 2 ** 31), width=width, height=height,
                   rule=RULES[fields.choice("rule", list(RULES), default="freestyle")],
                   moves=_points(fields, width, height), graph=_flag(fields, "graph"))


def _flag(fields: _Fields, name: str) -> bool:
    value = fields.get(name, False)
    if not isinstance(value, bool):
        raise BadMessage(f"{fields.kind}.{name} must be true or false, not {_shown(value)}")
    return value


def _move(fields: _Fields, engines: Collection[str]) -> PlayMove:
    return PlayMove(fields.integer("x", 0, MAX_SIZE - 1), fields.integer("y", 0, MAX_SIZE - 1))


def _save(fields: _Fields, engines: Collection[str]) -> Save:
    return Save(fields.choice("format", SAVE_FORMATS))


_PARSERS = {
    "new": _new_game,
    "move": _move,
    "undo": lambda fields, engines: Undo(),
    "resign": lambda fields, engines: Resign(),
    "stop": lambda fields, engines: Stop(),
    "save": _save,
    "analyze": _analyze,
    "stop_analysis": lambda fields, engines: StopAnalysis(),
}


def _shown(value: Any) -> str:
    """A value as an error message quotes it: its JSON, cut short."""
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."
