"""The player's threat searches: VCT (df-pn, ``brain.vct``) asked for either side, sized from the move's clock.

One job: turn "does this side win by continuous threats here, or after this move?" into a bounded df-pn search under
the move's ``SearchLimits``, and read back what the proof says (its length, the cells it plays on). The df-pn table
lives here and is kept from search to search (a proof holds for good), so the root filter, the final check and the
defence measuring all profit from what the others proved.
"""

from __future__ import annotations

import numpy as np

from monte.brain.limits import SearchLimits
from monte.brain.position import State, make, unmake
from monte.brain.settings import Options
from monte.brain.vct import V_PLIES, V_RESULT, VctSpace, clear_vct_space, find_vct, new_vct_space, proof_cells

VCT_NODES_PER_SECOND = 300_000  # df-pn VCT speed on 15x15 middle games here (measured), turns time into nodes
MIN_VCT_NODES = 300           # a VCT given fewer nodes than this is not worth starting
ZONE_NODES = 20_000           # the most proof nodes read back to find the cells of the opponent's threat win


class ThreatSearch:
    """VCT searches for the player, sharing one df-pn table (``space``, also lent to the MCTS kernel)."""

    def __init__(self, options: Options) -> None:
        self.options = options
        self.space: VctSpace = new_vct_space()
        self._zone_mark = np.zeros(0, dtype=np.uint8)
        self._zone_cells = np.zeros(0, dtype=np.int32)

    def clear(self) -> None:
        """Forget every stored result (a new game)."""
        clear_vct_space(self.space)

    @property
    def proved(self) -> bool:
        """Whether the last search proved its attacker's win."""
        return bool(self.space.info[V_RESULT] == 1)

    @property
    def unknown(self) -> bool:
        """Whether the last search ran out of nodes before it could tell."""
        return bool(self.space.info[V_RESULT] < 0)

    @property
    def plies(self) -> int:
        """The length of the last proved win (0 if none)."""
        return int(self.space.info[V_PLIES])

    def nodes_for(self, seconds: float, limits: SearchLimits) -> int:
        """The VCT nodes that fit in `seconds` of the move's clock (0 when too few to find anything, or VCT is
        off)."""
        nodes = min(self.options.vct_max_nodes, limits.nodes_in(seconds, VCT_NODES_PER_SECOND))
        return nodes if nodes >= MIN_VCT_NODES else 0

    def vct(self, st: State, attacker: int, nodes: int, limits: SearchLimits) -> int:
        """The attacker's first move of a win by continuous threats, or -1 (none found; ``unknown`` says whether the
        search ran out of nodes)."""
        self.space.info[V_RESULT] = 0
        if nodes <= 0:
            return -1
        return int(find_vct(st, attacker, self.options.root_vct_plies, nodes, self.space, limits.array))

    def opponent_vct_after(self, st: State, move: int, color: int, nodes: int, limits: SearchLimits) -> int:
        """The length of the opponent's win by continuous threats after `color` plays `move`, or 0 if none is
        found."""
        if nodes <= 0:
            return 0
        make(st, move, color)
        won = self.vct(st, 3 - color, nodes, limits) >= 0
        unmake(st, move)
        return self.plies + 1 if won else 0

    def zone(self, st: State, attacker: int, limits: SearchLimits) -> set[int]:
        """The cells of the attacker's win proved by the last search from `st` (empty if not proved): where a
        defender's stone is most likely to break it (``brain.vct.proof_cells``). The walk stops with the move's
        `limits`: then only the cells seen so far (``limits.stopped()`` tells)."""
        if not self.proved:
            return set()
        cells = st.cells.shape[0]
        if self._zone_mark.shape[0] != cells:
            self._zone_mark = np.zeros(cells, dtype=np.uint8)
            self._zone_cells = np.zeros(cells, dtype=np.int32)
        n = proof_cells(st, attacker, self.options.root_vct_plies, self.space, self._zone_mark, self._zone_cells,
                        ZONE_NODES, limits.array)
        return {int(c) for c in self._zone_cells[:n]}


def pv_plies(pv: np.ndarray) -> int:
    """The length of the VCF line in `pv` (-1 ends it), at least 1."""
    n = 0
    while n < pv.shape[0] and pv[n] >= 0:
        n += 1
    return max(n, 1)
