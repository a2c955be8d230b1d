"""The move played among the root's children (``brain.root_choice``): the most visited, unless a well-visited move's
value is clearly better; proofs first; and what the move's report says of it."""

from __future__ import annotations

from monte.brain.bench import board_of
from monte.brain.limits import new_limits
from monte.brain.mcts import expand_root
from monte.brain.move_report import search_info
from monte.brain.position import new_state
from monte.brain.root_choice import root_choice
from monte.brain.settings import Options, Params
from monte.brain.threats import new_workspace
from monte.brain.tree import M_ROOT, Tree, child_moves, children, new_tree


def root_with(stats: list[tuple[int, float]]) -> tuple[Tree, int, list[int]]:
    """A tree of the 15x15 middle game whose first root children have these (visits, mean value) statistics."""
    board = board_of("15x15 middle game")
    st = new_state(board)
    tree = new_tree(2**20)
    expand_root(st, tree, board.to_move, Params(), 10, new_workspace(st.cells.shape[0]), new_limits())
    root = int(tree.meta[M_ROOT])
    kids = children(tree, root).tolist()
    for c, (visits, value) in zip(kids, stats):
        tree.visits[c], tree.wsum[c] = visits, visits * value
    tree.visits[root] = sum(v for v, _ in stats)
    return tree, root, kids


def test_the_most_visited_move_is_played_when_no_other_is_clearly_better():
    tree, root, kids = root_with([(10000, 0.10), (3000, 0.12), (50, 0.90)])
    assert root_choice(tree, root, Options()) == kids[0]  # 0.12 at 3,000 visits is within the bounds; 50 are too few
    tree, root, kids = root_with([(10000, 0.10), (3000, 0.14)])
    assert root_choice(tree, root, Options()) == kids[1]  # its bound 0.085, the favourite's 0.07


def test_a_well_visited_move_with_a_clearly_better_value_is_played_instead():
    # position 31 of the held-out blunder set at 1 s: 68,216 visits at 33.4% against 42,952 at 46.0%
    tree, root, kids = root_with([(68216, -0.332), (42952, -0.080), (3625, -0.350)])
    assert root_choice(tree, root, Options()) == kids[1]
    assert root_choice(tree, root, Options(choice_share=0.0)) == kids[0]  # switched off: visits alone
    assert root_choice(tree, root, Options(choice_share=0.7)) == kids[0]  # 63% of the visits: not enough


def test_proofs_come_before_values():
    tree, root, kids = root_with([(1000, 0.0), (800, 0.5), (700, 0.0)])
    tree.proven[kids[1]] = 1  # the opponent wins after it: never chosen, whatever its value
    assert root_choice(tree, root, Options()) == kids[0]
    tree.proven[kids[2]] = -1  # a proven win is played at once
    assert root_choice(tree, root, Options()) == kids[2]


def test_the_report_gives_the_played_moves_own_win_rate_and_line():
    tree, root, kids = root_with([(68216, -0.332), (42952, -0.080)])
    board = board_of("15x15 middle game")
    move = board.coords(int(child_moves(tree, root)[1]))
    info = search_info(board, tree, 0.0, 111168, move)
    assert info.pv[0] == move
    assert abs(info.winrate - 0.46) < 1e-6


def test_the_analysis_lists_the_played_move_first():
    # monte analyze's table, the web board's ringed candidate and its numbered line all read the first row as the
    # move Monte plays: when root_choice plays the runner-up, the runner-up heads the list, the rest by visits
    from monte.brain.search_view import _root_moves

    tree, root, kids = root_with([(68216, -0.332), (42952, -0.080), (3625, -0.350)])
    board = board_of("15x15 middle game")
    moves = [board.coords(int(m)) for m in child_moves(tree, root)[:3]]
    info = search_info(board, tree, 0.0, 114793, moves[1])
    listed = _root_moves(board, tree, root, info, moves[1], set())
    assert [s.move for s in listed[:3]] == [moves[1], moves[0], moves[2]]
    assert listed[0].pv[0] == moves[1] and listed[0].visits == 42952
    listed = _root_moves(board, tree, root, info, moves[0], set())
    assert [s.move for s in listed[:3]] == moves  # the most visited played: visits alone
