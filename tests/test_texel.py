"""monte fit-eval: positions labelled with the game's result for the side to move, forfeits left out, and a fit that
recovers the weights of a known logistic model."""

from __future__ import annotations

import numpy as np
import pytest

from monte.brain.evaluation import FEATURES_PER_SIDE
from monte import cli
from monte.lab import fit_eval as texel
from monte.tournaments.records import GameRecord, Termination, append_jsonl


def record(moves: list[tuple[int, int]], winner: str | None, termination: Termination = Termination.FIVE,
           game_id: int = 1) -> GameRecord:
    return GameRecord(game_id=game_id, pairing=("a", "b"), pair_index=0, black="a", white="b", width=15, height=15,
                      rule=0, opening=[], moves=[(x, y, 5) for x, y in moves], winner=winner,
                      termination=termination, detail="")


# black builds a row on y = 7 while white plays on y = 0; black's fifth stone (ply 9) makes five
BLACK_WINS = [(3, 7), (0, 0), (4, 7), (2, 0), (5, 7), (4, 0), (6, 7), (8, 0), (7, 7)]


def test_each_position_is_labelled_with_the_result_for_its_side_to_move():
    rows, results, hand = texel.game_examples(record(BLACK_WINS, "a"), skip_plies=1)
    # after ply k white is to move when k is odd (black just played); left out: ply 7 (white faces black's open
    # four: two five points), ply 8 (black to move with a five to play) and ply 9 (the five is on the board)
    assert results == [0.0, 1.0, 0.0, 1.0, 0.0, 1.0]
    assert len(rows) == len(hand) == 6 and all(r.shape == (2 * FEATURES_PER_SIDE,) for r in rows)
    # black to move after ply 6 makes an open four from its open three: the hand-set evaluation all but calls it won
    assert hand[5] > 0.99 and hand[5] > hand[3]


def test_a_draw_is_half_a_win_for_both_sides_and_a_forfeit_teaches_nothing():
    _, results, _ = texel.game_examples(record(BLACK_WINS[:4], None, Termination.DRAW_FULL), skip_plies=1)
    assert results == [0.5, 0.5, 0.5, 0.5]
    assert texel.game_examples(record(BLACK_WINS[:4], "b", Termination.TIME), skip_plies=1) == ([], [], [])
    assert len(texel.game_examples(record(BLACK_WINS, "a"), skip_plies=5)[0]) == 2  # plies 5 and 6


def test_the_fit_recovers_the_weights_of_a_logistic_model():
    rng = np.random.default_rng(3)
    width = 2 * FEATURES_PER_SIDE
    true = np.zeros(width + 1)
    true[[0, 4, 20]] = [0.8, -1.2, 0.5]
    true[-1] = 0.3
    x = rng.integers(0, 4, size=(20000, width)).astype(float)
    p = 1 / (1 + np.exp(-(x @ true[:-1] + true[-1])))
    y = (rng.random(20000) < p).astype(float)
    examples = texel.Examples(x, y, np.arange(20000), np.zeros(20000))
    fitted = texel.fit(examples, l2=0.0)
    assert fitted == pytest.approx(true, abs=0.08)
    assert texel.log_loss(texel.model_p(fitted, examples), examples) < \
        texel.log_loss(texel.model_p(np.zeros(width + 1), examples), examples)


def test_held_out_games_are_never_split_between_fit_and_test():
    examples = texel.collect([record(BLACK_WINS, "a", game_id=i) for i in range(10)], skip_plies=1)
    train, held = texel.split_games(examples, 0.3, seed=5)
    assert set(train.game.tolist()).isdisjoint(held.game.tolist())
    assert len(set(held.game.tolist())) == 3 and train.x.shape[0] + held.x.shape[0] == examples.x.shape[0]


def test_monte_fit_eval_prints_the_comparison_and_the_weights_block(tmp_path, capsys):
    log = tmp_path / "games.jsonl"
    for i in range(6):
        moves = BLACK_WINS if i % 2 else BLACK_WINS[:6]
        append_jsonl(log, record(moves, "a" if i % 2 else None, Termination.FIVE if i % 2 else Termination.DRAW_FULL,
                                 game_id=i))
    assert cli.main(["fit-eval", str(log), "--holdout", "0.5"]) == 0
    out = capsys.readouterr().out
    assert "6 games" in out and "held-out log loss" in out and "hand-set" in out
    assert "WEIGHTS = np.array([" in out and out.rstrip().endswith("])")
    assert cli.main(["fit-eval", str(log), "--holdout", "1.5"]) == cli.EXIT_USAGE


def test_games_from_held_out_openings_are_never_fitted_on_but_judge_the_fit(tmp_path, capsys):
    log, unseen = tmp_path / "games.jsonl", tmp_path / "unseen.jsonl"
    for i in range(4):
        game = record(BLACK_WINS, "a", game_id=i)
        game.opening_id = f"freestyle15-balanced-{'test' if i == 3 else 'fit'}.txt:{i + 6}"
        append_jsonl(log, game)
        append_jsonl(unseen, game)
    assert cli.main(["fit-eval", str(log), "--holdout", "0", "--test", str(unseen)]) == 0
    out, err = capsys.readouterr()
    assert "3 games" in out and "left out of the fit: 1 game played from held-out openings" in err
    assert "held-out openings: 4 games" in out and "fitted   unseen openings log loss" in out
    assert "shipped  unseen openings log loss" in out
