"""Helpers for the web board's tests: the installed ``monte gui`` started as a user starts it (its address read from
what it prints), the processes it has started, waiting for a condition, and the system's Chromium for Playwright.

Chromium is Debian's package (``apt-get install -y chromium``; Playwright's own browser download is not used). A
machine without it fails the browser tests with that command, never skips them.
"""

from __future__ import annotations

import os
import re
import select
import shlex
import shutil
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator, TypeVar

import pytest

from tournament_support import FAKE_BRAIN

T = TypeVar("T")

START_TIMEOUT_S = 60.0
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SCREENSHOTS = Path(os.environ.get("MONTE_SCREENSHOTS", Path(__file__).resolve().parent.parent / "build" / "screenshots"))
"""Where the browser tests save a picture of each view (``build/screenshots/`` unless MONTE_SCREENSHOTS says)."""


def fake_engine(name: str, mode: str, *args: str) -> str:
    """An ``--engine NAME=COMMAND`` flag for the misbehaving fake brain in `mode`."""
    return f"{name}={shlex.join([sys.executable, str(FAKE_BRAIN), '--mode', mode, *args])}"


def chromium() -> str:
    """The system Chromium's path ($MONTE_CHROMIUM, else ``chromium`` on PATH); a failure naming the install command
    when there is none."""
    path = os.environ.get("MONTE_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not path or not os.access(path, os.X_OK):
        pytest.fail("the browser tests need Chromium: apt-get install -y chromium (or set MONTE_CHROMIUM)")
    return path


def wait_for(condition: Callable[[], T], timeout_s: float, what: str) -> T:
    """Poll `condition` until it gives something true, and return that; fail naming `what` after `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: not within {timeout_s:g} s")
        time.sleep(0.05)


def descendants(pid: int) -> set[int]:
    """The live processes started by `pid`, their children, and so on (read from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z":  # a zombie is dead already (and its parent's to reap: checked by exit, not here)
            children.setdefault(int(fields[1]), []).append(int(entry))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def alive(pid: int) -> bool:
    """Whether process `pid` exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


class Gui:
    """A running ``monte gui``: its process and its address."""

    def __init__(self, process: subprocess.Popen, url: str, log: Path) -> None:
        self.process = process
        self.url = url
        self.log = log

    @property
    def ws_url(self) -> str:
        return self.url.replace("http://", "ws://") + "ws"

    def engines(self) -> set[int]:
        """The processes the server has started and not yet reaped."""
        return descendants(self.process.pid)

    def stop(self) -> int:
        """SIGTERM, as a service manager stops it; its exit code."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            pytest.fail(f"monte gui did not stop within 30 s of SIGTERM; its log: {self.log.read_text()[-2000:]}")


@contextmanager
def running_gui(monte: str, folder: Path, *args: str) -> Iterator[Gui]:
    """``monte gui ARGS`` running in `folder` until the block ends (then stopped, every process it started gone)."""
    log = folder / "gui.log"
    with open(log, "w") as errors:
        process = subprocess.Popen([monte, "gui", *args], cwd=folder, stdout=subprocess.PIPE, stderr=errors,
                                   text=True)
    try:
        ready, _, _ = select.select([process.stdout], [], [], START_TIMEOUT_S)
        line = process.stdout.readline() if ready else ""
        found = re.search(r"http://\S+/", line)
        if not found:
            pytest.fail(f"monte gui printed no address: {line!r}; its log: {log.read_text()[-2000:]}")
        gui = Gui(process, found.group(0), log)
        yield gui
    finally:
        if process.poll() is None:
            started = descendants(process.pid)
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            for pid in started:  # nothing may outlive the server, whatever a failed test left running
                if alive(pid):
                    os.kill(pid, signal.SIGKILL)
