"""Monte's player: the glue around the compiled search, where the clock, the memory budget and the tree live.

One move goes: win at once if we can (the search's move generation sees fives and forced blocks); look for our own
VCF, then our own VCT, and play it; give the root its children and drop every one after which the opponent wins by
VCF; look for a quiet move of ours after which we win by VCT whatever the opponent answers, and play it; ask
whether the opponent, were it to move now, would win by threats (VCT) -- and only then drop, in order of
promise, the moves after which it still does (a stone of ours never helps the opponent's threats, so when it has no
VCT now, no move of ours gives it one); then MCTS in slices of a few milliseconds to the end of the move's time (the
soft deadline only matters when a match clock binds), paused once to drop the favourite moves after which the
opponent wins by a quiet move and then a VCT (``brain.quiet_threats``); then the move with the most visits -- or a
well-visited one whose value is clearly better (``brain.root_choice``) -- unless a proof says otherwise, checked last
against the opponent's VCT. When every move loses, the one after which the opponent's win is
longest (or not found at all) is played: engines that win positions often miss the win later.

The steps live in modules of their own: the threat searches (``brain.threat_search``), the root filter
(``brain.root_filter``), the time slices of MCTS (``brain.slices``), the longest defence (``brain.defence``) and
the report of the move (``brain.move_report``); this class keeps the tree from move to move and runs the steps in
order. When the manager allows more threads (``INFO thread_num``), helper threads search the same position in trees
of their own from the start of the move (``brain.threads``), and their root statistics join the tree's before the
choice.

Every search of the move runs under one ``SearchLimits`` (``brain.limits``): a stop, the hard deadline or the node
budget cuts whichever search is running, at its next node. The steps read the move's clock from it (``now()``), which
under a node budget counts nodes rather than seconds.
"""

from __future__ import annotations

import time

from monte.brain import move_report
from monte.brain.board import MOVE_WINS, Board
from monte.brain.defence import longest_defence, loss_length, measure_defences
from monte.brain.limits import SearchLimits
from monte.brain.memory import tree_bytes
from monte.brain.mcts import expand_root, search_state
from monte.brain.player import MoveChoice, ThinkLimits
from monte.brain.position import State, new_state
from monte.brain.quiet_threats import QuietThreats
from monte.brain.root_filter import RootFilter, root_moves
from monte.brain.settings import Options, Params
from monte.brain.slices import run_slices
from monte.brain.threat_search import ThreatSearch
from monte.brain.threads import Team, Threads, tree_share, usable_threads
from monte.brain.threats import Workspace, find_vcf, new_workspace
from monte.brain.timecontrol import LeaderWatch
from monte.brain.tree import M_MAXDEPTH, M_ROOT, Tree, child_moves, new_tree, reset_tree
from monte.brain.tree_reuse import GamePath, keep_tree
from monte.brain.warmup import warm_up

ROOT_VCF_PLIES = 40


class MctsPlayer:
    """Monte's main engine (``--engine mcts``)."""

    name = "mcts"

    def __init__(self, params: Params | None = None, options: Options | None = None) -> None:
        self.params = params or Params()
        self.options = options or Options()
        self.tree: Tree | None = None
        self._tree_path: GamePath | None = None
        """Where the tree's root stands (None: a fresh tree)."""
        self._ws = new_workspace(0)
        self.threats = ThreatSearch(self.options)
        self.root_filter = RootFilter(self.options, self.threats)
        self.quiet = QuietThreats(self.threats)
        self._memory = -1
        self.threads = Threads()
        self._thread_count = 1
        """The search threads the trees are sized for (``brain.threads``: the memory is split between their trees)."""
        self.last_refuted: set[int] = set()
        """The last move's root children (tree slots) found lost by the root filter's or final check's threat
        searches."""
        self.last_nodes = 0
        """The nodes the last move searched (MCTS iterations, VCF and VCT nodes), every thread's."""
        self.helper_nodes = 0
        """The helper threads' share of them."""

    # --- Player protocol ------------------------------------------------------------------------------------
    def warm_up(self) -> None:
        """Compile or load every compiled function, and store every rule's tables (``brain.warmup``)."""
        warm_up()

    def prepare(self, board: Board, max_memory: int) -> None:
        """Build now what a move on `board` would otherwise build in its own time: the rule's pattern tables (and
        caro's edge keys) through a state of the position, the scratch space for the board's size, and the tree
        sized for `max_memory`."""
        self._workspace_for(new_state(board))
        self._tree_sized(max_memory, self._thread_count)

    def new_game(self, board: Board) -> None:
        """Forget the tree of the previous game."""
        self._tree_path = None
        if self.tree is not None:
            reset_tree(self.tree)
        self.threads.new_game()
        self.threats.clear()

    def choose(self, board: Board, limits: ThinkLimits) -> MoveChoice:
        """Search the position and return the move (see the module docstring for the order of things)."""
        self.last_refuted = set()
        self._tree_sized(limits.max_memory, usable_threads(limits.threads))
        with SearchLimits(limits) as search_limits, \
                self.threads.running(board, self.params, self.options, search_limits) as team:
            choice = self._choose(board, search_limits, team)
            self.helper_nodes = team.nodes
            self.last_nodes = search_limits.nodes + self.helper_nodes
            return choice

    def _choose(self, board: Board, limits: SearchLimits, team: Team) -> MoveChoice:
        started = time.monotonic()
        color = board.to_move
        st = search_state(board, self.params)
        tree = self._tree_for(board, limits.think.max_memory, self._thread_count)
        ws = self._workspace_for(st)
        ws.tt_keys[:] = 0
        threats = self.threats

        count = expand_root(st, tree, color, self.params, self.options.root_children, ws, limits.array)
        root = int(tree.meta[M_ROOT])
        if count == 0:  # lost at once or the board is full: any legal move will do
            return move_report.fallback(board, started, "no saving move")
        if count == 1:
            move = int(child_moves(tree, root)[0])
            wins = board.is_empty(*board.coords(move)) and board.judge(*board.coords(move)) == MOVE_WINS
            return move_report.report(board, tree, started, 0, move, "forced", mate=1 if wins else 0)

        if find_vcf(st, color, ROOT_VCF_PLIES, self.options.root_vcf_nodes, ws, False, limits.array):
            line = move_report.vcf_line(board, ws.pv)
            return move_report.report(board, tree, started, 0, int(ws.pv[0]), "vcf", line, mate=len(line))
        thinking = max(0.0, limits.soft_deadline - limits.now())
        win = threats.vct(st, color, threats.nodes_for(self.options.vct_share * thinking, limits), limits)
        if win >= 0:
            return move_report.report(board, tree, started, 0, win, f"vct {threats.plies} plies", mate=threats.plies)

        quiet_time = self.options.quiet_share * thinking
        attack_time = self.options.quiet_attack * quiet_time
        quiet_win = self.quiet.find(st, color, self.quiet.budget(attack_time, self.options.quiet_moves, limits),
                                    limits, limits.now() + attack_time)
        if quiet_win is not None:
            return move_report.report(board, tree, started, 0, quiet_win.move,
                                      f"quiet threat, then vct: {quiet_win.plies} plies", mate=quiet_win.plies)

        threatened = threats.vct(st, 3 - color, threats.nodes_for(self.options.threat_share * thinking, limits),
                                 limits) >= 0 or threats.unknown
        zone = threats.zone(st, 3 - color, limits) if threatened else set()
        loss_plies = self.root_filter.filter(st, tree, color, threatened, zone,
                                             limits.now() + self.options.filter_share * thinking, ws, limits)
        team.refute(tree)

        def progress(done: int) -> None:
            so_far = done + team.iterations_so_far()
            info = move_report.progress_info(board, tree, started, so_far) if limits.think.progress else None
            if info is not None:
                limits.think.progress(info)

        # MCTS, with a pause to check its favourites against the opponent's quiet threats
        defence_time = quiet_time - attack_time
        check_at = limits.now() + self.options.quiet_after * max(0.0, limits.soft_deadline - limits.now() - defence_time)
        watch = LeaderWatch()
        iterations = run_slices(st, tree, color, self.params, self.options, ws, threats.space, limits, threatened,
                                progress, watch, until=check_at if defence_time > 0 else None)
        if defence_time > 0 and tree.proven[root] == 0 and not limits.expired():
            self.root_filter.filter_quiet(st, tree, color, self.quiet,
                                          self.quiet.budget(defence_time, self.options.quiet_moves, limits),
                                          limits.now() + defence_time, limits, loss_plies)
            team.refute(tree)
            iterations += run_slices(st, tree, color, self.params, self.options, ws, threats.space, limits,
                                     threatened, lambda done: progress(iterations + done), watch)
        team.finish(tree)  # the helper threads' root statistics join the main tree's
        iterations += team.iterations
        child = self.root_filter.checked_choice(st, tree, color, threatened, loss_plies, limits)
        self.last_refuted = set(loss_plies)
        note = "threat" if threatened else ""
        mate = 0
        if tree.proven[root] < 0 or tree.proven[child] == 1:
            measure_defences(threats, st, tree, color, loss_plies, limits)
            child = longest_defence(tree, loss_plies)
            note = f"lost, longest defence ({loss_length(child, loss_plies)} plies)"
            mate = -loss_length(child, loss_plies)
        return move_report.report(board, tree, started, iterations, root_moves(tree)[child], note, mate=mate)

    # --- the tree and the scratch space -----------------------------------------------------------------------
    def _workspace_for(self, st: State) -> Workspace:
        """The scratch arrays, sized for this board (reallocated only when the board size changes)."""
        if self._ws.cand.shape[0] != st.cells.shape[0]:
            self._ws = new_workspace(st.cells.shape[0])
        return self._ws

    def _tree_sized(self, max_memory: int, threads: int) -> Tree:
        """The tree (and the helper threads' trees), made anew when the memory limit or the thread count changed (or
        there was none yet): the trees of all the threads share the memory a single tree would have."""
        if self.tree is None or max_memory != self._memory or threads != self._thread_count:
            self._memory, self._thread_count = max_memory, threads
            self.tree = None  # let the old trees go before the new ones are made: both at once could break the limit
            self.threads.resize(threads)  # the helpers' trees go too; their scratch is made now, and counted below
            share = tree_share(tree_bytes(max_memory), threads)
            self.threads.make_trees(share)
            self.tree = new_tree(share)
            self._tree_path = None
        return self.tree

    def _tree_for(self, board: Board, max_memory: int, threads: int) -> Tree:
        """The tree, its root moved to this position when the game went through the old tree (and what the new root
        does not reach reclaimed), else cleared (``brain.tree_reuse``)."""
        tree = self._tree_sized(max_memory, threads)
        self._tree_path = keep_tree(tree, self._tree_path, board)
        tree.meta[M_MAXDEPTH] = 0
        return tree
