"""A tournament config's match refereed by another manager, c-gomoku-cli, and reported as ``monte tournament`` does.

A strength figure should not depend on who referees the games. This takes the same config and flags as
``monte tournament`` (exactly two engines after ``--only``; the first is the one measured), writes the openings that
the runner's schedule gives that pairing -- in the same order, one line per game pair -- as an offset file,
builds the c-gomoku-cli command line (clocks per engine, ``max_memory``, extra INFO lines, rule, board, colours
paired with ``-repeat``), runs it, and reads its SGF back into game records, so the W/L/D, the Elo from complete
pairs with its 95% interval, the endings and the move times come out of the runner's own report code.

    python -m monte.lab.cgomoku_crosscheck tournaments/configs/sparring.toml --only monte,pela --games 10 \\
        --openings freestyle15-balanced-test.txt --out runs/cgc-pela --cgomoku /tmp/sparring/bin/c-gomoku-cli

c-gomoku-cli's own per-move tolerance (3 s unless ``--tolerance-s``) is kept by default: it also bounds the wait
for ``OK`` after ``START``, when a Monte brain loads its engine (``MONTE_LOAD_BEFORE_OK=1``, as the runner sets).
The games land in OUT as ``games.sgf`` (c-gomoku-cli's) and ``games.jsonl`` (the runner's records), scored as
c-gomoku-cli scored them; a game it ended at START gets a note naming the engine its log blames, since c-gomoku-cli
charges such a loss by colour order, not to the engine that failed (``start_note``).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from monte.protocol.client import LOAD_BEFORE_OK
from monte.tournaments.config import ConfigError, TournamentConfig, add_flags, config_from_args, engine_clock
from monte.tournaments.engines import EngineSpec
from monte.tournaments.records import LOG_NAME, GameRecord, Termination, append_jsonl
from monte.tournaments.report import standings
from monte.tournaments.runner import RunError, build_openings
from monte.tournaments.scheduler import schedule

_GAME = re.compile(r"\(;(.*?)\)\s*(?=\(;|\Z)", re.DOTALL)
_ROOT_PROPERTY = re.compile(r"([A-Z]{2})\[([^\]]*)\]")
_MOVE = re.compile(r";([BW])\[([a-z])([a-z])\]C\[([^\]]*)\]")
_MS = re.compile(r"(\d+)ms")
_ENDINGS = (("five connection", Termination.FIVE), ("time forfeit", Termination.TIME),
            ("illegal move", Termination.ILLEGAL), ("crash", Termination.CRASH),
            ("forbidden move", Termination.FOUL), ("fullfilled board", Termination.DRAW_FULL),
            ("adjudication", Termination.RESIGN))
"""c-gomoku-cli's TE[...] texts (game.cpp, decode_state), spelling included, and what the runner calls them."""
_START_FAULT = re.compile(r"^\[\d+\] engine .+? (?:output error:.*|(?:timeout|crashed) before answering START)$",
                          re.MULTILINE)
"""What c-gomoku-cli logs when an engine does not answer START with OK (engine.cpp, ``Engine::wait_for_ok``)."""


def two_engines(config: TournamentConfig) -> tuple[EngineSpec, EngineSpec]:
    """The measured engine and its opponent; ValueError unless the config holds exactly two, both plain commands."""
    if len(config.engines) != 2:
        names = ", ".join(engine.name for engine in config.engines)
        raise ValueError(f"c-gomoku-cli plays one pairing: pick two engines with --only (the config has {names})")
    for engine in config.engines:
        if engine.revision:
            raise ValueError(f"engine {engine.name}: a git revision ({engine.revision}) is the runner's feature; "
                             f"give its installed pbrain-monte path instead")
    return config.engines[0], config.engines[1]


def pair_openings(config: TournamentConfig) -> list[tuple[tuple[int, int], ...]]:
    """The opening of each game pair, in the order the runner's schedule plays them for this pairing."""
    openings, _ = build_openings(config)
    names = [engine.name for engine in config.engines]
    games = schedule(names, config.format, openings, games=config.games, rounds=config.rounds)
    return [game.opening.stones for game in games if game.black == names[0]]


def offset_line(stones: tuple[tuple[int, int], ...], width: int, height: int) -> str:
    """An opening in the offset format both managers read: each stone relative to the centre cell."""
    cx, cy = width // 2, height // 2
    return ", ".join(f"{x - cx},{y - cy}" for x, y in stones)


def _quoted(arg: str) -> str:
    """An argument as c-gomoku-cli's command splitter reads it: double quotes around one with a space."""
    if not re.search(r'[\s"\\]', arg):
        return arg
    return '"' + arg.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _engine_args(config: TournamentConfig, engine: EngineSpec, tolerance_s: float | None) -> list[str]:
    program = shutil.which(engine.command[0]) or engine.command[0]
    clock = engine_clock(config, engine.name)
    args = ["-engine", "cmd=" + " ".join(_quoted(a) for a in (program, *engine.command[1:])), f"name={engine.name}",
            f"tc={clock.timeout_match_ms / 1000:g}/{clock.timeout_turn_ms / 1000:g}",
            f"maxmemory={config.max_memory}"]
    if tolerance_s is not None:
        args.append(f"tolerance={tolerance_s:g}")
    return args + [f"option.{key}={value}" for key, value in engine.info]


def command_line(config: TournamentConfig, cgomoku: str, openings: Path, sgf: Path,
                 tolerance_s: float | None = None) -> list[str]:
    """The c-gomoku-cli command that plays the config's pairing on `openings` (one line a pair), colours paired."""
    if config.width != config.board_height:
        raise ValueError(f"c-gomoku-cli plays square boards only, not {config.width}x{config.board_height}")
    first, second = two_engines(config)
    args = [cgomoku, *_engine_args(config, first, tolerance_s), *_engine_args(config, second, tolerance_s),
            "-rule", str(config.rule), "-boardsize", str(config.width), "-games", str(config.games * config.rounds),
            "-repeat", "-concurrency", str(config.concurrency), "-openings", f"file={openings}", "order=sequential",
            "-sgf", str(sgf)]
    if config.draw_after:
        args += ["-drawafter", str(config.draw_after)]
    return args


def _ending(text: str) -> Termination:
    for words, termination in _ENDINGS:
        if words in text:
            return termination
    raise ValueError(f"unknown c-gomoku-cli ending TE[{text}]")


def read_games(text: str, pairing: tuple[str, str], rule: int) -> list[GameRecord]:
    """c-gomoku-cli's SGF games as the runner's records; a pair is two games in a row (``-repeat``)."""
    records = []
    for number, match in enumerate(_GAME.finditer(text), start=1):
        body = match.group(1)
        root = dict(_ROOT_PROPERTY.findall(body.split(";", 1)[0]))
        if "SZ" not in root or "RE" not in root:
            raise ValueError(f"SGF game {number}: no SZ[...] or RE[...] in its first node")
        size = int(root["SZ"])
        black, white = root.get("PB", ""), root.get("PW", "")
        if {black, white} != set(pairing):
            raise ValueError(f"SGF game {number}: players {black!r} and {white!r}, not {pairing[0]!r} and {pairing[1]!r}")
        opening, moves = [], []
        for _, x, y, comment in _MOVE.findall(body):
            point = (ord(x) - ord("a"), ord(y) - ord("a"))
            ms = _MS.fullmatch(comment)
            if ms:
                moves.append((*point, int(ms.group(1))))
            else:
                opening.append(point)
        result = root["RE"]
        winner = black if result.startswith("B+") else white if result.startswith("W+") else None
        game_id = int(root.get("GN", number))
        records.append(GameRecord(game_id, pairing, (game_id - 1) // 2, black, white, size, size,
                                  int(root.get("RU", rule)), opening, moves, winner, _ending(root.get("TE", "")),
                                  root.get("TE", "")))
    return records


def start_note(records: list[GameRecord], log: str) -> str | None:
    """A warning for the games c-gomoku-cli ended before any move as a time loss, or None. Such a game failed at
    START, and c-gomoku-cli (game.cpp, ``Game::play``) scores a failed START by the colour index it toggles beside
    the engine index, not by the engine that failed: the loss may be the other engine's. Its log names the engine."""
    games = [record.game_id for record in records if record.termination is Termination.TIME and not record.moves]
    if not games:
        return None
    said = "; ".join(_START_FAULT.findall(log)) or "nothing"
    return (f"note: c-gomoku-cli ended game {', '.join(map(str, games))} at START, as a time loss scored by colour "
            f"order rather than by the engine that failed (its game.cpp); its log says: {said}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m monte.lab.cgomoku_crosscheck", description=__doc__.split("\n")[0])
    parser.add_argument("config", nargs="?", help="a tournament TOML file; the flags below override it")
    parser.add_argument("--cgomoku", default="c-gomoku-cli", help="the c-gomoku-cli program (default: from PATH)")
    parser.add_argument("--tolerance-s", type=float, default=None,
                        help="c-gomoku-cli's per-move tolerance in s (default: its own, 3 s)")
    parser.add_argument("--print-only", action="store_true", help="write the openings, print the command, stop")
    add_flags(parser)
    args = parser.parse_args(argv)
    try:
        config = config_from_args(args)
        out = Path(config.out)
        out.mkdir(parents=True, exist_ok=True)
        openings, sgf = out / "openings.txt", out / "games.sgf"
        openings.write_text("".join(offset_line(stones, config.width, config.board_height) + "\n"
                                    for stones in pair_openings(config)))
        command = command_line(config, args.cgomoku, openings, sgf, args.tolerance_s)
    except (ConfigError, RunError, ValueError) as exc:
        print(f"cgomoku_crosscheck: {exc}", file=sys.stderr)
        return 2
    print(" ".join(_quoted(a) for a in command))
    if args.print_only:
        return 0
    if shutil.which(args.cgomoku) is None:
        print(f"cgomoku_crosscheck: cannot run {args.cgomoku!r}: no such program", file=sys.stderr)
        return 2
    if sgf.exists() or (out / LOG_NAME).exists():
        print(f"cgomoku_crosscheck: {out} holds games already; give another --out", file=sys.stderr)
        return 2
    with open(out / "cgomoku.log", "w") as log:
        status = subprocess.run(command, stdout=log, stderr=subprocess.STDOUT,
                                env={**os.environ, LOAD_BEFORE_OK: "1"}).returncode
    names = [engine.name for engine in config.engines]
    records = read_games(sgf.read_text() if sgf.exists() else "", (names[0], names[1]), config.rule)
    for record in records:
        append_jsonl(out / LOG_NAME, record)
    turn = {name: engine_clock(config, name).timeout_turn_ms for name in names}
    print(f"c-gomoku-cli exited with {status}; {len(records)} games in {sgf}")
    note = start_note(records, (out / "cgomoku.log").read_text(errors="replace"))
    if note:
        print(note)
    print(standings(records, names, "gauntlet", turn))
    return 0 if status == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
