"""Threat sequences that start with a quiet move: the attacker plays a move that threatens nothing yet, and wins by
continuous threats (VCT) whatever the defender answers.

An order-2/3 threat in lambda search's terms (Thomsen 2000; ``/work/shared/ENGINE-NOTES.md``): a move after which
the attacker wins by VCT if the defender passes. It is a win only when no defence holds, and the defences worth
trying are few: the cells of the pass-proof (its relevance zone: a stone elsewhere cannot break it) and the
defender's own threes and fours (a counter-threat gains a tempo). So one question costs one df-pn VCT for the pass,
one for the defender's own counter-win, and one per defence -- each small, most of them answered at once because the
quiet move threatens nothing.

The player asks it both ways at the root: for itself (a quiet move that wins: play it) and for the opponent after
each of its candidate moves (a move that lets the opponent start such a sequence is refused). Every VCT runs under
the move's ``SearchLimits`` and a node budget; a search cut short proves nothing, so a cut never refutes a move.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from monte.brain.limits import SearchLimits
from monte.brain.patterns import C_FIVE, C_FORBIDDEN, C_THREE
from monte.brain.position import State, class_count, make, unmake
from monte.brain.rules import EMPTY
from monte.brain.threat_search import ThreatSearch
from monte.brain.threats import playable, playable_cells


class QuietWin(NamedTuple):
    """A proved quiet win: the quiet move and the length of the win after it (plies, the quiet move included)."""

    move: int
    plies: int


class QuietBudget(NamedTuple):
    """How much one question may search: the attacker's quiet moves tried, and the df-pn nodes of each VCT."""

    moves: int
    vct_nodes: int


def quiet_moves(st: State, attacker: int, count: int) -> list[int]:
    """The attacker's most promising quiet moves: empty cells near the stones that make no open three or four (those
    are threats already, the VCT's own moves), best scored for the attacker first (renju black's fouls left out)."""
    side = attacker - 1
    cells = st.interior
    empty = (st.cells[cells] == EMPTY) & (st.near[cells] > 0)
    quiet = st.cls[side, cells] < C_THREE
    idx = cells[empty & quiet]
    if idx.shape[0] == 0:
        return []
    order = np.argsort(-st.score_lut[side, st.code[side, idx]], kind="stable")  # cell_score, for all at once
    moves = []
    for i in order:
        m = int(idx[i])
        if playable(st, m, attacker):
            moves.append(m)
            if len(moves) == count:
                break
    return moves


QUIET_SPLIT = 16                 # one VCT of a quiet-threat question gets 1/16 of the nodes its time share allows
MAX_QUIET_VCT_NODES = 30_000     # ...and never more (a long think widens the checks before it deepens them)


class QuietThreats:
    """Finds quiet wins (see the module docstring) with the player's threat searches, whose df-pn table it shares."""

    def __init__(self, threats: ThreatSearch) -> None:
        self.threats = threats
        self._buffer = np.zeros(0, dtype=np.int32)

    def budget(self, seconds: float, moves: int, limits: SearchLimits) -> QuietBudget:
        """The budget of one question when the checks have `seconds` of the move's clock: `moves` quiet moves, each
        VCT a share of the nodes that time allows (none when VCT is off or the time too short)."""
        total = self.threats.nodes_for(seconds, limits)
        return QuietBudget(moves, min(MAX_QUIET_VCT_NODES, total // QUIET_SPLIT) if total > 0 else 0)

    def find(self, st: State, attacker: int, budget: QuietBudget, limits: SearchLimits,
             deadline: float) -> QuietWin | None:
        """The attacker's first proved quiet win here, trying its `budget.moves` best quiet moves in order, or None
        (none proved before the move's clock reaches `deadline`, the stop or the node budget)."""
        if budget.vct_nodes <= 0:
            return None
        for q in quiet_moves(st, attacker, budget.moves):
            if limits.stopped() or limits.now() >= deadline:
                return None
            plies = self._wins_after(st, attacker, q, budget.vct_nodes, limits, deadline)
            if plies > 0:
                return QuietWin(q, plies)
        return None

    def opponent_win_after(self, st: State, move: int, color: int, budget: QuietBudget, limits: SearchLimits,
                           deadline: float) -> int:
        """The length of the opponent's proved quiet win after `color` plays `move` (plies, `move` included), or 0
        if ``find`` proves none -- the question the root filter asks of a candidate move."""
        make(st, move, color)
        try:
            win = self.find(st, 3 - color, budget, limits, deadline)
        finally:
            unmake(st, move)
        return win.plies + 1 if win is not None else 0

    def _wins_after(self, st: State, attacker: int, q: int, nodes: int, limits: SearchLimits, deadline: float) -> int:
        """The length of the attacker's proved win after its quiet move `q` (0: not proved): a VCT if the defender
        passes, no counter-win of the defender's, and every defence in the proof's zone and every counter-threat
        refuted by a VCT -- all before the move's clock reaches `deadline` (a question cut there proves nothing)."""
        defender = 3 - attacker
        make(st, q, attacker)
        try:
            if class_count(st, defender - 1, C_FIVE) > 0:
                return 0  # the defender's four stands: it wins first
            if self.threats.vct(st, attacker, nodes, limits) < 0:
                return 0
            longest = self.threats.plies
            zone = self.threats.zone(st, attacker, limits)
            if limits.stopped() or limits.now() >= deadline:
                return 0  # the zone may be cut short: no defence may be left untried
            if self.threats.vct(st, defender, nodes, limits) >= 0 or self.threats.unknown:
                return 0  # the defender wins first, or might
            for d in self._defences(st, defender, zone):
                if limits.now() >= deadline:
                    return 0
                make(st, d, defender)
                won = self.threats.vct(st, attacker, nodes, limits) >= 0
                unmake(st, d)
                if not won:
                    return 0
                longest = max(longest, self.threats.plies + 1)
            return longest + 1
        finally:
            unmake(st, q)

    def _defences(self, st: State, defender: int, zone: set[int]) -> list[int]:
        """The defender's replies worth trying: the proof's cells it may play, then its own threes and fours."""
        if self._buffer.shape[0] != st.cells.shape[0]:
            self._buffer = np.zeros(st.cells.shape[0], dtype=np.int32)
        side = defender - 1
        replies = [c for c in sorted(zone) if st.cells[c] == EMPTY and st.cls[side, c] != C_FORBIDDEN
                   and playable(st, c, defender)]
        n = playable_cells(st, side, C_THREE, False, self._buffer, 0, defender)
        seen = set(replies)
        replies += [int(c) for c in self._buffer[:n] if int(c) not in seen]
        return replies
