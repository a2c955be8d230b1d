"""What a long think spends its time on, second by second: one move of Monte's player run in this process, its
search's counters (``brain.tree``'s M_STEPS...) read at each of the search's progress reports.

It answers why a long move's iteration rate falls: each iteration walks further down a deeper tree (tree steps a
second stay level while iterations a second fall), makes more moves on its way down, and meets more positions where
the side to move has fours, where an expansion runs a VCF (threat nodes per iteration). ``lab.longthink
--in-process`` prints it; over the pipes the brain says only its iterations.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from monte.brain.board import Board
from monte.brain.engine import MctsPlayer
from monte.brain.memory import resident_bytes
from monte.brain.player import SearchInfo, ThinkLimits
from monte.brain.settings import Params
from monte.brain.tree import (
    M_BUDGET, M_EXPANDED, M_MAKES, M_MAXDEPTH, M_PROVEN_ENDS, M_RECLAIMS, M_STEPS, M_VCF_NODES, M_VCT_NODES, RECLAIM_TARGET,
    fill, reclaim,
)


@dataclass
class Sample:
    """The search's state at one progress report: seconds into the move and of this process's CPU, iterations,
    the tree's counters since the move began (``brain.tree``), its fill (0..1), its deepest path and the process's RSS in bytes."""

    seconds: float
    cpu: float
    iterations: int
    steps: int
    makes: int
    expanded: int
    proven_ends: int
    vcf_nodes: int
    vct_nodes: int
    reclaims: int
    fill: float
    deepest: int
    resident: int


@dataclass
class Profile:
    """A profiled think: its samples (the first one at the move's start, all counters 0), the tree's budget in bytes,
    and how long one reclaim of the tree it ended with took (seconds)."""

    samples: list[Sample]
    budget: int
    reclaim_seconds: float


def profile_think(board: Board, seconds: float, max_memory: int, params: Params | None = None) -> Profile:
    """Think `seconds` on `board` with a tree sized for `max_memory`, sampling the search at each progress report.
    The kernels are loaded (or compiled) first, so the tree is sized from the RSS a brain has when it plays."""
    player = MctsPlayer(params)
    player.warm_up()
    player.prepare(board, max_memory)
    tree = player.tree
    samples: list[Sample] = []

    def sample(iterations: int) -> None:
        m = tree.meta
        samples.append(Sample(time.monotonic() - started, time.process_time() - cpu, iterations, int(m[M_STEPS]),
                              int(m[M_MAKES]), int(m[M_EXPANDED]), int(m[M_PROVEN_ENDS]), int(m[M_VCF_NODES]),
                              int(m[M_VCT_NODES]),
                              int(m[M_RECLAIMS]), fill(tree), int(m[M_MAXDEPTH]), resident_bytes()))

    def progress(info: SearchInfo) -> None:
        sample(info.nodes)

    limits = ThinkLimits.seconds(seconds)
    limits.max_memory = max_memory
    limits.progress = progress
    started = time.monotonic()
    cpu = time.process_time()
    sample(0)
    choice = player.choose(board, limits)
    sample(choice.search.nodes if choice.search else samples[-1].iterations)
    clock = time.perf_counter()
    reclaim(tree, RECLAIM_TARGET)
    return Profile(samples, int(tree.meta[M_BUDGET]), time.perf_counter() - clock)
