"""The search's storage: a node for each position the search went into, compact edges for the moves of an expanded
node, a transposition table that lets two move orders share one node, and reclaiming what can no longer matter when
the memory granted runs short.

Layout. Nodes and edges are two arenas of parallel arrays. An expansion writes one *edge block*: a header
(``e_move`` = the number of moves, ``e_child`` = the node that owns the block, ``e_prior`` = how many moves worth
searching the move generator left out at its limit: 0 when the block holds them all) and one edge per move (``e_move``,
``e_prior``, ``e_child`` = the child's node, -1 until the search first goes into it): 10 bytes a move. A node --
edge block, visits, value sum, proof, mark: NODE_BYTES -- is made only on a child's first visit, so the up to 24
moves of an expansion, most never visited, cost 10 bytes each instead of a node each.

A graph, not a tree. A node is a position, not a path: the search (``brain.mcts``, ``Params.graph``) looks a new
child's position up in the transposition table (``find_position``) and, when another move order reached it first,
points the edge at that node, so both lines share its visits, values, proofs and subtree. So a node has no move of its
own -- the move into it is its parent's edge's (``child_moves``) -- and may have several parents; the walks below go
into each node once. Positions only gain stones, so there are no cycles.

Budget. The byte budget pays for the transposition table first (``table_slots``: about half a slot a node), then is
split between the arenas (NODE_SHARE of the rest for nodes: about what a long search that reclaims keeps of each),
each allocated once with ``np.empty`` (the table with ``np.zeros``): address space, whose pages become resident only
as the search first writes them, so a tree never holds more than its budget and a short search holds far less.

Reclaiming (``reclaim``, when the search finds too little room for an iteration, and when the root moves down the
tree between moves). Everything that the root does not reach goes: the subtrees off the moves played since the tree
was built. If the rest still fills more than ``target`` of either arena, every node with fewer visits than a
threshold -- the smallest that brings both under the target, counted exactly to 64 visits, by doublings above --
loses its children: it stays a leaf with its visits, value and proof, and is expanded again if the search comes
back to it (a child another parent keeps stays). The table forgets the nodes freed. Nodes never move (freed ones go
to a free list), so the root's children keep their ids across a reclaim; edge blocks slide down over the freed ones,
each header naming the owner whose ``block`` follows it.

Statistics: visits int32 (the search stops before MAX_VISITS), value sums float64 -- a mean stays exact to 1e-7
after hundreds of millions of visits (tested at 300 million), where float32 sums stop counting a single visit once
they pass a few million.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from monte.brain.board import MAX_SIZE
from monte.brain.jit import kernel

NODE_BYTES = 4 + 4 + 8 + 1 + 1      # block, visits, wsum, proven, mark
TABLE_BYTES = 8 + 4                 # a transposition table slot: key, node + 1
EDGE_BYTES = 2 + 4 + 4              # e_move, e_prior, e_child
MIN_TREE_BYTES = 64 * 1024          # room for a root and its children whatever the budget asked
NODE_SHARE = 0.3                    # of the budget, for nodes
MAX_INDEX = 2**31 - 1               # nodes and edges are named by int32
MAX_VISITS = 2**31 - 2**20          # the search stops here: visits are int32
RECLAIM_TARGET = 0.5                # a reclaim leaves the tree at most this full
STACK = MAX_SIZE * MAX_SIZE + 2     # a path from the root places one stone a ply: no deeper than the board's cells
EXACT_VISITS = 64                   # a reclaim tallies nodes by visits: one bucket a count below this, one a power of
BUCKETS = EXACT_VISITS + 26 + 1     # two from it to 2^31, and one for the root, always kept
ROOT_BUCKET = BUCKETS - 1

# meta[] slots
M_ROOT = 0        # the root's node
M_MAXDEPTH = 1    # deepest path of the last search call
M_NODE_NEXT = 2   # first node never used since the last reset or reclaim (the bump pointer)
M_FREE = 3        # first node of the free list (linked through ``block``), -1 if empty
M_FREE_COUNT = 4
M_EDGE_NEXT = 5   # the edge arena's bump pointer
M_BUDGET = 6      # bytes
M_RECLAIMS = 7    # reclaims since the last reset
M_THRESHOLD = 8   # the visit threshold of the last reclaim (0: it collapsed nothing)
M_MADE = 9        # nodes made since the last reset
M_STEPS = 10      # the search's counters since the last reset (``lab.longthink --in-process`` reads them): tree
M_MAKES = 11      # steps (the iterations' depths summed), moves made on the way down (the rest of a path is
M_EXPANDED = 12   # kept from the iteration before), expansions, iterations that ended at a proven node, and
M_PROVEN_ENDS = 13  # nodes of the threat searches run inside the tree: VCF at an expansion, VCT proofs near the
M_VCF_NODES = 14  # root
M_VCT_NODES = 15
M_TABLE_USED = 16  # positions entered in the transposition table since it was last cleared
M_MERGED = 17     # children found in the table (a position another path had reached) since the last reset
M_LAST_DEPTH = 18  # the depth of the search's last iteration, whose nodes its workspace's path still holds (0 after
META_SLOTS = 19    # a reset or a reclaim, which may free them): where ``Params.sticky`` keeps each node going


class Tree(NamedTuple):
    """The search tree's arenas (see the module docstring)."""

    block: np.ndarray       # int32: the node's edge block (its header), -1 if not expanded; free list link if free
    visits: np.ndarray      # int32
    wsum: np.ndarray        # float64: value sum, from the player who moved into the node
    proven: np.ndarray      # int8: +1/-1 from the side to move at the node, 0 unknown
    mark: np.ndarray        # uint8: reached by the reclaim under way (0 otherwise)
    e_move: np.ndarray      # int16: the edge's move (header: the number of moves)
    e_prior: np.ndarray     # float32 (header: the moves left out)
    e_child: np.ndarray     # int32: the child's node, -1 if never visited (header: the owner)
    t_key: np.ndarray       # uint64[2^k]: the transposition table: a position's Zobrist hash,
    t_node: np.ndarray      # int32[2^k]: ...and its node + 1 (0: an empty slot)
    stack_node: np.ndarray  # int32[STACK]: a reclaim's walk down the tree
    stack_edge: np.ndarray  # int32[STACK]
    tally: np.ndarray       # int64[2, BUCKETS]: a reclaim's count of nodes and edges by visits (``_bucket``)
    meta: np.ndarray        # int64[META_SLOTS]


def new_tree(budget: int) -> Tree:
    """An empty tree that may hold `budget` bytes of nodes and edges (at least MIN_TREE_BYTES).

    The arenas are left unwritten: a slot is written in full when it is taken, so a large tree costs no time to
    make and its memory becomes resident only as the search fills it."""
    budget = max(budget, MIN_TREE_BYTES)
    slots = table_slots(budget)
    arenas = budget - slots * TABLE_BYTES
    nodes = min(int(NODE_SHARE * arenas) // NODE_BYTES, MAX_INDEX)
    edges = min((arenas - nodes * NODE_BYTES) // EDGE_BYTES, MAX_INDEX)
    tree = Tree(
        block=np.empty(nodes, dtype=np.int32),
        visits=np.empty(nodes, dtype=np.int32),
        wsum=np.empty(nodes, dtype=np.float64),
        proven=np.empty(nodes, dtype=np.int8),
        mark=np.empty(nodes, dtype=np.uint8),
        e_move=np.empty(edges, dtype=np.int16),
        e_prior=np.empty(edges, dtype=np.float32),
        e_child=np.empty(edges, dtype=np.int32),
        t_key=np.zeros(slots, dtype=np.uint64),
        t_node=np.zeros(slots, dtype=np.int32),
        stack_node=np.empty(STACK, dtype=np.int32),
        stack_edge=np.empty(STACK, dtype=np.int32),
        tally=np.zeros((2, BUCKETS), dtype=np.int64),
        meta=np.zeros(META_SLOTS, dtype=np.int64),
    )
    tree.meta[M_BUDGET] = budget
    reset_tree(tree)
    return tree


def table_slots(budget: int) -> int:
    """The transposition table's slots for a tree of `budget` bytes: a power of two, about half the nodes the tree
    can hold (a slot is taken by each new position, and a collision only costs a merge: the newer position wins)."""
    nodes = max(int(NODE_SHARE * budget) // NODE_BYTES, 2)
    return 1 << max((nodes // 2).bit_length() - 1, 4)


@kernel
def _init_node(tree: Tree, n: int) -> None:
    tree.block[n] = -1
    tree.visits[n] = 0
    tree.wsum[n] = 0.0
    tree.proven[n] = 0
    tree.mark[n] = 0


@kernel
def _clear_table(tree: Tree) -> None:
    """Empty the transposition table (not written at all while it is empty: its pages stay unresident)."""
    if tree.meta[M_TABLE_USED] > 0:
        tree.t_node[:] = 0
        tree.meta[M_TABLE_USED] = 0


@kernel
def reset_tree(tree: Tree) -> None:
    """Drop every node; the root becomes a fresh node 0."""
    m = tree.meta
    m[M_ROOT] = 0
    m[M_MAXDEPTH] = 0
    m[M_NODE_NEXT] = 1
    m[M_FREE] = -1
    m[M_FREE_COUNT] = 0
    m[M_EDGE_NEXT] = 0
    m[M_RECLAIMS] = 0
    m[M_THRESHOLD] = 0
    m[M_MADE] = 1
    for i in range(M_STEPS, M_VCT_NODES + 1):
        m[i] = 0
    m[M_MERGED] = 0
    m[M_LAST_DEPTH] = 0
    _clear_table(tree)
    _init_node(tree, 0)


@kernel
def find_position(tree: Tree, key: np.uint64) -> int:
    """The node the transposition table holds for the position of Zobrist hash `key`, or -1."""
    slot = key & np.uint64(tree.t_key.shape[0] - 1)
    if tree.t_node[slot] > 0 and tree.t_key[slot] == key:
        return tree.t_node[slot] - 1
    return -1


@kernel
def enter_position(tree: Tree, key: np.uint64, node: int) -> None:
    """Let the transposition table name `node` for the position of hash `key` (over whatever held its slot)."""
    slot = key & np.uint64(tree.t_key.shape[0] - 1)
    if tree.t_node[slot] == 0:
        tree.meta[M_TABLE_USED] += 1
    tree.t_key[slot] = key
    tree.t_node[slot] = node + 1


@kernel
def room(tree: Tree, nodes: int, edges: int) -> bool:
    """Whether `nodes` more nodes and `edges` more edges (block headers included) fit now."""
    m = tree.meta
    return (m[M_NODE_NEXT] + nodes - m[M_FREE_COUNT] <= tree.block.shape[0]
            and m[M_EDGE_NEXT] + edges <= tree.e_move.shape[0])


@kernel
def new_node(tree: Tree) -> int:
    """A fresh node (no children, no visits), or -1 when none fits."""
    m = tree.meta
    n = m[M_FREE]
    if n >= 0:
        m[M_FREE] = tree.block[n]
        m[M_FREE_COUNT] -= 1
    else:
        n = m[M_NODE_NEXT]
        if n >= tree.block.shape[0]:
            return -1
        m[M_NODE_NEXT] = n + 1
    m[M_MADE] += 1
    _init_node(tree, n)
    return n


@kernel
def new_block(tree: Tree, owner: int, count: int) -> int:
    """An edge block of `count` moves for node `owner` (its header's index; the edges follow it), or -1 when it does
    not fit. The caller writes the edges."""
    m = tree.meta
    h = m[M_EDGE_NEXT]
    if h + count + 1 > tree.e_move.shape[0]:
        return -1
    m[M_EDGE_NEXT] = h + count + 1
    tree.e_move[h] = count
    tree.e_prior[h] = 0.0  # moves left out: the caller writes how many
    tree.e_child[h] = owner
    return h


@kernel
def _bucket(tree: Tree, n: int) -> int:
    """The tally bucket of node `n`'s expansion: its visits below EXACT_VISITS, then EXACT_VISITS + how many times
    they double from there (``_threshold`` inverts it); the root's bucket is kept whatever."""
    if n == tree.meta[M_ROOT]:
        return ROOT_BUCKET
    v = tree.visits[n]
    if v < EXACT_VISITS:
        return v
    b = EXACT_VISITS
    v //= EXACT_VISITS
    while v > 1:
        b += 1
        v >>= 1
    return b


@kernel
def _threshold(bucket: int) -> int:
    """The fewest visits of the nodes in `bucket` (and so in every bucket above it)."""
    if bucket < EXACT_VISITS:
        return bucket
    return EXACT_VISITS << (bucket - EXACT_VISITS)


@kernel
def _walk(tree: Tree, threshold: int, marking: bool) -> None:
    """Go depth first over the nodes the root reaches, into each once (a node may have several parents).

    Tallying (not `marking`): count each expanded node's block (its header and edges) in the bucket of its visits,
    and each node in the bucket of its most visited parent's -- a node stays as long as one of its parents keeps its
    children (``mark`` holds the best parent bucket + 1 until the count is done). Marking: mark every node reached;
    a node other than the root with fewer than `threshold` visits loses its children (they stay only if another
    parent reaches them)."""
    root = tree.meta[M_ROOT]
    sn = tree.stack_node
    se = tree.stack_edge
    tree.mark[root] = 1 if marking else ROOT_BUCKET + 1
    top = 0
    sn[0] = root
    se[0] = -1
    while top >= 0:
        n = sn[top]
        h = tree.block[n]
        if se[top] < 0:  # entering n
            if h < 0:
                top -= 1
                continue
            if marking and n != root and tree.visits[n] < threshold:
                tree.block[n] = -1
                top -= 1
                continue
            if not marking:
                tree.tally[1, _bucket(tree, n)] += tree.e_move[h] + 1
            se[top] = h + 1
        e = se[top]
        end = h + 1 + tree.e_move[h]
        level = 1 if marking else _bucket(tree, n) + 1  # the mark n gives its children
        unseen = -1
        while e < end and unseen < 0:
            c = tree.e_child[e]
            e += 1
            if c >= 0:
                if tree.mark[c] == 0:
                    unseen = c
                if level > tree.mark[c]:
                    tree.mark[c] = level
        se[top] = e
        if unseen < 0:
            top -= 1
            continue
        top += 1
        sn[top] = unseen
        se[top] = -1
    if not marking:
        for n in range(tree.meta[M_NODE_NEXT]):
            if tree.mark[n] > 0:
                tree.tally[0, tree.mark[n] - 1] += 1
                tree.mark[n] = 0


@kernel
def _sweep_table(tree: Tree) -> None:
    """Empty the transposition table's slots whose node is about to be freed (not marked)."""
    if tree.meta[M_TABLE_USED] == 0:
        return
    used = 0
    for slot in range(tree.t_node.shape[0]):
        n = tree.t_node[slot]
        if n > 0:
            if tree.mark[n - 1] == 1:
                used += 1
            else:
                tree.t_node[slot] = 0
    tree.meta[M_TABLE_USED] = used


@kernel
def _compact_edges(tree: Tree) -> None:
    """Slide the live edge blocks (owned by a marked node that still points at them) down over the others."""
    m = tree.meta
    end = m[M_EDGE_NEXT]
    i = 0
    dst = 0
    while i < end:
        size = tree.e_move[i] + 1
        owner = tree.e_child[i]
        if tree.mark[owner] == 1 and tree.block[owner] == i:
            if dst != i:
                for j in range(size):
                    tree.e_move[dst + j] = tree.e_move[i + j]
                    tree.e_prior[dst + j] = tree.e_prior[i + j]
                    tree.e_child[dst + j] = tree.e_child[i + j]
                tree.block[owner] = dst
            dst += size
        i += size
    m[M_EDGE_NEXT] = dst


@kernel
def _sweep_nodes(tree: Tree) -> None:
    """Unmark the marked nodes and free the others: the bump pointer comes down to just above the highest marked
    node, and the free list takes the rest, lowest first."""
    m = tree.meta
    top = m[M_NODE_NEXT] - 1
    while tree.mark[top] == 0:  # the root is marked
        top -= 1
    free = -1
    count = 0
    for i in range(top, -1, -1):
        if tree.mark[i] == 1:
            tree.mark[i] = 0
        else:
            tree.block[i] = free
            free = i
            count += 1
    m[M_NODE_NEXT] = top + 1
    m[M_FREE] = free
    m[M_FREE_COUNT] = count


@kernel
def reclaim(tree: Tree, target: float) -> int:
    """Free what the root does not reach, then collapse the least visited nodes until neither arena is more than
    `target` full (see the module docstring). Returns the visit threshold used (0: nothing collapsed)."""
    for side in range(2):
        for b in range(BUCKETS):
            tree.tally[side, b] = 0
    _walk(tree, 0, False)
    node_room = target * tree.block.shape[0]
    edge_room = target * tree.e_move.shape[0]
    k = 0
    while k < ROOT_BUCKET:
        nodes = 0
        edges = 0
        for b in range(k, BUCKETS):
            nodes += tree.tally[0, b]
            edges += tree.tally[1, b]
        if nodes <= node_room and edges <= edge_room:
            break
        k += 1
    threshold = _threshold(k)
    _walk(tree, threshold, True)
    _compact_edges(tree)
    _sweep_table(tree)
    _sweep_nodes(tree)
    tree.meta[M_RECLAIMS] += 1
    tree.meta[M_THRESHOLD] = threshold
    tree.meta[M_LAST_DEPTH] = 0
    return threshold


def expansions_that_fit(tree: Tree, edges_each: int) -> int:
    """How many more expansions -- a node and a block of `edges_each` edges each -- fit now, one kept in hand: as
    many as ``room(tree, 1, edges_each)`` would still allow, one after another."""
    m = tree.meta
    nodes = tree.block.shape[0] - (int(m[M_NODE_NEXT]) - int(m[M_FREE_COUNT]))
    blocks = (tree.e_move.shape[0] - int(m[M_EDGE_NEXT])) // edges_each
    return max(0, min(nodes, blocks) - 1)


def fill(tree: Tree) -> float:
    """How full the tree is: the fuller arena's share in use, 0..1 (edge blocks freed but not yet slid over count)."""
    m = tree.meta
    return float(max((m[M_NODE_NEXT] - m[M_FREE_COUNT]) / tree.block.shape[0], m[M_EDGE_NEXT] / tree.e_move.shape[0]))


def children(tree: Tree, node: int) -> np.ndarray:
    """The nodes of `node`'s children that the search has gone into, in the order of its moves (int32; for the root
    after ``mcts.expand_root``, every child)."""
    h = int(tree.block[node])
    if h < 0:
        return np.zeros(0, dtype=np.int32)
    kids = tree.e_child[h + 1:h + 1 + int(tree.e_move[h])]
    return kids[kids >= 0]


def child_priors(tree: Tree, node: int) -> np.ndarray:
    """The priors of ``children(tree, node)``, in the same order."""
    h = int(tree.block[node])
    if h < 0:
        return np.zeros(0, dtype=np.float32)
    edges = slice(h + 1, h + 1 + int(tree.e_move[h]))
    return tree.e_prior[edges][tree.e_child[edges] >= 0]


def child_moves(tree: Tree, node: int) -> np.ndarray:
    """The moves into ``children(tree, node)``, in the same order (int32): a node has no move of its own, since two
    move orders may share it."""
    h = int(tree.block[node])
    if h < 0:
        return np.zeros(0, dtype=np.int32)
    edges = slice(h + 1, h + 1 + int(tree.e_move[h]))
    return tree.e_move[edges][tree.e_child[edges] >= 0].astype(np.int32)


def children_by_move(tree: Tree, node: int) -> dict[int, int]:
    """``children(tree, node)`` by the move into each."""
    return dict(zip(child_moves(tree, node).tolist(), children(tree, node).tolist()))


def move_to(tree: Tree, node: int, child: int) -> int:
    """The move of `node`'s edge into `child` (a child of it); ValueError if none leads there."""
    h = int(tree.block[node])
    if h >= 0:
        for e in range(h + 1, h + 1 + int(tree.e_move[h])):
            if tree.e_child[e] == child:
                return int(tree.e_move[e])
    raise ValueError(f"node {child} is not a child of node {node}")
