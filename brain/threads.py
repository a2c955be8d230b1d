"""Search threads beyond the first, when the manager allows them (``INFO thread_num``): root parallelism.

Why root parallelism. The compiled search has no atomic operations: two threads in one tree would race on its
allocations (the bump pointers and the free list of ``brain.tree``), and a reclaim slides edge blocks under the other
thread's feet. So each helper thread searches the move's root in a tree of its own -- the memory budget split
evenly between the trees -- on its own copy of the board, with its own scratch space and df-pn table: only the helper
ever writes its tree while it runs. The main thread runs the move as before (threat searches, root filter, MCTS
slices) on the main tree. When the MCTS ends, each helper's root children -- visits, value sums, proofs -- are added
to the main tree's (``merge_root``), so the choice, the final threat check and the report see every thread's work.

Why a helper searches differently. Monte's search is deterministic: a helper with the main thread's knobs would grow
the main thread's tree again and add nothing. A helper mixes noise into its root priors (``ROOT_NOISE``, seeded by
the move and the helper) and explores with a smaller c_puct (``HELPER_CPUCT_SCALE``: deeper where the main thread
goes wider), so its tree is another sample of the position.

A helper starts with the move, so that it searches while the main thread runs its threat searches too. What it
shares with the main thread: the root moves the root filter found lost (marked in its tree as soon as the main
thread has found them: ``Team.refute``), and the move's stop: YXSTOP and END through the move's ``StopFlag``, the end
of the MCTS (by the deadline) through ``Team.finish``.

Every thread keeps its tree from move to move (``brain.tree_reuse``), and its df-pn table for the game. Under a node
budget (``INFO max_node``) no helper runs: the move must depend on the position alone.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

from monte.brain.board import Board
from monte.brain.limits import L_NODES, L_STOP, SearchLimits, new_limits
from monte.brain.mcts import expand_root, search, search_state
from monte.brain.settings import Options, Params
from monte.brain.threats import Workspace, new_workspace
from monte.brain.tree import M_ROOT, MAX_VISITS, Tree, children_by_move, new_tree
from monte.brain.tree_reuse import GamePath, keep_tree
from monte.brain.vct import VctSpace, clear_vct_space, new_vct_space

HELPER_VCT_BITS = 18          # a helper's df-pn table: 2^18 entries (4.5 MB), a quarter of the main one's
HELPER_BATCH = 256            # iterations of a helper's search call (a few ms): refutations are applied between calls
HELPER_CPUCT_SCALE = 0.75     # a helper's c_puct, of the main thread's
ROOT_NOISE = 0.25             # a helper's root priors: this share of Dirichlet noise ...
ROOT_NOISE_ALPHA = 0.3        # ... of this concentration
EARLY_STOP_SECONDS = 0.03     # a helper stops starting search calls this long before the move's hard deadline: with
                              # it busy to the end, the deadline's timer woke late and 2-thread moves ended ~15 ms
                              # later (measured on this loaded machine)


def usable_threads(requested: int) -> int:
    """The search threads to run when the manager allows `requested`: no more than the cores this process may use."""
    return max(1, min(requested, len(os.sched_getaffinity(0))))


def tree_share(tree_budget: int, threads: int) -> int:
    """The bytes of each of `threads` trees when together they may take `tree_budget`."""
    return tree_budget // max(1, threads)


class Helper:
    """One helper thread's tree, scratch space and df-pn table, kept from move to move, and the thread of its current
    move."""

    def __init__(self) -> None:
        self.tree: Tree | None = None
        """Made by ``Threads.make_trees``, once the memory left for trees is known."""
        self.path: GamePath | None = None
        """Where the tree's root stands (``brain.tree_reuse``; None: a fresh tree)."""
        self.space: VctSpace = new_vct_space(HELPER_VCT_BITS)
        self.ws: Workspace = new_workspace(0)
        self.limits = new_limits(0)
        self.thread: threading.Thread | None = None
        self.root_children: dict[int, int] = {}
        """Move -> the helper's root child (node), once its root is expanded: nodes the main thread may read while
        the helper runs (a root child is never freed nor moved)."""
        self.iterations = 0
        self._lock = threading.Lock()
        self._refuted: set[int] = set()

    def start(self, board: Board, params: Params, options: Options, seed: int, stop_at: float) -> None:
        """Search `board` (for its side to move) on a thread of its own until ``stop``, or until ``time.monotonic()``
        reaches `stop_at` (checked between search calls)."""
        self.join()
        self.limits[:] = new_limits(0)
        self.root_children = {}
        self.iterations = 0
        self._refuted = set()
        # a copy: the board gets our move once the move is answered, maybe before this thread has read it
        self.thread = threading.Thread(target=self._run, args=(board.copy(), params, options, seed, stop_at),
                                       name="monte-helper", daemon=True)
        self.thread.start()

    def refute(self, moves: set[int]) -> None:
        """Mark these root moves lost in the helper's tree, at its next search call."""
        with self._lock:
            self._refuted |= moves

    def stop(self) -> None:
        self.limits[L_STOP] = 1

    def join(self, timeout: float | None = None) -> None:
        """Wait for the thread (at most `timeout` seconds; None: until it ends)."""
        if self.thread is not None:
            self.thread.join(timeout)
            if not self.thread.is_alive():
                self.thread = None

    @property
    def nodes(self) -> int:
        """Nodes searched this move (MCTS iterations and the in-tree VCF and VCT nodes)."""
        return int(self.limits[L_NODES])

    def _run(self, board: Board, params: Params, options: Options, seed: int, stop_at: float) -> None:
        color = board.to_move
        st = search_state(board, params)
        if self.ws.cand.shape[0] != st.cells.shape[0]:
            self.ws = new_workspace(st.cells.shape[0])
        self.ws.tt_keys[:] = 0
        tree = self.tree
        assert tree is not None, "Threads.make_trees comes before a search"
        self.path = keep_tree(tree, self.path, board)
        if expand_root(st, tree, color, params, options.root_children, self.ws, self.limits) == 0:
            return
        _add_root_noise(tree, np.random.default_rng(seed))
        root = int(tree.meta[M_ROOT])
        self.root_children = children_by_move(tree, root)
        params = params._replace(c_puct=params.c_puct * HELPER_CPUCT_SCALE)
        while self.limits[L_STOP] == 0 and tree.proven[root] == 0 and time.monotonic() < stop_at:
            self._apply_refutations(tree)
            done = int(search(st, tree, color, HELPER_BATCH, params, self.ws, self.space, self.limits))
            self.iterations += done
            if done < HELPER_BATCH:
                break

    def _apply_refutations(self, tree: Tree) -> None:
        with self._lock:
            moves, self._refuted = self._refuted, set()
        for move in moves:
            child = self.root_children.get(move, -1)
            if child >= 0 and tree.proven[child] == 0:
                tree.proven[child] = 1


def _add_root_noise(tree: Tree, rng: np.random.Generator) -> None:
    """Mix Dirichlet noise into the root's priors (every root child has a node, so their order no longer matters)."""
    h = int(tree.block[int(tree.meta[M_ROOT])])
    n = int(tree.e_move[h])
    edges = slice(h + 1, h + 1 + n)
    noise = rng.dirichlet(np.full(n, ROOT_NOISE_ALPHA))
    tree.e_prior[edges] = ((1.0 - ROOT_NOISE) * tree.e_prior[edges] + ROOT_NOISE * noise).astype(np.float32)


def lost_root_moves(tree: Tree) -> set[int]:
    """The root moves the main tree has marked lost (the root filter's refutations)."""
    return {m for m, c in children_by_move(tree, int(tree.meta[M_ROOT])).items() if tree.proven[c] == 1}


def merge_root(main: Tree, other: Tree, other_children: dict[int, int]) -> None:
    """Add the visits and value sums of another tree's root children (`other_children`: move -> node) to the main
    tree's, and their proofs where the main tree has none (a proof holds whichever tree found it); the root's visits
    too, so that the report's win rate counts them. Reads only the other tree's root and root children, which stay
    in place while its thread runs."""
    root = int(main.meta[M_ROOT])
    o_root = int(other.meta[M_ROOT])
    index = children_by_move(main, root)
    added = 0
    for move, oc in other_children.items():
        c = index.get(move, -1)
        if c < 0:
            continue
        visits = int(other.visits[oc])
        room = MAX_VISITS - int(main.visits[c])
        take = min(visits, room)
        if take > 0:
            main.wsum[c] += float(other.wsum[oc]) * take / visits
            main.visits[c] += take
            added += take
        if main.proven[c] == 0 and other.proven[oc] != 0:
            main.proven[c] = other.proven[oc]
    main.visits[root] = min(MAX_VISITS, int(main.visits[root]) + added)
    if int(other.visits[o_root]) > 0:
        main.wsum[root] += float(other.wsum[o_root]) * added / int(other.visits[o_root])


class Team:
    """The helpers of one move (see the module docstring); ``Threads.running`` makes it."""

    def __init__(self, helpers: list[Helper]) -> None:
        self.helpers = helpers
        self.iterations = 0
        """The helpers' MCTS iterations, added to the main tree by ``finish``."""
        self._finished = False

    @property
    def nodes(self) -> int:
        """The nodes the helpers searched so far this move."""
        return sum(helper.nodes for helper in self.helpers)

    def iterations_so_far(self) -> int:
        """The helpers' MCTS iterations so far (for a long search's progress reports)."""
        return sum(helper.iterations for helper in self.helpers)

    def refute(self, main: Tree) -> None:
        """Pass the root moves the main tree has marked lost on to the helpers (the root filter's refutations)."""
        moves = lost_root_moves(main)
        for helper in self.helpers:
            helper.refute(moves)

    def finish(self, main: Tree | None) -> None:
        """Stop the helpers and add their root statistics to the `main` tree (None: the move was found without MCTS,
        nothing to add). The move does not wait for a helper to leave its kernel (it does at its next node, or after
        a reclaim, which cannot be cut): only root children are read, which stay in place meanwhile, and the next
        move waits for the thread before it uses the helper again. Only the first call does anything."""
        if self._finished:
            return
        self._finished = True
        for helper in self.helpers:
            helper.stop()
            if main is not None and helper.tree is not None and helper.root_children:
                merge_root(main, helper.tree, helper.root_children)
                self.iterations += helper.iterations


class Threads:
    """The search threads beyond the main one: how many the manager allows, and a helper (``Helper``) for each."""

    def __init__(self) -> None:
        self.helpers: list[Helper] = []
        self._moves = 0

    def resize(self, threads: int) -> None:
        """Keep `threads` - 1 helpers, with their scratch space and without trees (``make_trees`` comes next): the
        old trees are let go first, so that the memory left for the new ones can be measured."""
        for helper in self.helpers:
            helper.stop()
            helper.join()
            helper.tree = None
        self.helpers = self.helpers[:threads - 1]
        self.helpers += [Helper() for _ in range(threads - 1 - len(self.helpers))]

    def make_trees(self, tree_bytes: int) -> None:
        """Give every helper a tree of `tree_bytes`."""
        for helper in self.helpers:
            helper.tree, helper.path = new_tree(tree_bytes), None

    def new_game(self) -> None:
        """Forget the previous game: its trees and its df-pn tables."""
        for helper in self.helpers:
            helper.join()
            helper.path = None
            clear_vct_space(helper.space)

    @contextmanager
    def running(self, board: Board, params: Params, options: Options, limits: SearchLimits) -> Iterator[Team]:
        """The helpers searching `board` (for its side to move) while the block runs, from its start: while the main
        thread runs its threat searches, a helper searches too, and the root filter's refutations reach it when they
        are found (``Team.refute``). None runs under a node budget. The block ends them with ``Team.finish``, which
        adds their root statistics to the main tree's; if it does not (a move found without MCTS), they stop at its
        end."""
        helpers = self.helpers if limits.think.max_nodes == 0 else []
        team = Team(helpers)
        self._moves += 1
        for number, helper in enumerate(helpers):
            helper.start(board, params, options, seed=self._moves * 1009 + number,
                         stop_at=limits.think.hard_deadline - EARLY_STOP_SECONDS)
            limits.think.stop.link(helper.limits)  # after start, which clears the array: a stop already set stays
        try:
            yield team
        finally:
            team.finish(None)
            for helper in helpers:
                limits.think.stop.unlink(helper.limits)
