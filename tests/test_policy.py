"""The learned move policy (brain.policy) and its fitting tool (lab/fit_policy.py): the tables the search reads are
the fitted weights folded right, the fit's gradient is the loss's, a fit learns a preference the games show, and no
game from a held-out opening is learned from."""

from __future__ import annotations

import json

import numpy as np
import pytest

from monte.brain import policy, policy_weights
from monte.brain.board import Board
from monte.brain.patterns import CLASS_COUNT, COMBO_SIZE, classify_cell
from monte.brain.policy import (
    DISTANCE_BINS, ROLE_WEIGHTS, SHAPES, THREAT_CONTEXTS, code_features, fold, move_logit, recent_moves, threat_context,
)
from monte.brain.position import new_state
from monte.lab import fit_policy as fp
from monte.tournaments.records import GameRecord, Termination


def test_the_shipped_weights_have_the_model_s_shape():
    assert SHAPES == 495
    assert len(policy_weights.ATTACK) == len(policy_weights.DEFENCE) == ROLE_WEIGHTS
    assert len(policy_weights.DISTANCE) == 2 * DISTANCE_BINS
    assert len(policy_weights.CLASS_PAIRS) == THREAT_CONTEXTS * CLASS_COUNT * CLASS_COUNT
    assert np.any(np.asarray(policy_weights.ATTACK) != 0.0), "the shipped policy is fitted, not a placeholder"


def test_a_code_s_features_are_its_patterns_its_class_and_its_direction_free_shape():
    features = code_features()
    code = 4 * 729 + 5 * 81 + 0 * 9 + 2           # open three, four, nothing, two
    assert list(features[code, :4]) == [4, 5, 0, 2]
    assert features[code, 4] == 9 + classify_cell(4, 5, 0, 2, False)
    same_shape = 2 * 729 + 0 * 81 + 5 * 9 + 4      # the same patterns in other directions
    assert features[code, 5] == features[same_shape, 5]
    assert features[code, 5] != features[4 * 729 + 4 * 81 + 0 * 9 + 2, 5]


def test_fold_sums_each_code_s_weights():
    rng = np.random.default_rng(3)
    weights = rng.normal(size=ROLE_WEIGHTS)
    table = fold(weights)
    features = code_features()
    for code in rng.integers(0, COMBO_SIZE, size=50):
        assert table[code] == pytest.approx(sum(weights[i] for i in features[code]))


def test_move_logit_reads_the_folded_tables_and_the_distances():
    board = Board(15)
    for x, y in ((7, 7), (8, 8), (8, 6), (6, 8)):
        board.play(x, y)
    st = new_state(board)
    last, own = recent_moves(st)
    idx = board.index(9, 5)                         # 3 from the last move (6,8), 1 from black's own (8,6)
    me, op = 0, 1
    for context in (0, 5, 13):
        expected = (policy.TABLE[0, st.code[me, idx]] + policy.TABLE[1, st.code[op, idx]]
                    + policy.PAIR_TABLE[context, st.cls[me, idx], st.cls[op, idx]]
                    + policy.DISTANCE_TABLE[0, 2] + policy.DISTANCE_TABLE[1, 0])
        assert move_logit(st, idx, me, last, own, context) == pytest.approx(expected)


def test_the_threat_context_says_which_side_threatens_what():
    board = Board(15)
    for x, y in ((7, 7), (0, 0), (8, 7), (0, 2)):   # black: an open two; white: nothing near
        board.play(x, y)
    st = new_state(board)
    assert threat_context(st, 0) == 1                # black to move can make an open three
    assert threat_context(st, 1) == 4                # white to move faces it
    board.play(9, 7)                                 # black's open three: an open four to make
    board.play(0, 4)
    st = new_state(board)
    assert threat_context(st, 0) & 2 and not threat_context(st, 0) & 8
    assert threat_context(st, 1) & 8 and not threat_context(st, 1) & 2


def _record(moves, opening=((7, 7), (8, 8), (8, 6)), game_id=1, opening_id="random:0", black="a", white="b"):
    return GameRecord(game_id=game_id, pairing=(black, white), pair_index=0, black=black, white=white, width=15,
                      height=15, rule=0, opening=[tuple(s) for s in opening], moves=[(x, y, 5) for x, y in moves],
                      winner=black, termination=Termination.FIVE, detail="", opening_id=opening_id)


GAME = [(6, 8), (9, 5), (10, 4), (5, 9), (4, 10), (6, 6), (5, 5), (9, 9), (10, 10), (7, 5)]


def test_examples_are_the_chosen_engines_moves_among_the_candidates():
    every = fp.collect([_record(GAME)])
    only_white = fp.collect([_record(GAME)], {"b"})
    assert every.positions == len(GAME)
    assert only_white.positions == (len(GAME) + 1) // 2
    board = Board(15)
    for x, y in ((7, 7), (8, 8), (8, 6)):
        board.play(x, y)
    st = new_state(board)
    played = board.index(*GAME[0])
    assert every.attack[every.target[0]] == st.code[1, played]      # white to move after the opening
    assert every.defence[every.target[0]] == st.code[0, played]


def test_the_gradient_is_the_loss_s():
    ex = fp.collect([_record(GAME)])
    features = code_features()
    rng = np.random.default_rng(5)
    w = rng.normal(scale=0.3, size=fp.WEIGHT_COUNT)
    _, gradient = fp.loss_and_gradient(w, ex, features)
    for i in rng.choice(fp.WEIGHT_COUNT, size=25, replace=False):
        step = np.zeros_like(w)
        step[i] = 1e-5
        numeric = (fp.loss_and_gradient(w + step, ex, features)[0]
                   - fp.loss_and_gradient(w - step, ex, features)[0]) / 2e-5
        assert gradient[i] == pytest.approx(numeric, rel=1e-4, abs=1e-7)


def test_a_fit_learns_that_the_moves_played_lie_next_to_the_last_move():
    records = []
    rng = np.random.default_rng(11)
    steps = [(a, b) for a in (-1, 0, 1) for b in (-1, 0, 1) if (a, b) != (0, 0)]
    for g in range(6):
        opening = [(7, 7), (6, 6), (8, 6)]
        taken = set(opening)
        moves = []
        last = opening[-1]
        while len(moves) < 12:
            free = [(last[0] + a, last[1] + b) for a, b in steps
                    if 0 <= last[0] + a < 15 and 0 <= last[1] + b < 15 and (last[0] + a, last[1] + b) not in taken]
            if not free:
                break
            last = free[int(rng.integers(len(free)))]
            taken.add(last)
            moves.append(last)
        records.append(_record(moves, opening, game_id=g))
    ex = fp.collect(records)
    w = fp.fit(ex, steps=300)
    _, _, distance, _, _ = fp._unpack(w)
    assert distance[0] > distance[2] and distance[0] > distance[DISTANCE_BINS - 1]


def test_fit_policy_leaves_out_games_from_held_out_openings_and_writes_a_module(tmp_path, capsys):
    from monte.cli import main

    test_file = tmp_path / "mine-test.txt"
    test_file.write_text("0,0, 1,1, 1,-1\n")                       # (7,7) (8,8) (8,6) on 15x15
    games = tmp_path / "games.jsonl"
    held = _record(GAME, opening=[(14 - x, y) for x, y in ((7, 7), (8, 8), (8, 6))], game_id=1)
    fresh = _record(GAME[:6], opening=((7, 7), (7, 8), (9, 9)), game_id=2)
    games.write_text("\n".join(json.dumps({**rec.__dict__, "termination": rec.termination.value})
                               for rec in (held, fresh)) + "\n")
    out = tmp_path / "weights.py"
    code = main(["fit-policy", str(games), "--exclude-openings", str(test_file), "--holdout", "0",
                 "--steps", "20", "--write", str(out)])
    captured = capsys.readouterr()
    assert code == 0
    assert "left out: 1 game played from held-out openings" in captured.err
    assert "1 games, 6 positions" in captured.out
    namespace: dict = {}
    exec(out.read_text(), namespace)
    assert len(namespace["ATTACK"]) == ROLE_WEIGHTS
    assert len(namespace["CLASS_PAIRS"]) == THREAT_CONTEXTS * CLASS_COUNT ** 2
