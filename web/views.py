"""Games as the JSON the page draws: points are ``[x, y]`` in the protocol's coordinates (0-based, x the column from
the left, y the row from the top), stones ``[x, y, colour, ms]`` with colour 1 black and 2 white; the page names
points as people write them (``H8``)."""

from __future__ import annotations

from typing import Any

from monte.analysis.notation import rule_name, search_summary
from monte.analysis.positions import board_at
from monte.brain.board import Board
from monte.brain import kernels
from monte.protocol.search_info import parse_search_info
from monte.tournaments.records import SavedGame, Termination
from monte.tournaments.referee import COLOR_NAMES, Ruling


def winning_line(board: Board) -> list[list[int]]:
    """The points of the five (or longer winning row) that the last stone made under the board's rule, or []."""
    if not board.history:
        return []
    last = board.history[-1]
    idx = board.index(last.x, last.y)
    rules = kernels.module("monte.brain.rules")  # the compiled rules once loaded, else the same code interpreted
    for direction in range(4):
        step = rules.line_step(board.stride, direction)
        if rules.five_in_direction(board.cells, idx, step, last.color, board.rule):
            back, forward = rules.run_bounds(board.cells, idx, step, last.color)
            return [list(board.coords(idx + k * step)) for k in range(-back, forward + 1)]
    return []


def search_view(line: str, height: int) -> dict[str, Any] | None:
    """An engine's search info (its last MESSAGE line) for the page: a one-line summary, and the principal variation
    as the protocol's points (``play.search_info`` reads both ``x,y`` and the realtime format's letters)."""
    info = parse_search_info(line)
    if info is None:
        return None
    pv = []
    for word in info.pv:
        x, comma, y = word.partition(",")
        if not (comma and x.isdigit() and y.isdigit()):
            break
        pv.append([int(x), int(y)])
    return {"summary": search_summary(info, height), "depth": info.depth, "winrate": info.winrate, "pv": pv}


def ending(ruling: Ruling, labels: dict[int, str]) -> str:
    """How the game ended, in a sentence for the page; `labels` name who played each colour ("" to say nothing)."""
    if ruling.termination == Termination.INTERRUPTED:
        return f"Stopped: {ruling.detail}."
    if ruling.winner is None:
        return f"Draw: {ruling.detail}."
    label = labels[ruling.winner]
    winner = COLOR_NAMES[ruling.winner].capitalize() + (f" ({label})" if label else "")
    reason = {Termination.FIVE: "five in a row",
              Termination.FOUL: "black played a forbidden point (renju)"}.get(ruling.termination, ruling.detail)
    return f"{winner} wins: {reason}."


def saved_game_view(game: SavedGame, times_ms: list[int | None] | None = None) -> dict[str, Any]:
    """A whole game to step through: board, rule, players, result and every stone (with the time it took, when
    known), plus the winning row its last stone made, if any. ValueError if the stones cannot be set up."""
    board = board_at(game, len(game.stones))
    times = times_ms or [None] * len(game.stones)
    return {"width": game.width, "height": game.height, "rule": game.rule, "rule_name": rule_name(game.rule),
            "black": game.black, "white": game.white, "result": game.result,
            "stones": [[x, y, color, ms] for (x, y, color), ms in zip(game.stones, times)],
            "line": winning_line(board)}
