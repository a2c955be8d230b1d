"""The small games' searches: the perfect-play references on positions whose values are known (tic-tac-toe theory,
Connect Four tactics) and against each other, plain UCT converging to the perfect move, and a short run of each of
the articles' experiments."""

from __future__ import annotations

import random

import pytest

from monte.brain.board import MOVE_WINS, Board
from monte.brain.connect4 import Connect4Solver
from monte.brain.minimax import DRAW, LOSS, WIN, Minimax
from monte.brain.uct import UctSettings, run_uct, seed_random
from monte.small_games import experiments
from monte.small_games.spec import CONNECT4, TICTACTOE


@pytest.fixture(scope="module")
def solver() -> Connect4Solver:
    return Connect4Solver()


def best_moves(values: dict[tuple[int, int], int]) -> set[str]:
    top = max(values.values())
    return {TICTACTOE.move_name(*m) for m, v in values.items() if v == top}


def test_tictactoe_is_a_draw_and_a_corner_must_be_answered_in_the_centre():
    minimax = Minimax()
    assert minimax.value(TICTACTOE.new_board()) == DRAW
    after_corner = experiments.board_after(TICTACTOE, "a1")
    values = minimax.move_values(after_corner)
    assert best_moves(values) == {"b2"} and values[(1, 1)] == DRAW
    assert sorted(set(values.values())) == [LOSS, DRAW]


def test_tictactoe_an_edge_answer_to_a_corner_loses():
    minimax = Minimax()
    board = experiments.board_after(TICTACTOE, "a1 b1")
    assert minimax.value(board) == WIN
    assert best_moves(minimax.move_values(board)) == {"a2", "a3", "b2"}


def c4(diagram: str) -> Board:
    return Board.from_diagram(diagram, k=4, gravity=True)


def test_connect4_solver_takes_a_win_blocks_one_and_sees_a_double_threat(solver: Connect4Solver):
    win_now = c4("""
        .......
        .......
        .......
        X......
        X..O...
        X..OO..
    """)
    assert solver.value(win_now) == WIN
    # O to move with two open ends of X X X on the bottom row: lost whatever O does
    double = c4("""
        .......
        .......
        .......
        .......
        ...O...
        .XXX.O.
    """)
    assert solver.value(double) == LOSS
    assert set(solver.move_values(double).values()) == {LOSS}
    # X to move must take O's winning cell in column 1; every other move loses at once
    must_block = experiments.board_after(CONNECT4, "2 1 4 5 6 1 6 1 2 3")
    values = solver.move_values(must_block)
    assert {x for (x, _), v in values.items() if v != LOSS} <= {0}
    assert values[(0, must_block.drop_row(0))] == WIN


def test_connect4_solver_agrees_with_plain_minimax_near_the_end(solver: Connect4Solver):
    """Random positions 28-33 stones in (seeded), every move's value checked against exhaustive minimax."""
    rng = random.Random(5)
    checked = 0
    while checked < 10:
        board = CONNECT4.new_board()
        over = False
        for _ in range(rng.randint(28, 33)):
            if board.play(*rng.choice(board.legal_moves())) == MOVE_WINS:
                over = True
                break
        if over:
            continue
        assert solver.move_values(board) == Minimax().move_values(board), str(board)
        checked += 1


def test_connect4_solver_refuses_other_boards_and_finished_games(solver: Connect4Solver):
    with pytest.raises(ValueError, match="not a Connect Four board"):
        solver.value(TICTACTOE.new_board())
    with pytest.raises(ValueError, match="game is over"):
        solver.value(c4("""
            .......
            .......
            X......
            X......
            X..O...
            X..OO.O
        """))


@pytest.mark.parametrize("game,moves,iterations,settings", [
    (TICTACTOE, "a1", 5000, UctSettings()),
    (TICTACTOE, "a1 b2 c3", 5000, UctSettings()),
    (CONNECT4, "7 2 3 4 7 3 2 3 6 2 1 5 3 3", 5000, UctSettings(1.0, True)),
])
def test_uct_with_enough_iterations_plays_a_perfect_move(game, moves, iterations, settings):
    board = experiments.board_after(game, moves)
    answer = experiments.perfect_answer(board, game.reference())
    for seed in (1, 2):
        seed_random(seed)
        best = run_uct(board, iterations, settings).best()
        assert (best.x, best.y) in answer.moves, (seed, best)


def test_aware_playouts_take_a_win_that_random_playouts_leave():
    """X has three in column 4 and O to move does not block: an aware playout then lets X win at once. With exactly as
    many iterations as the root has moves, each move gets one playout, so its value is that playout's result."""
    board = experiments.board_after(CONNECT4, "4 1 4 1 4")
    values = {False: [], True: []}
    for aware in values:
        for seed in range(10):
            seed_random(seed)
            values[aware] += [c.value for c in run_uct(board, 7, UctSettings(1.0, aware)).children() if c.x != 3]
    assert len(values[True]) == 60 and set(values[True]) == {0.0}
    assert max(values[False]) > 0.0


def test_short_tictactoe_against_perfect_play_never_wins_and_counts_every_game():
    first, second = experiments.versus_perfect(TICTACTOE, 2000, 5, UctSettings(), seed=1)
    assert first.games == second.games == 5
    assert first.wins == second.wins == 0  # perfect play never loses
    assert first.losses == second.losses == 0  # and at 2000 simulations UCT holds the draw


def test_short_connect4_round_robin_scores_add_up():
    entrants = [experiments.Entrant(f"c={c}", UctSettings(c, aware)) for c, aware in ((0.5, False), (1.0, True),
                                                                                      (2.0, False))]
    result = experiments.round_robin(CONNECT4, entrants, 100, 2, seed=3)
    for a in range(3):
        for b in range(3):
            if a != b:
                mine, theirs = result.tallies[(a, b)], result.tallies[(b, a)]
                assert mine.games == 2 and (mine.wins, mine.draws, mine.losses) == (theirs.losses, theirs.draws,
                                                                                   theirs.wins)
    assert sum(result.total(a).points for a in range(3)) == 6  # three pairings of two games
    assert result.first_mover.games == 6


def test_short_settling_table_scores_each_run_against_the_perfect_answer():
    board = experiments.board_after(TICTACTOE, "a1")
    answer = experiments.perfect_answer(board, Minimax())
    rows = experiments.settle(board, answer, [10, 2000], runs=4, settings=UctSettings(), seed=1)
    assert [r.iterations for r in rows] == [10, 2000]
    assert all(r.runs == 4 and 0 <= r.perfect_runs <= 4 and 0.0 <= r.value <= 1.0 for r in rows)
    assert rows[1].perfect_runs == 4 and rows[1].move == (1, 1)
