"""VCT: victory by continuous threats -- fours and open threes -- proved by depth-first proof-number search (df-pn).

The attacker's nodes are OR nodes: it wins if one of its threats wins. The defender's are AND nodes: the attacker wins
only if every sound reply loses. Against a four the one reply is the block; against an open three the replies are the
cells after which the attacker has no open-four point left, and every four of the defender's own (a four gains a tempo
and may defend as it goes). A three cannot be answered by a counter-three: the attacker's open four comes first. A
position where the threat is gone, or the defender makes five first, is a failure for the attacker.

Why df-pn rather than a depth-first search with iterative deepening: a threat tree is very uneven -- a four leaves one
reply, a three several -- and proof numbers send the search down the narrowest lines first. On positions from real
games against C++ engines the depth-first search needed ~10x the nodes for an 18-ply win (and gave up on some within
ten million). Each node's proof number (how many leaves must still be proved) and disproof number live in a
transposition table keyed by the Zobrist hash of the stones, the attacker and the side to move; a node is re-expanded when the search comes back to it, its children's
numbers are read from the table without making the moves.

Focus. Past its first threat, the attacker may play only threats on a line near one of its earlier threats of the
sequence (within a window's half: a five could hold both). A three played far away only makes the defender answer
and changes nothing else, and df-pn tried such detours in every order: on the 82 held-out positions of the blunder
screen (``tournaments/reports/blunders/``), asked the player's questions at 300,000 nodes each (``python -m
monte.lab.vct_bench``), the focused search proved 77 wins where the complete one proved 72 (7 and 2 of them the
other did not), left 13 questions open instead of 35, and spent 7.1 million nodes instead of 15.1. The defender's
replies are never cut, so a proof is still a proof; what focus costs is completeness -- a win that needs an
unrelated threat is not found.
``space.info[V_FOCUS] = 0`` searches every threat (the tests check proofs with it).

A proof is a fact about a position -- the stones and the side to move -- not about a search, and holds for good. A
disproof holds for the plies it was searched to (kept beside it) and, under focus, says only that no focused win was
found there (its earlier threats may differ on another path): it never proves anything, it only stops the search
from looking again. So the table survives from search to search -- the root filter asks the same questions after
each candidate move, and the next move asks them again. Gomoku positions never repeat (stones are only added), so
df-pn's graph-history troubles do not arise.

The search is iterative (an explicit stack) because numba cannot reload a cached recursive function.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from monte.brain.jit import Int32Array, Int64Array, UInt8Array, kernel
from monte.brain.limits import charge
from monte.brain.patterns import C_FIVE, C_FORBIDDEN, C_FOUR, C_FOUR_THREE, C_OPEN_FOUR, C_THREE, WINDOW_HALF
from monte.brain.position import I_STRIDE, State, class_count, make_lean, unmake_lean
from monte.brain.rules import EMPTY
from monte.brain.threats import first_of_class, playable_cells

MAX_LEVELS = 48
MAX_MOVES = 128
INF = 1 << 30           # a proof or disproof number that says "proved" / "disproved"
EPSILON_DIV = 4         # the 1+epsilon trick: a child's threshold is its sibling's number plus a quarter

# what a node's own look at the board says
OPEN = 0                # moves to search
WON = 1                 # the attacker wins here
LOST = 2                # the attacker fails here

# info[] slots of a VctSpace
V_RESULT = 0            # of the last search: 1 proved, 0 disproved, -1 unknown (budget)
V_NODES = 1             # nodes it expanded
V_PLIES = 2             # proved: plies to the win along the proof
V_FOCUS = 3             # a setting, not a result: 1 (new_vct_space's) past the attacker's first threat, only threats
                        # on a line near its earlier ones (_related_threats); 0 every threat: a complete search, slower


class VctSpace(NamedTuple):
    """The explicit stack of the search and its transposition table (allocated once, kept across searches)."""

    moves: np.ndarray    # int32[levels, MAX_MOVES]: the node's moves at each level
    count: np.ndarray    # int32[levels]
    thpn: np.ndarray     # int64[levels]: the proof-number threshold of each level's node
    thdn: np.ndarray     # int64[levels]: the disproof-number threshold
    made: np.ndarray     # int32[levels]: the move of this level being searched below it
    chosen: np.ndarray   # int32[levels]: ...and its index among the level's moves
    cpn: np.ndarray      # int32[levels, MAX_MOVES]: the children's numbers as last read from the table
    cdn: np.ndarray      # int32[levels, MAX_MOVES]
    cplies: np.ndarray   # int32[levels, MAX_MOVES]
    tt_keys: np.ndarray  # uint64[2^k]
    tt_pn: np.ndarray    # int32[2^k]
    tt_dn: np.ndarray    # int32[2^k]
    tt_plies: np.ndarray  # int16[2^k]: proved: plies to the win; otherwise: plies the node was searched with
    info: np.ndarray     # int64[4]: see V_*
    scratch: np.ndarray  # int32[MAX_MOVES]: a node's list of the attacker's open-four points


def new_vct_space(tt_bits: int = 20) -> VctSpace:
    """A fresh stack and an empty table of 2^tt_bits entries (18 bytes each)."""
    return VctSpace(
        moves=np.empty((MAX_LEVELS, MAX_MOVES), dtype=np.int32),
        count=np.zeros(MAX_LEVELS, dtype=np.int32),
        thpn=np.zeros(MAX_LEVELS, dtype=np.int64),
        thdn=np.zeros(MAX_LEVELS, dtype=np.int64),
        made=np.full(MAX_LEVELS, -1, dtype=np.int32),
        chosen=np.zeros(MAX_LEVELS, dtype=np.int32),
        cpn=np.zeros((MAX_LEVELS, MAX_MOVES), dtype=np.int32),
        cdn=np.zeros((MAX_LEVELS, MAX_MOVES), dtype=np.int32),
        cplies=np.zeros((MAX_LEVELS, MAX_MOVES), dtype=np.int32),
        # np.full writes every page now, so the table counts in the resident size the tree is sized against
        tt_keys=np.full(1 << tt_bits, 0, dtype=np.uint64),
        tt_pn=np.full(1 << tt_bits, 0, dtype=np.int32),
        tt_dn=np.full(1 << tt_bits, 0, dtype=np.int32),
        tt_plies=np.full(1 << tt_bits, 0, dtype=np.int16),
        info=np.array([0, 0, 0, 1], dtype=np.int64),  # V_FOCUS on
        scratch=np.zeros(MAX_MOVES, dtype=np.int32),
    )


def clear_vct_space(space: VctSpace) -> None:
    """Forget every stored result (a new game: nothing is wrong with old entries, they are only useless)."""
    space.tt_keys[:] = 0


@kernel
def _salt(attacker: int) -> np.uint64:
    """Keeps the two attackers' entries apart in the shared table."""
    return np.uint64(0x5BD1E9955BD1E995) if attacker == 1 else np.uint64(0x27D4EB2F165667C5)


@kernel
def _turn(kind: int) -> np.uint64:
    """Keeps apart the entries of the same stones with the attacker to move (kind 0) and the defender (kind 1). Real
    play never meets both, but a pass search does: the opponent's threats asked while we are to move, or a quiet
    move's proof "if the defender passed", prove positions with the attacker to move that real play reaches with the
    defender to move -- read there, such a proof claims a win the defender can stop (issue 19's false ``+M``)."""
    return np.uint64(0x9E3779B97F4A7C15) if kind == 1 else np.uint64(0)


@kernel
def _threat_rank(c: int) -> int:
    """0 for the threats that leave the defender no choice or win outright, 1 for a four, 2 for threes."""
    if c >= C_FOUR_THREE:
        return 0
    return 1 if c == C_FOUR else 2


@kernel
def _threat_moves(st: State, attacker: int, out: np.ndarray) -> int:
    """The attacker's threats, the narrow ones first: four-threes and open-four makers, fours, then threes (an
    insertion sort on the rank, stable, on a short list)."""
    a = attacker - 1
    n = playable_cells(st, a, C_THREE, False, out, 0, attacker)
    for i in range(1, n):
        m = out[i]
        r = _threat_rank(st.cls[a, m])
        j = i
        while j > 0 and _threat_rank(st.cls[a, out[j - 1]]) > r:
            out[j] = out[j - 1]
            j -= 1
        out[j] = m
    return n


@kernel
def _or_node(st: State, attacker: int, plies_left: int, out: np.ndarray) -> tuple[int, int]:
    """(WON / LOST / OPEN, move count) for the attacker to move; the moves go to out."""
    a = attacker - 1
    d = 1 - a
    if class_count(st, a, C_FIVE) > 0:
        return WON, 0
    if class_count(st, d, C_FIVE) >= 2:
        return LOST, 0
    if class_count(st, d, C_FIVE) == 1:
        # the defender's counter-four must be blocked; the threat the attacker had stands, or does not
        block = first_of_class(st, d, C_FIVE, attacker)
        if block < 0 or plies_left < 2:
            return LOST, 0
        out[0] = block
        return OPEN, 1
    if class_count(st, a, C_OPEN_FOUR) > 0 and first_of_class(st, a, C_OPEN_FOUR, attacker) >= 0:
        return WON, 0
    if plies_left < 3:
        return LOST, 0
    n = _threat_moves(st, attacker, out)
    if n == 0:
        return LOST, 0
    return OPEN, min(n, out.shape[0])


@kernel
def _kills_open_fours(st: State, a: int, m: int, points: np.ndarray, k: int) -> bool:
    """Whether a defender stone on m leaves side `a` none of its open-four points points[:k]. A stone changes only
    the lines through it, so each point's class is looked up again with the one line that m is on re-keyed -- the
    same answer as making the move and counting, without making it (that was the dearest part of a node)."""
    for j in range(k):
        q = points[j]
        if q == m:
            continue
        diff = m - q
        code = st.code[a, q]
        for d in range(4):
            step = st.steps[d]
            if diff % step != 0:
                continue
            o = diff // step
            if o < -WINDOW_HALF or o > WINDOW_HALF:
                continue
            key = st.keys[a, q, d] + 2 * st.weights[o + WINDOW_HALF]
            p = st.tables[a, key]
            code = code + (np.int32(p) - np.int32(st.pat[a, q, d])) * st.combo[d]
            break
        if st.cls_lut[a, code] >= C_OPEN_FOUR and st.cls_lut[a, code] != C_FORBIDDEN:
            return False
    return True


@kernel
def _and_node(st: State, attacker: int, out: np.ndarray, scratch: np.ndarray) -> tuple[int, int]:
    """(WON / LOST / OPEN, reply count) for the defender to move; the replies go to out."""
    a = attacker - 1
    d = 1 - a
    defender = 3 - attacker
    if class_count(st, d, C_FIVE) > 0:
        return LOST, 0  # the defender completes a five
    if class_count(st, a, C_FIVE) >= 2:
        return WON, 0
    if class_count(st, a, C_FIVE) == 1:
        block = first_of_class(st, a, C_FIVE, defender)
        if block < 0:
            return WON, 0  # renju: the only block is forbidden to black
        out[0] = block
        return OPEN, 1
    if class_count(st, a, C_OPEN_FOUR) == 0:
        return LOST, 0  # no threat left to answer
    # replies that leave the attacker no open-four point, then the defender's own fours
    points = scratch
    k = 0
    for i in range(st.interior.shape[0]):
        if k == class_count(st, a, C_OPEN_FOUR):
            break  # all of them found
        q = st.interior[i]
        if st.cells[q] == EMPTY and st.cls[a, q] == C_OPEN_FOUR and k < points.shape[0]:
            points[k] = q
            k += 1
    n = 0
    cand = playable_cells(st, a, C_FOUR, False, out, 0, defender)
    for i in range(cand):
        m = out[i]
        if _kills_open_fours(st, a, m, points, k):
            out[n] = m
            n += 1
    start = n
    n = playable_cells(st, d, C_FOUR, True, out, n, defender)
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
        return WON, 0
    return OPEN, m


@kernel
def _on_line_near(st: State, a: int, b: int) -> bool:
    """Whether cells a and b share a row, column or diagonal within a window's half (one five could hold both)."""
    stride = st.info[I_STRIDE]
    ay, ax = a // stride, a % stride
    by, bx = b // stride, b % stride
    dy, dx = abs(ay - by), abs(ax - bx)
    return max(dy, dx) <= WINDOW_HALF and (dy == 0 or dx == 0 or dy == dx)


@kernel
def _related_threats(st: State, space: VctSpace, level: int, n: int) -> int:
    """Keep, of the attacker's n threats at `level`, those on a line near one of its earlier stones of this
    sequence (space.made at the even levels above: its threats, and the blocks a defender's four forced): a threat
    sequence builds on its own stones, and a three played far away only makes the defender answer, a detour df-pn
    would otherwise try in every order."""
    moves = space.moves[level]
    k = 0
    for i in range(n):
        m = moves[i]
        for l in range(0, level, 2):
            if _on_line_near(st, m, space.made[l]):
                moves[k] = m
                k += 1
                break
    return k


@kernel
def _probe(space: VctSpace, key: np.uint64, plies_left: int, initial_pn: int) -> tuple[int, int, int]:
    """(pn, dn, plies) of a node from the table; a node not there, or disproved with fewer plies than it has now,
    starts at (initial_pn, 1)."""
    slot = key & np.uint64(space.tt_keys.shape[0] - 1)
    if space.tt_keys[slot] == key:
        pn = space.tt_pn[slot]
        dn = space.tt_dn[slot]
        plies = space.tt_plies[slot]
        if pn == 0 or (dn == 0 and plies >= plies_left) or (pn != INF and dn != 0):
            return pn, dn, plies
    return initial_pn, 1, 0


@kernel
def _store(space: VctSpace, key: np.uint64, pn: int, dn: int, plies: int) -> None:
    slot = key & np.uint64(space.tt_keys.shape[0] - 1)
    space.tt_keys[slot] = key
    space.tt_pn[slot] = pn
    space.tt_dn[slot] = dn
    space.tt_plies[slot] = plies


@kernel
def find_vct(st: State, attacker: int, max_ply: int, node_budget: int, space: VctSpace, limits: Int64Array) -> int:
    """The attacker's first move of a win by continuous threats within max_ply plies, or -1 (none, or the budget ran
    out: ``space.info`` tells which, and the length of the win). Each node counts against `limits` too; when they
    refuse one (stopped, or their budget spent) the search ends as when its own budget runs out."""
    salt = _salt(attacker)
    flip = _turn(1)  # a child's key: its stone added, the side to move changed
    max_ply = min(max_ply, MAX_LEVELS - 1)
    z = st.zobrist
    level = 0
    nodes = 0
    space.thpn[0] = INF
    space.thdn[0] = INF
    entering = True
    root_pn = 1
    focus = space.info[V_FOCUS] != 0
    while True:
        kind = level & 1  # 0: the attacker to move (OR), 1: the defender (AND)
        key = st.hash[0] ^ salt ^ _turn(kind)
        plies_left = max_ply - level
        fresh = entering
        if entering:
            entering = False
            if charge(limits):
                # stopped from outside: leave this node unsearched and unwind, storing what the levels above know
                nodes = node_budget
                if level == 0:
                    root_pn = 1
                    break
                level -= 1
                unmake_lean(st, space.made[level])
                continue
            nodes += 1
            if kind == 0:
                status, n = _or_node(st, attacker, plies_left, space.moves[level])
                if status == OPEN and level >= 2 and focus and class_count(st, 2 - attacker, C_FIVE) == 0:
                    n = _related_threats(st, space, level, n)
                    if n == 0:
                        status = LOST
            else:
                status, n = _and_node(st, attacker, space.moves[level], space.scratch)
            if status != OPEN:
                if status == WON:
                    _store(space, key, 0, INF, 1 if kind == 0 else 2)
                else:
                    _store(space, key, INF, 0, plies_left)
                if level == 0:
                    root_pn = 0 if status == WON else INF
                    break
                level -= 1
                unmake_lean(st, space.made[level])
                continue
            space.count[level] = n
        # the children's numbers: all read from the table when the node is entered, afterwards only the child just
        # searched (a sibling changes only through a transposition, rare enough to leave for the next visit)
        n = space.count[level]
        mover = attacker if kind == 0 else 3 - attacker
        first = 0 if fresh else space.chosen[level]
        last = n if fresh else first + 1
        for i in range(first, last):
            m = space.moves[level, i]
            initial = 1
            if kind == 0 and st.cls[attacker - 1, m] < C_FOUR:
                initial = 2  # a three leaves the defender several replies, a four one
            cpn, cdn, cplies = _probe(space, key ^ z[mover - 1, m] ^ flip, plies_left - 1, initial)
            space.cpn[level, i] = cpn
            space.cdn[level, i] = cdn
            space.cplies[level, i] = cplies
        best = -1
        best_pn = INF
        best_dn = INF
        second = INF
        sum_pn = 0
        sum_dn = 0
        won_plies = 1 << 14 if kind == 0 else 0
        for i in range(n):
            cpn = space.cpn[level, i]
            cdn = space.cdn[level, i]
            cplies = space.cplies[level, i]
            sum_pn = min(sum_pn + cpn, INF)
            sum_dn = min(sum_dn + cdn, INF)
            if kind == 0:
                if cpn == 0 and cplies + 1 < won_plies:
                    won_plies = cplies + 1
                if cpn < best_pn:
                    second = best_pn
                    best_pn, best_dn, best = cpn, cdn, i
                elif cpn < second:
                    second = cpn
            else:
                if cpn == 0 and cplies + 1 > won_plies:
                    won_plies = cplies + 1
                if cdn < best_dn:
                    second = best_dn
                    best_pn, best_dn, best = cpn, cdn, i
                elif cdn < second:
                    second = cdn
        if kind == 0:
            pn, dn = best_pn, sum_dn
        else:
            pn, dn = sum_pn, best_dn
        if pn >= space.thpn[level] or dn >= space.thdn[level] or nodes >= node_budget:
            _store(space, key, pn, dn, won_plies if pn == 0 else plies_left)
            if level == 0:
                root_pn = pn
                break
            level -= 1
            unmake_lean(st, space.made[level])
            continue
        # descend into the most promising child, with thresholds that send the search back up in time
        grow = max(second + 1, second + second // EPSILON_DIV)
        if kind == 0:
            child_thpn = min(space.thpn[level], grow)
            child_thdn = space.thdn[level] - dn + best_dn
        else:
            child_thdn = min(space.thdn[level], grow)
            child_thpn = space.thpn[level] - pn + best_pn
        m = space.moves[level, best]
        space.made[level] = m
        space.chosen[level] = best
        make_lean(st, m, mover)
        level += 1
        space.thpn[level] = min(child_thpn, INF)
        space.thdn[level] = min(child_thdn, INF)
        entering = True
    space.info[V_NODES] = nodes
    space.info[V_PLIES] = 0
    if root_pn != 0:
        space.info[V_RESULT] = -1 if root_pn < INF else 0
        return -1
    space.info[V_RESULT] = 1
    return _winning_move(st, attacker, max_ply, space)


@kernel
def _winning_move(st: State, attacker: int, max_ply: int, space: VctSpace) -> int:
    """The root's proved child (the shortest win among those stored), with the win's length in info."""
    salt = _salt(attacker)
    status, n = _or_node(st, attacker, max_ply, space.moves[0])
    if status == WON:
        space.info[V_PLIES] = 1
        f = first_of_class(st, attacker - 1, C_FIVE, attacker)
        if f < 0:
            f = first_of_class(st, attacker - 1, C_OPEN_FOUR, attacker)
            space.info[V_PLIES] = 3
        return f
    key = st.hash[0] ^ salt ^ _turn(0)
    best = -1
    best_plies = 1 << 14
    for i in range(n):
        m = space.moves[0, i]
        pn, dn, plies = _probe(space, key ^ st.zobrist[attacker - 1, m] ^ _turn(1), max_ply - 1, 1)
        if pn == 0 and plies < best_plies:
            best, best_plies = m, plies
    space.info[V_PLIES] = best_plies + 1 if best >= 0 else 0
    return best


@kernel
def _mark(cell: int, mark: np.ndarray, out: np.ndarray, n: int) -> int:
    """Add cell to out[:n] unless marked already; the new count."""
    if mark[cell] == 0 and n < out.shape[0]:
        mark[cell] = 1
        out[n] = cell
        n += 1
    return n


@kernel
def proof_cells(st: State, attacker: int, max_ply: int, space: VctSpace, mark: UInt8Array, out: Int32Array,
                max_nodes: int, limits: Int64Array) -> int:
    """The cells the attacker's proved VCT from this position plays on -- its threats along the proof and every
    defender reply they answer, and where its last threats land -- written to out; the count is returned (0 if
    the position is not proved).

    These are where a stone of the defender's, played now, is most likely to break the proof (a threat-space
    search's defences are its gain and cost squares): the engine tries them first when it must defend. The proof
    is read back from the table: at the attacker's nodes the proved threat, at the defender's every reply. `mark`
    (one byte per cell, all zero) is left as it was; at most `max_nodes` nodes are walked, each counted against
    `limits`: when they refuse one (stopped, or their budget spent) the walk goes no deeper, and the cells are
    only those seen so far (the caller asks ``limits`` whether the walk was cut)."""
    salt = _salt(attacker)
    z = st.zobrist
    n = 0
    walked = 0
    level = 0
    entering = True
    while True:
        kind = level & 1
        if entering:
            entering = False
            walked += 1
            key = st.hash[0] ^ salt ^ _turn(kind)
            if kind == 0:
                status, k = _or_node(st, attacker, max_ply - level, space.moves[level])
                if status == OPEN:
                    chosen = -1
                    for i in range(k):
                        pn, dn, plies = _probe(space, key ^ z[attacker - 1, space.moves[level, i]] ^ _turn(1),
                                               max_ply - level - 1, 1)
                        if pn == 0:
                            chosen = space.moves[level, i]
                            break
                    k = 0
                    if chosen >= 0:
                        space.moves[level, 0] = chosen
                        k = 1
            else:
                status, k = _and_node(st, attacker, space.moves[level], space.scratch)
            if status == WON:
                # where the win lands: the attacker's five, open-four and four points (a last three's defences
                # are among its four points)
                for i in range(st.interior.shape[0]):
                    q = st.interior[i]
                    c = st.cls[attacker - 1, q]
                    if st.cells[q] == EMPTY and c >= C_FOUR and c != C_FORBIDDEN:
                        n = _mark(q, mark, out, n)
            cut = charge(limits)
            space.count[level] = k if status == OPEN and walked < max_nodes and not cut and level + 1 < MAX_LEVELS \
                else 0
            space.chosen[level] = 0
        if space.chosen[level] >= space.count[level]:
            if level == 0:
                break
            level -= 1
            unmake_lean(st, space.made[level])
            continue
        m = space.moves[level, space.chosen[level]]
        space.chosen[level] += 1
        n = _mark(m, mark, out, n)
        space.made[level] = m
        make_lean(st, m, attacker if kind == 0 else 3 - attacker)
        level += 1
        entering = True
    for i in range(n):
        mark[out[i]] = 0
    return n
