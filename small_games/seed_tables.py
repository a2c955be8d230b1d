"""The experiments of ``monte seeds``, one Markdown section each: tic-tac-toe against perfect play and how few
simulations suffice, the Connect Four round-robin of exploration constants and playouts, and how the chosen move
settles as the iterations grow. Each table's numbers come from ``experiments``; ``seeds`` assembles the report."""

from __future__ import annotations

import argparse
import math
from typing import Callable

from monte.brain.uct import UCB_C, UctSettings
from monte.small_games import experiments
from monte.small_games.experiments import Entrant, Tally
from monte.small_games.spec import CONNECT4, TICTACTOE, SmallGame
from monte.tournaments.stats import elo_from_wdl

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


def _settling_tables(game: SmallGame, positions: list[tuple[str, str]], settings: UctSettings,
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


TABLES: dict[str, Callable[[argparse.Namespace], str]] = {
    "tictactoe": _versus_perfect,
    "sweep": _sweep,
    "connect4": _round_robin,
    "iterations": _iterations,
}
"""Each section of ``monte seeds`` (``seeds.SECTIONS``): the function that runs its experiment and returns its
Markdown, with ``{timing}`` where the command and its time go."""
