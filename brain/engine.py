"""Monte's player: the glue around the compiled search, where the clock, the memory budget and the tree live.

One move goes: win at once if we can (the search's move generation sees fives and forced blocks); look for our own
VCF, then our own VCT, and play it; give the root its children and drop every one after which the opponent wins by
VCF; ask whether the opponent, were it to move now, would win by threats (VCT) -- and only then drop, in order of
promise, the moves after which it still does (a stone of ours never helps the opponent's threats, so when it has no
VCT now, no move of ours gives it one); then MCTS in slices of a few milliseconds to the end of the move's time (the
soft deadline only matters when a match clock binds); then the move with the most visits unless a proof says
otherwise, checked last against the opponent's VCT. When every move loses, the one after which the opponent's win is
longest (or not found at all) is played: engines that win positions often miss the win later.

Every search of the move runs under one ``SearchLimits`` (``brain.limits``): a stop, the hard deadline or the node
budget cuts whichever search is running, at its next node. The steps read the move's clock from it (``now()``), which
under a node budget counts nodes rather than seconds.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from monte.brain.board import MOVE_WINS, Board
from monte.brain.limits import SearchLimits
from monte.brain.memory import tree_capacity
from monte.brain.mcts import (
    M_MAXDEPTH, M_NEXT, M_ROOT, NODE_BYTES, Tree, best_child, expand_root, find_child, new_tree, reset_tree, search,
)
from monte.brain.player import MoveChoice, SearchInfo, ThinkLimits
from monte.brain.position import State, make, new_state, unmake
from monte.brain.settings import Options, Params
from monte.brain.timecontrol import LeaderWatch, MoveBudget, leader_safe, stop_after
from monte.brain.threats import Workspace, find_vcf, new_workspace, opponent_vcf_after
from monte.brain.vct import V_PLIES, V_RESULT, clear_vct_space, find_vct, new_vct_space, proof_cells
from monte.brain.warmup import warm_up

PROGRESS_SECONDS = 1.0        # a long search reports what it has found so far this often (ThinkLimits.progress)
SLICE_SECONDS = 0.01          # how long one compiled search call may run before the clock is looked at again
ROOT_VCF_PLIES = 40
SAFETY_VCF_PLIES = 30
SAFETY_VCF_NODES = 6_000
VCT_NODES_PER_SECOND = 300_000  # df-pn VCT speed on 15x15 middle games here (measured), turns time into nodes
MIN_VCT_NODES = 300           # a VCT given fewer nodes than this is not worth starting
UNKNOWN_LOSS_PLIES = 1000     # how long the opponent's win is taken to be when its VCT was not found
FILTER_SPLIT = 6              # a root move's check against the opponent's VCT may use 1/6 of the filter's time left
ZONE_NODES = 20_000           # the most proof nodes read back to find the cells of the opponent's threat win
RESERVE_SHARE = 0.12          # of the move's time, kept after the search for the final checks and the reply
RESERVE_MIN_SECONDS = 0.01
REUSE_LIMIT = 0.6             # past this fill, a reused tree is cleared rather than kept
MAX_PV_PLIES = 30             # the longest principal variation reported


class MctsPlayer:
    """Monte's main engine (``--engine mcts``)."""

    name = "mcts"

    def __init__(self, params: Params | None = None, options: Options | None = None) -> None:
        self.params = params or Params()
        self.options = options or Options()
        self.tree: Tree | None = None
        self._tree_board: tuple[int, int, int] | None = None
        self._tree_history: list[int] = []
        self._ws = new_workspace(0)
        self._vct_space = new_vct_space()
        self._zone_mark = np.zeros(0, dtype=np.uint8)
        self._zone_cells = np.zeros(0, dtype=np.int32)
        self._memory = -1
        self.last_refuted: set[int] = set()
        """The last move's root children (tree slots) found lost by the root filter's or final check's threat
        searches."""
        self.last_nodes = 0
        """The nodes the last move searched (MCTS iterations, VCF and VCT nodes)."""

    # --- Player protocol ------------------------------------------------------------------------------------
    def warm_up(self) -> None:
        """Compile or load every compiled function, and store every rule's tables (``brain.warmup``)."""
        warm_up()

    def prepare(self, board: Board, max_memory: int) -> None:
        """Build now what a move on `board` would otherwise build in its own time: the rule's pattern tables (and
        caro's edge keys) through a state of the position, the scratch space for the board's size, and the tree
        sized for `max_memory`."""
        self._workspace_for(new_state(board))
        self._tree_sized(max_memory)

    def new_game(self, board: Board) -> None:
        """Forget the tree of the previous game."""
        self._tree_history = []
        self._tree_board = None
        if self.tree is not None:
            reset_tree(self.tree)
        clear_vct_space(self._vct_space)

    def choose(self, board: Board, limits: ThinkLimits) -> MoveChoice:
        """Search the position and return the move (see the module docstring for the order of things)."""
        self.last_refuted = set()
        with SearchLimits(limits) as search_limits:
            choice = self._choose(board, search_limits)
            self.last_nodes = search_limits.nodes
            return choice

    def _choose(self, board: Board, limits: SearchLimits) -> MoveChoice:
        started = time.monotonic()
        color = board.to_move
        st = new_state(board)
        tree = self._tree_for(board, limits.think.max_memory)
        p = self.params
        ws = self._workspace_for(st)
        ws.tt_keys[:] = 0

        count = expand_root(st, tree, color, p, self.options.root_children, ws, limits.array)
        root = int(tree.meta[M_ROOT])
        if count == 0:  # lost at once or the board is full: any legal move will do
            return self._fallback(board, started, "no saving move")
        if count == 1:
            move = int(tree.move[tree.first[root]])
            wins = board.is_empty(*board.coords(move)) and board.judge(*board.coords(move)) == MOVE_WINS
            return self._report(board, st, tree, started, 0, move, "forced", mate=1 if wins else 0)

        if find_vcf(st, color, ROOT_VCF_PLIES, self.options.root_vcf_nodes, ws, False, limits.array):
            line = self._vcf_line(board, ws.pv)
            return self._report(board, st, tree, started, 0, int(ws.pv[0]), "vcf", line, mate=len(line))
        thinking = max(0.0, limits.soft_deadline - limits.now())
        win = self._vct(st, color, self._vct_nodes(self.options.vct_share * thinking, limits), limits)
        if win >= 0:
            plies = int(self._vct_space.info[V_PLIES])
            return self._report(board, st, tree, started, 0, win, f"vct {plies} plies", mate=plies)

        threatened = self._vct(st, 3 - color, self._vct_nodes(self.options.threat_share * thinking, limits), limits) >= 0 or \
            self._vct_space.info[V_RESULT] < 0
        zone = self._threat_zone(st, color) if threatened else set()
        loss_plies = self._filter_root(st, tree, color, threatened, zone,
                                       limits.now() + self.options.filter_share * thinking, limits)
        iterations = self._run(st, tree, color, limits, threatened,
                               lambda done: self._tell_progress(board, tree, started, done, limits))
        child = self._checked_choice(st, tree, color, threatened, loss_plies, limits)
        self.last_refuted = set(loss_plies)
        note = "threat" if threatened else ""
        mate = 0
        if tree.proven[root] < 0 or tree.proven[child] == 1:
            self._measure_defences(st, tree, color, loss_plies, limits)
            child = self._longest_defence(tree, root, loss_plies)
            note = f"lost, longest defence ({loss_plies.get(child, UNKNOWN_LOSS_PLIES)} plies)"
            mate = -loss_plies.get(child, UNKNOWN_LOSS_PLIES)
        return self._report(board, st, tree, started, iterations, int(tree.move[child]), note, mate=mate)

    # --- steps ----------------------------------------------------------------------------------------------
    def _workspace_for(self, st: State) -> Workspace:
        """The scratch arrays, sized for this board (reallocated only when the board size changes)."""
        if self._ws.cand.shape[0] != st.cells.shape[0]:
            self._ws = new_workspace(st.cells.shape[0])
        return self._ws

    @staticmethod
    def _vcf_line(board: Board, pv: np.ndarray) -> list[tuple[int, int]]:
        line = []
        for m in pv:
            if m < 0:
                break
            line.append(board.coords(int(m)))
        return line

    def _tree_sized(self, max_memory: int) -> Tree:
        """The tree, made anew when the memory limit changed (or there was none yet)."""
        if self.tree is None or max_memory != self._memory:
            self._memory = max_memory
            self.tree = None  # let the old tree go before the new one is made: both at once could break the limit
            self.tree = new_tree(tree_capacity(max_memory, NODE_BYTES))
            self._tree_history = []
            self._tree_board = None
        return self.tree

    def _tree_for(self, board: Board, max_memory: int) -> Tree:
        """The tree, its root moved to this position when the game went through the old tree, else cleared."""
        tree = self._tree_sized(max_memory)
        history = [board.index(m.x, m.y) for m in board.history]
        shape = (board.width, board.height, board.rule)
        old = self._tree_history
        reused = False
        if (self._tree_board == shape and old and len(history) >= len(old) and history[:len(old)] == old
                and tree.meta[M_NEXT] < REUSE_LIMIT * tree.move.shape[0]):
            node = int(tree.meta[M_ROOT])
            for move in history[len(old):]:
                node = int(find_child(tree, node, move)) if node >= 0 else -1
                if node < 0:
                    break
            if node >= 0:
                tree.meta[M_ROOT] = node
                reused = True
        if not reused:
            reset_tree(tree)
        tree.meta[M_MAXDEPTH] = 0
        self._tree_board = shape
        self._tree_history = history
        return tree

    def _filter_root(self, st: State, tree: Tree, color: int, threatened: bool, zone: set[int], budget_end: float,
                     limits: SearchLimits) -> dict[int, int]:
        """Mark root moves after which the opponent wins by force as lost: first every move against the opponent's
        VCF (cheap), then -- when the opponent threatens a VCT at all -- the moves against its VCT while
        ``filter_share`` of the time lasts: the cells of its proof (`zone`) first, then the others, each in order of
        promise and each check given a share of the time left. Returns the refuted children with the length of
        the opponent's win after each (for the longest defence when every move loses).

        A pass that would leave no move standing is undone: when everything loses, the moves that lose only to the
        deeper threat are the ones to choose among (the opponent still has to find the win)."""
        ws = self._workspace_for(st)
        root = int(tree.meta[M_ROOT])
        first = int(tree.first[root])
        children = list(range(first, first + int(tree.count[root])))
        loss_plies: dict[int, int] = {}

        def refuted_by_vcf(c: int) -> int:
            lost = opponent_vcf_after(st, int(tree.move[c]), color, SAFETY_VCF_PLIES, SAFETY_VCF_NODES, ws,
                                      limits.array)
            return self._pv_plies(ws.pv) if lost else 0

        by_promise = sorted(children, key=lambda c: (int(tree.move[c]) not in zone, -tree.prior[c]))

        def refuted_by_vct(c: int) -> int:
            left = by_promise.index(c)
            share = (budget_end - limits.now()) / max(1, min(len(by_promise) - left, FILTER_SPLIT))
            return self._opponent_vct_after(st, int(tree.move[c]), color, self._vct_nodes(share, limits), limits)

        passes = [(refuted_by_vcf, children)]
        if threatened:
            passes.append((refuted_by_vct, by_promise))
        for refuted, order in passes:
            marked = []
            for c in order:
                if limits.now() > budget_end or limits.stopped():
                    break
                if tree.proven[c] == 0:
                    plies = refuted(c)
                    if plies > 0:
                        tree.proven[c] = 1
                        marked.append(c)
                        loss_plies[c] = plies
            if all(tree.proven[c] == 1 for c in children):
                for c in marked:
                    tree.proven[c] = 0
                return loss_plies
        return loss_plies

    def _threat_zone(self, st: State, color: int) -> set[int]:
        """The cells of the opponent's proved threat win, were it to move now (empty if not proved): the first
        places to look for a defence (``brain.vct.proof_cells``)."""
        if self._vct_space.info[V_RESULT] != 1:
            return set()
        cells = st.cells.shape[0]
        if self._zone_mark.shape[0] != cells:
            self._zone_mark = np.zeros(cells, dtype=np.uint8)
            self._zone_cells = np.zeros(cells, dtype=np.int32)
        n = proof_cells(st, 3 - color, self.options.vct_plies, self._vct_space, self._zone_mark, self._zone_cells,
                        ZONE_NODES)
        return {int(c) for c in self._zone_cells[:n]}

    @staticmethod
    def _pv_plies(pv: np.ndarray) -> int:
        """The length of the VCF line in `pv` (-1 ends it)."""
        n = 0
        while n < pv.shape[0] and pv[n] >= 0:
            n += 1
        return max(n, 1)

    def _opponent_vct_after(self, st: State, move: int, color: int, nodes: int, limits: SearchLimits) -> int:
        """The length of the opponent's win by continuous threats after `color` plays `move`, or 0 if none is found."""
        if nodes <= 0:
            return 0
        make(st, move, color)
        won = self._vct(st, 3 - color, nodes, limits) >= 0
        unmake(st, move)
        return int(self._vct_space.info[V_PLIES]) + 1 if won else 0

    def _vct_nodes(self, seconds: float, limits: SearchLimits) -> int:
        """The VCT nodes that fit in `seconds` of the move's clock (0 when too few to find anything, or VCT is
        off)."""
        nodes = min(self.options.vct_max_nodes, limits.nodes_in(seconds, VCT_NODES_PER_SECOND))
        return nodes if nodes >= MIN_VCT_NODES else 0

    def _vct(self, st: State, attacker: int, nodes: int, limits: SearchLimits) -> int:
        """The attacker's first move of a win by continuous threats, or -1 (none found; ``info[V_RESULT]`` says
        whether the search ran out of nodes). Its table is kept from search to search (see ``brain.vct``)."""
        self._vct_space.info[V_RESULT] = 0
        if nodes <= 0:
            return -1
        return int(find_vct(st, attacker, self.options.vct_plies, nodes, self._vct_space, limits.array))

    def _checked_choice(self, st: State, tree: Tree, color: int, threatened: bool, loss_plies: dict[int, int],
                        limits: SearchLimits) -> int:
        """The best root child after the opponent's VCT has had its say: when the opponent threatens one, a move
        after which it wins by threats is marked lost and the next best takes its place (a few times, each check
        sized to the time left before the hard deadline)."""
        root = int(tree.meta[M_ROOT])
        child = int(best_child(tree, root))
        if not threatened:
            return child
        for _ in range(self.options.checked_choices):
            if tree.proven[child] != 0 or tree.proven[root] != 0 or limits.stopped():
                break
            nodes = self._vct_nodes(0.5 * (limits.hard_deadline - limits.now()) - RESERVE_MIN_SECONDS, limits)
            plies = self._opponent_vct_after(st, int(tree.move[child]), color, nodes, limits)
            if plies == 0:
                break
            tree.proven[child] = 1
            loss_plies[child] = plies
            child = int(best_child(tree, root))
        return child

    def _measure_defences(self, st: State, tree: Tree, color: int, loss_plies: dict[int, int],
                          limits: SearchLimits) -> None:
        """Every move loses: spend the time left on how. Each root move whose refutation is not measured yet (the
        tree proved it lost, or no check ran) is asked, most visited first, for the opponent's win by threats after
        it, each check with a share of the time before the hard deadline; its length goes to `loss_plies`. A move
        whose refutation is not found is a defence the opponent has yet to see through: the search stops there."""
        root = int(tree.meta[M_ROOT])
        first = int(tree.first[root])
        pending = sorted((c for c in range(first, first + int(tree.count[root])) if c not in loss_plies),
                         key=lambda c: -int(tree.visits[c]))
        for i, c in enumerate(pending):
            if limits.stopped():
                return
            share = (limits.hard_deadline - RESERVE_MIN_SECONDS - limits.now()) / min(len(pending) - i, FILTER_SPLIT)
            nodes = self._vct_nodes(share, limits)
            if nodes <= 0:
                return
            plies = self._opponent_vct_after(st, int(tree.move[c]), color, nodes, limits)
            if plies == 0:
                return  # not found: UNKNOWN_LOSS_PLIES, the longest
            loss_plies[c] = plies

    @staticmethod
    def _longest_defence(tree: Tree, root: int, loss_plies: dict[int, int]) -> int:
        """When every move loses: the one after which the opponent's known win is longest (a move whose refutation
        was never found counts as longest), the most visited among equals."""
        first = int(tree.first[root])
        children = range(first, first + int(tree.count[root]))
        return max(children, key=lambda c: (loss_plies.get(c, UNKNOWN_LOSS_PLIES), int(tree.visits[c])))

    def _run(self, st: State, tree: Tree, color: int, limits: SearchLimits, threatened: bool,
             progress: Callable[[int], None]) -> int:
        """MCTS in slices until a stop, a proof, or a deadline: the hard one (less a reserve for the final VCT check,
        which runs only when the opponent threatens one, and for the reply). Only when a match clock makes time worth
        saving (the soft deadline comes before the hard one) does the search stop sooner: at the time
        ``brain.timecontrol.stop_after`` gives after each slice -- the soft deadline for a clear, steady favourite,
        more when it keeps changing, its value falls or the opponent threatens (`threatened`) -- or as soon as the
        favourite can no longer be overtaken by then (``leader_safe``). Otherwise the time left is worth more to the
        search -- its tree is kept for the next move -- than to nobody. Every PROGRESS_SECONDS of a long search,
        `progress` is told the iterations so far."""
        ws = self._workspace_for(st)
        next_report = time.monotonic() + PROGRESS_SECONDS
        root = int(tree.meta[M_ROOT])
        now = limits.now()
        reserve = max(RESERVE_MIN_SECONDS, RESERVE_SHARE * (limits.hard_deadline - now) if threatened else 0.0)
        last_call = limits.hard_deadline - reserve
        saving = limits.soft_deadline < last_call
        budget = MoveBudget(limits.soft_deadline - limits.started, last_call - limits.started)
        watch = LeaderWatch()
        batch = 64
        total = 0
        while not limits.expired() and tree.proven[root] == 0:
            t0 = limits.now()
            deadline = last_call
            if saving:
                deadline = limits.started + stop_after(budget, clear=self._clear(tree, root), critical=threatened,
                                                       leader_changes=watch.changes, value_drop=watch.value_drop)
            if t0 >= deadline:
                break
            done = int(search(st, tree, color, batch, self.params, ws, self._vct_space, limits.array))
            total += done
            if done < batch:
                break
            spent = limits.now() - t0
            rate = done / spent if spent > 0 else batch * 100.0
            batch = int(min(max(rate * SLICE_SECONDS, 16), 200_000))
            if saving:
                best, second = self._ranked(tree, root)
                if second < 0:
                    break
                best_visits = int(tree.visits[best])
                watch.look(best, best_visits, float(tree.wsum[best]) / max(best_visits, 1))
                if leader_safe(best_visits, int(tree.visits[second]), rate, deadline - limits.now()):
                    break
            if time.monotonic() >= next_report:
                progress(total)
                next_report += PROGRESS_SECONDS
        return total

    @staticmethod
    def _ranked(tree: Tree, root: int) -> tuple[int, int]:
        """The most-visited and second most-visited root children (-1 where missing)."""
        first = int(tree.first[root])
        n = int(tree.count[root])
        if n == 0:
            return -1, -1
        order = np.argsort(tree.visits[first:first + n])[::-1]
        return first + int(order[0]), (first + int(order[1]) if n > 1 else -1)

    def _clear(self, tree: Tree, root: int) -> bool:
        """Whether the search has a clear favourite: far more visits than the runner-up and no worse a value."""
        best, second = self._ranked(tree, root)
        if second < 0:
            return True
        vb, vs = int(tree.visits[best]), int(tree.visits[second])
        if vs == 0:
            return vb > 0
        qb = tree.wsum[best] / max(vb, 1)
        qs = tree.wsum[second] / vs
        return vb >= self.options.clear_visit_ratio * vs and qb >= qs - self.options.clear_value_slack

    def _report(self, board: Board, st: State, tree: Tree, started: float, iterations: int, move: int,
                note: str, line: list[tuple[int, int]] | None = None, mate: int = 0) -> MoveChoice:
        """The chosen move with what the search found: its main line (or the proof's `line`), its depth and win rate;
        `mate` plies to a proven win (> 0) or loss (< 0), else what the tree has proven."""
        x, y = board.coords(move)
        if not board.is_empty(x, y) or board.is_forbidden(x, y) and board.to_move == 1:
            return self._fallback(board, started, f"search proposed {x},{y}")
        return MoveChoice(x, y, search=self._search_info(board, tree, started, iterations, (x, y), note, line, mate))

    def _search_info(self, board: Board, tree: Tree, started: float, iterations: int, move: tuple[int, int],
                     note: str = "", line: list[tuple[int, int]] | None = None, mate: int = 0) -> SearchInfo:
        """What the search has found for `move`: its main line (or the proof's `line`), depth and win rate; `mate`
        plies to a proven win (> 0) or loss (< 0), else what the tree has proven."""
        root = int(tree.meta[M_ROOT])
        main_line = self.principal_variation(board, tree, root)
        pv = line or (main_line if main_line[:1] == [move] else [move])
        winrate = self._winrate(tree, root)
        if mate == 0 and tree.proven[root] != 0:
            mate = len(pv) if tree.proven[root] > 0 else -len(pv)
        if mate != 0:
            winrate = 1.0 if mate > 0 else 0.0
        return SearchInfo(depth=len(pv), seldepth=max(len(pv), int(tree.meta[M_MAXDEPTH])), winrate=winrate,
                          nodes=iterations, seconds=time.monotonic() - started, pv=pv, mate=mate, note=note)

    def _tell_progress(self, board: Board, tree: Tree, started: float, iterations: int, limits: SearchLimits) -> None:
        """Tell whoever asked (``ThinkLimits.progress``) what the search has found so far: its favourite move."""
        if limits.think.progress is None:
            return
        child = int(best_child(tree, int(tree.meta[M_ROOT])))
        if child >= 0:
            move = board.coords(int(tree.move[child]))
            limits.think.progress(self._search_info(board, tree, started, iterations, move, "searching"))

    @staticmethod
    def _winrate(tree: Tree, root: int) -> float:
        if tree.proven[root] != 0:
            return 1.0 if tree.proven[root] > 0 else 0.0
        child = int(best_child(tree, root))
        if child < 0 or tree.visits[child] == 0:
            return 0.5
        return float(0.5 + 0.5 * tree.wsum[child] / tree.visits[child])

    @staticmethod
    def principal_variation(board: Board, tree: Tree, root: int, length: int = MAX_PV_PLIES) -> list[tuple[int, int]]:
        """The most-visited line below `root`, at most `length` moves."""
        line = []
        node = root
        while len(line) < length and tree.first[node] >= 0:
            node = int(best_child(tree, node))
            if node < 0 or tree.visits[node] == 0:
                break
            line.append(board.coords(int(tree.move[node])))
        return line

    @staticmethod
    def _fallback(board: Board, started: float, why: str) -> MoveChoice:
        """Any legal move (the position is lost or the search misbehaved): never an illegal one."""
        legal = board.legal_moves() or board.empty_cells()
        cx, cy = board.width // 2, board.height // 2
        x, y = min(legal, key=lambda m: (abs(m[0] - cx) + abs(m[1] - cy), m))
        return MoveChoice(x, y, f"fallback ({why}) in {(time.monotonic() - started) * 1000:.0f}ms")
