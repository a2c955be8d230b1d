"""Run a whole tournament: prepare engines and openings, play the schedule N games at a time, log every game at once.

A pool plays the games (tournaments/pool.py): threads of this process, each game owning its two engine processes,
or the workers of a Dask cluster (the ``cluster`` package); the runner keeps the schedule, the statistics and the
records. Every finished game is saved as SGF and Piskvork PSQ and appended to ``OUT/games.jsonl`` (flushed and
fsynced) before the next result is looked at, so a killed run loses only the games in progress; a game reported
twice is logged once. Engines at a git revision are pinned to a full sha first, and the settings written to
``OUT/tournament.json`` hold those shas. ``resume`` rebuilds the same schedule, checks that the settings (pinned
shas included) are those the log was written with, and plays only the games the log lacks: the totals come out as
those of an uninterrupted run. Ctrl-C (or an SPRT that has decided) kills the engines of the games in progress;
those games are not logged.
"""

from __future__ import annotations

import dataclasses
import json
import signal
import threading
from collections import deque
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Callable, Iterator

from monte.protocol.client import GameSettings
from monte.tournaments.config import TournamentConfig, find_openings_file
from monte.tournaments.engines import EngineSpec, pin
from monte.tournaments.match import MatchRules, StopSignal, with_clock
from monte.tournaments.openings import Opening, arrange_openings, load_openings, random_openings
from monte.tournaments.pool import GamePool, LocalPool
from monte.tournaments.records import LOG_NAME, GameRecord, Termination, append_jsonl, read_jsonl, to_psq, to_sgf
from monte.tournaments.referee import Referee
from monte.tournaments.report import Progress, sprt_status
from monte.tournaments.revisions import WORKTREE
from monte.tournaments.scheduler import GameSpec, schedule
from monte.tournaments.stats import SPRT

SETTINGS_NAME = "tournament.json"
RUNTIME_KNOBS = ("out", "resume", "concurrency", "repo", "cluster")
"""Settings that may differ between a run and its resumption: they do not change which games are played or how."""

_POLL_S = 0.25


class RunError(RuntimeError):
    """A tournament that cannot start: its output folder holds another run, no opening is usable, ..."""


@dataclass
class TournamentResult:
    """What a run produced: every finished game (resumed ones included), and how it ended."""

    config: TournamentConfig
    records: list[GameRecord]
    total: int
    warnings: list[str] = field(default_factory=list)
    interrupted: bool = False
    sprt_line: str | None = None
    sprt_decision: str | None = None

    @property
    def names(self) -> list[str]:
        return [engine.name for engine in self.config.engines]


def match_rules(config: TournamentConfig) -> MatchRules:
    """The per-game rules a config asks for (an engine with a clock of its own gets it in ``play_game``)."""
    settings = with_clock(GameSettings(width=config.width, height=config.board_height, rule=config.rule,
                                       max_memory=config.max_memory, tolerance_ms=config.tolerance_ms, game_type=2),
                          config.timeout_turn_ms, config.timeout_match_ms)
    return MatchRules(settings, first_move=config.first_move, draw_after=config.draw_after,
                      memory_loses=config.memory_loses, start_timeout_s=config.start_timeout_ms / 1000.0,
                      first_move_grace_ms=config.first_move_grace_ms, garbage=config.garbage)


def build_openings(config: TournamentConfig) -> tuple[list[Opening], list[str]]:
    """The openings to play, arranged, with a warning for each one skipped (does not fit, or decides the game)."""
    width, height = config.width, config.board_height
    if config.random_openings:
        openings, warnings = random_openings(config.random_openings, width, height, config.rule,
                                             stones=config.opening_stones, seed=config.seed), []
    elif config.openings_file:
        path = find_openings_file(config.openings_file)
        try:
            openings, warnings = load_openings(path, width, height)
        except ValueError as exc:
            raise RunError(f"[openings] file: {exc}") from None
    else:
        return [], []
    usable = []
    for opening in openings:
        try:
            Referee(width, height, config.rule, draw_after=config.draw_after).set_up(opening.stones)
        except ValueError as exc:
            warnings.append(f"{opening.source}: skipped: {exc}")
            continue
        usable.append(opening)
    if not usable:
        raise RunError(f"[openings]: none of {len(openings)} openings is usable on a {width}x{height} board")
    return arrange_openings(usable, shuffle=config.openings_order == "shuffle", seed=config.seed), warnings


def _fingerprint(config: TournamentConfig) -> dict:
    """The settings that decide which games are played and how, as JSON values."""
    data = json.loads(json.dumps(dataclasses.asdict(config)))
    for knob in RUNTIME_KNOBS:
        data.pop(knob)
    for engine in data["engines"]:
        if not engine["info"]:
            del engine["info"]  # as logs written before engines had INFO of their own say it
        if engine["clock"] is None:
            del engine["clock"]  # ...or clocks of their own
    if data["garbage"] == "forfeit":
        del data["garbage"]  # ...and before the garbage policy was a setting
    return data


def _engine_change(before: list[dict], now: list[dict]) -> str:
    """The first difference between two runs' engine lists, in words."""
    for old, new in zip(before, now):
        if old != new:
            if old.get("name") == new.get("name") and {**old, "revision": None} == {**new, "revision": None}:
                return (f"engine {new['name']!r} played revision {old.get('revision')} in the logged run, now "
                        f"{new.get('revision')} (a branch moved or the working tree changed?)")
            return f"engine {old.get('name')!r} was {old} in the logged run, now {new}"
    return f"the logged run had {len(before)} engines, now {len(now)}"


def _check_resumable(out: Path, config: TournamentConfig, logged: list[GameRecord],
                     games: dict[int, GameSpec]) -> None:
    """Refuse to mix runs: a log without resume, a resume with other settings, or a log this schedule did not write."""
    settings_path = out / SETTINGS_NAME
    if logged and not config.resume:
        raise RunError(f"{out / LOG_NAME} already holds {len(logged)} games: pass --resume to continue that run, "
                       f"or choose another --out")
    if config.resume and settings_path.exists():
        before = json.loads(settings_path.read_text())
        now = _fingerprint(config)
        changed = sorted(key for key in before.keys() | now.keys() if before.get(key) != now.get(key))
        if "engines" in changed:
            raise RunError(f"--resume: {_engine_change(before['engines'], now['engines'])}; resume with the same "
                           f"engines")
        if changed:
            key = changed[0]
            raise RunError(f"--resume: setting {key!r} was {before.get(key)!r} in the logged run, now "
                           f"{now.get(key)!r}; resume with the same settings")
    for record in logged:
        game = games.get(record.game_id)
        if game is None or (game.black, game.white) != (record.black, record.white):
            raise RunError(f"{out / LOG_NAME}: game {record.game_id} ({record.black} vs {record.white}) is not in "
                           f"this tournament's schedule")


def _save(out: Path, record: GameRecord) -> None:
    """SGF and PSQ first, the JSONL line last: the line is what marks a game done, so a run killed in between
    plays the game again on resume and rewrites its files."""
    stem = out / "games" / f"game{record.game_id:05d}"
    stem.with_suffix(".sgf").write_text(to_sgf(record))
    stem.with_suffix(".psq").write_text(to_psq(record))
    append_jsonl(out / LOG_NAME, record)


@contextmanager
def _signals_handled_by(handler: Callable[[int, object], None]) -> Iterator[None]:
    """Send Ctrl-C and SIGTERM to `handler` for a while. Only the main thread can; elsewhere the caller's
    `StopSignal` is the way to stop."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {signum: signal.signal(signum, handler) for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)


def run_tournament(config: TournamentConfig, *, stop: StopSignal | None = None, progress: IO[str] | None = None,
                   revisions_dir: Path | None = None, pool: GamePool | None = None) -> TournamentResult:
    """Play (or resume) the tournament `config` describes and return its records; see the module docstring.

    `stop` lets a caller end the run from another thread; `progress` receives warnings about skipped openings and
    the live line (None: nothing is printed). `pool` plays the games: by default a `LocalPool` of
    ``config.concurrency`` threads; a config naming a cluster needs that cluster's pool (``monte tournament``
    connects it).
    Raises RunError (or EngineError) when the run cannot start. Called from the main thread, Ctrl-C or SIGTERM while
    games run ends the run cleanly with ``interrupted`` set.
    """
    if pool is None:
        if config.cluster:
            raise RunError(f"the config names the cluster {config.cluster!r}: pass its pool (cluster.connect)")
        pool = LocalPool(config.concurrency)
    out = Path(config.out)
    try:
        logged = read_jsonl(out / LOG_NAME) if (out / LOG_NAME).exists() else []
    except ValueError as exc:
        raise RunError(str(exc)) from None
    openings, warnings = build_openings(config)
    for warning in warnings if progress is not None else []:
        print(f"warning: {warning}", file=progress)
    names = [engine.name for engine in config.engines]
    games = schedule(names, config.format, openings, games=config.games, rounds=config.rounds)
    repo = Path(config.repo) if config.repo else None
    pinned = dataclasses.replace(config, engines=tuple(pin(spec, repo) for spec in config.engines))
    for asked, spec in zip(config.engines, pinned.engines):
        if asked.revision is not None and progress is not None:
            kind = "a snapshot of the working tree, tree" if asked.revision == WORKTREE else "commit"
            print(f"{spec.name}: {asked.revision} is {kind} {spec.revision}", file=progress)
    _check_resumable(out, pinned, logged, {game.game_id: game for game in games})
    note = None if progress is None else (lambda text: print(text, file=progress))
    engines = pool.prepare(pinned.engines, repo=repo, cache=revisions_dir, note=note)
    (out / "games").mkdir(parents=True, exist_ok=True)
    (out / "logs").mkdir(exist_ok=True)
    (out / SETTINGS_NAME).write_text(json.dumps(_fingerprint(pinned), indent=2) + "\n")

    result = TournamentResult(config, list(logged), len(games), warnings)
    done = {record.game_id for record in logged}
    run = _Run(result, pool, out, stop or StopSignal(), progress)
    run.play([game for game in games if game.game_id not in done], engines, match_rules(config))
    return result


class _Run:
    """The playing part of a run: keeps the pool's capacity of games going, logs each as it finishes (once, by game
    id, however often a pool reports it), and stops on Ctrl-C, on an SPRT decision or when the schedule is done."""

    def __init__(self, result: TournamentResult, pool: GamePool, out: Path, stop: StopSignal,
                 progress: IO[str] | None) -> None:
        config = result.config
        self.result = result
        self.pool = pool
        self.out = out
        self.stop = stop
        self.logged = {record.game_id for record in result.records}
        self.sprt = SPRT(config.sprt_elo0, config.sprt_elo1, config.sprt_alpha, config.sprt_beta) \
            if config.sprt else None
        self.meter = None if progress is None else Progress(progress, result.total, result.names)
        self.signalled = False

    def play(self, todo: list[GameSpec], engines: dict[str, EngineSpec], rules: MatchRules) -> None:
        """Play `todo` until it is done, the SPRT decides, `stop` is set or a signal asks to stop."""
        pending = deque(todo)
        pool = self.pool
        self._show(0)
        with _signals_handled_by(self._on_signal):
            pool.start(engines, rules, self.stop, self.out / "logs")
            try:
                finished = False
                while not self.signalled:
                    while pending and not self._stopping() and pool.running() < pool.capacity():
                        pool.submit(pending.popleft())
                    if finished:
                        self._show(pool.running())  # after the refill: the games playing now, not in the gap
                    if not pool.running() and (not pending or self._stopping()):
                        break  # all done, or stopping and nothing left to wait for (a cluster may have no room yet)
                    finished = self._collect(pool.completed(_POLL_S))
                    if self._decided():
                        self.stop.set()
            finally:
                self.stop.set()  # the pool stops the games still running; they return at once, unlogged
                if self._collect(pool.finish()):
                    self._show(0)
                if self.meter is not None:
                    self.meter.finish()
        self.result.interrupted = self.signalled
        self._decided()

    def _stopping(self) -> bool:
        """Whether no more games should start: a signal, a stop from the caller, or an SPRT decision."""
        return self.signalled or self.stop.is_set() or self._decided()

    def _on_signal(self, signum: int, frame: object) -> None:
        """Ctrl-C or SIGTERM: only note it; the loop stops within one poll. (Doing more here could interrupt the
        main thread while it holds a lock the stop needs.)"""
        self.signalled = True

    def _collect(self, records: list[GameRecord]) -> bool:
        """Log the games that finished (not those a stop interrupted, nor one already logged); whether any was."""
        logged = False
        for record in records:
            if record.termination is not Termination.INTERRUPTED and record.game_id not in self.logged:
                _save(self.out, record)
                self.logged.add(record.game_id)
                self.result.records.append(record)
                logged = True
        return logged

    def _show(self, running: int) -> None:
        if self.meter is not None and self.result.records:
            self.meter.update(self.result.records, running)

    def _decided(self) -> bool:
        """Whether the SPRT (if any) has decided; keeps the result's SPRT line current."""
        if self.sprt is not None:
            self.result.sprt_line, self.result.sprt_decision = sprt_status(self.sprt, self.result.records,
                                                                           self.result.names)
        return self.result.sprt_decision is not None
