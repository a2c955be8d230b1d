"""What a tournament says to its user: a live progress line while it runs, standings tables when it ends.

Everything is recomputed from the list of finished game records, the same list the JSONL log holds, so a resumed
run reports exactly what an uninterrupted one would. Win/loss/draw counts and scores cover every finished game;
Elo, its 95% interval and LOS come from complete game pairs (pentanomial), because the two games of a pair share an
opening and, with Gomoku's strong first-move advantage, are not independent.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import IO, Iterable, Mapping, Sequence

from monte.tournaments.records import GameRecord
from monte.tournaments.stats import SPRT, EloEstimate, elo_from_pentanomial
from monte.tournaments.scheduler import pairings

BLACK_FIRST, WHITE_FIRST = 0, 1
"""Which of a record's moves (even or odd indices) are black's: black's when the opening leaves black to move."""


@dataclass
class Tally:
    """Results from one side's point of view: wins, losses, draws, pair scores and why the games ended."""

    wins: int = 0
    losses: int = 0
    draws: int = 0
    pentanomial: list[int] = field(default_factory=lambda: [0] * 5)
    reasons: Counter = field(default_factory=Counter)

    @property
    def games(self) -> int:
        return self.wins + self.losses + self.draws

    @property
    def score(self) -> float:
        """Points: 1 a win, 0.5 a draw."""
        return self.wins + 0.5 * self.draws

    def elo(self) -> EloEstimate:
        """Elo against the opponents met, from complete pairs."""
        return elo_from_pentanomial(self.pentanomial)

    def add_game(self, points: float) -> None:
        if points == 1.0:
            self.wins += 1
        elif points == 0.0:
            self.losses += 1
        else:
            self.draws += 1


def complete_pairs(records: Iterable[GameRecord]) -> list[list[GameRecord]]:
    """The game pairs of which both games have finished."""
    by_pair: dict[int, list[GameRecord]] = defaultdict(list)
    for record in records:
        by_pair[record.pair_index].append(record)
    return [games for games in by_pair.values() if len(games) == 2]


def pair_points(games: Sequence[GameRecord], name: str) -> int:
    """The pentanomial class of a pair for `name`: its points over both games, counted in half points (0..4)."""
    return round(2 * sum(game.score_for(name) for game in games))


def engine_tallies(records: Sequence[GameRecord], names: Sequence[str]) -> dict[str, Tally]:
    """Each engine's results against the field; its reasons are why it lost."""
    tallies = {name: Tally() for name in names}
    for record in records:
        for name in (record.black, record.white):
            points = record.score_for(name)
            tallies[name].add_game(points)
            if points == 0.0:
                tallies[name].reasons[record.termination.value] += 1
    for games in complete_pairs(records):
        for name in games[0].pairing:
            tallies[name].pentanomial[pair_points(games, name)] += 1
    return tallies


def pairing_tallies(records: Sequence[GameRecord], names: Sequence[str], format: str) -> dict[tuple[str, str], Tally]:
    """Each pairing's results from its first engine's point of view; its reasons are how all its games ended.

    Pairings come as the records name them; those of the schedule without a game yet follow, empty.
    """
    tallies: dict[tuple[str, str], Tally] = {}
    for record in records:
        tally = tallies.setdefault(tuple(record.pairing), Tally())
        tally.add_game(record.score_for(record.pairing[0]))
        tally.reasons[record.termination.value] += 1
    for pairing in pairings(names, format):
        if pairing not in tallies and pairing[::-1] not in tallies:
            tallies[pairing] = Tally()
    for games in complete_pairs(records):
        pairing = tuple(games[0].pairing)
        tallies[pairing].pentanomial[pair_points(games, pairing[0])] += 1
    return tallies


def _reasons(counter: Counter) -> str:
    return ", ".join(f"{reason} {count}" for reason, count in counter.most_common()) or "-"


def _elo_cells(estimate: EloEstimate) -> list[str]:
    if estimate.games == 0:
        return ["n/a", "n/a", "n/a"]
    return [_signed(estimate.elo), f"[{_signed(estimate.lower)}, {_signed(estimate.upper)}]",
            f"{100 * estimate.los:.1f}%"]


def _signed(value: float) -> str:
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{round(value):+d}"  # rounded to an int first, so -0.4 prints as +0, not -0


def text_table(header: list[str], rows: list[list[str]]) -> list[str]:
    """Rows of cells as lines of left-aligned columns, the header underlined with dashes."""
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in [header, *rows]]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return lines


def _tally_row(label: str, tally: Tally) -> list[str]:
    return [label, str(tally.games), str(tally.wins), str(tally.losses), str(tally.draws),
            f"{tally.score:g}/{tally.games}", *_elo_cells(tally.elo()), _reasons(tally.reasons)]


def move_times(records: Iterable[GameRecord], name: str) -> list[int]:
    """Every move time (ms) of `name` over `records`, as the runner measured them."""
    times = []
    for record in records:
        if name not in (record.black, record.white):
            continue
        # the opening's stones alternate from black, so the first engine move is black's when the opening is even
        first = BLACK_FIRST if len(record.opening) % 2 == 0 else WHITE_FIRST
        mine = first if record.black == name else 1 - first
        times += [ms for i, (_, _, ms) in enumerate(record.moves) if i % 2 == mine]
    return times


def _percentile(values: list[int], fraction: float) -> int:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def time_table(records: Sequence[GameRecord], names: Sequence[str], turn_ms: int | Mapping[str, int]) -> list[str]:
    """One row per engine: how many moves it made and how long they took (median, 90th percentile, longest), and
    the median as a share of the per-move limit `turn_ms` (0: none), one for all or each engine's own (time
    odds)."""
    rows = []
    for name in names:
        times = move_times(records, name)
        if not times:
            continue
        median = statistics.median(times)
        turn = turn_ms.get(name, 0) if isinstance(turn_ms, Mapping) else turn_ms
        share = f"{100 * median / turn:.0f}%" if turn else "-"
        rows.append([name, str(len(times)), f"{median:g}", str(_percentile(times, 0.9)), str(max(times)), share])
    return text_table(["engine", "moves", "median ms", "90% ms", "longest ms", "median / turn"], rows)


def standings(records: Sequence[GameRecord], names: Sequence[str], format: str,
              turn_ms: int | Mapping[str, int] = 0) -> str:
    """The final tables: one row per engine (best score first), one per pairing, and each engine's time per move
    (`turn_ms`: the per-move limit, 0 if none, or each engine's own)."""
    engines = engine_tallies(records, names)
    ranked = sorted(names, key=lambda n: (-engines[n].score, names.index(n)))
    columns = ["games", "W", "L", "D", "score", "Elo", "95% interval", "LOS"]
    lines = [f"Engines ({len(records)} games; Elo from complete pairs, against the opponents met)"]
    lines += text_table(["engine", *columns, "lost by"], [_tally_row(n, engines[n]) for n in ranked])
    lines += ["", "Pairings (W/L/D, Elo and LOS for the first engine)"]
    rows = [_tally_row(f"{a} vs {b}", t) for (a, b), t in pairing_tallies(records, names, format).items()]
    lines += text_table(["pairing", *columns, "endings"], rows)
    lines += ["", "Time per move (as the runner measured it)"]
    lines += time_table(records, names, turn_ms)
    return "\n".join(lines)


def sprt_status(sprt: SPRT, records: Sequence[GameRecord], names: Sequence[str]) -> tuple[str, str | None]:
    """(a line saying where the SPRT stands, its decision "H0"/"H1" or None) for the first engine against the
    second, over complete pairs."""
    tally = pairing_tallies(records, names, "round-robin")[(names[0], names[1])]
    llr = sprt.llr(tally.pentanomial)
    lower, upper = sprt.bounds()
    decision = sprt.decision(tally.pentanomial)
    verdict = {"H1": f"H1 accepted: {names[0]} is stronger", "H0": f"H0 accepted: {names[0]} is not stronger",
               None: "continuing"}[decision]
    line = (f"SPRT {names[0]} vs {names[1]}, elo0 {sprt.elo0:g} elo1 {sprt.elo1:g} (alpha {sprt.alpha:g}, "
            f"beta {sprt.beta:g}), {sum(tally.pentanomial)} pairs: LLR {llr:.2f} of [{lower:.2f}, {upper:.2f}]"
            f" -- {verdict}")
    return line, decision


class Progress:
    """The live line on stderr: games done of the total, the first engine's score and Elo so far, games running.

    On a terminal the line is rewritten in place; elsewhere (a log file, a CI job) one line per game is printed.
    """

    def __init__(self, stream: IO[str], total: int, names: Sequence[str]) -> None:
        self.stream = stream
        self.total = total
        self.names = list(names)
        self.live = stream.isatty()

    def update(self, records: Sequence[GameRecord], running: int) -> None:
        first = self.names[0]
        tally = engine_tallies(records, self.names)[first]
        estimate = tally.elo()
        elo = "n/a" if estimate.games == 0 else f"{_signed(estimate.elo)} [{_signed(estimate.lower)}, " \
                                                 f"{_signed(estimate.upper)}]"
        done = len(records)
        filled = (20 * done) // max(self.total, 1)
        line = (f"[{'#' * filled}{'.' * (20 - filled)}] {done}/{self.total} games, {first} "
                f"{tally.score:g}/{tally.games}, Elo {elo}, {running} playing")
        if self.live:
            self.stream.write("\r\x1b[K" + line)
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def finish(self) -> None:
        """End the live line so that later output starts on a fresh line."""
        if self.live:
            self.stream.write("\n")
            self.stream.flush()
