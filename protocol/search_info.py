"""What an engine says of its search while it thinks, read from its MESSAGE lines for the live status line.

Engines write these lines in a few styles; one tolerant reader takes them all, keyword by keyword:
Rapfi's realtime alpha-beta line ``depth 12-18 ev 35 n 123456 n/ms 300 tm 1200 pv h8 i9``, its MCTS line
``... w 0.623 ... v 24353 ... seldepth 20 ... pv ...`` and Monte's own summary ``depth 20 winrate 62.3% iterations
24353 speed 162.2k/s time 150ms pv 8,9 7,6``. Unknown words are skipped; the principal variation is the run of points after ``pv``.

Points in a line come as the protocol's ``x,y`` or in the realtime format's notation, a letter for the column and
``y + 1`` for the row counted from the top (Rapfi writes the protocol's 8,7 as ``I8``; so does Monte). The reader
turns the latter into ``x,y``: the board the person sees labels rows from the bottom (``monte.analysis.notation``), so
the letters cannot be shown as they were written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field


_MOVE = re.compile(r"\d+,\d+|[A-Za-z]\d{1,2}")
_REALTIME_POINT = re.compile(r"([A-Za-z])(\d{1,2})")
_KEYS = {"depth": "depth", "seldepth": "seldepth", "ev": "eval", "w": "winrate", "winrate": "winrate",
         "n": "nodes", "nodes": "nodes", "v": "visits", "visits": "visits", "iterations": "visits",
         "tm": "time", "time": "time", "n/ms": "speed", "speed": "speed"}


@dataclass
class SearchInfo:
    """The fields a search line gave (None where it did not say)."""

    depth: str | None = None
    seldepth: str | None = None
    eval: str | None = None
    winrate: float | None = None
    """0..1 for the side to move."""
    nodes: str | None = None
    visits: str | None = None
    speed: str | None = None
    time: str | None = None
    pv: list[str] = field(default_factory=list)
    """The protocol's ``x,y`` points (realtime-format points converted); ``analysis.notation.search_summary``
    names them as the board does."""


def parse_search_info(line: str) -> SearchInfo | None:
    """The search info of a MESSAGE line (the ``MESSAGE`` word optional), or None if it holds none."""
    words = [word.rstrip(",;") for word in line.split()]  # Monte's summary: "winrate 80.7%, depth 11-18, ..."
    if words and words[0].upper() == "MESSAGE":
        words = words[1:]
    info = SearchInfo()
    found = False
    i = 0
    while i < len(words):
        key = words[i].lower()
        if key == "pv":
            for word in words[i + 1:]:
                if not _MOVE.fullmatch(word):
                    break  # the line goes on after its moves (Monte adds a note such as "forced")
                info.pv.append(_protocol_point(word))
            found = found or bool(info.pv)
            break
        name = _KEYS.get(key)
        if name is not None and i + 1 < len(words):
            value = words[i + 1]
            if name == "winrate":
                rate = _number(value.rstrip("%"))
                if rate is not None:
                    info.winrate = rate / 100 if value.endswith("%") or rate > 1 else rate
                    found = True
            elif name == "depth" and "-" in value:
                info.depth, info.seldepth = value.split("-", 1)
                found = True
            else:
                setattr(info, name, value)
                found = True
            i += 2
            continue
        i += 1
    return info if found else None


def _protocol_point(word: str) -> str:
    """A point of a search line as the protocol's ``x,y``: a realtime-format point (column letter, row from the top
    plus one) is converted, an ``x,y`` kept."""
    m = _REALTIME_POINT.fullmatch(word)
    if m is None:
        return word
    return f"{ord(m.group(1).lower()) - ord('a')},{int(m.group(2)) - 1}"


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None
