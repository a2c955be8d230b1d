"""``pbrain-monte``'s player: it answers at once while the compiled engine loads on a thread of its own.

A brain must answer ``START`` within seconds (c-gomoku-cli waits 3 s) and every move within its time, but its
engine's kernels take a second to load from numba's cache and a minute to compile from a cold one. So the first
``warm_up`` (at ``START``) only starts a loader thread. From a cold cache it first compiles in a child process
(``python -m brain.warmup``): the compile gets a core of its own instead of sharing the GIL with the quick player,
and its memory (over 500 MB at its peak: LLVM) is the child's, not the brain's, which stays within ``max_memory``.
Then, the cache warm, the loader imports the engine, loads every kernel (``brain.warmup``; processes sharing a cold
cache take turns there) and prepares the engine for the game being played. Until the engine is ready, moves come
from the quick player (``brain.quick``), which needs no compiled code; the protocol's thread meanwhile runs the few
kernels it needs interpreted (``brain.kernels``: held until the loader releases them), so it never waits for the
compiler.

The compile child is in the brain's process group and outlives the brain: a brain that exits (END) mid-compile
leaves it to finish, so that a cache gets warm even when every game is shorter than the compile, and the next brain
waits for it (under the cache folder's lock) instead of compiling again. A manager that kills the brain's process
group stops it too; what it had compiled stays in the cache.

When the cache is warm, a move long enough waits for the engine for up to WAIT_SHARE of its time: the engine is
usually ready by then, and the quick player needs only the rest. A brain told to load before it answers (the
environment variable MONTE_LOAD_BEFORE_OK set to 1, as the tournament runner does) waits for a warm cache's engine at
``START`` instead -- about a second -- so that every move of its games is the engine's; from a cold cache it still
answers at once.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable

from monte import brain
from monte.brain import kernels
from monte.brain.board import Board
from monte.brain.cachedir import cache_is_warm
from monte.brain.player import MoveChoice, Player, ThinkLimits
from monte.brain.swap2 import evaluation_of

log = logging.getLogger(__name__)

WAIT_SHARE = 0.5
"""The share of a move's time it may wait for an engine that is loading from a warm cache..."""
QUICK_RESERVE_SECONDS = 0.25
"""...as long as the quick player is left this much (a short move does not wait: the engine takes longer to load)."""
POLL_SECONDS = 0.01
"""How often a waiting move looks at its stop flag and its time."""
"""The environment variable that, set to 1, makes ``pbrain-monte`` load a warm cache's engine before its first OK."""


class LoadingPlayer:
    """The engine `load` makes, once loaded; the `quick` player until then (see the module docstring)."""

    def __init__(self, name: str, load: Callable[[], Player], quick: Player, load_before_ok: bool = False) -> None:
        """`load_before_ok`: the first ``warm_up`` returns only once a warm cache's engine is loaded."""
        self.name = name
        self._load = load
        self._quick = quick
        self._load_before_ok = load_before_ok
        self._engine: Player | None = None
        self._lock = threading.Lock()
        """Guards the engine's hand-over: the game and the preparation recorded for it, and the engine itself."""
        self._game: Board | None = None
        self._prepared: tuple[Board, int] | None = None
        self._loader: threading.Thread | None = None
        self._loaded = threading.Event()
        """Set when the loader is done, with an engine or without one (it failed)."""
        self._cold = threading.Event()
        """Set when the loader found the cache cold: it compiles, so no move waits for it."""

    @property
    def engine(self) -> Player | None:
        """The loaded engine, or None while it loads (or if loading failed)."""
        return self._engine

    def wait_loaded(self, timeout: float) -> bool:
        """Wait up to `timeout` seconds for the loader to be done (with an engine, or without one if it failed);
        whether it is."""
        return self._loaded.wait(timeout)

    # --- Player protocol ------------------------------------------------------------------------------------
    def warm_up(self) -> None:
        """Start loading the engine in the background, once; returns at once (unless told to load before OK)."""
        if self._loader is None:
            kernels.hold()
            self._loader = threading.Thread(target=self._run_loader, name="pbrain-loader", daemon=True)
            self._loader.start()
            if self._load_before_ok:
                self._wait_for_engine(lambda: False)

    def new_game(self, board: Board) -> None:
        """Start the game on the engine if it is loaded, else when it is."""
        with self._lock:
            self._game = board.copy()
            if self._engine is not None:
                self._engine.new_game(board)

    def prepare(self, board: Board, max_memory: int) -> None:
        """Prepare the engine for `board` and `max_memory` if it is loaded, else when it is."""
        with self._lock:
            self._prepared = (board.copy(), max_memory)
            if self._engine is not None:
                self._engine.prepare(board, max_memory)

    def choose(self, board: Board, limits: ThinkLimits) -> MoveChoice:
        """The engine's move if it is ready (or, from a warm cache, gets ready within WAIT_SHARE of the move's time);
        else the quick player's."""
        engine = self._engine_in_time(limits)
        return (engine or self._quick).choose(board, limits)

    def evaluate(self, board: Board) -> float:
        """The evaluation of whichever player moves now (for SWAP2 decisions)."""
        return evaluation_of(self._engine or self._quick)(board)

    # --- the loader ---------------------------------------------------------------------------------------
    def _run_loader(self) -> None:
        started = time.monotonic()
        try:
            self._quick.warm_up()
            if not cache_is_warm():
                self._cold.set()
                compile_in_child()
            engine = self._load()
            engine.warm_up()
            with self._lock:
                if self._game is not None:
                    engine.new_game(self._game)
                if self._prepared is not None:
                    engine.prepare(*self._prepared)
                self._engine = engine
            kernels.release()
            log.info("engine %s ready after %.2f s (%s cache)", self.name, time.monotonic() - started,
                     "a cold" if self._cold.is_set() else "a warm")
        except Exception:
            log.exception("the %s engine could not be loaded: the quick player plays on", self.name)
        finally:
            self._loaded.set()

    def _engine_in_time(self, limits: ThinkLimits) -> Player | None:
        """The engine, waiting for it while it loads from a warm cache: up to WAIT_SHARE of the move's time, leaving the
        quick player QUICK_RESERVE_SECONDS."""
        left = max(0.0, limits.hard_deadline - time.monotonic())
        give_up = time.monotonic() + min(WAIT_SHARE * left, left - QUICK_RESERVE_SECONDS)
        return self._wait_for_engine(lambda: limits.stop.is_set() or time.monotonic() >= give_up)

    def _wait_for_engine(self, give_up: Callable[[], bool]) -> Player | None:
        """The engine, once loaded from a warm cache or when `give_up` says so (looked at every POLL_SECONDS); None at
        once if loading failed or the cache is cold (a compile takes a minute)."""
        while self._engine is None and not self._loaded.is_set() and not self._cold.is_set() and not give_up():
            self._loaded.wait(POLL_SECONDS)
        return self._engine


def compile_in_child() -> None:
    """Compile the brain's kernels into the cache in a child process (``python -m brain.warmup``) and wait for it; a
    failure is logged (the loader then compiles in-process). The child compiles this brain package whatever the
    current folder holds, reads no protocol input and writes no protocol output."""
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(brain.__file__)))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")]))}
    started = time.monotonic()
    result = subprocess.run([sys.executable, "-P", "-m", "monte.brain.warmup"], env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, errors="replace")
    if result.returncode != 0:
        log.warning("the compile in a child process failed (status %d): %s", result.returncode,
                    result.stderr.strip()[-2000:])
    else:
        log.info("compiled in a child process in %.1f s", time.monotonic() - started)
