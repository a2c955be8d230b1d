"""Tournament settings: one dataclass, read from a TOML file and overridden by command-line flags.

Every setting is declared once, as a field of ``TournamentConfig`` with its TOML section, help text and check in the
field's metadata; the TOML reader, the argparse flags and the validation are all derived from that one table, so a
setting cannot exist in one place and be missing in another. Errors are one line naming the field that is wrong,
e.g. ``[game] timeout_turn_ms: must be an integer >= 0, got -5``.

TOML layout (every key optional except the engines; see tournaments/configs/*.toml)::

    [tournament]  format, games, rounds, concurrency, out, resume, repo, cluster
    [game]        width, height, rule, timeout_turn_ms, timeout_match_ms, max_memory, tolerance_ms, start_timeout_ms,
                  first_move_grace_ms, first_move, draw_after, memory_loses
    [openings]    file, order, seed, random, stones
    [sprt]        enabled, elo0, elo1, alpha, beta
    [[engine]]    name, command (a string or a list), revision, cwd, info, timeout_turn_ms, timeout_match_ms
                  -- one table per engine

An engine's ``info`` is a table of its own INFO settings, sent after the standard ones, e.g.
``info = { max_node = 20000, thread_num = 1 }`` (flag: ``--info NAME:KEY=VALUE``). An engine's ``timeout_turn_ms``
and ``timeout_match_ms`` give it a clock of its own (time odds; flag: ``--clock NAME=TURN_MS[/MATCH_MS]``); what it
leaves out comes from ``[game]``.

Relative paths (``out``, ``openings.file``) are taken from the current directory, like the flags; an openings file
that is not found there is also looked for among the files shipped in ``tournaments/openings/``.
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import re
import shlex
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from monte.brain.board import MAX_SIZE, MIN_SIZE
from monte.protocol.client import GARBAGE_POLICIES, TOLERANCE_MS
from monte.tournaments.engines import EngineClock, EngineError, EngineSpec, engine_info, parse_clock_flag, parse_info_flag
from monte.tournaments.scheduler import pairings

FORMATS = ("round-robin", "gauntlet")
FIRST_MOVES = ("board", "begin")
ORDERS = ("sequential", "shuffle")
RULES = (0, 1, 4, 8, 9)
SECTIONS = ("tournament", "game", "openings", "sprt")
SHIPPED_OPENINGS = Path(__file__).resolve().parent / "openings"
ENGINE_KEYS = ["name", "command", "revision", "cwd", "info", "timeout_turn_ms", "timeout_match_ms"]
CLOCK_KEYS = ("timeout_turn_ms", "timeout_match_ms")
CLUSTER_ADDRESS = re.compile(r"local:[1-9]\d*|(tcp|tls|ws|wss)://\S+")
"""What ``cluster`` may say: N local worker processes, or the address of a Dask scheduler."""


class ConfigError(ValueError):
    """A setting that is missing, of the wrong type or out of range; the message is one line naming it."""


def setting(section: str, default: Any, help: str, *, key: str | None = None, choices: tuple | None = None,
            minimum: float | None = None, maximum: float | None = None, flag: str | None = None) -> Any:
    """A config field: its TOML ``[section] key``, default, help and the checks its value must pass."""
    meta = {"section": section, "key": key, "help": help, "choices": choices, "minimum": minimum,
            "maximum": maximum, "flag": flag}
    return field(default=default, metadata=meta)


@dataclass(frozen=True)
class TournamentConfig:
    """Everything a tournament needs to know. Field metadata says where each setting lives in TOML."""

    engines: tuple[EngineSpec, ...] = ()

    format: str = setting("tournament", "round-robin", "round-robin: every engine meets every other; "
                          "gauntlet: the first engine meets each of the others", choices=FORMATS)
    games: int = setting("tournament", 2, "games per pairing in each round (even: pairs from one opening, colours "
                         "swapped)", minimum=2)
    rounds: int = setting("tournament", 1, "rounds (each pairing plays `games` games per round)", minimum=1)
    concurrency: int = setting("tournament", 1, "games played at once", minimum=1)
    out: str = setting("tournament", "runs/tournament", "folder for games.jsonl, SGF/PSQ games and engine logs")
    resume: bool = setting("tournament", False, "continue the run in `out`, skipping the games already logged")
    repo: str = setting("tournament", "", "git repository in which engine revisions (pbrain-monte@REV, "
                        "@WORKTREE) are looked up (default: the one holding the current folder)")
    cluster: str = setting("tournament", "", "play the games on a Dask cluster: tcp://HOST:8786 (a running "
                           "scheduler) or local:N (N worker processes on this machine); one game per worker thread, "
                           "--concurrency is then unused; needs pip install 'monte-gomoku[cluster]'")

    width: int = setting("game", 15, "board width", minimum=MIN_SIZE, maximum=MAX_SIZE)
    height: int = setting("game", 0, "board height (0: same as width)", minimum=0, maximum=MAX_SIZE)
    rule: int = setting("game", 0, "0 freestyle, 1 exactly five, 4 renju, 8 caro (9 caro + exactly five)",
                        choices=RULES)
    timeout_turn_ms: int = setting("game", 5000, "time per move in ms (0: no per-move limit)", minimum=0)
    timeout_match_ms: int = setting("game", 0, "time per game and side in ms (0: no match clock)", minimum=0)
    max_memory: int = setting("game", 350 * 1024 * 1024, "memory per engine process in bytes (0: no limit)",
                              minimum=0)
    tolerance_ms: int = setting("game", TOLERANCE_MS, "lateness forgiven per move before a time loss", minimum=0)
    start_timeout_ms: int = setting("game", 15000, "how long an engine may take to answer START", minimum=1)
    first_move_grace_ms: int = setting("game", 0, "lateness forgiven on each engine's first move of a game, on top "
                                       "of tolerance_ms: the start-up that lands in it (0: none, as the Gomocup "
                                       "judge)", minimum=0)
    first_move: str = setting("game", "board", "how an engine gets the position for its first move: board "
                              "(BOARD block, BEGIN on an empty board) or begin (BEGIN/TURN; no openings)",
                              choices=FIRST_MOVES)
    draw_after: int = setting("game", 0, "draw once this many stones are on the board (0: never)", minimum=0)
    memory_loses: bool = setting("game", False, "an engine whose peak memory exceeds max_memory loses")
    garbage: str = setting("game", "forfeit", "a line that is neither a move nor a message (MESSAGE, DEBUG, "
                           "ERROR, ...): forfeit loses the game, ignore keeps it as a message (the Gomocup judge "
                           "and c-gomoku-cli ignore such lines)", choices=GARBAGE_POLICIES)

    openings_file: str = setting("openings", "", "openings file (offset or pos format)", key="file",
                                 flag="openings")
    openings_order: str = setting("openings", "sequential", "use openings in file order or shuffled",
                                  key="order", choices=ORDERS)
    seed: int = setting("openings", 0, "seed for shuffling and for random openings", key="seed")
    random_openings: int = setting("openings", 0, "generate this many balanced random openings instead of a file",
                                   key="random", minimum=0)
    opening_stones: int = setting("openings", 3, "stones in each random opening", key="stones", minimum=1)

    sprt: bool = setting("sprt", False, "stop as soon as an SPRT over game pairs decides (two engines only)",
                         key="enabled")
    sprt_elo0: float = setting("sprt", 0.0, "SPRT null hypothesis (Elo)", key="elo0")
    sprt_elo1: float = setting("sprt", 5.0, "SPRT alternative hypothesis (Elo)", key="elo1")
    sprt_alpha: float = setting("sprt", 0.05, "SPRT false positive rate", key="alpha", minimum=1e-9, maximum=0.5)
    sprt_beta: float = setting("sprt", 0.05, "SPRT false negative rate", key="beta", minimum=1e-9, maximum=0.5)

    @property
    def board_height(self) -> int:
        """The height actually played (``height`` 0 means square)."""
        return self.height or self.width

    @property
    def total_games(self) -> int:
        """How many games the schedule holds (before an SPRT may stop it early)."""
        return len(pairings([e.name for e in self.engines], self.format)) * self.games * self.rounds


def settings_fields() -> list[dataclasses.Field]:
    """The fields that are plain settings (everything but the engine list), in declaration order."""
    return [f for f in dataclasses.fields(TournamentConfig) if f.metadata]


def _label(f: dataclasses.Field) -> str:
    return f"[{f.metadata['section']}] {f.metadata['key'] or f.name}"


def _flag(f: dataclasses.Field) -> str:
    return "--" + (f.metadata["flag"] or f.name).replace("_", "-")


_TYPE_WORDS = {int: "an integer", float: "a number", str: "a string", bool: "true or false"}


def _coerce(f: dataclasses.Field, value: Any) -> Any:
    """`value` as the field's type, checked against its choices and range; ConfigError naming the field if not."""
    kind = type(f.default)
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if type(value) is not kind:
        raise ConfigError(f"{_label(f)}: must be {_TYPE_WORDS[kind]}, got {value!r}")
    meta = f.metadata
    if meta["choices"] is not None and value not in meta["choices"]:
        options = ", ".join(repr(c) for c in meta["choices"])
        raise ConfigError(f"{_label(f)}: must be one of {options}, got {value!r}")
    if meta["minimum"] is not None and value < meta["minimum"]:
        raise ConfigError(f"{_label(f)}: must be >= {meta['minimum']}, got {value!r}")
    if meta["maximum"] is not None and value > meta["maximum"]:
        raise ConfigError(f"{_label(f)}: must be <= {meta['maximum']}, got {value!r}")
    return value


def _unknown(what: str, name: str, known: list[str]) -> ConfigError:
    close = difflib.get_close_matches(name, known, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return ConfigError(f"{what} {name!r} is unknown{hint}; known: {', '.join(known)}")


def _settings_from_toml(data: dict[str, Any]) -> dict[str, Any]:
    """Field name -> value for every setting present in a parsed TOML document."""
    by_section: dict[str, dict[str, dataclasses.Field]] = {s: {} for s in SECTIONS}
    for f in settings_fields():
        by_section[f.metadata["section"]][f.metadata["key"] or f.name] = f
    values: dict[str, Any] = {}
    for section, table in data.items():
        if section == "engine":
            continue
        if section not in by_section:
            raise _unknown("section", section, [*SECTIONS, "engine"])
        if not isinstance(table, dict):
            raise ConfigError(f"[{section}]: must be a table of settings, got {table!r}")
        for key, value in table.items():
            if key not in by_section[section]:
                raise _unknown(f"[{section}] key", key, list(by_section[section]))
            f = by_section[section][key]
            values[f.name] = _coerce(f, value)
    return values


def engines_from_toml(data: dict[str, Any]) -> list[EngineSpec]:
    """The engines of a config's ``[[engine]]`` tables (name, command, revision, cwd, info), checked; ConfigError
    names the table and key at fault. Other sections are not looked at (``monte gui`` reads a tournament's file)."""
    tables = data.get("engine", [])
    if not isinstance(tables, list):
        raise ConfigError("[[engine]]: engines are an array of tables, one [[engine]] per engine")
    engines = []
    for i, table in enumerate(tables):
        where = f"[[engine]] #{i + 1}"
        unknown = set(table) - set(ENGINE_KEYS)
        if unknown:
            raise _unknown(f"{where} key", sorted(unknown)[0], ENGINE_KEYS)
        name = table.get("name")
        if not isinstance(name, str) or not name.strip():
            raise ConfigError(f"{where} name: must be a non-empty string, got {name!r}")
        command = table.get("command", "pbrain-monte" if "revision" in table else None)
        if isinstance(command, str):
            command = shlex.split(command)
        if not isinstance(command, list) or not command or not all(isinstance(a, str) for a in command):
            raise ConfigError(f"{where} ({name}) command: must be a string or a list of strings, got {command!r}")
        for key in ("revision", "cwd"):
            if key in table and not isinstance(table[key], str):
                raise ConfigError(f"{where} ({name}) {key}: must be a string, got {table[key]!r}")
        info = table.get("info", {})
        if not isinstance(info, dict):
            raise ConfigError(f"{where} ({name}) info: must be a table such as {{ max_node = 20000 }}, got {info!r}")
        try:
            checked_info = engine_info(info)
        except EngineError as exc:
            raise ConfigError(f"{where} ({name}) {exc}") from None
        for key in CLOCK_KEYS:
            if key in table and (type(table[key]) is not int or table[key] < 0):
                raise ConfigError(f"{where} ({name}) {key}: must be an integer >= 0, got {table[key]!r}")
        clock = EngineClock(table.get("timeout_turn_ms"), table.get("timeout_match_ms"))
        try:
            spec = EngineSpec.from_command(name, command, table.get("revision"), table.get("cwd"))
        except EngineError as exc:
            raise ConfigError(f"{where} ({name}): {exc}") from None
        engines.append(dataclasses.replace(spec, info=checked_info, clock=None if clock == EngineClock() else clock))
    return engines


def read_toml(path: str | Path) -> dict[str, Any]:
    """A TOML file as a dict; ConfigError (one line) when it cannot be read or parsed."""
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the config ({exc.strerror})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None


def build_config(data: dict[str, Any], overrides: dict[str, Any] | None = None,
                 extra_engines: list[EngineSpec] | None = None,
                 extra_info: list[str] | None = None, only: list[str] | None = None,
                 extra_clocks: list[str] | None = None) -> TournamentConfig:
    """A checked config from parsed TOML, flag values (field name -> value, None = not given), flag engines,
    ``--info NAME:KEY=VALUE`` flags, the ``--only`` selection of engines (none: all of them) and ``--clock
    NAME=TURN_MS[/MATCH_MS]`` flags.

    A flag engine named like one of the file's takes its place (its command, and the file's ``info`` table and
    clock unless it brings its own), so a user points a shipped config at their own builds; other flag engines are
    added after the file's. Flag settings replace the file's; a flag's INFO key replaces the same key of that
    engine's ``info`` table, or is added after it; a ``--clock`` flag replaces the engine's clock. An engine's clock
    is then completed from ``[game]``, so every engine with a clock of its own has both of its limits.
    """
    values = _settings_from_toml(data)
    fields_by_name = {f.name: f for f in settings_fields()}
    for name, value in (overrides or {}).items():
        if value is not None:
            values[name] = _coerce(fields_by_name[name], value)
    engines = _with_info_flags(_replaced(engines_from_toml(data), extra_engines or []), extra_info or [])
    engines = _with_clock_flags(engines, extra_clocks or [])
    if only:
        engines = _selected(engines, only)
    config = TournamentConfig(engines=tuple(engines), **values)
    config = dataclasses.replace(config, engines=tuple(_completed_clock(spec, config) for spec in engines))
    validate(config)
    return config


def _replaced(file_engines: list[EngineSpec], flag_engines: list[EngineSpec]) -> list[EngineSpec]:
    """The file's engines with the flag engines of the same name in their place, then the other flag engines."""
    engines = list(file_engines)
    position = {spec.name: i for i, spec in enumerate(engines)}
    for spec in flag_engines:
        i = position.get(spec.name)
        if i is None:
            engines.append(spec)
        else:
            engines[i] = dataclasses.replace(spec, info=spec.info or engines[i].info,
                                             clock=spec.clock or engines[i].clock)
    return engines


def _with_clock_flags(engines: list[EngineSpec], flags: list[str]) -> list[EngineSpec]:
    """`engines` with the ``--clock NAME=TURN_MS[/MATCH_MS]`` flags applied (ConfigError naming a bad flag)."""
    by_name = {spec.name: spec for spec in engines}
    for text in flags:
        try:
            name, clock = parse_clock_flag(text)
        except EngineError as exc:
            raise ConfigError(str(exc)) from None
        if name not in by_name:
            raise ConfigError(f"--clock {text!r}: there is no engine {name!r} (engines: {', '.join(by_name)})")
        by_name[name] = dataclasses.replace(by_name[name], clock=clock)
    return [by_name[spec.name] for spec in engines]


def _completed_clock(spec: EngineSpec, config: TournamentConfig) -> EngineSpec:
    """`spec` with the limits its own clock leaves out taken from ``[game]`` (no clock of its own: unchanged)."""
    if spec.clock is None:
        return spec
    turn, match = spec.clock.timeout_turn_ms, spec.clock.timeout_match_ms
    return dataclasses.replace(spec, clock=EngineClock(config.timeout_turn_ms if turn is None else turn,
                                                       config.timeout_match_ms if match is None else match))


def engine_clock(config: TournamentConfig, name: str) -> EngineClock:
    """The time control engine `name` plays under: its own, or the ``[game]`` one."""
    spec = next(spec for spec in config.engines if spec.name == name)
    return spec.clock or EngineClock(config.timeout_turn_ms, config.timeout_match_ms)


def _selected(engines: list[EngineSpec], names: list[str]) -> list[EngineSpec]:
    """The engines named in `names`, in the order they were listed (ConfigError naming an unknown one)."""
    known = [spec.name for spec in engines]
    for name in names:
        if name not in known:
            raise ConfigError(f"--only: there is no engine {name!r} (engines: {', '.join(known)})")
    return [spec for spec in engines if spec.name in names]


def _with_info_flags(engines: list[EngineSpec], flags: list[str]) -> list[EngineSpec]:
    """`engines` with the ``--info NAME:KEY=VALUE`` flags applied (ConfigError naming the flag if one is bad)."""
    if not flags:
        return engines
    by_name = {spec.name: spec for spec in engines}
    for text in flags:
        try:
            name, key, value = parse_info_flag(text)
            if name not in by_name:
                raise EngineError(f"--info {text!r}: there is no engine {name!r} (engines: {', '.join(by_name)})")
            info = dict(by_name[name].info)
            info[key] = value
            by_name[name] = dataclasses.replace(by_name[name], info=engine_info(info))
        except EngineError as exc:
            message = str(exc)
            raise ConfigError(message if message.startswith("--info") else f"--info {text!r}: {message}") from None
    return [by_name[spec.name] for spec in engines]


def validate(config: TournamentConfig) -> None:
    """Checks that span several settings; ConfigError naming the field at fault."""
    names = [e.name for e in config.engines]
    if len(names) < 2:
        raise ConfigError(f"[[engine]]: a tournament needs at least two engines, got {len(names)}")
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ConfigError(f"[[engine]] name: {duplicates[0]!r} is used twice; engine names must be unique")
    if config.games % 2:
        raise ConfigError(f"[tournament] games: must be even (games come in pairs, colours swapped), "
                          f"got {config.games}")
    if config.height and config.height < MIN_SIZE:
        raise ConfigError(f"[game] height: must be 0 or {MIN_SIZE}..{MAX_SIZE}, got {config.height}")
    if config.timeout_turn_ms == 0 and config.timeout_match_ms == 0:
        raise ConfigError("[game] timeout_turn_ms: must be > 0 when timeout_match_ms is 0 (a move needs a limit)")
    for spec in config.engines:
        if spec.clock is not None and spec.clock.timeout_turn_ms == 0 and spec.clock.timeout_match_ms == 0:
            raise ConfigError(f"[[engine]] ({spec.name}) timeout_turn_ms: must be > 0 when its timeout_match_ms is 0 "
                              f"(a move needs a limit)")
    if config.openings_file and config.random_openings:
        raise ConfigError("[openings] random: give either an openings file or random openings, not both")
    if config.first_move == "begin" and (config.openings_file or config.random_openings):
        raise ConfigError("[game] first_move: 'begin' only works without openings (use 'board')")
    if config.openings_file and find_openings_file(config.openings_file) is None:
        raise ConfigError(f"[openings] file: {config.openings_file!r} does not exist")
    if config.cluster and not CLUSTER_ADDRESS.fullmatch(config.cluster):
        raise ConfigError(f"[tournament] cluster: must be a scheduler address such as tcp://HOST:8786, or local:N "
                          f"with N >= 1, got {config.cluster!r}")
    if config.sprt and len(names) != 2:
        raise ConfigError(f"[sprt] enabled: an SPRT compares exactly two engines, got {len(names)}")
    if config.sprt and config.sprt_elo1 <= config.sprt_elo0:
        raise ConfigError(f"[sprt] elo1: must be greater than elo0 ({config.sprt_elo0}), got {config.sprt_elo1}")


def find_openings_file(name: str) -> Path | None:
    """The openings file `name`: a path from the current directory, else a file shipped in tournaments/openings/."""
    for candidate in (Path(name), SHIPPED_OPENINGS / name):
        if candidate.is_file():
            return candidate
    return None


def add_flags(parser: argparse.ArgumentParser) -> None:
    """One flag per setting (``--timeout-turn-ms``, ``--openings``, …) plus ``--engine NAME=COMMAND``."""
    parser.add_argument("--engine", action="append", default=[], metavar="NAME=COMMAND",
                        help="add an engine, e.g. greedy='pbrain-monte --engine greedy', or replace the file's "
                             "engine of that name (e.g. rapfi=$HOME/bin/pbrain-rapfi); pbrain-monte@REV runs Monte at git revision REV of the current folder's repository, "
                             "pbrain-monte@WORKTREE its working tree as it is now (repeatable)")
    parser.add_argument("--only", default="", metavar="NAME,NAME",
                        help="play only these engines of the file's and the flags' (comma-separated), e.g. "
                             "--only monte,pela; a gauntlet's first engine stays the one listed first")
    parser.add_argument("--info", action="append", default=[], metavar="NAME:KEY=VALUE",
                        help="send engine NAME the line 'INFO KEY VALUE' after the standard ones, e.g. "
                             "rapfi:max_node=20000 (repeatable; TOML: info = { max_node = 20000 } in its [[engine]])")
    parser.add_argument("--clock", action="append", default=[], metavar="NAME=TURN_MS[/MATCH_MS]",
                        help="give engine NAME a time control of its own (time odds), e.g. monte2x=2000 (2 s a move, "
                             "the game's match clock) or fast=5000/120000; 0 turns a limit off as in [game] "
                             "(repeatable; TOML: timeout_turn_ms, timeout_match_ms in its [[engine]])")
    for f in settings_fields():
        kind = type(f.default)
        help_text = f"{f.metadata['help']} (TOML {_label(f)}; default {f.default!r})"
        if kind is bool:
            parser.add_argument(_flag(f), dest=f.name, action=argparse.BooleanOptionalAction, default=None,
                                help=help_text)
        else:
            parser.add_argument(_flag(f), dest=f.name, type=kind, default=None, help=help_text,
                                metavar=f.name.upper())


def config_from_args(args: argparse.Namespace) -> TournamentConfig:
    """The config named by ``args.config`` (may be None) with the flags of ``add_flags`` applied on top."""
    data = read_toml(args.config) if args.config else {}
    try:
        extra = [EngineSpec.parse(text) for text in args.engine]
    except EngineError as exc:
        raise ConfigError(f"--engine: {exc}") from None
    overrides = {f.name: getattr(args, f.name) for f in settings_fields()}
    only = [name.strip() for name in args.only.split(",") if name.strip()]
    return build_config(data, overrides, extra, args.info, only, args.clock)
