"""The brain's protocol state and one handler per command of the Gomocup (pbrain) protocol.

A ``Session`` owns the game (board, our colour, the manager's settings) and answers commands one at a time through
a ``send`` callable, so it runs the same over real pipes (see ``protocol.stdio``) and in tests with a scripted list
of commands. Handlers are looked up in the ``COMMANDS`` table by command word.

Bad input never ends the session and never leaves an owed answer unsent: an unknown command gets ``UNKNOWN``, a
command that cannot be carried out gets ``ERROR <what was wrong>`` and changes nothing, and an unexpected failure
inside a handler gets ``ERROR internal: ...`` (with the traceback in the log). Every line but a move goes out as one
line of at most MAX_LINE_CHARS characters, whatever text it quotes (``one_line``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from monte.brain import swap2
from monte.brain.board import BLACK, MOVE_FORBIDDEN, WHITE, Board, IllegalMove, opponent
from monte.brain.player import Player, SearchInfo, ThinkLimits
from monte.brain.codes import RULE_CONTINUOUS
from monte.brain.timecontrol import NO_MATCH_LIMIT_MS, move_budget
from monte.protocol.report import search_messages
from monte.protocol.stdio import Command

log = logging.getLogger(__name__)

DISTRIBUTION = "monte-gomoku"
BRAIN_NAME = "Monte"
COUNTRY = "International"
DEFAULT_TIMEOUT_TURN_MS = 30_000
"""The per-move limit until the manager sends ``INFO timeout_turn`` (Gomocup's usual 30 s)."""
MAX_LINE_CHARS = 500
"""The longest MESSAGE, ERROR or UNKNOWN line sent: they quote the manager's input, which may be huge."""


def one_line(text: str, limit: int = MAX_LINE_CHARS) -> str:
    """`text` as one protocol line: every run of whitespace (line ends of any kind included) becomes one space, and
    text past `limit` characters is cut and marked with '...'."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


class ProtocolError(Exception):
    """A command that cannot be carried out; its text goes back as ``ERROR <text>``."""


@dataclass
class Settings:
    """What the manager told us with ``INFO`` (times in ms, memory in bytes); kept across games."""

    timeout_turn: int = DEFAULT_TIMEOUT_TURN_MS
    timeout_match: int = 0
    time_left: int = NO_MATCH_LIMIT_MS
    max_memory: int = 0
    max_node: int = 0
    """Rapfi's key: the nodes a move may search (0: no limit), for fixed levels and load-independent games."""
    thread_num: int = 1
    """The search threads the manager allows (Yixin's and Rapfi's key; the brain uses at most its cores)."""
    game_type: int = 0
    rule: int = 0
    evaluate: str = ""
    folder: str = ""


Handler = Callable[["Session", Command], None]
COMMANDS: dict[str, Handler] = {}
"""Command word -> handler; filled by the ``@command`` decorator below."""


def command(word: str) -> Callable[[Handler], Handler]:
    """Register the decorated method as the handler of `word`."""
    def register(handler: Handler) -> Handler:
        COMMANDS[word] = handler
        return handler
    return register


def parse_ints(text: str, count: int, what: str) -> tuple[int, ...]:
    """`count` comma-separated integers from `text`, or a ProtocolError naming `what` was expected."""
    parts = text.split(",")
    if len(parts) == count:
        try:
            return tuple(int(part) for part in parts)
        except ValueError:
            pass
    expected = "an integer" if count == 1 else f"{count} comma-separated integers"
    raise ProtocolError(f"bad {what} {text!r}: expected {expected}")


def require_on_board(board: Board, x: int, y: int) -> None:
    """A ProtocolError unless (x, y) is on `board`."""
    if not board.inside(x, y):
        raise ProtocolError(f"{x},{y} is off the {board.width}x{board.height} board")


def point_on(board: Board, text: str) -> tuple[int, int]:
    """The point ``x,y`` of `text`, which must be on `board`."""
    x, y = parse_ints(text, 2, "coordinates")
    require_on_board(board, x, y)
    return x, y


def empty_point_on(board: Board, text: str) -> tuple[int, int]:
    """The point ``x,y`` of `text`, which must be an empty cell of `board`."""
    x, y = point_on(board, text)
    if not board.is_empty(x, y):
        raise ProtocolError(f"{x},{y} is occupied")
    return x, y


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError("not an integer") from None


def _non_negative(text: str) -> int:
    value = _integer(text)
    if value < 0:
        raise ValueError("negative")
    return value


def _positive(text: str) -> int:
    value = _integer(text)
    if value < 1:
        raise ValueError("must be at least 1")
    return value


INFO_KEYS: dict[str, Callable[[str], object]] = {
    "timeout_turn": _non_negative,
    "timeout_match": _non_negative,
    "time_left": _integer,
    "max_memory": _non_negative,
    "max_node": _non_negative,
    "thread_num": _positive,
    "game_type": _non_negative,
    "rule": _non_negative,
    "evaluate": str,
    "folder": str,
}
"""The INFO keys we keep, each with the conversion of its value; other keys are ignored."""


def about_line() -> str:
    """The ABOUT answer, with the installed package's version and author."""
    from importlib import metadata  # here: a fifth of the imports before the first OK, and only ABOUT needs it

    try:
        info = metadata.metadata(DISTRIBUTION)
        version, author = info["Version"], info.get("Author") or "unknown"
        www = next((url.split(",", 1)[1].strip() for url in info.get_all("Project-URL") or []), "")
    except metadata.PackageNotFoundError:
        version, author, www = "unknown", "unknown", ""
    return f'name="{BRAIN_NAME}", version="{version}", author="{author}", country="{COUNTRY}", www="{www}"'


class Session:
    """One brain process's conversation with its manager."""

    def __init__(self, player: Player, send: Callable[[str], None], commands: Iterable[Command]) -> None:
        self.player = player
        self.settings = Settings()
        self.board: Board | None = None
        self.me: int | None = None
        """Our colour, once known: black after BEGIN, white after a first TURN on an empty board, and so on."""
        self.running = True
        self._send = send
        self._commands = iter(commands)

    # --- the loop ------------------------------------------------------------------------------------------
    def run(self) -> None:
        """Handle commands until END or the end of input."""
        for cmd in self._commands:
            self.handle(cmd)
            if not self.running:
                return

    def handle(self, cmd: Command) -> None:
        """Carry out one command, answering whatever it is owed."""
        handler = COMMANDS.get(cmd.verb)
        if handler is None:
            self._send(one_line(f"UNKNOWN {cmd.text}"))
            return
        try:
            handler(self, cmd)
        except ProtocolError as exc:
            self._send(one_line(f"ERROR {exc}"))
        except Exception as exc:  # a bug must not kill the brain: answer and go on
            log.exception("internal error while handling %r", cmd.text)
            self._send(one_line(f"ERROR internal: {type(exc).__name__}: {exc}"))

    # --- helpers -------------------------------------------------------------------------------------------
    def _require_board(self) -> Board:
        if self.board is None:
            raise ProtocolError("no game: send START first")
        return self.board

    def _message(self, text: str) -> None:
        self._send(one_line("MESSAGE " + text))

    def _new_game(self, width: int, height: int) -> None:
        try:
            board = Board(width, height, self.settings.rule)
        except ValueError as exc:
            raise ProtocolError(str(exc)) from None
        self.player.warm_up()
        self.player.new_game(board)
        self.player.prepare(board, self.settings.max_memory)
        self.board, self.me = board, None
        self._send("OK")

    def _limits(self, cmd: Command, board: Board) -> ThinkLimits:
        """Think limits for the move `cmd` asks for, counted from when its line arrived."""
        s = self.settings
        budget = move_budget(s.timeout_turn, s.timeout_match, s.time_left, board.stone_count, len(board.empty_cells()))
        return ThinkLimits(cmd.arrived + budget.soft, cmd.arrived + budget.hard, s.max_memory, cmd.stop, s.max_node,
                           progress=lambda info: self._search_messages(info, board), threads=s.thread_num)

    def _search_messages(self, info: SearchInfo, board: Board) -> None:
        """A search's findings as MESSAGE lines (``protocol.report``): while it thinks, and with its move."""
        for text in search_messages(info, board.width):
            self._message(text)

    def _legal_for_us(self, board: Board, x: int, y: int) -> bool:
        return board.is_empty(x, y) and board.judge(x, y, self.me) != MOVE_FORBIDDEN

    def _answer_move(self, cmd: Command) -> None:
        """Choose our move (our colour is known by now) on the current board, play it as ours and send it, with the
        player's MESSAGE lines first (``protocol.report``). A move the player got wrong is replaced by a legal one,
        so none is ever sent."""
        board = self._require_board()
        if not board.empty_cells():
            raise ProtocolError("the board is full")
        board.to_move = self.me
        choice = self.player.choose(board, self._limits(cmd, board))
        x, y = choice.x, choice.y
        if not self._legal_for_us(board, x, y):
            log.error("player %s chose the illegal move %d,%d; playing a legal one instead", self.player.name, x, y)
            legal = board.legal_moves()
            if not legal:
                raise ProtocolError("no legal move is left")
            x, y = legal[0]
        if choice.search is not None:
            self._search_messages(choice.search, board)
        elif choice.info:
            self._message(choice.info)
        board.place(x, y, self.me)
        self._send(f"{x},{y}")

    def _read_block(self, fields: int) -> tuple[list[tuple[int, ...]], Command, Board]:
        """Read a BOARD / SWAP2BOARD block to its DONE, then check it (every line `fields` integers x, y[, field],
        each point on the board and named once). Returns the entries, the DONE command (the move request's clock
        starts there) and a fresh empty board of the game's size and rule to put them on."""
        lines: list[str] = []
        for cmd in self._commands:
            if cmd.verb == "DONE":
                break
            if cmd.verb == "END":
                self.running = False
                raise ProtocolError("END came before DONE")
            lines.append(cmd.text)
        else:
            raise ProtocolError("input ended before DONE")
        current = self._require_board()
        seen: set[tuple[int, int]] = set()
        entries = []
        for number, line in enumerate(lines, 1):
            try:
                entry = parse_ints(line, fields, "block line")
                x, y = entry[0], entry[1]
                require_on_board(current, x, y)
                if (x, y) in seen:
                    raise ProtocolError(f"{x},{y} is given twice")
                if fields == 3 and entry[2] not in (1, 2, 3):
                    raise ProtocolError(f"field {entry[2]} is not 1, 2 or 3")
            except ProtocolError as exc:
                raise ProtocolError(f"line {number} of the block: {exc}") from None
            seen.add((x, y))
            entries.append(entry)
        return entries, cmd, Board(current.width, current.height, current.rule)

    # --- commands --------------------------------------------------------------------------------------------
    @command("START")
    def _start(self, cmd: Command) -> None:
        (size,) = parse_ints(cmd.argument, 1, "board size")
        self._new_game(size, size)

    @command("RECTSTART")
    def _rectstart(self, cmd: Command) -> None:
        width, height = parse_ints(cmd.argument, 2, "board size")
        self._new_game(width, height)

    @command("RESTART")
    def _restart(self, cmd: Command) -> None:
        board = self._require_board()
        self._new_game(board.width, board.height)

    @command("BEGIN")
    def _begin(self, cmd: Command) -> None:
        board = self._require_board()
        if board.stone_count:
            raise ProtocolError(f"BEGIN needs an empty board; it holds {board.stone_count} stone(s)")
        self.me = BLACK
        self._answer_move(cmd)

    @command("TURN")
    def _turn(self, cmd: Command) -> None:
        board = self._require_board()
        x, y = empty_point_on(board, cmd.argument)
        if self.me is None:
            self.me = opponent(board.to_move)
        board.place(x, y, opponent(self.me))
        self._answer_move(cmd)

    @command("BOARD")
    def _board(self, cmd: Command) -> None:
        entries, done, board = self._read_block(3)
        own = sum(1 for entry in entries if entry[2] == 1)
        theirs = sum(1 for entry in entries if entry[2] == 2)
        me = WHITE if theirs > own else BLACK
        for x, y, kind in entries:  # in the order given: under renju that is the move order
            if kind == 3:
                board.block(x, y)  # a continuous-game marker blocks both sides
            else:
                board.place(x, y, me if kind == 1 else opponent(me))
        self.board, self.me = board, me
        self._answer_move(done)

    @command("SWAP2BOARD")
    def _swap2board(self, cmd: Command) -> None:
        points, done, board = self._read_block(2)
        if len(points) not in (0, 3, 5):
            raise ProtocolError(f"SWAP2BOARD needs 0, 3 or 5 stones, not {len(points)}")
        for x, y in points:
            board.place(x, y, board.to_move)
        result = swap2.answer(board, self.player, self._limits(done, board))
        for x, y in result.stones:
            board.place(x, y, board.to_move)
        self.board, self.me = board, result.our_color
        self._send(result.reply)

    @command("INFO")
    def _info(self, cmd: Command) -> None:
        key, _, value = cmd.argument.partition(" ")
        key, value = key.lower(), value.strip()
        convert = INFO_KEYS.get(key)
        if convert is None:
            log.info("ignoring INFO %s", cmd.argument)
            return
        try:
            setattr(self.settings, key, convert(value))
        except ValueError as exc:
            self._message(f"ignored INFO {key} {value!r}: {exc}")
            return
        if key == "rule":
            if self.board is not None:
                self.board.rule = self.settings.rule
            if self.settings.rule & RULE_CONTINUOUS:
                self._message("continuous game (rule bit 2): Monte plays it as a normal game")
        if key in ("rule", "max_memory") and self.board is not None:
            self.player.prepare(self.board, self.settings.max_memory)  # the tables and the tree now, not in a move

    @command("END")
    def _end(self, cmd: Command) -> None:
        self.running = False

    @command("ABOUT")
    def _about(self, cmd: Command) -> None:
        self._send(about_line())

    @command("TAKEBACK")
    def _takeback(self, cmd: Command) -> None:
        board = self._require_board()
        x, y = point_on(board, cmd.argument)
        try:
            board.remove(x, y)
        except IllegalMove as exc:
            raise ProtocolError(str(exc)) from None
        self._send("OK")

    @command("PLAY")
    def _play(self, cmd: Command) -> None:
        board = self._require_board()
        x, y = empty_point_on(board, cmd.argument)
        if self.me is None:
            self.me = board.to_move
        board.place(x, y, self.me)
        self._send(f"{x},{y}")

    @command("YXSTOP")
    def _yxstop(self, cmd: Command) -> None:
        """Nothing left to do: the reader thread already stopped the move this refers to, which is answered."""
