"""The MESSAGE lines that report a move's search, in the format that GUIs and clients read.

Gomocup leaves MESSAGE free, but the clients people watch engines in (PyGomo, and the GUIs built on Rapfi's
conventions) parse Rapfi's realtime ("UCI-like") line::

    depth 3-14 ev 84 n 24353 n/ms 162 tm 150 pv H8 I9 G7

depth and selective depth, the evaluation (``+M7``/``-M7``: a proven win/loss in 7 plies), nodes, nodes per
millisecond, milliseconds, and the principal variation as a letter for x and a number for y + 1 (Rapfi's notation;
boards wider than 26, which letters cannot name, get ``x,y``). Clients turn the evaluation into a win rate with a
logistic curve, ``1 / (1 + exp(-ev / EVAL_SCALE))``, so Monte's win rate is sent as the evaluation that curve maps
back to it.

Before it goes Monte's own summary, for people reading the messages: the win rate in per cent, the iterations, how
full the search tree is (``tree 63%``: of the memory it may take), and how the move was found. It carries the same
depth, evaluation and line in words a parser finds, so that a client that reads every MESSAGE as search info (PyGomo
does) reads the same numbers from both; the Rapfi line comes last, where a client that keeps the last one finds
everything.
"""

from __future__ import annotations

import math

from monte.brain.player import SearchInfo

EVAL_SCALE = 400.0
"""The scale of the logistic curve from evaluation to win rate (PyGomo's default)."""
MAX_EVAL = 3000
"""The largest evaluation sent for a win rate not proven (a win rate of 99.95%)."""


def search_messages(info: SearchInfo, width: int) -> list[str]:
    """The MESSAGE texts (without the word MESSAGE) for a move's search on a board `width` cells wide: Monte's
    summary, then the Rapfi line."""
    return [summary_line(info, width), rapfi_line(info, width)]


def rapfi_line(info: SearchInfo, width: int) -> str:
    """Rapfi's realtime line for `info`."""
    ms = max(0, round(info.seconds * 1000))
    return (f"depth {info.depth}-{info.seldepth} ev {evaluation(info)} n {info.nodes} "
            f"n/ms {info.nodes // max(ms, 1)} tm {ms} pv {moves_text(info.pv, width)}")


def summary_line(info: SearchInfo, width: int) -> str:
    """Monte's readable summary of `info`, ending in the evaluation and the line (see the module docstring)."""
    tree = f", tree {info.tree * 100:.0f}%" if info.tree is not None else ""
    how = f", {info.note}" if info.note else ""
    return (f"Monte: winrate {info.winrate * 100:.1f}%, depth {info.depth}-{info.seldepth}, {info.nodes} iterations "
            f"in {info.seconds * 1000:.0f} ms{tree}{how}; ev {evaluation(info)} pv {moves_text(info.pv, width)}")


def evaluation(info: SearchInfo) -> str:
    """``+M<plies>`` or ``-M<plies>`` for a proven result, else the win rate as an evaluation on EVAL_SCALE."""
    if info.mate > 0:
        return f"+M{info.mate}"
    if info.mate < 0:
        return f"-M{-info.mate}"
    p = min(max(info.winrate, 1e-9), 1 - 1e-9)
    return str(max(-MAX_EVAL, min(MAX_EVAL, round(EVAL_SCALE * math.log(p / (1 - p))))))


def moves_text(moves: list[tuple[int, int]], width: int) -> str:
    """The moves in Rapfi's notation (``H8``: x as a letter, y + 1), or as ``x,y`` on a board wider than 26;
    ``(NONE)`` for no move, as Rapfi writes it."""
    if not moves:
        return "(NONE)"
    if width > 26:
        return " ".join(f"{x},{y}" for x, y in moves)
    return " ".join(f"{chr(ord('A') + x)}{y + 1}" for x, y in moves)
