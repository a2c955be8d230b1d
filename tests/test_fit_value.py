"""monte fit-eval: judged positions learned toward the judge's win rate, game positions toward the result for the side
to move, a network that learns a rule no weighted sum can, the kernel computing what the tool fits, and the module
it writes."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from monte import cli
from monte.brain import value_weights
from monte.brain.board import Board
from monte.brain.evaluation import NETWORK_INPUTS, network_inputs, network_logit
from monte.brain.position import make, new_state
from monte.lab import fit_value
from monte.lab.position_judge import MATE_SCORE
from monte.lab.value_labels import JUDGE_SCALE, Label
from monte.tournaments.records import GameRecord, Termination, append_jsonl

def record(moves: list[tuple[int, int]], winner: str | None, termination: Termination = Termination.FIVE,
           game_id: int = 1, opening_id: str = "random:0") -> GameRecord:
    return GameRecord(game_id=game_id, pairing=("a", "b"), pair_index=0, black="a", white="b", width=15, height=15,
                      rule=0, opening=[], moves=[(x, y, 5) for x, y in moves], winner=winner,
                      termination=termination, detail="", opening_id=opening_id)


# black builds a row on y = 7 while white plays on y = 0; black's fifth stone (ply 9) makes five
BLACK_WINS = [(3, 7), (0, 0), (4, 7), (2, 0), (5, 7), (4, 0), (6, 7), (8, 0), (7, 7)]


def test_each_game_position_is_labelled_with_the_result_for_its_side_to_move():
    ex = fit_value.from_games([record(BLACK_WINS, "a")], skip_plies=1)
    # after ply k white is to move when k is odd; left out: ply 7 (white faces an open four: two five points),
    # ply 8 (black to move with a five to play) and ply 9 (the five is on the board)
    assert ex.y.tolist() == [0.0, 1.0, 0.0, 1.0, 0.0, 1.0]
    assert ex.x.shape == (6, NETWORK_INPUTS)
    # black to move after ply 6 makes an open four from its open three: the hand-set evaluation all but calls it won
    assert ex.hand[5] > 0.99 and ex.hand[5] > ex.hand[3]


def test_a_draw_is_half_a_win_and_a_forfeit_teaches_nothing():
    assert fit_value.from_games([record(BLACK_WINS[:4], None, Termination.DRAW_FULL)], 1).y.tolist() == [0.5] * 4
    assert fit_value.from_games([record(BLACK_WINS[:4], "b", Termination.TIME)], 1).size == 0
    assert fit_value.from_games([record(BLACK_WINS, "a")], skip_plies=5).size == 2  # plies 5 and 6


def test_a_judged_position_is_learned_toward_the_judge_s_win_rate():
    def label(stones, eval_, mate=0):
        return Label(15, 15, 0, tuple(stones), eval_, mate, 1000, (7, 7))

    labels = [label(BLACK_WINS[:2], 0), label(BLACK_WINS[:3], -JUDGE_SCALE),
              label(BLACK_WINS[:4], MATE_SCORE - 5, 5), label(BLACK_WINS[:8], 100)]  # the last: a five to play
    ex = fit_value.from_labels(labels)
    assert ex.y == pytest.approx([0.5, 1 / (1 + np.e), 1.0])


def test_the_fit_learns_a_rule_that_needs_a_hidden_layer():
    # the side to move wins when exactly one of two inputs is set (exclusive or): no weighted sum can say so
    rng = np.random.default_rng(3)
    x = np.zeros((4000, NETWORK_INPUTS))
    x[:, 0] = rng.integers(0, 2, 4000)
    x[:, 1] = rng.integers(0, 2, 4000)
    y = (x[:, 0] != x[:, 1]).astype(float) * 0.9 + 0.05
    ex = fit_value.Examples(x, y, np.zeros(4000))
    net = fit_value.fit(ex, hidden=16, steps=1500, rate=0.03)  # 8 units may all start dead on the two inputs
    floor = fit_value.cross_entropy(y, y)
    assert fit_value.cross_entropy(net.probability(x), y) < floor + 0.02
    assert fit_value.cross_entropy(np.full(4000, y.mean()), y) > floor + 0.3


def test_the_kernel_computes_what_the_fitting_tool_reads():
    board = Board(15, 15, 0)
    st = new_state(board)
    shipped = fit_value.Network(value_weights.W1, value_weights.B1, value_weights.W2, value_weights.B2)
    for ply, (x, y) in enumerate(BLACK_WINS[:6]):
        make(st, board.index(x, y), 1 + ply % 2)
        for me in (0, 1):
            p = shipped.probability(network_inputs(st, me)[None])[0]
            assert p == pytest.approx(1 / (1 + np.exp(-network_logit(st, me))), abs=1e-9)


def test_fit_eval_judges_the_fit_and_writes_a_module_that_loads(tmp_path, capsys):
    labels, games = tmp_path / "labels.jsonl", tmp_path / "games.jsonl"
    labels.write_text("".join(Label(15, 15, 0, tuple(BLACK_WINS[:n]), 20 * n, 0, 100, (7, 7)).line() + "\n"
                              for n in range(2, 7)))
    for i in range(4):
        append_jsonl(games, record(BLACK_WINS, "a", game_id=i))
    written = tmp_path / "value_weights.py"
    assert cli.main(["fit-eval", str(games), "--labels", str(labels), "--holdout", "0.3", "--hidden", "4",
                     "--steps", "50", "--write", str(written)]) == 0
    out = capsys.readouterr().out
    assert "5 labelled positions, 12 positions of 4 games" in out and "hand-set" in out and "shipped" in out
    spec = importlib.util.spec_from_file_location("written_weights", written)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.W1.shape == (NETWORK_INPUTS, 4) and module.B1.shape == (4,) and module.HIDDEN == 4
    assert cli.main(["fit-eval", str(games), "--holdout", "1.5"]) == cli.EXIT_USAGE
    assert cli.main(["fit-eval"]) == cli.EXIT_USAGE
    labels.write_text("not json\n")
    assert cli.main(["fit-eval", "--labels", str(labels)]) == cli.EXIT_USAGE
    assert "labels.jsonl:1: not a labelled position" in capsys.readouterr().err


def test_renju_has_a_network_of_its_own_and_fit_eval_renju_learns_from_renju_positions_alone(tmp_path, capsys):
    from monte.brain import value_weights_renju
    from monte.brain.evaluation import network_weights
    from monte.brain.rules import RULE_CARO, RULE_EXACT_FIVE, RULE_FREESTYLE, RULE_RENJU

    assert network_weights(RULE_RENJU) is value_weights_renju
    assert all(network_weights(rule) is value_weights for rule in (RULE_FREESTYLE, RULE_EXACT_FIVE, RULE_CARO))
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(Label(15, 15, rule, tuple(BLACK_WINS[:n]), 20 * n, 0, 100, (7, 7)).line() + "\n"
                              for rule in (RULE_FREESTYLE, RULE_RENJU) for n in range(2, 7)))
    assert cli.main(["fit-eval", "--labels", str(labels), "--renju", "--holdout", "0", "--hidden", "4",
                     "--steps", "20"]) == 0
    assert "5 labelled positions, 0 positions of 0 games" in capsys.readouterr().out  # the freestyle five left out
    assert cli.main(["fit-eval", "--labels", str(labels), "--holdout", "0", "--hidden", "4", "--steps", "20"]) == 0
    assert "10 labelled positions" in capsys.readouterr().out
    labels.write_text("".join(Label(15, 15, RULE_FREESTYLE, tuple(BLACK_WINS[:n]), 0, 0, 100, (7, 7)).line() + "\n"
                              for n in range(2, 7)))
    assert cli.main(["fit-eval", "--labels", str(labels), "--renju"]) == cli.EXIT_USAGE
    assert "no renju position to learn from" in capsys.readouterr().err
