"""The tournament runs the page can replay: the folders under ``--runs`` (``runs/`` by default, where
``monte tournament`` writes) that hold a ``games.jsonl``, or that folder itself when it is a run.

A run is only ever looked up by a name from this listing, so a name from the page never reaches the file system as a
path. The log is read afresh on each request: a tournament still running shows its new games.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from monte.protocol.notation import named_points, rule_name
from monte.tournaments.records import LOG_NAME, GameRecord, SavedGame, Termination, read_jsonl
from monte.web.views import saved_game_view



class RunNotFound(LookupError):
    """No run or game by that name or id; its text is the reply."""


class RunFolders:
    """The runs found under one folder."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def runs(self) -> dict[str, Path]:
        """Each run's name (its folder's name) and log, newest first."""
        if (self.root / LOG_NAME).is_file():
            logs = [self.root / LOG_NAME]
        elif self.root.is_dir():
            logs = [folder / LOG_NAME for folder in self.root.iterdir() if (folder / LOG_NAME).is_file()]
        else:
            logs = []
        logs.sort(key=lambda log: log.stat().st_mtime, reverse=True)
        return {log.parent.resolve().name: log for log in logs}

    def _records(self, run: str) -> list[GameRecord]:
        log = self.runs().get(run)
        if log is None:
            raise RunNotFound(f"no run {run!r} under {self.root}")
        return read_jsonl(log)

    def games(self, run: str) -> list[dict[str, Any]]:
        """A line for each game of `run`: players, result, how it ended, length."""
        return [{"id": r.game_id, "black": r.black, "white": r.white, "result": _result(r),
                 "termination": r.termination.value, "detail": named_points(r.detail, r.width, r.height),
                 "moves": len(r.opening) + len(r.moves),
                 "size": f"{r.width}x{r.height}", "rule": rule_name(r.rule)} for r in self._records(run)]

    def game(self, run: str, game_id: int) -> dict[str, Any]:
        """Game `game_id` of `run` to step through, with each engine move's time (the opening's stones have none)."""
        for record in self._records(run):
            if record.game_id == game_id:
                view = saved_game_view(SavedGame.from_record(record),
                                       [None] * len(record.opening) + [ms for _, _, ms in record.moves])
                return {**view, "id": game_id, "run": run, "opening": len(record.opening),
                        "termination": record.termination.value,
                        "detail": named_points(record.detail, record.width, record.height)}
        raise RunNotFound(f"run {run!r} has no game {game_id}")


def _result(record: GameRecord) -> str:
    """1-0 (black won), 0-1, 1/2-1/2 for a draw, * for a game that did not finish."""
    if record.winner is None:
        return "*" if record.termination == Termination.INTERRUPTED else "1/2-1/2"
    return "1-0" if record.winner == record.black else "0-1"
