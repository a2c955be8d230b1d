"""MCTS run in slices of a few milliseconds until the move's clock says stop.

One job: the time loop around the compiled search (which has no clock): how long each call may run, when the search
may stop sooner (only when a match clock makes time worth saving: ``brain.timecontrol`` decides, from what this
loop reads of the root's children after each call), when to reclaim a nearly full tree while there is time for it,
and telling a long search's progress every second.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from monte.brain.limits import SearchLimits
from monte.brain.mcts import search
from monte.brain.position import State
from monte.brain.root_choice import root_choice
from monte.brain.settings import Options, Params
from monte.brain.threats import Workspace
from monte.brain.timecontrol import LeaderWatch, MoveBudget, leader_safe, stop_after
from monte.brain.tree import (
    M_BUDGET, M_ROOT, RECLAIM_TARGET, Tree, children, expansions_that_fit, fill, reclaim,
)
from monte.brain.vct import VctSpace

PROGRESS_SECONDS = 1.0        # a long search reports what it has found so far this often (ThinkLimits.progress)
SLICE_SECONDS = 0.01          # how long one compiled search call may run before the clock is looked at again
MIN_BATCH = 16                # the fewest iterations a call is given
RESERVE_SHARE = 0.12          # of the move's time, kept after the search for the final checks and the reply
RESERVE_MIN_SECONDS = 0.01
EARLY_RECLAIM_FILL = 0.9      # the tree is reclaimed between slices past this fill, when the move has
RECLAIM_TIME_FACTOR = 4.0     # this many times the time it would take: RECLAIM_SECONDS_PER_BYTE of the tree in use
RECLAIM_SECONDS_PER_BYTE = 3e-9  # (measured: 1.5 ms a MB, on this 2-core machine with 6-10 jobs running)


def run_slices(st: State, tree: Tree, color: int, params: Params, options: Options, ws: Workspace, space: VctSpace,
               limits: SearchLimits, threatened: bool, progress: Callable[[int], None], watch: LeaderWatch,
               until: float | None = None) -> int:
    """MCTS in slices until a stop, a proof, or a deadline: the hard one (less a reserve for the final VCT check,
    which runs only when the opponent threatens one, and for the reply). Only when a match clock makes time worth
    saving (the soft deadline comes before the hard one) does the search stop sooner: at the time
    ``brain.timecontrol.stop_after`` gives after each slice -- the soft deadline for a clear, steady favourite, more
    when it is not clear, keeps changing (`watch`, kept by the caller across runs of one move), its value falls or
    the opponent threatens (`threatened`) -- or as soon as the favourite can no longer be overtaken by then
    (``leader_safe``) and is the move ``brain.root_choice`` would play. Otherwise the time left is worth more to
    the search -- its tree is kept for the next move -- than to nobody. Every PROGRESS_SECONDS of a long search,
    `progress` is told the iterations so far. `until` (on
    the move's clock) ends this run earlier, for a check between two runs. Returns the iterations run."""
    next_report = time.monotonic() + PROGRESS_SECONDS
    root = int(tree.meta[M_ROOT])
    now = limits.now()
    reserve = max(RESERVE_MIN_SECONDS, RESERVE_SHARE * (limits.hard_deadline - now) if threatened else 0.0)
    last_call = limits.hard_deadline - reserve
    saving = limits.soft_deadline < last_call
    budget = MoveBudget(limits.soft_deadline - limits.started, last_call - limits.started)
    if until is not None:
        last_call = min(last_call, until)
    batch = 64
    total = 0
    while not limits.expired() and tree.proven[root] == 0:
        if not _make_room(tree, limits):
            # an iteration makes at most one node and one edge block, as mcts.search checks before each
            batch = min(batch, expansions_that_fit(tree, params.max_children + 1))
            if batch < MIN_BATCH:
                break  # full, and no time to reclaim: the next move's start reclaims (brain.tree_reuse)
        t0 = limits.now()
        deadline = last_call
        if saving:
            stop = stop_after(budget, clear=_clear(tree, root, options), leader_changes=watch.changes,
                              value_drop=watch.value_drop, critical=threatened)
            deadline = min(last_call, limits.started + stop)
        if t0 >= deadline:
            break
        done = int(search(st, tree, color, batch, params, ws, space, limits.array))
        total += done
        if done < batch:
            break
        spent = limits.now() - t0
        rate = done / spent if spent > 0 else batch * 100.0
        batch = int(min(max(rate * SLICE_SECONDS, MIN_BATCH), 200_000))
        if saving:
            best, second = _ranked(tree, root)
            if second < 0:
                break
            best_visits = int(tree.visits[best])
            watch.look(best, best_visits, float(tree.wsum[best]) / max(best_visits, 1))
            if leader_safe(best_visits, int(tree.visits[second]), rate, deadline - limits.now()) \
                    and root_choice(tree, root, options) == best:
                break
        if time.monotonic() >= next_report:
            progress(total)
            next_report += PROGRESS_SECONDS
    return total


def _make_room(tree: Tree, limits: SearchLimits) -> bool:
    """Reclaim the tree between slices once it is nearly full and the move has time for it; returns False when it
    is nearly full and the move has not (the next slice must then stay inside the room left: see
    ``tree.expansions_that_fit``). The compiled search reclaims by itself when it runs out of room, but cannot look at
    the clock meanwhile: a reclaim takes about 1.5-2.5 ms a MB of tree (0.56 s for a 250 MB one on this loaded
    machine), so one begun near the deadline would answer late by as much. Not under a node budget, where the search
    must not depend on the clock: there the compiled search's own reclaims come at the same nodes every time."""
    if limits.think.max_nodes > 0 or fill(tree) < EARLY_RECLAIM_FILL:
        return True
    seconds = RECLAIM_SECONDS_PER_BYTE * fill(tree) * int(tree.meta[M_BUDGET])
    if limits.think.hard_deadline - time.monotonic() > RECLAIM_TIME_FACTOR * seconds:
        reclaim(tree, RECLAIM_TARGET)
        return True
    return False


def _ranked(tree: Tree, root: int) -> tuple[int, int]:
    """The most-visited and second most-visited root children (-1 where missing)."""
    kids = children(tree, root)
    if kids.shape[0] == 0:
        return -1, -1
    order = np.argsort(tree.visits[kids])[::-1]
    return int(kids[order[0]]), (int(kids[order[1]]) if kids.shape[0] > 1 else -1)


def _clear(tree: Tree, root: int, options: Options) -> bool:
    """Whether the search has a clear favourite: far more visits than the runner-up and no worse a value."""
    best, second = _ranked(tree, root)
    if second < 0:
        return True
    vb, vs = int(tree.visits[best]), int(tree.visits[second])
    if vs == 0:
        return vb > 0
    qb = tree.wsum[best] / max(vb, 1)
    qs = tree.wsum[second] / vs
    return vb >= options.clear_visit_ratio * vs and qb >= qs - options.clear_value_slack
