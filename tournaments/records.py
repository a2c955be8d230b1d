"""Game records: one finished game as data, its durable JSONL log, and the SGF and Piskvork .psq exports.

The JSONL log is the tournament's memory: each game is appended as one line and fsynced before the runner moves on,
so a run killed at any moment loses at most the game that was being written, and ``--resume`` can rebuild the
totals from the file alone. SGF (Gomoku is ``GM[4]``) and .psq let the usual viewers replay a game.
"""

from __future__ import annotations

import enum
import json
import os
import re
import threading
from dataclasses import MISSING, asdict, dataclass, fields
from pathlib import Path
from typing import Any, BinaryIO

from monte.protocol.notation import named_points

LOG_NAME = "games.jsonl"  # a run's log of game records, one JSON object a line, in the run's folder


class Termination(str, enum.Enum):
    """Why a game ended: one value per reason, shown as is in the results table's reasons column."""

    FIVE = "five"
    FOUL = "foul"
    TIME = "time"
    CRASH = "crash"
    ILLEGAL = "illegal"
    OFF_BOARD = "off-board"
    GARBAGE = "garbage"
    START_ERROR = "start-error"
    MEMORY = "memory"
    DRAW_FULL = "draw-full"
    DRAW_MOVES = "draw-moves"
    INTERRUPTED = "interrupted"
    RESIGN = "resign"

    def __str__(self) -> str:
        return self.value


DRAWS = (Termination.DRAW_FULL, Termination.DRAW_MOVES)
"""The terminations that end a game level."""


@dataclass
class GameRecord:
    """One finished game.

    Games come in pairs from one opening with colours swapped: ``pairing`` names the two engines in a fixed order and
    ``pair_index`` numbers the pair, so the pentanomial statistics can put the two games back together.
    ``opening`` holds the stones on the board before the engines moved (black first, alternating); ``moves`` the
    engines' moves after it as (x, y, elapsed milliseconds). ``winner`` is an engine name, None for a draw or a game
    that did not finish; ``detail`` says in words what happened (e.g. "white answered 7,7 which is occupied").
    """

    game_id: int
    pairing: tuple[str, str]
    pair_index: int
    black: str
    white: str
    width: int
    height: int
    rule: int
    opening: list[tuple[int, int]]
    moves: list[tuple[int, int, int]]
    winner: str | None
    termination: Termination
    detail: str
    opening_id: str = ""
    started_at: str = ""
    duration_s: float = 0.0

    def score_for(self, name: str) -> float:
        """What the game earned `name`: 1 for a win, 0.5 for a draw (or an unfinished game), 0 for a loss."""
        if name not in (self.black, self.white):
            raise ValueError(f"{name!r} did not play game {self.game_id} ({self.black} vs {self.white})")
        if self.winner is None:
            return 0.5
        return 1.0 if self.winner == name else 0.0


# --- JSONL ----------------------------------------------------------------------------------------------------------

_append_lock = threading.Lock()


def _to_json(record: GameRecord, extra: dict[str, Any] | None = None) -> str:
    data = asdict(record)
    data["termination"] = record.termination.value
    data.update(extra or {})
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


_FIELD_TYPES: dict[str, type | tuple[type, ...]] = {
    "game_id": int, "pair_index": int, "black": str, "white": str, "width": int, "height": int, "rule": int,
    "pairing": list, "opening": list, "moves": list, "winner": (str, type(None)), "detail": str,
    "opening_id": str, "started_at": str, "duration_s": (int, float),
}
"""The JSON type each field must have; a line that breaks one is not a record."""


def _from_json(text: str) -> GameRecord:
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    missing = [f.name for f in fields(GameRecord) if f.name not in data and f.default is MISSING]
    if missing:
        raise ValueError(f"missing {', '.join(missing)}")
    known: dict[str, Any] = {f.name: data[f.name] for f in fields(GameRecord) if f.name in data}
    for name, kind in _FIELD_TYPES.items():
        if name in known and not isinstance(known[name], kind):
            raise ValueError(f"{name} is {known[name]!r}")
    known["pairing"] = tuple(known["pairing"])
    known["opening"] = [tuple(stone) for stone in known["opening"]]
    known["moves"] = [tuple(move) for move in known["moves"]]
    known["termination"] = Termination(known["termination"])
    if len(known["pairing"]) != 2 or any(len(s) != 2 for s in known["opening"]) or any(
            len(m) != 3 for m in known["moves"]):
        raise ValueError("pairing, opening or moves has the wrong shape")
    return GameRecord(**known)


def _drop_partial_tail(handle: BinaryIO) -> None:
    """Cut a last line that a killed writer left without its newline, so the next record starts on a line of its own.

    Such a line never counted (``read_jsonl`` ignores it), so nothing is lost.
    """
    end = handle.seek(0, os.SEEK_END)
    if end == 0:
        return
    handle.seek(end - 1)
    if handle.read(1) == b"\n":
        return
    position = end
    while position > 0:
        start = max(0, position - 4096)
        handle.seek(start)
        newline = handle.read(position - start).rfind(b"\n")
        if newline >= 0:
            handle.truncate(start + newline + 1)
            return
        position = start
    handle.truncate(0)


def append_jsonl(path: str | Path, record: GameRecord, extra: dict[str, Any] | None = None) -> None:
    """Append `record` as one line to the JSONL log at `path`, flushed and fsynced before returning; `extra` adds
    fields of the writer's own to the line (``read_jsonl`` reads the record and passes them by).

    Safe to call from several threads at once. A new file's folder is created and synced as well, so the file itself
    survives a crash.
    """
    path = Path(path)
    line = (_to_json(record, extra) + "\n").encode("utf-8")
    with _append_lock:
        created = not path.exists()
        if created:
            path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a+b") as handle:
            _drop_partial_tail(handle)
            handle.seek(0, os.SEEK_END)
            handle.write(line)
            handle.flush()
            os.fsync(handle.fileno())
        if created:
            folder = os.open(path.parent, os.O_RDONLY)
            try:
                os.fsync(folder)
            finally:
                os.close(folder)


def read_jsonl(path: str | Path) -> list[GameRecord]:
    """Every record in the JSONL log at `path`, in file order.

    A last line without its newline is the trace of a killed run and is ignored; any other line that is not a game
    record raises ValueError naming the line. A missing or unreadable file raises OSError.
    """
    path = Path(path)
    lines = path.read_bytes().split(b"\n")
    records: list[GameRecord] = []
    for number, raw in enumerate(lines[:-1], start=1):  # lines[-1] follows the last newline: empty or partial
        if not raw.strip():
            continue
        try:
            records.append(_from_json(raw.decode("utf-8")))
        except (ValueError, TypeError, KeyError) as exc:
            raise ValueError(f"{path}:{number}: not a game record ({exc})") from None
    return records


# --- SGF and PSQ ----------------------------------------------------------------------------------------------------

_SGF_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _stones(record: GameRecord) -> list[tuple[int, int, int]]:
    """Opening stones (0 ms) then the engines' moves, as (x, y, ms), keeping only those on the board."""
    everything = [(x, y, 0) for x, y in record.opening] + [(x, y, ms) for x, y, ms in record.moves]
    return [(x, y, ms) for x, y, ms in everything if 0 <= x < record.width and 0 <= y < record.height]


def _sgf_text(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


def _sgf_result(record: GameRecord) -> str:
    if record.winner is None:
        return "0" if record.termination in DRAWS else "Void"
    side = "B" if record.winner == record.black else "W"
    if record.termination == Termination.FIVE:
        return f"{side}+"
    if record.termination == Termination.RESIGN:
        return f"{side}+R"
    return f"{side}+{'T' if record.termination == Termination.TIME else 'F'}"


def to_sgf(record: GameRecord) -> str:
    """The game as SGF: ``FF[4] GM[4]``, ``SZ[15]`` or ``SZ[w:h]``, players, result and every stone as B[]/W[].

    Points are two letters, column then row, from ``a`` at the top-left (``A``.. past ``z``, as FF[4] allows for
    boards over 26). The opening stones come first as ordinary moves; RE is ``B+``/``W+`` for a five, ``+R`` for a
    resignation, ``+T`` for a time loss, ``+F`` for any other forfeit, ``0`` for a draw and ``Void`` for an
    unfinished game. The root comment keeps the rule and how the game ended.
    """
    size = str(record.width) if record.width == record.height else f"{record.width}:{record.height}"
    root = [
        "FF[4]", "GM[4]", "CA[UTF-8]", "AP[Monte]", f"SZ[{size}]",
        f"PB[{_sgf_text(record.black)}]", f"PW[{_sgf_text(record.white)}]", f"RE[{_sgf_result(record)}]",
    ]
    if len(record.started_at) >= 10:
        root.append(f"DT[{record.started_at[:10]}]")
    root.append(f"GN[{record.game_id}]")
    comment = f"rule {record.rule}; {record.termination.value}"
    if record.detail:
        comment += f": {named_points(record.detail, record.width, record.height)}"  # read by people: L3, not 11,12
    root.append(f"C[{_sgf_text(comment)}]")
    nodes = [f";{'BW'[i % 2]}[{_SGF_LETTERS[x]}{_SGF_LETTERS[y]}]" for i, (x, y, _) in enumerate(_stones(record))]
    return "(;" + "".join(root) + "".join(nodes) + ")\n"


def _psq_name(name: str) -> str:
    return " ".join(name.split()) or "?"


def to_psq(record: GameRecord) -> str:
    """The game as Piskvork writes a tournament .psq: a ``Piskvorky WxH, 11:11, 0`` header (both players
    engines, the first of them, black, to begin), one ``x,y,time_ms`` line per stone with 1-based x and y (opening
    stones at 0 ms), then the black and the white engine's names."""
    lines = [f"Piskvorky {record.width}x{record.height}, 11:11, 0"]
    lines += [f"{x + 1},{y + 1},{ms}" for x, y, ms in _stones(record)]
    lines += [_psq_name(record.black), _psq_name(record.white)]
    return "\n".join(lines) + "\n"


# --- reading SGF and PSQ back ---------------------------------------------------------------------------------------

@dataclass
class SavedGame:
    """A game read from a file (SGF, .psq, or a record of the JSONL log): the board, the rule and every stone in
    the order played, as (x, y, colour) with colour 1 black and 2 white, plus the players' names when the file has
    them. Enough to set the position up again, to continue the game or to look at it."""

    width: int
    height: int
    rule: int
    stones: list[tuple[int, int, int]]
    black: str = ""
    white: str = ""
    result: str = ""
    """As SGF's RE writes it (``B+``, ``W+T``, ``0``...), "" when unknown."""

    @classmethod
    def from_record(cls, record: GameRecord) -> "SavedGame":
        """The stones of a tournament game (opening included), colours alternating from black."""
        stones = [(x, y, 1 + i % 2) for i, (x, y, _) in enumerate(_stones(record))]
        return cls(record.width, record.height, record.rule, stones, record.black, record.white,
                   _sgf_result(record))


_SGF_PROPERTY = re.compile(r"([A-Z]+)((?:\s*\[(?:[^\]\\]|\\.)*\])+)", re.DOTALL)
_SGF_VALUE = re.compile(r"\[((?:[^\]\\]|\\.)*)\]", re.DOTALL)
_SGF_RULE = re.compile(r"\brule (\d+)\b")


def _sgf_main_line(text: str) -> list[str]:
    """The text of each node of the game's main line (the first variation at every branch)."""
    nodes: list[str] = []
    depth, node, value = 0, None, False
    escaped = False
    for ch in text:
        if value:
            node.append(ch)
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == "]":
                value = False
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            if nodes or node is not None:
                break  # the end of the first variation is the end of the main line
            depth -= 1
        elif ch == ";" and depth > 0:
            if node is not None:
                nodes.append("".join(node))
            node = []
        elif node is not None:
            node.append(ch)
            value = ch == "["
    else:
        if value:
            raise ValueError("the SGF is cut short: a value '[...' is not closed")
        if node is not None:
            raise ValueError("the SGF is cut short: the game is not closed with ')'")
    if node is not None:
        nodes.append("".join(node))
    if depth <= 0 or not nodes:
        raise ValueError("not an SGF game: no '(;' node found")
    return nodes


def _sgf_point(value: str, width: int, height: int) -> tuple[int, int]:
    if len(value) != 2 or any(ch not in _SGF_LETTERS for ch in value):
        raise ValueError(f"SGF point [{value}] is not two letters")
    x, y = _SGF_LETTERS.index(value[0]), _SGF_LETTERS.index(value[1])
    if x >= width or y >= height:
        raise ValueError(f"SGF point [{value}] is off the {width}x{height} board")
    return x, y


def read_sgf(text: str) -> SavedGame:
    """The main line of an SGF Gomoku game (as ``to_sgf`` and the usual editors write it): SZ, PB, PW, RE, the
    setup stones AB/AW and the moves B/W in order; the rule from a root comment ``rule N`` (Monte's own), else
    freestyle. ValueError names what is wrong."""
    nodes = _sgf_main_line(text)
    for number, node in enumerate(nodes, start=1):
        stray = _SGF_PROPERTY.sub("", node).strip()
        if stray:
            raise ValueError(f"not an SGF game: node {number} holds {stray[:30]!r}, which is no property KEY[value]")
    root = {key: [v.replace("\\]", "]").replace("\\\\", "\\") for v in _SGF_VALUE.findall(values)]
            for key, values in _SGF_PROPERTY.findall(nodes[0])}
    game = root.get("GM", ["4"])[0].strip()
    if game not in ("4", ""):
        raise ValueError(f"SGF game type GM[{game}] is not Gomoku (GM[4])")
    size = root.get("SZ", ["15"])[0].strip()
    try:
        width, _, height = size.partition(":")
        width, height = int(width), int(height or width)
    except ValueError:
        raise ValueError(f"SGF board size SZ[{size}] is not N or W:H") from None
    rule = _SGF_RULE.search(root.get("C", [""])[0])
    stones: list[tuple[int, int, int]] = []
    for node in nodes:
        for key, values in _SGF_PROPERTY.findall(node):
            if key in ("AB", "AW", "B", "W"):
                color = 1 if key.endswith("B") else 2
                stones += [(*_sgf_point(v.strip(), width, height), color) for v in _SGF_VALUE.findall(values)]
    return SavedGame(width, height, int(rule.group(1)) if rule else 0, stones, root.get("PB", [""])[0],
                     root.get("PW", [""])[0], root.get("RE", [""])[0])


_PSQ_SIZE = re.compile(r"(\d+)\s*[xX]\s*(\d+)")
_PSQ_MOVE = re.compile(r"\s*(-?\d+)\s*,\s*(-?\d+)\s*(?:,\s*-?\d+\s*)?")


def read_psq(text: str, rule: int = 0) -> SavedGame:
    """A Piskvork .psq game: the ``Piskvorky WxH, ...`` header, one ``x,y[,ms]`` line per stone (1-based, colours
    alternating from black), then, if present, the black and the white player's names. The format does not say the
    rule: `rule` is given. ValueError names what is wrong."""
    lines = text.splitlines()
    size = _PSQ_SIZE.search(lines[0]) if lines else None
    if size is None:
        raise ValueError("not a .psq game: its first line has no board size WxH")
    width, height = int(size.group(1)), int(size.group(2))
    stones: list[tuple[int, int, int]] = []
    rest = 1
    while rest < len(lines) and (move := _PSQ_MOVE.fullmatch(lines[rest])) is not None:
        x, y = int(move.group(1)) - 1, int(move.group(2)) - 1
        if not (0 <= x < width and 0 <= y < height):
            raise ValueError(f"line {rest + 1}: {lines[rest].strip()!r} is off the {width}x{height} board")
        stones.append((x, y, 1 + len(stones) % 2))
        rest += 1
    names = [line.strip() for line in lines[rest:rest + 2]] + ["", ""]
    return SavedGame(width, height, rule, stones, names[0], names[1])
