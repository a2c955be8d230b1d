"""``pbrain-monte``'s player: it answers at once while the compiled engine loads on a thread of its own.

A brain must answer ``START`` within seconds (c-gomoku-cli waits 3 s) and every move within its time, but its
engine's kernels take a second to load from numba's cache and a minute to compile from a cold one. So the first
``warm_up`` (at ``START``) only starts a loader thread. From a cold cache it first compiles in child processes
(``brain.compile_child``): the compile gets a core of its own instead of sharing the GIL with the quick player.
Then, the cache warm, the loader imports the engine, loads every kernel (``brain.warmup``; processes sharing a cold
cache take turns there) and prepares the engine for the game being played. Until the engine is ready, moves come
from the quick player (``brain.quick``), which needs no compiled code; the protocol's thread meanwhile runs the few
kernels it needs interpreted (``brain.kernels``: held until the loader releases them), so it never waits for the
compiler.

The compile children are parts of the brain as the Gomocup judge sees it (it stops and resumes the brain's own
process only, and adds up the memory of the whole process tree): a child stops whenever the brain is stopped and
dies with it (``brain.compile_child``), and the loader, which runs only while the brain runs, resumes it every
POLL_SECONDS and kills it when the tree's unique memory (``brain.proctree``) passes ``INFO max_memory`` less
MARGIN_BYTES. A compile of every kernel in one process peaks at 480-560 MB (LLVM, and the Python objects of every
function it types), but numba writes each function to the cache as soon as it is compiled, and a function whose
callees are cached compiles with a fraction of that: so the next child goes on where the killed one stopped, with
less to hold, until every kernel is in the cache. A child killed with nothing new in the cache means a kernel that
does not compile within the limit: the quick player then plays on.

A move waits for the loading engine up to its soft deadline (the time the engine would search), as long as that leaves
the quick player QUICK_RESERVE_SECONDS: from a warm cache the engine is usually ready by then (the Gomocup judge
stops a brain right after START, so its whole start-up falls in its first move), and while the brain compiles, the
move's time goes to the compile (a quick move takes a tenth of a second: answered at once, the compile would crawl
under the judge, which lets it run only while the brain does). A brain told to load before it answers (the
environment variable MONTE_LOAD_BEFORE_OK set to 1, as the tournament runner does) waits for a warm cache's engine at
``START`` instead -- about a second -- so that every move of its games is the engine's; from a cold cache it still
answers at once.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable

from monte import brain
from monte.brain import kernels
from monte.brain.board import Board
from monte.brain.cachedir import cache_is_warm, compiled_count
from monte.brain.memory import MARGIN_BYTES
from monte.brain.player import MoveChoice, Player, ThinkLimits
from monte.brain.proctree import tree_uss_bytes
from monte.brain.swap2 import evaluation_of

log = logging.getLogger(__name__)

QUICK_RESERVE_SECONDS = 0.25
"""What a move that waits for the loading engine leaves the quick player (a shorter move does not wait)."""
POLL_SECONDS = 0.01
"""How often a waiting move looks at its stop flag and its time, and the loader at its compile child."""


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
        """The engine's move if it is ready (or gets ready before the move's soft deadline); else the quick player's."""
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
                compile_in_children(self._memory_cap)
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
        except MemoryError as exc:  # foreseen (a max_memory too small to compile in): one line, no traceback
            log.error("the %s engine could not be loaded (%s): the quick player plays on", self.name, exc)
        except Exception:
            log.exception("the %s engine could not be loaded: the quick player plays on", self.name)
        finally:
            self._loaded.set()

    def _memory_cap(self) -> int:
        """The most the brain's process tree may hold while it compiles: ``INFO max_memory`` less MARGIN_BYTES; 0 for
        no limit (none given yet, or 0)."""
        prepared = self._prepared
        return max(1, prepared[1] - MARGIN_BYTES) if prepared and prepared[1] > 0 else 0

    def _engine_in_time(self, limits: ThinkLimits) -> Player | None:
        """The engine, waiting for it while it loads or compiles up to the move's soft deadline, as long as the quick
        player is left QUICK_RESERVE_SECONDS (see the module docstring)."""
        give_up = min(limits.soft_deadline, limits.hard_deadline - QUICK_RESERVE_SECONDS)
        return self._wait_for_engine(lambda: limits.stop.is_set() or time.monotonic() >= give_up, through_compile=True)

    def _wait_for_engine(self, give_up: Callable[[], bool], through_compile: bool = False) -> Player | None:
        """The engine, once loaded or when `give_up` says so (looked at every POLL_SECONDS); None at once if loading
        failed, or if the cache is cold (a compile takes a minute) unless `through_compile`."""
        while (self._engine is None and not self._loaded.is_set() and not give_up()
               and (through_compile or not self._cold.is_set())):
            self._loaded.wait(POLL_SECONDS)
        return self._engine


def compile_in_children(memory_cap: Callable[[], int]) -> None:
    """Compile the brain's kernels into the cache in child processes (see the module docstring), one after another
    until one finishes, the tree's memory kept under `memory_cap()` bytes (0: no limit); MemoryError when a child
    is killed before it adds anything to the cache. A child's failure is logged (the loader then compiles
    in-process)."""
    started = time.monotonic()
    children = 0
    while True:
        compiled = compiled_count()
        children += 1
        status, stderr = _run_compile_child(memory_cap)
        if status is None and compiled_count() <= compiled:
            raise MemoryError(f"no kernel compiles within the memory limit ({memory_cap() // 2**20} MiB for the "
                              f"brain and its compile child)")
        if status is None:
            log.info("compile child %d stopped at the memory limit after %.1f s; the next goes on", children,
                     time.monotonic() - started)
        elif status != 0:
            log.warning("the compile in a child process failed (status %d): %s", status, stderr[-2000:])
            return
        else:
            log.info("compiled in %d child process(es) in %.1f s", children, time.monotonic() - started)
            return


def _run_compile_child(memory_cap: Callable[[], int]) -> tuple[int | None, str]:
    """Run one compile child to its end, resuming it every POLL_SECONDS (it stops itself while the brain is
    stopped) and killing it when the tree's memory passes `memory_cap()`: its exit status (None when killed) and
    its stderr."""
    with tempfile.TemporaryFile() as stderr:
        child = subprocess.Popen(compile_child_command(), env=_child_environment(), stdin=subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL, stderr=stderr)
        status: int | None = None
        while status is None:
            try:
                status = child.wait(POLL_SECONDS)
            except subprocess.TimeoutExpired:
                if hasattr(signal, "SIGCONT"):
                    os.kill(child.pid, signal.SIGCONT)  # the loader runs, so the brain does: so may its child
                cap = memory_cap()
                if cap and tree_uss_bytes(os.getpid(), [child.pid]) > cap:
                    child.kill()
                    child.wait()
                    return None, ""
        stderr.seek(0)
        return status, stderr.read().decode("utf-8", "replace").strip()


def compile_child_command() -> list[str]:
    """How to start a compile child of this process: ``python -m monte.brain.compile_child PID``, or the frozen
    executable itself with ``--compile-child PID`` (a packaged brain, ``monte package``)."""
    if getattr(sys, "frozen", False):
        return [sys.executable, "--compile-child", str(os.getpid())]
    return [sys.executable, "-P", "-m", "monte.brain.compile_child", str(os.getpid())]


def _child_environment() -> dict[str, str]:
    """This environment, with this brain package first on the path: the child compiles it whatever the current
    folder holds."""
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(brain.__file__)))
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")]))}
