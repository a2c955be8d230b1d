"""The web board's analysis worker: a process of its own that searches the position the page shows until told
otherwise, and writes what Monte's search has found as it deepens.

It reads one JSON object a line on stdin -- ``{"key": K, "width": W, "height": H, "rule": R, "moves": [[x, y], ...]}``
to search that position (whatever it was searching is stopped first; with ``"graph": true``, every position of the
game instead, briefly, for the win-rate graph), ``{"key": K, "stop": true}`` to stop -- and
writes one JSON object a line on stdout for each report: the position's `key`, whether the search is `done`, the
evaluation on the one scale (``protocol.evaluation``), the nodes, depth and seconds so far, and the top moves with
their win rates, proofs and lines. A finished position (a five, a full board) is reported as such and not searched.

The search is the brain's public window (``brain.search_view.analyze``, with ``on_progress``), run in this process so
that the server's event loop never waits on the compiled search, and so that stopping a tab's analysis is stopping a
process (``web.analysis``).
"""

from __future__ import annotations

import json
import sys
import threading
from dataclasses import replace
from typing import Any

from monte.protocol.evaluation import evaluation_text
from monte.analysis.positions import winning_line
from monte.brain.board import Board, IllegalMove
from monte.brain.engine import MctsPlayer
from monte.brain.player import ThinkLimits
from monte.brain.search_view import Analysis, analyze
from monte.tournaments.referee import COLOR_NAMES

TOP = 8
"""Candidate moves reported (and labelled on the board)."""
GRAPH_NODES = 3000
"""The node budget of each position's search in a pass over a whole game (``"graph": true``): a few tenths of a
second each, enough for the graph's trend."""
SEARCH_S = 3600.0
"""How long one analysis may run: in effect until the page stops it or moves on."""

_write_lock = threading.Lock()


def emit(message: dict[str, Any]) -> None:
    with _write_lock:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()


def position(request: dict[str, Any]) -> Board:
    """The board a request names; ValueError for one that cannot be set up."""
    try:
        board = Board(int(request["width"]), int(request["height"]), int(request.get("rule", 0)))
        for x, y in request["moves"]:
            board.play(int(x), int(y))
    except (KeyError, TypeError, ValueError, IllegalMove) as exc:
        raise ValueError(f"not a position: {exc}") from None
    return board


def report(key: Any, result: Analysis, done: bool) -> dict[str, Any]:
    """One report of the search of position `key`, as the page reads it (points as the protocol's [x, y])."""
    searched = bool(result.iterations or result.mate)
    return {"key": key, "done": done, "evaluation": evaluation_text(result.winrate, result.mate) if searched else "",
            "winrate": result.winrate if searched else None, "mate": result.mate, "nodes": result.nodes,
            "iterations": result.iterations, "depth": result.depth, "seconds": round(result.seconds, 2),
            "note": result.note, "best": list(result.move),
            "moves": [{"move": list(m.move), "visits": m.visits, "winrate": m.winrate if m.visits or m.proof else None,
                       "proof": m.proof, "pv": [list(p) for p in m.pv[:12]]} for m in result.moves]}


def finished(board: Board) -> str:
    """Why there is nothing to search in `board` ("" when there is something)."""
    five = winning_line(board)
    if five:
        return f"{COLOR_NAMES[board.at(*five[0])]} has made five: the game is over"
    return "the board is full" if board.is_full() else ""


def finished_report(key: Any, board: Board, reason: str) -> dict[str, Any]:
    """The report of a finished position: the side to move has lost to the five (a win rate of 0), or drawn."""
    return {"key": key, "done": True, "finished": reason, "winrate": 0.0 if winning_line(board) else 0.5,
            "mate": 0, "moves": []}


class Worker:
    """One search at a time, on a thread; a new request stops the one under way first."""

    def __init__(self) -> None:
        self.player = MctsPlayer()
        self.thread: threading.Thread | None = None
        self.limits: ThinkLimits | None = None

    def stop(self) -> None:
        if self.thread is not None:
            self.limits.stop.set()
            self.thread.join()
            self.thread = None

    def graph(self, key: Any, moves: list[tuple[int, int]], board: Board) -> None:
        """Search every position of the game, from the empty board on, `GRAPH_NODES` nodes each, and report each
        one's evaluation (``step``: the stones on the board) as it is found."""
        self.stop()
        self.limits = ThinkLimits.seconds(SEARCH_S)
        limits = self.limits

        def searches() -> None:
            position = Board(board.width, board.height, board.rule)
            for step in range(len(moves) + 1):
                if limits.stop.is_set():
                    return
                reason = finished(position)
                if reason:
                    emit({**finished_report(key, position, reason), "step": step, "graph": True})
                else:
                    budget = replace(limits, max_nodes=GRAPH_NODES)
                    result = analyze(position, budget, top=1, player=self.player)
                    if limits.stop.is_set():
                        return
                    emit({**report(key, result, step == len(moves)), "step": step, "graph": True, "moves": []})
                if step < len(moves):
                    position.play(*moves[step])
            emit({"key": key, "done": True, "graph": True, "moves": []})

        self.thread = threading.Thread(target=searches, name="graph", daemon=True)
        self.thread.start()

    def start(self, key: Any, board: Board) -> None:
        self.stop()
        reason = finished(board)
        if reason:
            emit(finished_report(key, board, reason))
            return
        self.limits = ThinkLimits.seconds(SEARCH_S)
        limits = self.limits

        def search() -> None:
            result = analyze(board, limits, top=TOP, player=self.player,
                             on_progress=lambda so_far: None if limits.stop.is_set() else emit(report(key, so_far,
                                                                                                      False)))
            emit(report(key, result, True))

        self.thread = threading.Thread(target=search, name="analysis", daemon=True)
        self.thread.start()


def main() -> int:
    worker = Worker()
    for line in sys.stdin:
        try:
            request = json.loads(line)
            key = request.get("key") if isinstance(request, dict) else None
            if not isinstance(request, dict) or request.get("stop"):
                worker.stop()
                continue
            board = position(request)
            if request.get("graph"):
                worker.graph(key, [tuple(p) for p in request["moves"]], board)
            else:
                worker.start(key, board)
        except ValueError as exc:
            emit({"key": None, "done": True, "error": str(exc), "moves": []})
    worker.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
