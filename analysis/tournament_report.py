"""A tournament's report page, ``OUT/report.md``: the standings and one line per decisive game with a link to its
picture (``OUT/games/gameNNNNN.svg``, drawn here) and its SGF, so a user sees how each game was won and lost."""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence

from monte.analysis.render import game_svg
from monte.tournaments.records import GameRecord, SavedGame
from monte.tournaments.report import standings

REPORT_NAME = "report.md"


def game_picture(out: Path, record: GameRecord) -> Path:
    """Draw the game as ``OUT/games/gameNNNNN.svg`` (beside its SGF and .psq) and return the path."""
    game = SavedGame.from_record(record)
    path = out / "games" / f"game{record.game_id:05d}.svg"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(game_svg(game, title=f"game {record.game_id}: {record.black} (black) vs {record.white} "
                                         f"(white), {game.result}"))
    return path


def write_report(out: Path, records: Sequence[GameRecord], names: Sequence[str], format: str,
                 sprt_line: str | None = None, turn_ms: int | Mapping[str, int] = 0) -> Path:
    """Write ``OUT/report.md`` for the games played so far (pictures of the decisive ones included); its path.
    `turn_ms` is the per-move limit the time table measures the engines against (0: none), or each engine's own."""
    lines = ["# Tournament report", "", "```", standings(records, names, format, turn_ms)]
    lines += [sprt_line, "```"] if sprt_line else ["```"]
    decisive = sorted((r for r in records if r.winner is not None), key=lambda r: r.game_id)
    lines += ["", f"## Decisive games ({len(decisive)} of {len(records)})", ""]
    if decisive:
        lines += ["| game | black | white | winner | how it ended | picture | record |", "|---|---|---|---|---|---|---|"]
    for record in decisive:
        picture = game_picture(out, record).relative_to(out)
        sgf = picture.with_suffix(".sgf")
        detail = f"{record.termination.value}: {record.detail}".replace("|", "/")
        lines.append(f"| {record.game_id} | {record.black} | {record.white} | {record.winner} | {detail} | "
                     f"[{picture.name}]({picture.as_posix()}) | [{sgf.name}]({sgf.as_posix()}) |")
    path = out / REPORT_NAME
    path.write_text("\n".join(lines) + "\n")
    return path
