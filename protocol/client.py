"""The manager side of the pbrain protocol: run any Gomocup brain as a subprocess and play it with deadlines.

A tournament must survive every brain it runs, so each request is bounded by a deadline, every way a brain can fail
comes back as one `BrainFault` naming what was seen, and the brain's whole process group is always killed and reaped
(no zombies, no orphans). The client keeps its own copy of the occupied cells to catch illegal and off-board moves;
deciding who won is the referee's job, not this module's.

A reader thread moves stdout lines (stamped with the time they were read) into a queue, so the caller can wait with a
timeout; stderr goes straight to a file or /dev/null, so a chatty brain can never block on a full pipe. Lines end at
CR or LF only, as the brain reads them (not at the other breaks ``str.splitlines`` knows, such as U+2028 or a form
feed), and a line longer than `MAX_LINE_BYTES` is cut there and the rest dropped, so a brain that writes without end
costs bounded memory (and loses for garbage). Writes to the brain have deadlines too: a brain that stops reading its
input cannot block the manager. One thread drives a client; only `stop_thinking` and `kill` may be called from another.
"""

from __future__ import annotations

import atexit
import os
import queue
import re
import select
import signal
import subprocess
import threading
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from monte.protocol.faults import BrainFault, Fault, describe_exit

__all__ = ["BrainClient", "BrainFault", "CutLine", "Fault", "GameSettings", "MoveReply", "GARBAGE_POLICIES",
           "MAX_LINE_BYTES"]

GARBAGE_POLICIES = ("forfeit", "ignore")

_MOVE = re.compile(r"(-?\d+)\s*,\s*(-?\d+)")
_ABOUT_PAIR = re.compile(r'([A-Za-z_][\w-]*)\s*=\s*"([^"]*)"')
_CHAT = frozenset({"MESSAGE", "DEBUG", "SUGGEST"})
_REFUSAL = frozenset({"ERROR", "UNKNOWN"})
_POLL_S = 0.01
_EOF_WAIT_S = 1.0
_READ_CHUNK = 65536
_LINE_END = re.compile(rb"[\r\n]")
MAX_LINE_BYTES = 1 << 20
"""The longest line a brain may print (1 MiB, far beyond any protocol line); a longer one is cut and is garbage."""
WRITE_TIMEOUT_S = 10.0
"""How long a line sent outside a timed request (INFO, END, YXSTOP) may wait for the brain to read its input."""
_SHOWN_CHARS = 200



LOAD_BEFORE_OK = "MONTE_LOAD_BEFORE_OK"
"""Set to 1 in a Monte brain's environment, it loads its engine before it answers START (from a warm cache), so that
no move of a measured game is its quick player's (``monte.brain.loading``). Other brains ignore it."""

TOLERANCE_MS = 1000
"""How late a move may come before it loses on time, by default: Piskvork's 1 s and the Gomocup judge's."""

@dataclass(frozen=True)
class GameSettings:
    """What a game tells the brain before the first move: board, rule, clocks and memory (pbrain INFO keys)."""

    width: int
    """Board columns; a square board is sent as ``START n``, another shape as ``RECTSTART w,h``."""
    height: int
    """Board rows."""
    rule: int = 0
    """``INFO rule`` bitmask: 1 exactly five, 2 continuous, 4 renju, 8 caro."""
    timeout_turn_ms: int = 5000
    """``INFO timeout_turn``: milliseconds per move (0 = play as fast as possible)."""
    timeout_match_ms: int = 0
    """``INFO timeout_match``: milliseconds per game (0 = no limit)."""
    max_memory: int = 350 * 1024 * 1024
    """``INFO max_memory``: bytes for the whole brain (0 = no limit)."""
    game_type: int = 1
    """``INFO game_type``: 0 human opponent, 1 brain, 2 tournament, 3 network tournament."""
    tolerance_ms: int = TOLERANCE_MS
    """Lateness the referee forgives on each move; not sent to the brain (the caller adds it to its timeouts)."""
    extra_info: tuple[tuple[str, str], ...] = ()
    """More ``INFO key value`` lines, sent after the standard ones in this order."""

    def __post_init__(self) -> None:
        for name in ("width", "height"):
            if getattr(self, name) < 1:
                raise ValueError(f"GameSettings.{name} must be positive, not {getattr(self, name)!r}")
        for name in ("rule", "timeout_turn_ms", "timeout_match_ms", "max_memory", "game_type", "tolerance_ms"):
            if getattr(self, name) < 0:
                raise ValueError(f"GameSettings.{name} must not be negative, not {getattr(self, name)!r}")
        for key, value in self.extra_info:
            if not key or any(ch.isspace() for ch in key) or "\n" in value or "\r" in value:
                raise ValueError(f"GameSettings.extra_info has a bad INFO pair {(key, value)!r}")

    def start_command(self) -> str:
        """``START n`` for a square board, ``RECTSTART w,h`` otherwise."""
        if self.width == self.height:
            return f"START {self.width}"
        return f"RECTSTART {self.width},{self.height}"

    def info_lines(self) -> list[str]:
        """The INFO lines that follow a successful START, in the order the Gomocup judge sends them."""
        return [
            f"INFO timeout_turn {self.timeout_turn_ms}",
            f"INFO timeout_match {self.timeout_match_ms}",
            f"INFO max_memory {self.max_memory}",
            f"INFO game_type {self.game_type}",
            f"INFO rule {self.rule}",
            *(f"INFO {key} {value}" for key, value in self.extra_info),
        ]


@dataclass
class MoveReply:
    """A brain's move and what came with it."""

    x: int
    """Column, 0-based."""
    y: int
    """Row, 0-based."""
    elapsed_ms: float
    """From just before the request was written to when the move line was read."""
    messages: list[str]
    """Lines printed while thinking, verbatim: MESSAGE, DEBUG, SUGGEST, ERROR/UNKNOWN reports (and any other line
    under garbage="ignore")."""


class CutLine(str):
    """The first `MAX_LINE_BYTES` of a longer line (the rest was dropped unread): never an answer, never chat."""


def line_kind(line: str) -> str:
    """Classify one stdout line: "empty", "chat" (MESSAGE/DEBUG/SUGGEST), "ok", "refusal", "move" or "other"."""
    if isinstance(line, CutLine):
        return "other"
    words = line.split(maxsplit=1)
    if not words:
        return "empty"
    head = words[0].upper()
    if head in _CHAT:
        return "chat"
    if head in _REFUSAL:
        return "refusal"
    if head == "OK" and len(words) == 1:
        return "ok"
    return "move" if _MOVE.fullmatch(line.strip()) else "other"


def parse_about(line: str) -> dict[str, str]:
    """The ``key="value"`` pairs of an ABOUT answer (keys lower-cased); {} if there are none."""
    return {key.lower(): value for key, value in _ABOUT_PAIR.findall(line)}


def _shown(line: str) -> str:
    """A line as a record may quote it: its repr, cut to a couple of hundred characters."""
    if len(line) <= _SHOWN_CHARS:
        return repr(line)
    return f"{line[:_SHOWN_CHARS]!r}... ({len(line)} characters{' or more' if isinstance(line, CutLine) else ''})"


def _read_lines(stream: IO[bytes], sink: queue.Queue) -> None:
    """Reader thread: put (time read, decoded line) for each non-empty stdout line into `sink`, then None at end of
    file. Lines end at CR or LF; one longer than `MAX_LINE_BYTES` goes in cut, as a `CutLine`, and the rest of it is
    read and dropped.

    The thread closes the stream itself: closing it from another thread would wait for the lock that a blocked
    read holds, i.e. until every process holding the pipe has exited.
    """
    pending = bytearray()
    dropping = False  # inside a line that was already cut

    def emit(raw: bytes, stamp: float, cut: bool = False) -> None:
        if raw:
            text = raw.decode("utf-8", errors="replace")
            sink.put((stamp, CutLine(text) if cut else text))

    with stream:
        for chunk in iter(lambda: stream.read1(_READ_CHUNK), b""):
            stamp = time.monotonic()
            *complete, rest = _LINE_END.split(chunk)
            for part in complete:
                if not dropping:
                    pending += part
                    emit(bytes(pending[:MAX_LINE_BYTES]), stamp, cut=len(pending) > MAX_LINE_BYTES)
                pending.clear()
                dropping = False
            if not dropping:
                pending += rest
                if len(pending) > MAX_LINE_BYTES:
                    emit(bytes(pending[:MAX_LINE_BYTES]), stamp, cut=True)
                    pending.clear()
                    dropping = True
        if not dropping:
            emit(bytes(pending), time.monotonic())
    sink.put(None)


class BrainClient:
    """One pbrain process, driven request by request; every request has a deadline and fails as `BrainFault`.

    After a TIMEOUT or CRASH the process is already gone; after any other fault it is still running and the caller
    decides (usually `close()`). Use as a context manager, or call `close()` in a ``finally``.
    """

    def __init__(self, command: Sequence[str], *, name: str | None = None, cwd: str | None = None,
                 env: Mapping[str, str] | None = None, stderr_path: str | None = None,
                 garbage: str = "forfeit", write_timeout_s: float = WRITE_TIMEOUT_S,
                 on_chat: Callable[[str], None] | None = None) -> None:
        """`command` is the program and its arguments; `env` replaces the environment (None inherits it);
        `stderr_path` receives the brain's stderr (appended; None discards it); `garbage` is "forfeit" (a line
        that is not an answer and not MESSAGE/DEBUG/SUGGEST/OK/ERROR/UNKNOWN is a GARBAGE fault) or "ignore" (such
        lines are kept with the messages, as the Gomocup judge does); `write_timeout_s` bounds the wait for the
        brain to read lines sent outside a timed request (INFO, END, YXSTOP); `on_chat` is called with each line
        kept with the messages as soon as it is read, in the driving thread (live search info while a move is
        awaited)."""
        if isinstance(command, str) or not command:
            raise ValueError(f"command must be a non-empty sequence of arguments, not {command!r}")
        if garbage not in GARBAGE_POLICIES:
            raise ValueError(f"garbage policy must be one of {GARBAGE_POLICIES}, not {garbage!r}")
        self.command = [str(arg) for arg in command]
        self.name = name or Path(self.command[0]).name
        self._cwd = cwd
        self._env = None if env is None else dict(env)
        self._stderr_path = stderr_path
        self._garbage = garbage
        self._write_timeout_s = write_timeout_s
        self._on_chat = on_chat
        self._proc: subprocess.Popen | None = None
        self._lines: queue.Queue = queue.Queue()
        self._reader: threading.Thread | None = None
        self._write_lock = threading.Lock()
        self._reap_lock = threading.Lock()
        self._eof = False
        self._closed = False
        self._messages: list[str] = []
        self._peak_rss = 0
        self._size: tuple[int, int] | None = None
        self._occupied: set[tuple[int, int]] = set()

    # --- process life ---------------------------------------------------------------------------------------------
    def start(self) -> None:
        """Spawn the brain in its own process group (so that killing it kills its children too)."""
        if self._proc is not None:
            raise RuntimeError(f"brain {self.name!r} was already started")
        stderr: IO[bytes] | int = subprocess.DEVNULL
        try:
            if self._stderr_path is not None:
                stderr = open(self._stderr_path, "ab")
            self._proc = subprocess.Popen(
                self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
                cwd=self._cwd, env=self._env, start_new_session=True)
        except OSError as exc:
            raise BrainFault(Fault.CRASH, f"could not start {self.command!r}: {exc}") from None
        finally:
            if not isinstance(stderr, int):
                stderr.close()  # the child holds its own copy
        os.set_blocking(self._proc.stdin.fileno(), False)  # writes wait with a deadline instead (see _write)
        self._reader = threading.Thread(target=_read_lines, args=(self._proc.stdout, self._lines),
                                        name=f"pbrain-reader-{self._proc.pid}", daemon=True)
        self._reader.start()
        _LIVE.add(self)

    def close(self, grace_s: float = 1.0) -> int | None:
        """Send END, give the brain `grace_s` to exit, then SIGKILL its process group and reap it.

        Safe to call at any time and more than once; returns the exit code (negative: killed by that signal), or
        None if the brain was never started.
        """
        proc = self._proc
        if proc is None:
            return None
        if not self._closed:
            self._closed = True
            if proc.returncode is None:
                self.peak_rss_bytes()
                self._write(["END"], grace_s)  # a brain that is gone (or not reading) is reaped below
            try:
                proc.stdin.close()
            except OSError:
                pass  # a broken pipe on the final flush: the brain is gone already
            self._reap(grace_s)
            if self._reader is not None:
                self._reader.join(timeout=1.0)  # a descendant that left the group may hold stdout: do not wait
            _LIVE.discard(self)
        return proc.returncode

    def __del__(self) -> None:
        """Safety net: a client dropped without close() still kills and reaps its brain's process group
        (otherwise subprocess would reap the leader alone and leave its children running)."""
        if getattr(self, "_proc", None) is not None and not self._closed:  # a failed __init__ has no _proc
            self.close(grace_s=0.0)

    def __enter__(self) -> "BrainClient":
        if self._proc is None:
            self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def pid(self) -> int | None:
        """The brain's process id (also its process group id), or None before `start()`."""
        return None if self._proc is None else self._proc.pid

    @property
    def returncode(self) -> int | None:
        """The exit code once the brain has been reaped (negative: killed by that signal), else None."""
        return None if self._proc is None else self._proc.returncode

    @property
    def messages(self) -> list[str]:
        """Every MESSAGE/DEBUG/SUGGEST line, ERROR/UNKNOWN report (and ignored garbage) the brain printed so far, in
        order."""
        return list(self._messages)

    def peak_rss_bytes(self) -> int:
        """Peak resident memory of the brain's process group: the sum of each live member's VmHWM, in bytes.

        Each process's peak is exact; their sum bounds the group's peak from above. The largest value seen is
        remembered, so this still answers after the brain has exited (0 if it was never measured).
        """
        if self._proc is not None and self._proc.returncode is None:
            self._peak_rss = max(self._peak_rss, _group_hwm_bytes(self._proc.pid))
        return self._peak_rss

    # --- requests -------------------------------------------------------------------------------------------------
    def about(self, timeout_s: float) -> dict[str, str]:
        """Ask ABOUT; the ``key="value"`` pairs of the answer, or {} if the brain says UNKNOWN or ERROR."""
        line, started, stamp, _ = self._request(["ABOUT"], "ABOUT", timeout_s, answers={"other", "refusal"})
        if line_kind(line) == "refusal":
            return {}
        pairs = parse_about(line)
        if not pairs and self._garbage == "forfeit":
            raise BrainFault(Fault.GARBAGE, f"answered {_shown(line)} to 'ABOUT'", _ms_since(started, stamp))
        return pairs

    def new_game(self, settings: GameSettings, timeout_s: float) -> None:
        """Start a game: START/RECTSTART, wait for OK within `timeout_s`, then send the INFO settings.

        ERROR or UNKNOWN instead of OK is an ERROR fault. Forgets the previous game's stones.
        """
        self._size = None
        command = settings.start_command()
        line, started, stamp, _ = self._request([command], command, timeout_s, answers={"ok", "refusal"})
        if line_kind(line) == "refusal":
            raise BrainFault(Fault.ERROR, f"answered {_shown(line)} to {command!r}", _ms_since(started, stamp))
        self._send(settings.info_lines(), timeout_s)
        self._size = (settings.width, settings.height)
        self._occupied = set()

    def set_time_left(self, ms: int) -> None:
        """Tell the brain how much of its game time is left (``INFO time_left``), before a move request."""
        self._send([f"INFO time_left {int(ms)}"])

    def begin(self, timeout_s: float) -> MoveReply:
        """Ask for the first move on the empty board (BEGIN)."""
        self._require_game()
        return self._request_move(["BEGIN"], "BEGIN", timeout_s)

    def turn(self, x: int, y: int, timeout_s: float) -> MoveReply:
        """Tell the brain the opponent played (x, y) and ask for its answer (TURN)."""
        self._require_game()
        self._check_stone(x, y)
        self._occupied.add((x, y))
        command = f"TURN {x},{y}"
        return self._request_move([command], command, timeout_s)

    def board(self, stones: Sequence[tuple[int, int, int]], timeout_s: float) -> MoveReply:
        """Send a whole position (BOARD ... DONE) and ask for a move; each stone is (x, y, field) with field
        1 = the brain's own, 2 = the opponent's, 3 = a continuous-game stone. Give renju stones in move order."""
        self._require_game()
        occupied: set[tuple[int, int]] = set()
        for x, y, field in stones:
            if field not in (1, 2, 3):
                raise ValueError(f"stone {(x, y, field)!r} has field {field!r}; it must be 1, 2 or 3")
            self._check_stone(x, y, occupied)
            occupied.add((x, y))
        self._occupied = occupied
        lines = ["BOARD", *(f"{x},{y},{field}" for x, y, field in stones), "DONE"]
        return self._request_move(lines, f"BOARD ({len(stones)} stones)", timeout_s)

    def await_listening(self, attempts: int = 20, wait_s: float = 0.25) -> bool:
        """Send ABOUT until the brain answers, at most `attempts` times `wait_s` apart; whether it answered.

        For a brain that drops a command arriving while it winds its search down (Rapfi does), before the next
        request: an answer to ABOUT means it listens again. A late answer to an earlier ABOUT may still come; it
        is taken as chat before the next request (``garbage="ignore"``), so use this only with that policy."""
        for _ in range(attempts):
            self._send(["ABOUT"])
            deadline = time.monotonic() + wait_s
            while (left := deadline - time.monotonic()) > 0 and not self._eof:
                try:
                    item = self._lines.get(timeout=left)
                except queue.Empty:
                    break
                if item is None:
                    self._eof = True
                elif parse_about(item[1]):
                    return True
        return False

    def stop_thinking(self) -> None:
        """Ask the brain to answer now (YXSTOP); its move still arrives through the pending request.

        Safe from another thread; a dead brain is not an error here (the pending request reports it).
        """
        self._write(["YXSTOP"], self._write_timeout_s)

    def kill(self) -> None:
        """SIGKILL the brain's whole process group now; the driving thread then sees its output end and reports it.

        Safe from another thread (e.g. to stop a tournament): it never signals a brain that has been reaped already,
        whose pid (the group id) another process may have been given since.
        """
        with self._reap_lock:
            if self._proc is not None and self._proc.returncode is None:
                _kill_group(self._proc.pid)

    # --- internals ------------------------------------------------------------------------------------------------
    def _require_game(self) -> None:
        """Refuse (RuntimeError) a move request outside a game."""
        if self._size is None:
            raise RuntimeError(f"brain {self.name!r} has no game: call new_game() first")

    def _check_stone(self, x: int, y: int, occupied: set[tuple[int, int]] | None = None) -> None:
        """Refuse (ValueError) a stone the caller wants to send that is off the board or on an occupied cell."""
        width, height = self._size
        if not (0 <= x < width and 0 <= y < height):
            raise ValueError(f"stone {x},{y} is off the {width}x{height} board")
        if (x, y) in (self._occupied if occupied is None else occupied):
            raise ValueError(f"stone {x},{y} is on an occupied cell")

    def _request_move(self, lines: list[str], what: str, timeout_s: float) -> MoveReply:
        """Send a move request and check the answer against the client's copy of the board."""
        line, started, stamp, chat = self._request(lines, what, timeout_s, answers={"move"})
        elapsed = _ms_since(started, stamp)
        x, y = (int(v) for v in _MOVE.fullmatch(line.strip()).groups())
        width, height = self._size
        if not (0 <= x < width and 0 <= y < height):
            raise BrainFault(Fault.OFF_BOARD, f"answered {line!r} to {what!r}, off the {width}x{height} board",
                             elapsed)
        if (x, y) in self._occupied:
            raise BrainFault(Fault.ILLEGAL, f"answered {line!r} to {what!r}, an occupied cell", elapsed)
        self._occupied.add((x, y))
        return MoveReply(x, y, elapsed, chat)

    def _request(self, lines: list[str], what: str, timeout_s: float,
                 answers: set[str]) -> tuple[str, float, float, list[str]]:
        """Send `lines` and wait up to `timeout_s` (writing included) for a line whose kind is in `answers`.

        Returns (the line, when the request was sent, when the line was read, the chat lines that came before
        it). ERROR/UNKNOWN where they are not an answer are kept with the chat (the protocol reports a setting the
        brain cannot meet that way, before its answer to the next command); if no answer follows by the deadline,
        the fault is an ERROR quoting the first of them. Other lines go through `_absorb`.
        """
        self._take_unsolicited(what)
        started = time.monotonic()
        self._send(lines, timeout_s)
        deadline = started + timeout_s
        chat: list[str] = []
        refusal: str | None = None
        while True:
            try:
                stamp, line = self._next_line(what, started, deadline, timeout_s)
            except BrainFault as fault:
                if refusal is None or fault.fault is not Fault.TIMEOUT:
                    raise
                raise BrainFault(Fault.ERROR, f"answered {_shown(refusal)} to {what!r}, then nothing more within "
                                              f"{timeout_s:.3f} s; killed", fault.elapsed_ms) from None
            kind = line_kind(line)
            if kind in answers:
                return line, started, stamp, chat
            if kind == "refusal" and refusal is None:
                refusal = line
            if self._absorb(line, kind, f"printed {_shown(line)} in answer to {what!r}", _ms_since(started, stamp)):
                chat.append(line)

    def _take_unsolicited(self, what: str) -> None:
        """Before a request, take the lines the brain printed since the last answer: chat is kept, an end of
        output is noted (the request then reports the crash), anything else follows the garbage policy."""
        while not self._eof:
            try:
                item = self._lines.get_nowait()
            except queue.Empty:
                return
            if item is None:
                self._eof = True
                return
            line = item[1]
            self._absorb(line, line_kind(line), f"printed {_shown(line)} unasked, before {what!r}", None)

    def _absorb(self, line: str, kind: str, detail: str, elapsed_ms: float | None) -> bool:
        """Deal with a line that is not an answer: skip blank lines and a stray OK, keep chat and ERROR/UNKNOWN
        reports with the messages, and apply the garbage policy to anything else (GARBAGE fault with `detail`, or
        keep it). True if kept."""
        if kind in ("empty", "ok"):
            return False
        if kind not in ("chat", "refusal") and self._garbage == "forfeit":
            raise BrainFault(Fault.GARBAGE, detail, elapsed_ms)
        self._messages.append(line)
        if self._on_chat is not None:
            self._on_chat(line)
        return True

    def _next_line(self, what: str, started: float, deadline: float, timeout_s: float) -> tuple[float, str]:
        """The next (time read, line) before `deadline`; a hang is killed and reported as TIMEOUT, an end of
        output as CRASH (after giving the process a moment to exit, for its exit code)."""
        if not self._eof:
            try:
                item = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                self._reap(0.0)
                raise BrainFault(Fault.TIMEOUT, f"no answer to {what!r} within {timeout_s:.3f} s; killed",
                                 _ms_since(started)) from None
            if item is not None:
                return item
            self._eof = True
        self._reap(_EOF_WAIT_S)
        raise BrainFault(Fault.CRASH, f"{describe_exit(self._proc.returncode)} while waiting for an answer to "
                                      f"{what!r}", _ms_since(started))

    def _send(self, lines: list[str], timeout_s: float | None = None) -> None:
        """Write request lines within `timeout_s`; a brain that is gone (or goes while we write) is a CRASH fault,
        one that does not read them in time is killed and a TIMEOUT fault."""
        if self._proc is None or self._closed:
            raise RuntimeError(f"brain {self.name!r} is not running: call start() first, and nothing after close()")
        timeout_s = self._write_timeout_s if timeout_s is None else timeout_s
        started = time.monotonic()
        outcome = self._write(lines, timeout_s)
        if outcome == "stalled":
            self._reap(0.0)
            raise BrainFault(Fault.TIMEOUT, f"did not read {lines[0]!r} within {timeout_s:.3f} s; killed",
                             _ms_since(started))
        if outcome == "gone":
            self._reap(_EOF_WAIT_S)
            raise BrainFault(Fault.CRASH,
                             f"could not send {lines[0]!r}: the brain {describe_exit(self._proc.returncode)}")

    def _write(self, lines: list[str], timeout_s: float) -> str | None:
        """Write lines to the brain's (non-blocking) stdin, waiting at most `timeout_s` for room in the pipe.

        None when all was written, "gone" if the brain or its stdin is gone, "stalled" if it did not read in time
        (the caller decides what that means).
        """
        proc = self._proc
        if proc is None or proc.returncode is not None:
            return "gone"
        data = memoryview("".join(line + "\n" for line in lines).encode())
        deadline = time.monotonic() + timeout_s
        try:
            with self._write_lock:
                fd = proc.stdin.fileno()
                while data:
                    try:
                        data = data[os.write(fd, data):]
                    except BlockingIOError:
                        left = deadline - time.monotonic()
                        if left <= 0:
                            return "stalled"
                        select.select([], [fd], [], left)
        except (OSError, ValueError):
            return "gone"
        return None

    def _reap(self, grace_s: float) -> None:
        """Wait up to `grace_s` for the brain to exit, SIGKILL its whole process group, and reap it.

        The leader is only reaped after the group is killed, and under the lock `kill` takes, so its pid (= the
        group id) cannot have been reused by an unrelated process when either signals it.
        """
        proc = self._proc
        if proc is None or proc.returncode is not None:
            return
        give_up = time.monotonic() + grace_s
        while not _has_exited(proc.pid) and time.monotonic() < give_up:
            time.sleep(_POLL_S)
        with self._reap_lock:
            if proc.returncode is None:
                _kill_group(proc.pid)
                proc.wait()


def _kill_group(pgid: int) -> None:
    """SIGKILL process group `pgid`; nothing if it is empty already."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _has_exited(pid: int) -> bool:
    """Whether our child `pid` has exited, without reaping it (it stays a zombie, holding its pid)."""
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def _ms_since(started: float, stamp: float | None = None) -> float:
    """Milliseconds from `started` to `stamp` (default: now)."""
    return ((time.monotonic() if stamp is None else stamp) - started) * 1000.0


def _group_hwm_bytes(pgid: int) -> int:
    """The sum of VmHWM over the live processes of process group `pgid`, from /proc (0 where unreadable)."""
    total = 0
    try:
        entries = os.listdir("/proc")
    except OSError:
        return 0
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                fields = handle.read().rpartition(b")")[2].split()
            if int(fields[2]) != pgid:  # after the command name: state, ppid, pgrp, ...
                continue
            with open(f"/proc/{entry}/status", "rb") as handle:
                for row in handle:
                    if row.startswith(b"VmHWM:"):
                        total += int(row.split()[1]) * 1024
                        break
        except (OSError, ValueError, IndexError):
            continue  # the process went away while we looked
    return total


_LIVE: "weakref.WeakSet[BrainClient]" = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    """Safety net: a program that exits without closing its clients still leaves no brain processes behind."""
    for client in list(_LIVE):
        client.close(grace_s=0.0)
