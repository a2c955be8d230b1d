"""``pbrain-monte``: the Gomocup brain executable (stdin/stdout protocol loop around one engine).

Only protocol lines may reach stdout, so the process keeps a private handle on the real stdout for the protocol and
points file descriptor 1 (and ``sys.stdout``) at stderr: a stray ``print`` from anywhere becomes a diagnostic
instead of a protocol error.

Nothing on the way to the first ``OK`` imports numba: the engine loads on a thread of its own after ``START``
(``brain.loading``; before the ``OK`` when $MONTE_LOAD_BEFORE_OK is 1 and the cache is warm), and the quick player
answers until it is ready.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from typing import BinaryIO

from monte.brain.loading import LoadingPlayer
from monte.brain.registry import DEFAULT_ENGINE, check_settings, engine_names, make_player, warm_up_all
from monte.brain.quick import QuickPlayer
from monte.protocol.client import LOAD_BEFORE_OK
from monte.protocol.session import Session
from monte.protocol.stdio import LineWriter, StdinReader

LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``pbrain-monte``."""
    parser = argparse.ArgumentParser(
        prog="pbrain-monte",
        description="Monte, a Gomoku brain speaking the Gomocup (pbrain) protocol on stdin/stdout.",
    )
    parser.add_argument("--engine", choices=engine_names(), default=DEFAULT_ENGINE,
                        help=f"the player to use (default: {DEFAULT_ENGINE})")
    parser.add_argument("--seed", type=int, default=None, help="seed for engines that use randomness")
    parser.add_argument("--log", metavar="FILE", default=None, help="write diagnostics to FILE instead of stderr")
    parser.add_argument("--set", metavar="NAME=VALUE", action="append", default=[], dest="settings",
                        help="tune the mcts engine, e.g. --set c_puct=1.2 --set vct_max_nodes=0 (repeatable)")
    parser.add_argument("--warmup", action="store_true",
                        help="compile or load the compiled code of every engine, then exit")
    parser.add_argument("--compile-child", metavar="PID", type=int, default=None, help=argparse.SUPPRESS)
    """How a packaged brain starts its compile children (``brain.loading``): no ``python -m`` in a frozen program."""
    return parser


def configure_logging(log_file: str | None, parser: argparse.ArgumentParser) -> None:
    """Diagnostics go to `log_file` (from INFO up) or else to stderr (warnings and errors only)."""
    if log_file is None:
        logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format=LOG_FORMAT)
        return
    try:
        logging.basicConfig(filename=log_file, level=logging.INFO, format=LOG_FORMAT)
    except OSError as exc:
        parser.error(f"cannot write the log file {log_file!r}: {exc.strerror}")


def warm_up() -> int:
    """Compile or load every engine's kernels; report the time on stderr."""
    names, seconds = warm_up_all()
    print(f"pbrain-monte: warm-up of {', '.join(names)} took {seconds:.2f} s", file=sys.stderr)
    return 0


def ensure_stderr() -> None:
    """A brain started with stderr closed (``2>&-``) gets /dev/null there: diagnostics have somewhere to go, and fd 2
    cannot be taken by a file or pipe the brain opens later."""
    if sys.stderr is not None:
        return
    fd = os.open(os.devnull, os.O_WRONLY)
    if fd != 2:
        os.dup2(fd, 2)
        os.close(fd)
    sys.stderr = open(2, "w", closefd=False)


def protocol_stdout() -> BinaryIO:
    """A private stream on the real stdout; fd 1 and ``sys.stdout`` then lead to stderr."""
    stream = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    return stream


def _split_setting(text: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise ValueError(f"--set needs NAME=VALUE, not {text!r}")
    return name.strip(), value.strip()


def use_portable_code() -> None:
    """A packaged brain (``monte package``) compiles for the architecture's generic CPU, as its shipped cache was:
    numba then finds that cache on any machine of the kind (its key names the CPU). Set before numba loads, and
    inherited by the compile children."""
    if getattr(sys, "frozen", False):
        os.environ.setdefault("NUMBA_CPU_NAME", "generic")


def main(argv: list[str] | None = None) -> int:
    """Run the brain until END or the end of input; exit status 0 in both cases (the process leaves from here)."""
    ensure_stderr()
    use_portable_code()
    parser = build_parser()
    args = parser.parse_args(argv)
    configure_logging(args.log, parser)
    if args.compile_child is not None:
        from monte.brain import compile_child  # numba loads in there

        return compile_child.main(args.compile_child)
    if args.warmup:
        return warm_up()
    try:
        settings = dict(_split_setting(text) for text in args.settings)
        check_settings(args.engine, settings)
    except ValueError as exc:
        parser.error(str(exc))
    player = LoadingPlayer(args.engine, lambda: make_player(args.engine, args.seed, settings), QuickPlayer(),
                           load_before_ok=os.environ.get(LOAD_BEFORE_OK) == "1")
    writer = LineWriter(protocol_stdout())
    reader = StdinReader(sys.stdin.fileno()).start()
    try:
        Session(player, writer.send, reader.commands()).run()
    except KeyboardInterrupt:
        return 130
    writer.exit_now()  # END came or the input ended: leave at once, without tearing the interpreter down
