"""``monte seeds``: re-run the seed articles' small-game experiments and write them up, each table with the command
that made it and the time it took (default: ``tournaments/reports/seed-experiments.md``).

Every search runs a fixed number of iterations from seeded generators, so a run gives the same tables on any machine;
only the times change. Sections can be run alone (``--only``): they are then printed, and the report is left as it
is unless ``--out`` is given.
"""

from __future__ import annotations

import argparse
import math
import platform
import sys
import time
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Callable

from monte.brain.uct import UCB_C, UctSettings
from monte.small_games import experiments
from monte.small_games.experiments import Entrant, Tally
from monte.small_games.spec import CONNECT4, TICTACTOE, Game
from monte.tournaments.stats import elo_from_wdl

HELP = "re-run the seed articles' tic-tac-toe and Connect Four experiments and write their report"

DEFAULT_OUT = "tournaments/reports/seed-experiments.md"
SWEEP = "1,2,5,10,20,50,100,200,500,1000,2000,5000,10000"
C_VALUES = (0.25, 0.5, 1.0, 1.4, 2.0)
VALUE_WORDS = {1: "win", 0: "draw", -1: "loss"}

TICTACTOE_POSITIONS = [
    ("empty board", ""),
    ("X took a corner: only the centre draws", "a1"),
    ("X holds opposite corners: a corner loses, an edge draws", "a1 b2 c3"),
    ("O answered a corner with an edge: X wins", "a1 b1"),
]
"""Tic-tac-toe positions for the iterations table: a name and the moves that lead to it."""

CONNECT4_POSITIONS = [
    ("two winning columns, five losing ones", "7 2 3 4 7 3 2 3 6 2 1 5 3 3"),
    ("one winning column, six losing ones", "2 4 3 2 6 2 7 7 6 5 1 7"),
    ("block, and the block wins", "2 1 4 5 6 1 6 1 2 3"),
    ("take the win at once", "2 5 2 3 2 3 7 5 3 4 3 4"),
]
"""Connect Four positions for the iterations table (columns 1..7 from the left), found by seeded random play among
those the solver settles in a second and where most moves lose."""


@dataclass(frozen=True)
class Section:
    """One experiment of the report: its name for ``--only``, and the function that runs it and returns Markdown."""

    name: str
    run: Callable[[argparse.Namespace], str]


COUNTS = [
    ("--ttt-simulations", 200, "UCT's simulations per move against perfect play"),
    ("--ttt-games", 1000, "tic-tac-toe games per colour at each number of simulations"),
    ("--c4-simulations", 1000, "UCT's simulations per move in the Connect Four round-robin"),
    ("--c4-games", 40, "Connect Four games per pairing, half with each colour (even)"),
    ("--runs", 20, "UCT runs (seeds) per position and number of iterations"),
    ("--max-iterations", 10000, "the iterations table goes 10, 100, ... up to this"),
    ("--seed", 1, "the first random seed"),
]
"""The experiments' sizes: flag, default (the full experiments) and help."""


def configure(parser: argparse.ArgumentParser) -> None:
    """The command's arguments (the defaults are the full experiments)."""
    parser.add_argument("--out", default=None,
                        help=f"the report to write (default {DEFAULT_OUT}; with --only, print unless --out is given)")
    parser.add_argument("--only", action="append", choices=[s.name for s in SECTIONS],
                        help="run only this section (repeatable); the report then holds just those")
    parser.add_argument("--sweep", default=SWEEP,
                        help=f"simulations per move tried against perfect play (default {SWEEP})")
    for flag, default, text in COUNTS:
        parser.add_argument(flag, type=int, default=default, help=f"{text} (default {default})")


def run(args: argparse.Namespace) -> int:
    """``monte seeds``: run the sections, write the report."""
    try:
        sweep = [int(n) for n in args.sweep.split(",")]
    except ValueError:
        sweep = []
    bad = [f"{flag} {_value(args, flag)}" for flag, _, _ in COUNTS if flag != "--seed" and _value(args, flag) < 1]
    if not sweep or min(sweep) < 1:
        bad.append(f"--sweep {args.sweep}")
    if bad or args.c4_games % 2:
        what = ", ".join(bad) if bad else f"--c4-games {args.c4_games} (must be even: colours are swapped)"
        print(f"{args.prog}: error: need positive counts, got {what}", file=sys.stderr)
        return 2
    args.sweep_counts = sweep
    chosen = [s for s in SECTIONS if not args.only or s.name in args.only]
    started = time.monotonic()
    parts = [_header(args)]
    for section in chosen:
        print(f"monte seeds: {section.name} ...", file=sys.stderr, flush=True)
        parts.append(_timed(section, args))
    text = "\n\n".join(parts) + "\n"
    if args.only and args.out is None:
        print(text, end="")
        return 0
    path = Path(args.out or DEFAULT_OUT)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    print(f"monte seeds: wrote {path} in {time.monotonic() - started:.0f} s", file=sys.stderr)
    return 0


def _value(args: argparse.Namespace, flag: str) -> int:
    """The value argparse stored for a flag of COUNTS."""
    return getattr(args, flag[2:].replace("-", "_"))


def _command(args: argparse.Namespace, section: str | None = None) -> str:
    """The command line that makes a section (or the whole report), with the sizes this run was given."""
    words = ["monte seeds"] + ([f"--only {section}"] if section else [])
    if args.sweep != SWEEP and section in (None, "sweep"):
        words.append(f"--sweep {args.sweep}")
    for flag, default, _ in COUNTS:
        if _value(args, flag) != default:
            words.append(f"{flag} {_value(args, flag)}")
    if args.out is not None and args.out != DEFAULT_OUT:
        words.append(f"--out {args.out}")
    return " ".join(words)


def _timed(section: Section, args: argparse.Namespace) -> str:
    wall, cpu = time.monotonic(), time.process_time()
    body = section.run(args)
    wall, cpu = time.monotonic() - wall, time.process_time() - cpu
    return body.replace("{timing}", f"`{_command(args, section.name)}` -- {wall:.1f} s ({cpu:.1f} s of CPU)")


def _header(args: argparse.Namespace) -> str:
    return "\n".join([
        "# The seed articles' small games, re-run",
        "",
        f"Written by `{_command(args)}` on {date.today().isoformat()} ({platform.machine()}, Python "
        f"{platform.python_version()}). Under each table: the command that prints it alone, and the time it took "
        "here (wall clock, then CPU: the machine is shared, so the wall clock says little). Every search runs a "
        "fixed number of iterations from seeded generators: the tables come out the same on any machine.",
        "",
        "The engine is Monte's plain UCT (`brain/uct.py`, the `--engine uct` baseline of the Gomoku brain): UCB1, "
        "uniform expansion, the most-visited move; playouts random, or (\"aware\") taking a win, else blocking the "
        "opponent's win, when one is on the board. It is the same compiled kernel that plays Gomoku, told the "
        "length of the winning row (3, 4) and gravity. Monte's own pattern MCTS plays Gomoku (rows of five) only.",
        "",
        "Perfect play: minimax with a memo over the whole of tic-tac-toe (`brain/minimax.py`); for Connect Four an "
        "exact solver (`brain/connect4.py`: alpha-beta to the end of the game on bitboards, with a transposition "
        "table, no depth limit), checked against that minimax on positions a dozen moves from the end. The perfect "
        "player draws its move at random among the moves that keep the game's value, so a series meets many "
        "perfect lines; as values are win/draw/loss, it does not hurry a win.",
        "",
        "Where the method differs from the articles: their code is not used, and details they leave open are "
        "Monte's: unvisited children are tried from a random one onwards, ties of the most-visited rule go to the "
        "first move in board order, and the number of simulations a move in the Connect Four round-robin is ours. "
        "Where the results differ, the sections say so.",
    ])


# --- tic-tac-toe against perfect play ---------------------------------------------------------------------------------

def _tally_row(label: str, tally: Tally) -> str:
    return f"| {label} | {tally.games} | {tally.wins} | {tally.draws} | {tally.losses} |"


def _versus_perfect(args: argparse.Namespace) -> str:
    reference = TICTACTOE.reference()
    rows, verdicts, lost_any = [], [], False
    for first_best, opponent in ((False, "a random best move"), (True, "the first best move")):
        first, second = experiments.versus_perfect(TICTACTOE, args.ttt_simulations, args.ttt_games, UctSettings(),
                                                   args.seed, reference, first_best)
        rows += [_tally_row(f"first (X) | {opponent}", first), _tally_row(f"second (O) | {opponent}", second)]
        lost = first.losses + second.losses
        lost_any = lost_any or lost > 0
        verdicts.append(f"against {opponent} it {'never lost' if lost == 0 else f'lost {lost}'} of "
                        f"{first.games + second.games} games ({first.losses} as X, {second.losses} as O)")
    verdict = (f"Here, {verdicts[0]}; {verdicts[1]}. The article's result "
               f"{'does not hold' if lost_any else 'holds'} for plain UCT at this number of simulations.")
    return "\n".join([
        f"## Tic-tac-toe: UCT at {args.ttt_simulations} simulations a move against perfect play",
        "",
        f"The article: MCTS with UCB1 at 200 simulations a move never lost to a perfect minimax player in 1000 games "
        f"as either side. Here: plain UCT, c = {UCB_C}, random playouts, {args.ttt_games} games a side against each "
        f"of two perfect players: one that draws its move among the best at random, and one that always plays the "
        f"first best move in board order (a1, b1, c1, a2, ...), as a plain minimax does.",
        "",
        "| UCT moves | perfect player plays | games | UCT wins | draws | UCT losses |",
        "|---|---|---|---|---|---|",
        *rows,
        "",
        verdict,
        "",
        "{timing}",
    ])


def _sweep(args: argparse.Namespace) -> str:
    settings = UctSettings()
    reference = TICTACTOE.reference()
    rows = []
    losing = []
    for n in sorted(args.sweep_counts):
        first, second = experiments.versus_perfect(TICTACTOE, n, args.ttt_games, settings, args.seed, reference)
        rows.append(f"| {n} | {first.losses} | {first.draws} | {second.losses} | {second.draws} |")
        if first.losses + second.losses:
            losing.append(n)
    safe = [n for n in args.sweep_counts if n > max(losing, default=0)]
    if not losing:
        verdict = f"UCT lost no game at any of these numbers of simulations, down to {min(args.sweep_counts)}."
    elif safe:
        verdict = (f"From {min(safe)} simulations a move up it lost none of its games; at {max(losing)} it still "
                   f"lost some. So it starts to lose below {min(safe)} (between {max(losing)} and {min(safe)}).")
    else:
        verdict = "It lost games at every number of simulations tried."
    return "\n".join([
        "## Tic-tac-toe: how few simulations are enough",
        "",
        f"UCT (c = {UCB_C}, random playouts) against perfect play, {args.ttt_games} games a side at each number of "
        "simulations a move (UCT never wins against perfect play; a game it does not lose is a draw). With fewer "
        "simulations than moves, every move searched has one visit, and the most-visited rule takes the first of "
        "them in board order: that, not the search, shapes the first rows.",
        "",
        "| simulations | losses moving first | draws moving first | losses moving second | draws moving second |",
        "|---|---|---|---|---|",
        *rows,
        "",
        verdict,
        "",
        "{timing}",
    ])


# --- Connect Four round-robin -----------------------------------------------------------------------------------------

def _entrants() -> list[Entrant]:
    return [Entrant(f"c={c:g} {'aware' if aware else 'random'}", UctSettings(c, aware))
            for aware in (False, True) for c in C_VALUES]


def _round_robin(args: argparse.Namespace) -> str:
    entrants = _entrants()
    result = experiments.round_robin(CONNECT4, entrants, args.c4_simulations, args.c4_games, args.seed)
    n = len(entrants)
    head = "| entrant | " + " | ".join(str(i + 1) for i in range(n)) + " | score | Elo against the field |"
    rows = []
    for a in range(n):
        cells = ["" if a == b else _points(result.tallies[(a, b)].points) for b in range(n)]
        total = result.total(a)
        elo = elo_from_wdl(total.wins, total.draws, total.losses)
        rows.append(f"| {a + 1}. {entrants[a].name} | " + " | ".join(cells) +
                    f" | {_percent(total)} ({total.wins}-{total.draws}-{total.losses}) | "
                    f"{_elo(elo.elo)} [{_elo(elo.lower)}, {_elo(elo.upper)}] |")
    ranking = sorted(range(n), key=lambda a: -result.total(a).points)
    article = next(a for a in range(n) if entrants[a].settings == UctSettings(1.0, True))
    aware_vs_random = Tally()
    for (a, b), tally in result.tallies.items():
        if entrants[a].settings.aware_playouts and not entrants[b].settings.aware_playouts:
            aware_vs_random.merge(tally)
    fm = result.first_mover
    return "\n".join([
        "## Connect Four: UCT's exploration constant, with random and with aware playouts",
        "",
        f"The article: UCT with c = 1 and playouts that take a win and block the opponent's win. Here every c of "
        f"{', '.join(f'{c:g}' for c in C_VALUES)}, with random and with aware playouts, meets every other in "
        f"{args.c4_games} games ({args.c4_games // 2} with each colour), {args.c4_simulations} simulations a move. "
        f"A cell is the row's points against the column (win 1, draw 1/2); score: wins-draws-losses over all its "
        f"games; Elo with its 95% interval, from the score against the field.",
        "",
        head,
        "|---" * (n + 3) + "|",
        *rows,
        "",
        f"Best: {entrants[ranking[0]].name}. The article's setting, {entrants[article].name}, ranks "
        f"{ranking.index(article) + 1} of {n} with {_percent(result.total(article))}. Aware playouts against random "
        f"ones, every c against every c: {_percent(aware_vs_random)} of {aware_vs_random.games} games. The first "
        f"player scored {_percent(fm)} of the {fm.games} games ({fm.wins}-{fm.draws}-{fm.losses}).",
        "",
        "{timing}",
    ])


def _percent(tally: Tally) -> str:
    return f"{100 * tally.points / tally.games:.1f}%"


def _points(points: float) -> str:
    return f"{points:g}"


def _elo(value: float) -> str:
    return ("+inf" if value > 0 else "-inf") if math.isinf(value) else f"{value:+.0f}"


# --- iterations against the perfect answer ----------------------------------------------------------------------------

def _iteration_counts(limit: int) -> list[int]:
    counts = [10]
    while counts[-1] * 10 <= limit:
        counts.append(counts[-1] * 10)
    return counts


def _settling_tables(game: Game, positions: list[tuple[str, str]], settings: UctSettings,
                     args: argparse.Namespace) -> list[str]:
    reference = game.reference()
    lines = []
    perfect_runs = runs = 0  # at the most iterations, over the positions
    for name, moves in positions:
        board = experiments.board_after(game, moves)
        answer = experiments.perfect_answer(board, reference)
        side = "X" if board.stone_count % 2 == 0 else "O"
        best = ", ".join(game.move_name(*m) for m in answer.moves)
        lines += [
            f"**{name}** -- moves `{moves or '(none)'}`, {side} to move. Perfect play: a "
            f"{VALUE_WORDS[answer.value]} for {side}, by {best}.",
            "",
            f"| iterations | move (seed {args.seed}) | its value | a perfect move in |",
            "|---|---|---|---|",
        ]
        for row in experiments.settle(board, answer, _iteration_counts(args.max_iterations), args.runs, settings,
                                      args.seed):
            mark = "" if row.move in answer.moves else " (not perfect)"
            lines.append(f"| {row.iterations} | {game.move_name(*row.move)}{mark} | {row.value:.3f} | "
                         f"{row.perfect_runs}/{row.runs} runs |")
        perfect_runs += row.perfect_runs
        runs += row.runs
        lines.append("")
    lines += [f"At {row.iterations} iterations, {perfect_runs} of {runs} runs over these positions chose a "
              "perfect move.", ""]
    return lines


def _iterations(args: argparse.Namespace) -> str:
    return "\n".join([
        "## How the chosen move and its value settle as the iterations grow",
        "",
        f"As the abstract MCTS library's table: from a handful of positions, UCT's most-visited move and its value "
        f"(mean playout result for the side to move: win 1, draw 1/2) at each number of iterations, for the first "
        f"seed; and in how many of {args.runs} runs (seeds {args.seed}..{args.seed + args.runs - 1}) the move "
        f"chosen was a perfect one. Tic-tac-toe: c = {UCB_C}, random playouts; Connect Four: c = 1, aware playouts "
        "(the article's settings).",
        "",
        "### Tic-tac-toe",
        "",
        *_settling_tables(TICTACTOE, TICTACTOE_POSITIONS, UctSettings(UCB_C, False), args),
        "### Connect Four",
        "",
        *_settling_tables(CONNECT4, CONNECT4_POSITIONS, UctSettings(1.0, True), args),
        "{timing}",
    ])


SECTIONS = [
    Section("tictactoe", _versus_perfect),
    Section("sweep", _sweep),
    Section("connect4", _round_robin),
    Section("iterations", _iterations),
]
