"""Monte's search: PUCT Monte Carlo tree search with pattern priors, a tactical leaf evaluation and MCTS-Solver.

Leaf values come from the pattern evaluation, or (``rollout_plies`` > 0) from a short tactical rollout; the
tournament runner weighs one against the other (``pbrain-monte --set rollout_plies=20``).

The tree is a struct of arrays (one slot per node, children of a node in consecutive slots), allocated once and
reused across moves: a node's subtree survives when the game goes through it. Python calls ``search`` in short
slices and looks at the tree between them; a stop (YXSTOP, the deadline) or a spent node budget reaches ``search``
inside a slice, through the limits array every search kernel takes (``brain.limits``).

Values are in [-1, 1]. ``wsum`` of a node is seen from the player who moved into it, so a parent picks the child
with the highest mean. ``proven`` is seen from the side to move at the node: +1 it wins, -1 it loses.
A child proven lost for its side to move makes its parent won; a parent whose children are all proven won (for the
opponent) is lost -- the MCTS-Solver rules, which let a won position be played out and a lost one delayed.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from monte.brain.evaluation import learned_logit
from monte.brain.jit import Int64Array, kernel
from monte.brain.limits import charge
from monte.brain.patterns import C_FIVE, C_FOUR, C_FOUR_THREE, C_OPEN_FOUR, C_THREE, C_THREE_THREE
from monte.brain.position import I_STONES, State, make, unmake
from monte.brain.settings import Params
from monte.brain.threats import Workspace, find_vcf, generate_moves
from monte.brain.vct import VctSpace, find_vct

NODE_BYTES = 4 + 4 + 2 + 4 + 4 + 4 + 1

# meta[] slots
M_NEXT = 0       # first free slot
M_ROOT = 1       # current root
M_MAXDEPTH = 2   # deepest path of the last search call


class Tree(NamedTuple):
    """The search tree as parallel arrays (see the module docstring)."""

    move: np.ndarray     # int32: the move that leads to the node
    first: np.ndarray    # int32: first child slot, -1 if not expanded
    count: np.ndarray    # int16: number of children
    visits: np.ndarray   # int32
    wsum: np.ndarray     # float32: value sum, from the player who moved into the node
    prior: np.ndarray    # float32
    proven: np.ndarray   # int8: +1/-1 from the side to move at the node, 0 unknown
    meta: np.ndarray     # int64[4]


def new_tree(capacity: int) -> Tree:
    """An empty tree with room for `capacity` nodes.

    The node arrays are left unwritten: a slot is written in full when it is taken (``_expand``, ``reset_tree``),
    so a large tree costs no time to make and its memory is touched only as the search fills it (filling 4M nodes
    here took 107 ms)."""
    capacity = max(capacity, 1024)
    tree = Tree(
        move=np.empty(capacity, dtype=np.int32),
        first=np.empty(capacity, dtype=np.int32),
        count=np.empty(capacity, dtype=np.int16),
        visits=np.empty(capacity, dtype=np.int32),
        wsum=np.empty(capacity, dtype=np.float32),
        prior=np.empty(capacity, dtype=np.float32),
        proven=np.empty(capacity, dtype=np.int8),
        meta=np.zeros(4, dtype=np.int64),
    )
    reset_tree(tree)
    return tree


@kernel
def reset_tree(tree: Tree) -> None:
    """Drop every node; the root becomes a fresh slot 0."""
    tree.meta[M_NEXT] = 1
    tree.meta[M_ROOT] = 0
    tree.move[0] = -1
    tree.first[0] = -1
    tree.count[0] = 0
    tree.visits[0] = 0
    tree.wsum[0] = 0.0
    tree.prior[0] = 1.0
    tree.proven[0] = 0


@kernel
def evaluate(st: State, color: int, p: Params) -> tuple[float, int]:
    """(value for the side to move, proof) of a position from its patterns alone.

    Proofs: a five to play wins; two opponent five points lose; an open four to play wins when the opponent has no
    five point (it would need a five at once). Otherwise the learned model (``brain.evaluation``, ``p.eval_model``
    = 1): a logistic fit of game outcomes on the line-pattern and cell-class counts of both sides; or the hand-set
    one (0): a squashed score difference, with the threats the side to move can make next.
    """
    me = color - 1
    op = 1 - me
    if st.cls_count[me, C_FIVE] > 0:
        return 1.0, 1
    if st.cls_count[op, C_FIVE] >= 2:
        return -1.0, -1
    if p.eval_model == 1:
        if st.cls_count[op, C_FIVE] == 0 and st.cls_count[me, C_OPEN_FOUR] > 0:
            return 1.0, 1
        return np.tanh(0.5 * learned_logit(st, me)), 0
    op_fours = st.cls_count[op, C_FOUR] + st.cls_count[op, C_FOUR_THREE] + st.cls_count[op, C_OPEN_FOUR]
    x = float(st.score_sum[me] - st.score_sum[op])
    if st.cls_count[op, C_FIVE] == 1:
        # we must block; whatever we build counts for less
        x -= 150.0
    else:
        if st.cls_count[me, C_OPEN_FOUR] > 0:
            if op_fours == 0:
                return 1.0, 1
            x += 600.0
        elif st.cls_count[me, C_FOUR_THREE] > 0:
            x += 450.0 if op_fours == 0 else 200.0
        elif st.cls_count[me, C_THREE_THREE] > 0 and op_fours == 0:
            x += 250.0
        if st.cls_count[op, C_OPEN_FOUR] > 0:
            x -= 250.0
        if st.cls_count[op, C_FOUR_THREE] > 0:
            x -= 150.0
    return np.tanh(x / p.eval_scale), 0


@kernel
def rollout(st: State, color: int, p: Params, moves: np.ndarray, values: np.ndarray, ws: Workspace,
            line: np.ndarray) -> float:
    """A tactical rollout from the position (side to move: `color`); the value for `color`.

    Unlike the seed articles' random playouts it sees threats: each move is drawn among the few best that the
    threat-first move generation offers (so a five is always taken, a five always blocked, an open three answered),
    weighted like the priors. After ``rollout_plies`` plies without a result the pattern evaluation decides.
    """
    c = color
    made = 0
    value = 0.0
    decided = False
    capacity = st.interior.shape[0]
    for _ in range(p.rollout_plies):
        if st.cls_count[c - 1, C_FIVE] > 0:
            value = 1.0 if c == color else -1.0
            decided = True
            break
        if st.info[I_STONES] >= capacity:
            decided = True  # a full board: a draw
            break
        n = generate_moves(st, c, moves, values, p.rollout_width, ws)
        if n == 0:
            value = -1.0 if c == color else 1.0
            decided = True
            break
        total = 0.0
        for i in range(n):
            w = (max(values[i], 0.0) + 1.0) ** p.prior_power
            values[i] = w
            total += w
        r = np.random.random() * total
        k = 0
        while k < n - 1 and r > values[k]:
            r -= values[k]
            k += 1
        make(st, moves[k], c)
        line[made] = moves[k]
        made += 1
        c = 3 - c
    if not decided:
        v, _ = evaluate(st, c, p)
        value = v if c == color else -v
    for i in range(made - 1, -1, -1):
        unmake(st, line[i])
    return value


@kernel
def _expand(st: State, tree: Tree, node: int, color: int, p: Params, limit: int, vcf_nodes: int,
            moves: np.ndarray, values: np.ndarray, ws: Workspace, limits: Int64Array) -> int:
    """Give `node` its children. Returns 1 if expanded, 0 if the tree is full, -1 if the node is lost or won
    (``proven`` set)."""
    n = generate_moves(st, color, moves, values, limit, ws)
    if n == 0:
        tree.proven[node] = -1
        return -1
    if vcf_nodes > 0 and n > 1:
        me = color - 1
        if st.cls_count[me, C_FOUR_THREE] > 0 or st.cls_count[me, C_FOUR] >= p.vcf_min_fours:
            if find_vcf(st, color, p.vcf_plies, vcf_nodes, ws, p.vcf_chain != 0, limits):
                tree.proven[node] = 1
                return -1
    start = tree.meta[M_NEXT]
    if start + n > tree.move.shape[0]:
        return 0
    tree.meta[M_NEXT] = start + n
    total = 0.0
    for i in range(n):
        w = (max(values[i], 0.0) + 1.0) ** p.prior_power
        values[i] = w
        total += w
    for i in range(n):
        c = start + i
        tree.move[c] = moves[i]
        tree.first[c] = -1
        tree.count[c] = 0
        tree.visits[c] = 0
        tree.wsum[c] = 0.0
        tree.prior[c] = values[i] / total
        tree.proven[c] = 0
    tree.first[node] = start
    tree.count[node] = n
    return 1


@kernel
def _select(tree: Tree, node: int, p: Params) -> int:
    """The child to descend into: a proven win at once, else the best PUCT score among unproven children."""
    first = tree.first[node]
    n = tree.count[node]
    visits = tree.visits[node]
    fpu = 0.0
    if visits > 0:
        fpu = -tree.wsum[node] / visits - p.fpu_reduction
    sqrt_n = np.sqrt(max(visits, 1))
    best = -1
    best_score = -1e30
    for c in range(first, first + n):
        pr = tree.proven[c]
        if pr == -1:
            return c
        if pr == 1:
            continue
        v = tree.visits[c]
        q = tree.wsum[c] / v if v > 0 else fpu
        s = q + p.c_puct * tree.prior[c] * sqrt_n / (1 + v)
        if s > best_score:
            best_score = s
            best = c
    return best


@kernel
def _settle(tree: Tree, node: int) -> None:
    """Apply the solver rules to `node` from its children's proofs."""
    first = tree.first[node]
    n = tree.count[node]
    if n == 0:
        return
    all_lost = True
    for c in range(first, first + n):
        if tree.proven[c] == -1:
            tree.proven[node] = 1
            return
        if tree.proven[c] != 1:
            all_lost = False
    if all_lost:
        tree.proven[node] = -1


@kernel
def _threat_proof_due(tree: Tree, node: int, p: Params) -> bool:
    """Whether `node` is due for a threat proof (see _threat_proof): its visits just reached vct_visits or doubled."""
    v = tree.visits[node]
    return p.vct_ratio > 0.0 and v >= p.vct_visits and (v & (v - 1)) == 0 and tree.proven[node] == 0


@kernel
def _threat_proof(st: State, tree: Tree, node: int, color: int, p: Params, vs: VctSpace,
                  limits: Int64Array) -> None:
    """Prove `node` won for `color`, its side to move, when it wins by continuous threats. Asked when the node's
    visits reach ``vct_visits`` and at each doubling after, with a budget that grows with them: the search spends
    its threat-space effort where it spends its visits, and a proof there settles what MCTS would need thousands
    of visits to see (a threat sequence is 10-30 plies of narrow replies). The table is shared with the root's
    searches, so the effort carries over."""
    v = tree.visits[node]
    me = color - 1
    if st.cls_count[me, C_FOUR] + st.cls_count[me, C_FOUR_THREE] + st.cls_count[me, C_THREE] \
            + st.cls_count[me, C_THREE_THREE] == 0:
        return  # no threat to start with
    if find_vct(st, color, p.vct_plies, min(int(v * p.vct_ratio) + 1, p.vct_call_nodes), vs,
                limits) >= 0:
        tree.proven[node] = 1


@kernel
def search(st: State, tree: Tree, color: int, iterations: int, p: Params, ws: Workspace, vs: VctSpace,
           limits: Int64Array) -> int:
    """Run up to `iterations` MCTS iterations from the root (side to move: `color`), fewer when `limits` say stop;
    returns how many ran. Each iteration counts one node of `limits` (and each node of an in-tree VCF or VCT one
    more).

    An iteration does not take its moves back at its end: the next one mostly walks down the same first moves, so
    only the part of the old path below where the new one leaves it is unmade (``made`` moves, path[1..made], are
    on the board). Where an iteration reads the state -- at a node without children -- it is that node's: the old
    path cannot have gone deeper through a node without children. Everything is unmade before returning."""
    path = ws.path
    made = 0
    moves = ws.moves
    values = ws.values
    line = ws.line
    root = tree.meta[M_ROOT]
    done = 0
    deepest = tree.meta[M_MAXDEPTH]
    for _ in range(iterations):
        if tree.proven[root] != 0 or charge(limits):
            break
        node = root
        c = color
        depth = 0
        path[0] = root
        value = 0.0
        while True:
            pr = tree.proven[node]
            if pr != 0:
                value = float(pr)
                break
            if tree.first[node] < 0:
                if tree.visits[node] == 0 and node != root:
                    value, proof = evaluate(st, c, p)
                    if proof != 0:
                        tree.proven[node] = proof
                    elif p.rollout_plies > 0:
                        value = rollout(st, c, p, moves, values, ws, line)
                    break
                r = _expand(st, tree, node, c, p, p.max_children, p.vcf_nodes, moves, values, ws, limits)
                if r < 0:
                    value = float(tree.proven[node])
                    break
                if r == 0:
                    value, proof = evaluate(st, c, p)
                    break
            child = _select(tree, node, p)
            if child < 0:  # every child lost: settle below
                _settle(tree, node)
                value = float(tree.proven[node]) if tree.proven[node] != 0 else -1.0
                break
            if made <= depth or path[depth + 1] != child:  # leaving the moves already made
                while made > depth:
                    unmake(st, tree.move[path[made]])
                    made -= 1
                make(st, tree.move[child], c)
                made = depth + 1
            c = 3 - c
            node = child
            depth += 1
            path[depth] = node
            if depth <= p.vct_depth and _threat_proof_due(tree, node, p):
                while made > depth:  # the board must hold this node's position, not the old path below it
                    unmake(st, tree.move[path[made]])
                    made -= 1
                _threat_proof(st, tree, node, c, p, vs, limits)
        if depth > deepest:
            deepest = depth
        # back up: `value` is for the side to move at path[depth]
        v = value
        for d in range(depth, -1, -1):
            n = path[d]
            tree.visits[n] += 1
            tree.wsum[n] += -v
            v = -v
            if d < depth and tree.proven[path[d + 1]] != 0:
                _settle(tree, n)
        done += 1
    while made > 0:
        unmake(st, tree.move[path[made]])
        made -= 1
    tree.meta[M_MAXDEPTH] = deepest
    return done


@kernel
def best_child(tree: Tree, node: int) -> int:
    """The move to play from `node`, in order of priority: a child proven lost for the opponent (a win for us);
    else the most-visited child not proven won for the opponent; else (all lose) the most-visited child."""
    first = tree.first[node]
    n = tree.count[node]
    if n == 0:
        return -1
    best = -1
    for c in range(first, first + n):
        if tree.proven[c] == -1:
            if best < 0 or tree.visits[c] > tree.visits[best] or tree.proven[best] != -1:
                best = c
    if best >= 0:
        return best
    for c in range(first, first + n):
        if tree.proven[c] != 1 and (best < 0 or tree.visits[c] > tree.visits[best]):
            best = c
    if best >= 0:
        return best
    for c in range(first, first + n):
        if best < 0 or tree.visits[c] > tree.visits[best]:
            best = c
    return best


@kernel
def find_child(tree: Tree, node: int, move: int) -> int:
    """The child of `node` reached by `move`, or -1."""
    first = tree.first[node]
    for c in range(first, first + tree.count[node]):
        if tree.move[c] == move:
            return c
    return -1


@kernel
def expand_root(st: State, tree: Tree, color: int, p: Params, limit: int, ws: Workspace, limits: Int64Array) -> int:
    """Make sure the root has children, up to `limit` of them (the root filter needs them; the root VCF is the
    engine's job). Returns the child count (0: none)."""
    root = tree.meta[M_ROOT]
    if tree.first[root] < 0:
        # a root the last search proved (an in-tree VCF, a leaf's evaluation) may have no children yet: it needs
        # them to play the proof out
        tree.proven[root] = 0
        _expand(st, tree, root, color, p, limit, 0, ws.moves, ws.values, ws, limits)
    return tree.count[root]
