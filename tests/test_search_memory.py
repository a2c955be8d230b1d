"""The search tree inside its memory (``brain.memory``, ``brain.tree``): its budget follows ``max_memory``, it never
holds more than that budget, a reclaim keeps the statistics of what it keeps and frees the rest, a search past a full
tree goes on making nodes, and the value sums stay exact after hundreds of millions of visits."""

from __future__ import annotations

import numpy as np
import pytest

from monte.brain import slices
from monte.brain.bench import board_of
from monte.brain.board import Board
from monte.brain.engine import MctsPlayer
from monte.brain.jit import njit
from monte.brain.limits import SearchLimits, new_limits
from monte.brain.mcts import back_up, find_child, search
from monte.brain.memory import DEFAULT_TREE_BYTES, reserve_bytes, tree_bytes
from monte.brain.player import ThinkLimits
from monte.brain.position import new_state
from monte.brain.settings import Options, Params
from monte.brain.threats import new_workspace
from monte.brain.timecontrol import LeaderWatch
from monte.brain.tree import (
    M_BUDGET, M_EDGE_NEXT, M_FREE_COUNT, M_MADE, M_NODE_NEXT, M_RECLAIMS, M_ROOT, M_TABLE_USED, M_THRESHOLD,
    MAX_VISITS, Tree,
    child_moves, children, fill, move_to, new_node, new_tree, reclaim,
)
from monte.brain.vct import new_vct_space

MiB = 2**20
OLD_CAP_BYTES = 4_000_000 * 23
"""The tree's size before it followed the memory limit: 4M nodes of 23 bytes whatever max_memory allowed."""


def guessed_reserve_tree_bytes(limit: int, resident: int) -> int:
    """The tree's budget when its reserve was guessed (48 MiB and a tenth of the limit; 74 MiB at 350 MiB)."""
    return max(512 * 1024, limit - resident - 48 * MiB - limit // 10)


class Grower:
    """A search on one position, run in slices on one tree."""

    def __init__(self, name: str, budget: int) -> None:
        self.board = board_of(name)
        self.st = new_state(self.board)
        self.tree = new_tree(budget)
        self.ws = new_workspace(self.st.cells.shape[0])
        self.vs = new_vct_space()

    def run(self, iterations: int) -> int:
        return int(search(self.st, self.tree, self.board.to_move, iterations, Params(), self.ws, self.vs,
                          new_limits()))


def subtree(tree: Tree, node: int) -> dict[int, tuple[int, float, int, tuple[int, ...]]]:
    """Every node `node` reaches (once, though two parents may share it): its visits, value sum, proof and the moves
    of its visited children, by node."""
    found = {}
    stack = [node]
    while stack:
        n = stack.pop()
        if n in found:
            continue
        found[n] = (int(tree.visits[n]), float(tree.wsum[n]), int(tree.proven[n]),
                    tuple(child_moves(tree, n).tolist()))
        stack.extend(children(tree, n).tolist())
    return found


def kept_by(found: dict[int, tuple[int, float, int, tuple[int, ...]]], links: dict[int, list[int]],
            threshold: int) -> set[int]:
    """The nodes of `found` (a ``subtree`` of the root 0 taken before a reclaim, with each node's children `links`)
    that a reclaim at `threshold` keeps: those the root reaches through nodes of at least `threshold` visits -- in a
    graph, through any of their parents."""
    kept, stack = set(), [0]
    while stack:
        n = stack.pop()
        if n in kept:
            continue
        kept.add(n)
        if n == 0 or found[n][0] >= threshold:
            stack.extend(links[n])
    return kept


def block_edges(tree: Tree, nodes) -> int:
    """The edges (headers included) of the blocks of `nodes`."""
    return sum(int(tree.e_move[tree.block[n]]) + 1 for n in nodes if tree.block[n] >= 0)


# --- the budget follows max_memory -------------------------------------------------------------------------------

def test_the_tree_budget_is_what_max_memory_leaves_with_no_fixed_cap():
    resident = 170 * MiB
    for limit in (350 * MiB, 1024 * MiB, 4096 * MiB):
        assert tree_bytes(limit, resident) == limit - resident - reserve_bytes(limit)
        assert tree_bytes(limit, resident) > guessed_reserve_tree_bytes(limit, resident)
    assert tree_bytes(350 * MiB, resident) < tree_bytes(1024 * MiB, resident) < tree_bytes(4096 * MiB, resident)
    assert tree_bytes(4096 * MiB, resident) > 10 * OLD_CAP_BYTES
    assert tree_bytes(0) == DEFAULT_TREE_BYTES  # no limit
    assert 0 < tree_bytes(resident, resident) < MiB  # a limit with no room left still gets a small tree
    assert tree_bytes(350 * MiB, 200 * MiB) > 120 * MiB > guessed_reserve_tree_bytes(350 * MiB, 200 * MiB)


def test_the_player_sizes_its_tree_from_max_memory():
    player = MctsPlayer()
    board = Board(15)
    player.prepare(board, 0)
    assert int(player.tree.meta[M_BUDGET]) == DEFAULT_TREE_BYTES
    limit = 2048 * MiB
    player.prepare(board, limit)
    budget = int(player.tree.meta[M_BUDGET])
    assert budget > OLD_CAP_BYTES
    assert abs(budget - tree_bytes(limit)) < 16 * MiB  # the same sum (the process's RSS moves a little)


@pytest.mark.parametrize("budget", [MiB, 100 * MiB, 3000 * MiB])
def test_the_arenas_take_the_budget_and_no_more(budget):
    tree = new_tree(budget)
    scratch = ("stack_node", "stack_edge", "tally", "meta")  # fixed sizes, outside the budget
    arenas = sum(array.nbytes for name, array in tree._asdict().items() if name not in scratch)
    assert 0.99 * budget < arenas <= budget


# --- reclaiming --------------------------------------------------------------------------------------------------

def test_a_reclaim_keeps_the_played_subtree_with_its_statistics_and_frees_the_rest():
    grower = Grower("15x15 middle game", 16 * MiB)
    grower.run(20_000)
    tree = grower.tree
    assert tree.meta[M_RECLAIMS] == 0
    whole = subtree(tree, 0)
    played = int(max(children(tree, 0), key=lambda c: tree.visits[c]))
    grandchild = int(max(children(tree, played), key=lambda c: tree.visits[c]))  # two plies: the game went on
    line = (move_to(tree, 0, played), move_to(tree, played, grandchild))
    kept = subtree(tree, grandchild)
    assert 1 < len(kept) < len(whole) - 1000
    tree.meta[M_ROOT] = grandchild
    assert reclaim(tree, 1.0) == 0  # it all fits: nothing collapsed
    assert subtree(tree, grandchild) == kept  # the same nodes, statistics and children
    assert int(tree.meta[M_NODE_NEXT] - tree.meta[M_FREE_COUNT]) == len(kept)
    assert int(tree.meta[M_EDGE_NEXT]) == block_edges(tree, kept)
    # the search goes on from the new root, on the nodes freed first
    made, top, free = int(tree.meta[M_MADE]), int(tree.meta[M_NODE_NEXT]), int(tree.meta[M_FREE_COUNT])
    for move in line:
        grower.board.play(*grower.board.coords(move))
    grower.st = new_state(grower.board)
    assert grower.run(5000) == 5000
    assert tree.meta[M_MADE] > made and tree.visits[grandchild] == kept[grandchild][0] + 5000
    new = int(tree.meta[M_MADE]) - made
    assert int(tree.meta[M_NODE_NEXT]) == top + max(0, new - free)


def test_a_reclaim_under_a_target_collapses_the_least_visited_nodes_and_keeps_their_statistics():
    grower = Grower("15x15 middle game", 16 * MiB)
    grower.run(20_000)
    tree = grower.tree
    before = subtree(tree, 0)
    links = {n: children(tree, n).tolist() for n in before}
    shared = sum(len(kids) for kids in links.values()) - (len(before) - 1)
    assert shared > 10  # a graph: so many edges lead to a node another edge leads to as well
    target = 0.5 * fill(tree)
    threshold = int(reclaim(tree, target))
    assert threshold > 2 and tree.meta[M_THRESHOLD] == threshold  # a node expands at its second visit
    assert fill(tree) <= target
    after = subtree(tree, 0)
    assert set(after) == kept_by(before, links, threshold)  # a child another parent keeps stays
    for n, (visits, wsum, proven, moves) in after.items():
        assert (visits, wsum, proven) == before[n][:3]
        if n == 0 or visits >= threshold:
            assert moves == before[n][3]  # a node the threshold keeps keeps its children
        else:
            assert moves == () and tree.block[n] < 0  # collapsed to a leaf
    assert any(visits < threshold for visits, *_ in after.values())
    # the transposition table names only nodes the reclaim kept, each for its own position
    keys = position_keys(tree, grower.st, grower.board.to_move)
    named = [(int(n) - 1, int(k)) for k, n in zip(tree.t_key, tree.t_node) if n > 0]
    assert len(named) == int(tree.meta[M_TABLE_USED]) > len(after) // 2
    assert all(node in after and keys[node] == key for node, key in named)


def position_keys(tree: Tree, st, to_move: int) -> dict[int, int]:
    """The Zobrist hash of each node's position, by node, from the root's position held by `st`."""
    keys = {0: int(st.hash[0])}
    stack = [(0, to_move)]
    while stack:
        n, color = stack.pop()
        for c, move in zip(children(tree, n).tolist(), child_moves(tree, n).tolist()):
            key = keys[n] ^ int(st.zobrist[color - 1, move])
            if c in keys:
                assert keys[c] == key  # every move order into a node reaches its position
            else:
                keys[c] = key
                stack.append((c, 3 - color))
    return keys


def test_a_long_search_past_a_full_tree_keeps_making_nodes_and_leaves_the_position_as_it_was():
    grower = Grower("15x15 middle game", MiB)
    fresh = new_state(grower.board)
    tree = grower.tree
    while tree.meta[M_RECLAIMS] == 0:
        grower.run(1000)
    for _ in range(3):  # each round: the tree fills up again, so it was reclaimed again
        made, reclaims = int(tree.meta[M_MADE]), int(tree.meta[M_RECLAIMS])
        grower.run(20_000)
        assert tree.meta[M_MADE] - made > 2000
        assert tree.meta[M_RECLAIMS] > reclaims
    for field in ("cells", "keys", "kind_count", "score_sum", "hash", "info"):
        assert np.array_equal(getattr(grower.st, field), getattr(fresh, field)), field


def test_the_players_search_info_says_how_full_the_tree_is():
    player = MctsPlayer()
    player.prepare(Board(15), 0)
    board = board_of("15x15 middle game")
    limits = ThinkLimits.seconds(60.0)
    limits.max_nodes = 20_000
    info = player.choose(board, limits).search
    assert info is not None and info.tree == pytest.approx(fill(player.tree)) and 0 < info.tree < 1


def test_every_expansion_lists_its_moves_in_descending_prior():
    """The search scores only the first never-visited child of a node (``mcts._select``): that is right only while
    each edge block comes in descending prior."""
    grower = Grower("15x15 middle game", 16 * MiB)
    grower.run(5000)
    tree = grower.tree
    blocks = [int(tree.block[n]) for n in subtree(tree, 0) if tree.block[n] >= 0]
    assert len(blocks) > 100
    for h in blocks:
        priors = tree.e_prior[h + 1:h + 1 + int(tree.e_move[h])]
        assert np.all(np.diff(priors) <= 0)


def small_tree_player(budget: int) -> MctsPlayer:
    """A player whose tree has `budget` bytes (under no memory limit, which keeps it)."""
    player = MctsPlayer()
    player.prepare(Board(15), 0)
    player.tree = new_tree(budget)
    return player


def test_the_next_move_reuses_the_played_subtree_and_reclaims_the_rest():
    board = board_of("15x15 middle game")
    player = MctsPlayer()
    player.prepare(board, 0)
    limits = ThinkLimits.seconds(300.0)
    limits.max_nodes = 30_000
    first = player.choose(board, limits)
    tree = player.tree
    ours = int(find_child(tree, 0, board.index(first.x, first.y)))
    reply = int(max(children(tree, ours), key=lambda c: tree.visits[c]))
    kept = subtree(tree, reply)
    board.play(first.x, first.y)
    board.play(*board.coords(move_to(tree, ours, reply)))
    second = player.choose(board, limits)
    assert int(tree.meta[M_ROOT]) == reply and tree.meta[M_RECLAIMS] == 1
    assert tree.visits[reply] == kept[reply][0] + second.search.nodes  # the old visits and the new ones


def test_a_player_thinking_past_a_full_tree_reclaims_it_and_plays():
    player = small_tree_player(MiB)
    board = board_of("15x15 middle game")
    choice = player.choose(board, ThinkLimits.seconds(3.0))
    assert board.is_empty(choice.x, choice.y) and choice.search is not None
    assert player.tree.meta[M_RECLAIMS] > 0 and choice.search.tree < 1


def test_under_a_node_budget_a_search_that_reclaims_plays_the_same_move_with_the_same_search():
    board = board_of("15x15 middle game")
    results = []
    for _ in range(2):
        player = small_tree_player(MiB)
        limits = ThinkLimits.seconds(300.0)
        limits.max_nodes = 60_000
        choice = player.choose(board, limits)
        assert player.tree.meta[M_RECLAIMS] > 0
        results.append((choice.x, choice.y, choice.search.nodes, choice.search.winrate, player.last_nodes))
    assert results[0] == results[1]


def test_the_search_stops_before_the_visit_count_overflows():
    grower = Grower("15x15 middle game", MiB)
    grower.run(100)
    grower.tree.visits[0] = MAX_VISITS
    assert grower.run(100) == 0


# --- exact statistics --------------------------------------------------------------------------------------------

@njit
def _visit_many(tree: Tree, path: np.ndarray, times: int, high: float, low: float) -> None:
    for i in range(times):
        back_up(tree, path, 1, high if i % 4 == 0 else low)


def test_the_mean_value_stays_exact_after_hundreds_of_millions_of_visits():
    tree = new_tree(MiB)
    child = new_node(tree)
    path = np.array([0, child], dtype=np.int32)
    times = 300_000_000
    _visit_many(tree, path, times, 0.9, -0.1)  # a quarter of the values 0.9, the rest -0.1: a mean of 0.15
    assert tree.visits[child] == times and tree.visits[0] == times
    assert tree.wsum[child] / times == pytest.approx(-0.15, abs=1e-7)  # seen from the player who moved into it
    assert tree.wsum[0] / times == pytest.approx(0.15, abs=1e-7)
    # one more visit still counts
    before = tree.wsum[child]
    back_up(tree, path, 1, 1.0)
    assert tree.wsum[child] == before - 1.0


def test_a_full_tree_without_time_to_reclaim_stops_the_move_instead_of_reclaiming_inside_it(monkeypatch):
    """A reclaim takes about 2 ms a MB of tree; one that the compiled search begins near the deadline would make the
    answer late by as much. When the move has no time for it (here: a reclaim priced far above any move), the slices
    stay inside the room left and stop there: no reclaim runs, and the next move's start makes the room."""
    monkeypatch.setattr(slices, "RECLAIM_SECONDS_PER_BYTE", 1.0)
    grower = Grower("15x15 middle game", MiB)
    tree = grower.tree
    while fill(tree) < slices.EARLY_RECLAIM_FILL + 0.02:
        grower.run(50)
    assert tree.meta[M_RECLAIMS] == 0
    before = int(tree.visits[0])
    with SearchLimits(ThinkLimits.seconds(30.0)) as limits:
        done = slices.run_slices(grower.st, tree, grower.board.to_move, Params(), Options(), grower.ws, grower.vs,
                                 limits, False, lambda _: None, LeaderWatch())
        assert not limits.expired()  # it stopped for the room, 30 s early
    assert tree.meta[M_RECLAIMS] == 0 and fill(tree) < 1.0
    assert done > 0 and tree.visits[0] == before + done
