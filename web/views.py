"""Games as the JSON the page draws: points are ``[x, y]`` in the protocol's coordinates (0-based, x the column from
the left, y the row from the top), stones ``[x, y, colour, ms]`` with colour 1 black and 2 white; the page names
points as people write them (``H8``)."""

from __future__ import annotations

from typing import Any

from monte.protocol.notation import named_points, rule_name
from monte.analysis.positions import board_at, winning_line
from monte.brain.board import Board
from monte.protocol.search_info import parse_search_info
from monte.tournaments.records import SavedGame, Termination
from monte.tournaments.referee import COLOR_NAMES, Ruling


def search_view(line: str, height: int) -> dict[str, Any] | None:
    """An engine's search info (its last MESSAGE line) for the page: depth and nodes in a few words, the evaluation on
    the one scale (``protocol.evaluation``: "win in N", "win rate 62.3%"), the win rate of the engine's side (None
    when the line gives none), and the principal variation as the protocol's points (``protocol.search_info`` reads
    both ``x,y`` and the realtime format's letters)."""
    info = parse_search_info(line)
    if info is None:
        return None
    pv = []
    for word in info.pv:
        x, comma, y = word.partition(",")
        if not (comma and x.isdigit() and y.isdigit()):
            break
        pv.append([int(x), int(y)])
    depth = f"depth {info.depth}" + (f"-{info.seldepth}" if info.seldepth else "") if info.depth else ""
    count = info.visits or info.nodes
    nodes = f"{count} {'visits' if info.visits else 'nodes'}" if count else ""
    return {"summary": "  ".join(part for part in (depth, nodes) if part), "evaluation": info.evaluation(),
            "winrate": info.win_rate(), "mate": info.mate, "pv": pv}


def ending(ruling: Ruling, labels: dict[int, str], width: int, height: int) -> str:
    """How the game ended, in a sentence for the page with its points named as on the board (L3, not 11,12);
    `labels` name who played each colour ("" to say nothing)."""
    detail = named_points(ruling.detail, width, height)
    if ruling.termination == Termination.INTERRUPTED:
        return f"Stopped: {detail}."
    if ruling.winner is None:
        return f"Draw: {detail}."
    label = labels[ruling.winner]
    winner = COLOR_NAMES[ruling.winner].capitalize() + (f" ({label})" if label else "")
    reason = {Termination.FIVE: "five in a row",
              Termination.FOUL: "black played a forbidden point (renju)"}.get(ruling.termination, detail)
    return f"{winner} wins: {reason}."


def saved_game_view(game: SavedGame, times_ms: list[int | None] | None = None) -> dict[str, Any]:
    """A whole game to step through: board, rule, players, result and every stone (with the time it took, when
    known), plus the winning row its last stone made, if any. ValueError if the stones cannot be set up."""
    board = board_at(game, len(game.stones))
    times = times_ms or [None] * len(game.stones)
    return {"width": game.width, "height": game.height, "rule": game.rule, "rule_name": rule_name(game.rule),
            "black": game.black, "white": game.white, "result": game.result, "opening": 0,
            "result_text": result_text(game.result, board),
            "stones": [[x, y, color, ms] for (x, y, color), ms in zip(game.stones, times)],
            "line": winning_line(board)}


def result_text(result: str, board: Board) -> str:
    """A game's result as a player reads it: who won and how (an SGF ``RE`` such as ``B+``, ``W+R``, ``Void``), the
    five on the board when the record does not say, or "unfinished"."""
    five = winning_line(board)
    if five:
        return f"{COLOR_NAMES[board.at(*five[0])].capitalize()} won: five in a row"
    result = result.strip()
    winner = {"B": "Black", "W": "White"}.get(result[:1].upper())
    if winner and result[1:2] == "+":
        how = {"R": " by resignation", "T": " on time", "F": " by forfeit"}.get(result[2:3].upper(), "")
        return f"{winner} won{how}"
    if result.lower() in ("0", "draw", "1/2-1/2"):
        return "Draw"
    return "Unfinished" if result.lower() in ("", "void", "?", "*") else f"Result {result}"

