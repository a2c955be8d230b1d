"""What an engine says of its search while it thinks, read from its MESSAGE lines for the live status line.

Engines write these lines in a few styles; one tolerant reader takes them all, keyword by keyword:
Rapfi's realtime alpha-beta line ``depth 12-18 ev 35 n 123456 n/ms 300 tm 1200 pv h8 i9``, its MCTS line
``... w 0.623 ... v 24353 ... seldepth 20 ... pv ...`` and Monte's own summary ``depth 20 winrate 62.3% iterations
24353 speed 162.2k/s time 150ms pv 8,9 7,6``. Unknown words are skipped; the principal variation is the run of points after ``pv``.

Points in a line come as the protocol's ``x,y`` or in the realtime format's notation, a letter for the column and
``y + 1`` for the row counted from the top (Rapfi writes the protocol's 8,7 as ``I8``; so does Monte). The reader
turns the latter into ``x,y``: the board the person sees labels rows from the bottom (``monte.protocol.notation``), so
the letters cannot be shown as they were written.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from monte.protocol.evaluation import evaluation_text, mate_plies, proof_text
from monte.protocol.report import EVAL_SCALE, MAX_EVAL


_MOVE = re.compile(r"\d+,\d+|[A-Za-z]\d{1,2}")
_REALTIME_POINT = re.compile(r"([A-Za-z])(\d{1,2})")
_KEYS = {"depth": "depth", "seldepth": "seldepth", "ev": "eval", "w": "winrate", "winrate": "winrate",
         "n": "nodes", "nodes": "nodes", "v": "visits", "visits": "visits", "iterations": "visits",
         "tm": "time", "time": "time", "n/ms": "speed", "speed": "speed"}
_COUNTS = {"nodes", "visits"}


@dataclass
class ReportedSearch:
    """What any engine's search line said, as text read back (None where it did not say); Monte's own search
    describes itself with ``brain.player.SearchInfo``, whose numbers ``protocol.report`` writes into such lines."""

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
    """The protocol's ``x,y`` points (realtime-format points converted); ``notation.search_summary``
    names them as the board does."""

    @property
    def mate(self) -> int:
        """Plies to a proven win (> 0) or loss (< 0) from the evaluation (``+M7``), 0 when nothing is proven."""
        return mate_plies(self.eval or "") or 0

    def win_rate(self) -> float | None:
        """The side to move's chance, 0..1: 1 or 0 for a proof, the line's own win rate, else its evaluation turned
        into one by the GUIs' logistic curve (``protocol.report.EVAL_SCALE``); None when the line gives neither, or
        when the engine searched nothing (a forced move: 0 nodes, no proof) and so has no estimate."""
        if self.mate:
            return 1.0 if self.mate > 0 else 0.0
        if (self.visits or self.nodes) == "0":
            return None
        if self.winrate is not None:
            return self.winrate
        value = _number(self.eval or "")
        return None if value is None else 1 / (1 + math.exp(-max(-MAX_EVAL, min(MAX_EVAL, value)) / EVAL_SCALE))

    def evaluation(self) -> str:
        """What the line says of the position on the one scale people read (``protocol.evaluation``): "win in N",
        "loss in N", "win rate 62.3%", or "" when it says nothing."""
        if self.mate:
            return proof_text(self.mate)
        rate = self.win_rate()
        return "" if rate is None else evaluation_text(rate)


def parse_search_info(line: str) -> ReportedSearch | None:
    """The search info of a MESSAGE line (the ``MESSAGE`` word optional), or None if it holds none."""
    words = [word.rstrip(",;") for word in line.split()]  # Monte's summary: "winrate 80.7%, depth 11-18, ..."
    if words and words[0].upper() == "MESSAGE":
        words = words[1:]
    info = ReportedSearch()
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
        if name in _COUNTS and i > 0 and words[i - 1].isdigit() and not (i + 1 < len(words) and words[i + 1].isdigit()):
            setattr(info, name, words[i - 1])  # Monte's summary writes the number first: "24896 iterations in ..."
            found = True
            i += 1
            continue
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
