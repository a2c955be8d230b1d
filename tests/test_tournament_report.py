"""The standings: W/L/D and scores over all games, pentanomial Elo over complete pairs, reasons per row, the SPRT
line, and the progress line."""

from __future__ import annotations

import io
import math

import pytest

from monte.tournaments.records import GameRecord, Termination
from monte.tournaments.report import (Progress, engine_tallies, move_times, pairing_tallies, sprt_status, standings,
                                 time_table)
from monte.tournaments.stats import SPRT


def game(game_id: int, pair: int, black: str, white: str, winner: str | None,
         termination: Termination = Termination.FIVE, pairing: tuple[str, str] | None = None) -> GameRecord:
    return GameRecord(game_id=game_id, pairing=pairing or (black, white), pair_index=pair, black=black, white=white,
                      width=15, height=15, rule=0, opening=[], moves=[], winner=winner, termination=termination,
                      detail="")


RECORDS = [
    game(1, 0, "a", "b", "a"),
    game(2, 0, "b", "a", "a", Termination.TIME, pairing=("a", "b")),   # pair 0: a scores 2
    game(3, 1, "a", "b", "b", Termination.CRASH),
    game(4, 1, "b", "a", None, Termination.DRAW_FULL, pairing=("a", "b")),  # pair 1: a scores 0.5
    game(5, 2, "a", "b", "a"),                                          # pair 2 incomplete
]


def test_engine_rows_count_every_game_and_say_why_the_engine_lost():
    tallies = engine_tallies(RECORDS, ["a", "b"])
    a, b = tallies["a"], tallies["b"]
    assert (a.wins, a.losses, a.draws, a.score) == (3, 1, 1, 3.5)
    assert (b.wins, b.losses, b.draws, b.score) == (1, 3, 1, 1.5)
    assert a.reasons == {"crash": 1}
    assert b.reasons == {"five": 2, "time": 1}


def test_elo_comes_from_complete_pairs_only():
    a = engine_tallies(RECORDS, ["a", "b"])["a"]
    assert a.pentanomial == [0, 1, 0, 0, 1]
    # Worked by hand: the two complete pairs score 0.25 and 1 per game, mean 0.625 -> 400 log10(0.625/0.375)
    # = +88.74 Elo; per-pair standard error sqrt(0.140625 / 2) = 0.26517, so the 95% interval's low end is
    # 0.625 - 1.96 * 0.26517 = 0.10529 -> -371.7 Elo, its high end is past 1 (+inf); LOS = Phi(0.125 / 0.26517).
    estimate = a.elo()
    assert estimate.elo == pytest.approx(88.7395, abs=1e-3)
    assert estimate.lower == pytest.approx(-371.725, abs=1e-2) and estimate.upper == math.inf
    assert estimate.los == pytest.approx(0.68132, abs=1e-4) and estimate.games == 4
    pairing = pairing_tallies(RECORDS, ["a", "b"], "round-robin")[("a", "b")]
    assert pairing.pentanomial == [0, 1, 0, 0, 1]
    assert pairing.reasons == {"five": 2, "time": 1, "crash": 1, "draw-full": 1}


def test_standings_list_engines_best_first_with_reasons_and_pairings():
    text = standings(RECORDS, ["b", "a"], "round-robin")
    lines = text.splitlines()
    engine_rows = [line for line in lines if line.startswith(("a ", "b ")) and " vs " not in line]
    assert [row.split()[0] for row in engine_rows] == ["a", "b"]
    assert "3.5/5" in engine_rows[0] and "crash 1" in engine_rows[0]
    assert "+89  [-372, +inf]  68.1%" in engine_rows[0]  # the hand-worked figures of the test above
    pairing_rows = [line for line in lines if " vs " in line]
    assert len(pairing_rows) == 1 and pairing_rows[0].startswith("a vs b")


def test_the_sprt_line_reports_the_decision_over_pairs():
    winning = [game(2 * i + k + 1, i, *(("a", "b") if k == 0 else ("b", "a")), "a", pairing=("a", "b"))
               for i in range(10) for k in range(2)]
    line, decision = sprt_status(SPRT(0.0, 200.0), winning, ["a", "b"])
    assert decision == "H1" and "H1 accepted" in line and "10 pairs" in line
    line, decision = sprt_status(SPRT(0.0, 200.0), winning[:4], ["a", "b"])
    assert decision is None and "continuing" in line


def test_progress_prints_one_line_per_update_off_a_terminal():
    stream = io.StringIO()
    meter = Progress(stream, total=10, names=["a", "b"])
    meter.update(RECORDS[:2], running=1)
    meter.update(RECORDS[:4], running=0)
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2
    assert "2/10 games, a 2/2" in lines[0] and "1 playing" in lines[0]
    assert "4/10 games, a 2.5/4" in lines[1]


def test_move_times_take_each_engines_own_moves_whoever_moves_first_after_the_opening():
    odd_opening = GameRecord(game_id=1, pairing=("a", "b"), pair_index=0, black="a", white="b", width=15, height=15,
                             rule=0, opening=[(7, 7), (8, 8), (6, 6)], moves=[(1, 1, 10), (2, 2, 20), (3, 3, 30)],
                             winner="a", termination=Termination.FIVE, detail="")
    empty_opening = GameRecord(game_id=2, pairing=("a", "b"), pair_index=0, black="b", white="a", width=15, height=15,
                               rule=0, opening=[], moves=[(1, 1, 40), (2, 2, 50), (3, 3, 60), (4, 4, 70)],
                               winner="a", termination=Termination.FIVE, detail="")
    # after 3 opening stones white ("b" in game 1) moves first; with none, black ("b" in game 2) does
    assert move_times([odd_opening, empty_opening], "a") == [20, 50, 70]
    assert move_times([odd_opening, empty_opening], "b") == [10, 30, 40, 60]
    table = "\n".join(time_table([odd_opening, empty_opening], ["a", "b"], 100))
    assert "a       3      50         70      70          50%" in table
    assert "b       4      35         60      60          35%" in table
