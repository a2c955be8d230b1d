"""VCT: victory by continuous threats -- fours and open threes -- as an AND/OR search.

At an attacker node (OR) the attacker tries every move that makes a four or an open three; it wins when some move
leaves the defender without a saving reply. At a defender node (AND) the defender tries every reply that could
save: against a four, the one block; against an open three, every move after which the attacker has no open-four
point left, and every four of the defender's own (a four gains a tempo and may defend as it goes). The defender
survives when one reply leaves the attacker without a win in the plies left.

Wins are proofs only up to the defences considered, which are all the sound ones in Gomoku's threat space: a three
cannot be answered by a counter-three, because the attacker's open four comes first. The search is bounded by plies
and nodes; running out of either is a failure, never a false win.

The search is iterative (an explicit stack) because numba cannot reload a cached recursive function.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from brain.jit import Int64Array, kernel
from brain.limits import charge
from brain.patterns import C_FIVE, C_FOUR, C_OPEN_FOUR, C_THREE
from brain.position import State, make, unmake
from brain.threats import first_of_class, playable, playable_cells

MAX_LEVELS = 24
MAX_MOVES = 96

OR_NODE = 0    # the attacker to move
AND_NODE = 1   # the defender to move


class VctSpace(NamedTuple):
    """The explicit stack of the VCT search and its transposition table (allocated once)."""

    moves: np.ndarray    # int32[levels, MAX_MOVES]
    count: np.ndarray    # int32[levels]
    next: np.ndarray     # int32[levels]
    made: np.ndarray     # int32[levels]: the move of this level being examined below it
    tt_keys: np.ndarray  # uint64[2^k]
    tt_info: np.ndarray  # int16[2^k]: plies searched; positive = attacker wins, negative = attacker fails


def new_vct_space(tt_bits: int = 16) -> VctSpace:
    """A fresh stack and table."""
    return VctSpace(
        moves=np.empty((MAX_LEVELS, MAX_MOVES), dtype=np.int32),
        count=np.zeros(MAX_LEVELS, dtype=np.int32),
        next=np.zeros(MAX_LEVELS, dtype=np.int32),
        made=np.full(MAX_LEVELS, -1, dtype=np.int32),
        tt_keys=np.zeros(1 << tt_bits, dtype=np.uint64),
        tt_info=np.zeros(1 << tt_bits, dtype=np.int16),
    )


@kernel
def _attack_moves(st: State, attacker: int, out: np.ndarray) -> int:
    """-1: the attacker wins now (a five, or an open four the defender cannot stop with a five); 0: no threat
    to make; else the count of threat moves written to out (the forced block first when there is one)."""
    a = attacker - 1
    d = 1 - a
    if st.cls_count[a, C_FIVE] > 0:
        return -1
    if st.cls_count[d, C_FIVE] > 0:
        if st.cls_count[d, C_FIVE] >= 2:
            return 0
        block = first_of_class(st, d, C_FIVE, 3 - attacker)
        if block < 0 or st.cls[a, block] < C_THREE or not playable(st, block, attacker):
            return 0
        out[0] = block
        return 1
    if st.cls_count[a, C_OPEN_FOUR] > 0 and first_of_class(st, a, C_OPEN_FOUR, attacker) >= 0:
        return -1
    return playable_cells(st, a, C_THREE, False, out, 0, attacker)


@kernel
def _defence_moves(st: State, attacker: int, out: np.ndarray) -> int:
    """-1: the defender is lost now; -2: the attacker made no threat (the defender is safe); else the count of
    replies worth trying, written to out."""
    a = attacker - 1
    d = 1 - a
    defender = 3 - attacker
    if st.cls_count[d, C_FIVE] > 0:
        return -2  # the defender completes a five
    if st.cls_count[a, C_FIVE] >= 2:
        return -1
    if st.cls_count[a, C_FIVE] == 1:
        block = first_of_class(st, a, C_FIVE, attacker)
        if block < 0 or not playable(st, block, defender):
            return -1
        out[0] = block
        return 1
    if st.cls_count[a, C_OPEN_FOUR] == 0:
        return -2
    # replies that leave the attacker no open-four point, then the defender's own fours
    n = 0
    cand = playable_cells(st, a, C_FOUR, False, out, 0, defender)
    for i in range(cand):
        m = out[i]
        make(st, m, defender)
        ok = st.cls_count[a, C_OPEN_FOUR] == 0
        unmake(st, m)
        if ok:
            out[n] = m
            n += 1
    start = n
    n = playable_cells(st, d, C_FOUR, True, out, n, defender)
    # drop duplicates of the defender's fours that were already kept as defences
    m = start
    for i in range(start, n):
        dup = False
        for j in range(start):
            if out[j] == out[i]:
                dup = True
                break
        if not dup:
            out[m] = out[i]
            m += 1
    if m == 0:
        return -1
    return m


@kernel
def find_vct(st: State, attacker: int, max_ply: int, node_budget: int, space: VctSpace, limits: Int64Array) -> int:
    """The attacker's first move of a win by continuous threats within max_ply plies, or -1. Each node counts
    against `limits` too; a node they refuse (stopped, or their budget spent) fails unsearched and the search ends
    as if its own budget had run out.

    Iterative deepening (2, 4, ... max_ply plies) on one node budget: a depth-first search sent straight to 14
    plies spends its budget deep in hopeless lines and missed a 9-ply win that a 10-ply search found in 26 ms.
    The transposition table carries over between iterations (failures record the plies they were searched to).
    Failures are cached only when the search was not cut short by the budget; still, clear ``space.tt_keys``
    between unrelated root positions."""
    left = node_budget
    for plies in range(2, max_ply + 1, 2):
        move, used = _search(st, attacker, plies, left, space, limits)
        left -= used
        if move >= 0 or left <= 0:
            return move
    return -1


@kernel
def _search(st: State, attacker: int, max_ply: int, node_budget: int, space: VctSpace,
            limits: Int64Array) -> tuple[int, int]:
    """One depth-limited AND/OR search; returns (the attacker's first winning move or -1, nodes used)."""
    levels = min(max_ply + 1, MAX_LEVELS)
    mask = np.uint64(space.tt_keys.shape[0] - 1)
    budget = node_budget
    level = 0
    entering = True
    result = False     # the outcome of the child just finished: True = the attacker wins it
    first_move = -1
    while True:
        kind = OR_NODE if level % 2 == 0 else AND_NODE
        if entering:
            entering = False
            decided = False
            plies_left = max_ply - level
            h = st.hash[0] ^ np.uint64(attacker * 2 + kind)
            slot = h & mask
            if charge(limits):  # stopped, or the limits' node budget is spent: fail here and everywhere after
                budget = 0
                result, decided = False, True
            elif space.tt_keys[slot] == h:
                info = space.tt_info[slot]
                if info > 0 or -info >= plies_left:
                    result = info > 0
                    decided = True
            if not decided:
                if kind == OR_NODE:
                    n = _attack_moves(st, attacker, space.moves[level])
                    if n == -1:
                        result, decided = True, True
                    elif n == 0 or plies_left <= 1 or budget <= 0 or level + 1 >= levels:
                        result, decided = False, True
                else:
                    n = _defence_moves(st, attacker, space.moves[level])
                    if n == -1:
                        result, decided = True, True
                    elif n == -2 or budget <= 0 or level + 1 >= levels:
                        result, decided = False, True
                if decided and (result or budget > 0):
                    space.tt_keys[slot] = h
                    space.tt_info[slot] = max_ply if result else -plies_left
                else:
                    budget -= 1
                    space.count[level] = n
                    space.next[level] = 0
            if decided:
                # hand the result to the parent
                if level == 0:
                    if result:  # the attacker wins at once: its five, else its open four
                        first_move = first_of_class(st, attacker - 1, C_FIVE, attacker)
                        if first_move < 0:
                            first_move = first_of_class(st, attacker - 1, C_OPEN_FOUR, attacker)
                    break
                level -= 1
                unmake(st, space.made[level])
                continue
        else:
            # a child of this level has just returned `result`
            if (kind == OR_NODE and result) or (kind == AND_NODE and not result):
                if level == 0:
                    first_move = space.made[0]
                    break
                h = st.hash[0] ^ np.uint64(attacker * 2 + kind)
                slot = h & mask
                space.tt_keys[slot] = h
                space.tt_info[slot] = max_ply if result else -(max_ply - level)
                level -= 1
                unmake(st, space.made[level])
                continue
        if space.next[level] >= space.count[level]:
            # every move tried: OR fails, AND (no saving reply) means the attacker wins
            result = kind == AND_NODE
            h = st.hash[0] ^ np.uint64(attacker * 2 + kind)
            slot = h & mask
            space.tt_keys[slot] = h
            space.tt_info[slot] = max_ply if result else -(max_ply - level)
            if level == 0:
                break
            level -= 1
            unmake(st, space.made[level])
            continue
        m = space.moves[level, space.next[level]]
        space.next[level] += 1
        mover = attacker if kind == OR_NODE else 3 - attacker
        make(st, m, mover)
        space.made[level] = m
        level += 1
        entering = True
    # unwind whatever is still on the board
    while level > 0:
        level -= 1
        unmake(st, space.made[level])
    return first_move, node_budget - budget
