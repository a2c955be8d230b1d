"""The brain's ends of the pipes: a reader thread that turns stdin bytes into commands, and a line writer.

Reading happens on its own thread so that two commands take effect while the main thread is still thinking:
``END`` leaves the process at once, and ``YXSTOP`` sets the stop event of the move request it refers to (the
latest command read before it). Every other command is queued and handled in order by the main thread.
"""

from __future__ import annotations

import logging
import os
import queue
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import BinaryIO, NoReturn

from brain.limits import StopFlag

log = logging.getLogger(__name__)

_LINE_END = re.compile(rb"\r\n|\r|\n")
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
    """Cuts a byte stream into text lines at CR LF, LF or CR (managers differ); blank lines are dropped.

    A CR at the very end of a chunk ends its line at once (a manager that ends lines with CR alone must not wait);
    an LF that follows in the next chunk then only makes a blank line, which is dropped.
    """

    def __init__(self) -> None:
        self._pending = b""

    def feed(self, data: bytes) -> list[str]:
        """The complete lines that `data` finishes."""
        pieces = _LINE_END.split(self._pending + data)
        self._pending = pieces.pop()
        return _texts(pieces)

    def finish(self) -> list[str]:
        """The last line, if the stream ended without a line end."""
        pending, self._pending = self._pending, b""
        return _texts([pending])


def _texts(pieces: list[bytes]) -> list[str]:
    """Decoded, stripped, non-blank lines (undecodable bytes become U+FFFD rather than an error)."""
    texts = (piece.decode("utf-8", errors="replace").strip() for piece in pieces)
    return [text for text in texts if text]


class StdinReader:
    """Reads commands from a file descriptor on a daemon thread and queues them for the main thread.

    ``END`` calls `on_end` at once (the brain leaves the process there; if `on_end` returns, END is queued too).
    ``YXSTOP`` sets the stop event of the latest command before it, then is queued like any other line. The end of
    input stops the latest command too (the manager is gone: nobody waits for its answer) and ends ``commands()``.
    """

    def __init__(self, fd: int, on_end: Callable[[], None], chunk_size: int = 65536) -> None:
        self._fd = fd
        self._on_end = on_end
        self._chunk_size = chunk_size
        self._queue: queue.Queue[Command | None] = queue.Queue()
        self._latest: Command | None = None
        self._thread = threading.Thread(target=self._run, name="pbrain-stdin", daemon=True)

    def start(self) -> "StdinReader":
        """Start reading; returns self."""
        self._thread.start()
        return self

    def commands(self) -> Iterator[Command]:
        """The queued commands in order, until the input ends."""
        while (command := self._queue.get()) is not None:
            yield command

    def _run(self) -> None:
        splitter = LineSplitter()
        try:
            while data := os.read(self._fd, self._chunk_size):
                for text in splitter.feed(data):
                    self._dispatch(text)
            for text in splitter.finish():
                self._dispatch(text)
        except OSError as exc:
            log.warning("stdin closed with an error: %s", exc)
        finally:
            if self._latest is not None:
                self._latest.stop.set()
            self._queue.put(None)

    def _dispatch(self, text: str) -> None:
        command = Command(text)
        if command.verb == "END":
            self._on_end()
        elif command.verb == "YXSTOP":
            if self._latest is not None:
                self._latest.stop.set()
        else:
            self._latest = command
        self._queue.put(command)


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
        """Leave the process at once with status 0 (END), after the line being written, if any, is flushed."""
        self._lock.acquire(timeout=EXIT_FLUSH_WAIT)  # never released: the process ends here
        try:
            self._stream.flush()
        except OSError:
            pass
        logging.shutdown()
        os._exit(0)
