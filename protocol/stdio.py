"""The brain's ends of the pipes: a reader thread that turns stdin bytes into commands, and a line writer.

Every command is queued and handled in order by the main thread, so a manager (or a script) that sends a whole
batch at once gets every answer, in order. Reading happens on its own thread so that two commands take effect while
the main thread is still thinking: ``YXSTOP`` sets the stop event of the move request it refers to (the latest
command read before it), and ``END`` stops every think still owed an answer, so that the main thread answers what
came before END at once and then reaches END, where the brain leaves.
"""

from __future__ import annotations

import logging
import os
import queue
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import BinaryIO, NoReturn

from monte.brain.stopflag import StopFlag

log = logging.getLogger(__name__)

_LINE_END = re.compile(rb"\r\n|\r|\n")
MAX_LINE_BYTES = 1 << 16
"""A longer line is cut to this many bytes (no protocol line comes near it): its tail is dropped as it arrives, so
a line of megabytes costs neither memory nor time."""
EXIT_FLUSH_WAIT = 0.5
"""How long END waits for a line being written by the main thread before leaving anyway (seconds)."""


@dataclass
class Command:
    """One protocol line, when it arrived (``time.monotonic()``), and the event that stops thinking about it (a
    ``StopFlag``: setting it reaches into the running search)."""

    text: str
    arrived: float = field(default_factory=time.monotonic)
    stop: StopFlag = field(default_factory=StopFlag)

    @property
    def verb(self) -> str:
        """The command word, upper-cased (commands are case-insensitive); '' for an empty line."""
        words = self.text.split(None, 1)
        return words[0].upper() if words else ""

    @property
    def argument(self) -> str:
        """Everything after the command word, stripped."""
        words = self.text.split(None, 1)
        return words[1].strip() if len(words) > 1 else ""


class LineSplitter:
    """Cuts a byte stream into text lines at CR LF, LF or CR (managers differ); blank lines are dropped, and a line
    longer than MAX_LINE_BYTES keeps only its first MAX_LINE_BYTES.

    A CR at the very end of a chunk ends its line at once (a manager that ends lines with CR alone must not wait);
    an LF that follows in the next chunk then only makes a blank line, which is dropped. Only the new chunk is
    searched for line ends, so a long line costs time in proportion to its length.
    """

    def __init__(self) -> None:
        self._pending: list[bytes] = []
        self._pending_bytes = 0

    def feed(self, data: bytes) -> list[str]:
        """The complete lines that `data` finishes."""
        lines = []
        start = 0
        for end in _LINE_END.finditer(data):
            self._keep(data[start:end.start()])
            lines.append(self._take())
            start = end.end()
        self._keep(data[start:])
        return _texts(lines)

    def finish(self) -> list[str]:
        """The last line, if the stream ended without a line end."""
        return _texts([self._take()])

    def _keep(self, piece: bytes) -> None:
        room = MAX_LINE_BYTES - self._pending_bytes
        if piece and room > 0:
            self._pending.append(piece[:room])
            self._pending_bytes += min(len(piece), room)

    def _take(self) -> bytes:
        line = b"".join(self._pending)
        self._pending, self._pending_bytes = [], 0
        return line


def _texts(pieces: list[bytes]) -> list[str]:
    """Decoded, stripped, non-blank lines (undecodable bytes become U+FFFD rather than an error)."""
    texts = (piece.decode("utf-8", errors="replace").strip() for piece in pieces)
    return [text for text in texts if text]


class StdinReader:
    """Reads commands from a file descriptor on a daemon thread and queues them, in order, for the main thread.

    ``YXSTOP`` sets the stop event of the latest command before it, then is queued like any other line. ``END`` sets
    the stop event of every command before it that is not answered yet -- the one the main thread is on and those
    still queued -- so that each is answered at once (a think with its best move so far); then END is queued and
    reading ends: nothing after END is read. The end of input does the same as END (the manager is gone: nobody waits
    long for an answer) and ends ``commands()``.
    """

    def __init__(self, fd: int, chunk_size: int = 65536) -> None:
        self._fd = fd
        self._chunk_size = chunk_size
        self._queue: queue.Queue[Command | None] = queue.Queue()
        self._latest: Command | None = None
        self._current: Command | None = None
        """The command the main thread took last (it may be thinking about it)."""
        self._ending = threading.Event()
        self._thread = threading.Thread(target=self._run, name="pbrain-stdin", daemon=True)

    def start(self) -> "StdinReader":
        """Start reading; returns self."""
        self._thread.start()
        return self

    def commands(self) -> Iterator[Command]:
        """The queued commands in order, until END or the end of input (after END, END is the last)."""
        while (command := self._queue.get()) is not None:
            self._current = command
            if self._ending.is_set():  # END came while this one was being taken off the queue
                command.stop.set()
            yield command

    def _run(self) -> None:
        splitter = LineSplitter()
        try:
            while data := os.read(self._fd, self._chunk_size):
                for text in splitter.feed(data):
                    if not self._dispatch(text):
                        return
            for text in splitter.finish():
                self._dispatch(text)
        except OSError as exc:
            log.warning("stdin closed with an error: %s", exc)
        finally:
            self._stop_all()
            self._queue.put(None)

    def _dispatch(self, text: str) -> bool:
        """Queue one line; False once it was END (read no further)."""
        command = Command(text)
        if command.verb == "END":
            self._stop_all()
            self._queue.put(command)
            return False
        if command.verb == "YXSTOP":
            if self._latest is not None:
                self._latest.stop.set()
        else:
            self._latest = command
        self._queue.put(command)
        return True

    def _stop_all(self) -> None:
        """Stop the command being handled and every queued one."""
        self._ending.set()
        with self._queue.mutex:
            waiting = [command for command in self._queue.queue if command is not None]
        for command in (self._current, *waiting):
            if command is not None:
                command.stop.set()


class LineWriter:
    """Writes whole protocol lines to a binary stream, each flushed at once, from any thread."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._lock = threading.Lock()

    def send(self, line: str) -> None:
        """Write one line. A closed pipe means the manager is gone: the process leaves quietly (status 0)."""
        with self._lock:
            try:
                self._stream.write(line.encode("utf-8") + b"\n")
                self._stream.flush()
            except OSError as exc:
                log.warning("stdout is closed (%s); leaving", exc)
                os._exit(0)

    def exit_now(self) -> NoReturn:
        """Leave the process at once with status 0 (END, the end of input), after the line being written, if any,
        is flushed: no interpreter teardown, no waiting for other threads."""
        self._lock.acquire(timeout=EXIT_FLUSH_WAIT)  # never released: the process ends here
        try:
            self._stream.flush()
        except OSError:
            pass
        logging.shutdown()
        os._exit(0)
