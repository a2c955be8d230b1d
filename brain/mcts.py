"""Monte's search: PUCT Monte Carlo tree search with pattern priors, a tactical leaf evaluation and MCTS-Solver.

Leaf values come from the pattern evaluation, or (``rollout_plies`` > 0) from a short tactical rollout; the
tournament runner weighs one against the other (``pbrain-monte --set rollout_plies=20``).

The tree (``brain.tree``) gives an expanded node an edge block -- each move with its prior -- and a child a node of
its own only when the search first goes into it; it is allocated once and reused across moves: a node's subtree
survives when the game goes through it. It is a graph: two move orders that reach one position share its node, its
statistics and its subtree (``Params.graph``; a node of the 15x15 middle game's tree is otherwise a copy a quarter to
nearly half of the time). When too little room is left for an iteration the search reclaims what
the root no longer reaches and, if need be, the children of its least visited nodes (``brain.tree.reclaim``), so a
long think keeps deepening. Below the root a node keeps sending the search where the last iteration went while that
child stays about as good a choice (``Params.sticky``, ``_select``): consecutive iterations then share more of their
paths, and the moves they do not share are most of an iteration's cost. Python calls ``search`` in short slices and
looks at the tree between them; a stop (YXSTOP, the deadline) or a spent node budget reaches ``search`` inside a
slice, through the limits array every search kernel takes (``brain.limits``).

Values are in [-1, 1]. ``wsum`` of a node is seen from the player who moved into it, so a parent picks the child
with the highest mean. ``proven`` is seen from the side to move at the node: +1 it wins, -1 it loses.
A child proven lost for its side to move makes its parent won; a parent whose children are all proven won (for the
opponent) is lost -- the MCTS-Solver rules, which let a won position be played out and a lost one delayed. "All" means
every move worth searching: a block cut at ``max_children`` is widened to all of them before its node can be lost.
"""

from __future__ import annotations

import numpy as np

from monte.brain.board import Board
from monte.brain.evaluation import network_logit
from monte.brain.jit import Int32Array, Int64Array, kernel, prefetch
from monte.brain.limits import L_NODES, charge
from monte.brain.patterns import C_FIVE, C_FOUR, C_FOUR_THREE, C_OPEN_FOUR, C_THREE, C_THREE_THREE
from monte.brain.position import (
    I_STONES, State, class_count, four_point_count, make, new_state, score_difference, unmake,
)
from monte.brain.settings import Params
from monte.brain.threats import Workspace, find_vcf, generate_moves, is_renju_black
from monte.brain.tree import (
    M_EXPANDED, M_LAST_DEPTH, M_MAKES, M_MAXDEPTH, M_MERGED, M_PROVEN_ENDS, M_ROOT, M_STEPS, M_VCF_NODES, M_VCT_NODES,
    MAX_VISITS, RECLAIM_TARGET, Tree, enter_position, find_position, new_block, new_node, reclaim, room,
)
from monte.brain.vct import VctSpace, find_vct


def search_state(board: Board, p: Params) -> State:
    """The state a search of `board` under `p` reads: the cells' scores kept only for the hand-set evaluation."""
    return new_state(board, scored=p.eval_model == 0)


@kernel
def _no_four_points(st: State, side: int) -> bool:
    """Whether `side` has no cell where a stone of its would make a four or a five."""
    return four_point_count(st, side) + class_count(st, side, C_FIVE) == 0


@kernel
def evaluate(st: State, color: int, p: Params) -> tuple[float, int]:
    """(value for the side to move, proof) of a position from its patterns alone.

    Proofs: a five to play wins; two opponent five points lose; an open four to play wins when the opponent has no
    five point (it would need a five at once); so does a four-three point when the opponent has no point that makes
    a four: it must block the four, with a stone that threatens nothing, and the three becomes an open four -- except
    for renju's black, whose open four may need a forbidden point. (In the project's 3,226 recorded games the full
    VCF proves all 451 such positions but renju black's, and one of those 8 it does not.) The VCF at an expansion
    would prove it one visit later. Otherwise the value network (``brain.evaluation``, ``p.eval_model``
    = 1) over the line-pattern and cell-class counts of both sides, fitted to a strong engine's judgements; or the
    hand-set one (0): a squashed score difference, with the threats the side to move can make next.
    """
    me = color - 1
    op = 1 - me
    if class_count(st, me, C_FIVE) > 0:
        return 1.0, 1
    if class_count(st, op, C_FIVE) >= 2:
        return -1.0, -1
    if class_count(st, me, C_FOUR_THREE) > 0 and _no_four_points(st, op) and not is_renju_black(st, color):
        return 1.0, 1
    if p.eval_model == 1:
        if class_count(st, op, C_FIVE) == 0 and class_count(st, me, C_OPEN_FOUR) > 0:
            return 1.0, 1
        return np.tanh(0.5 * network_logit(st, me)), 0
    op_fours = four_point_count(st, op)
    x = score_difference(st, me)
    if class_count(st, op, C_FIVE) == 1:
        # we must block; whatever we build counts for less
        x -= 150.0
    else:
        if class_count(st, me, C_OPEN_FOUR) > 0:
            if op_fours == 0:
                return 1.0, 1
            x += 600.0
        elif class_count(st, me, C_FOUR_THREE) > 0:
            x += 450.0 if op_fours == 0 else 200.0
        elif class_count(st, me, C_THREE_THREE) > 0 and op_fours == 0:
            x += 250.0
        if class_count(st, op, C_OPEN_FOUR) > 0:
            x -= 250.0
        if class_count(st, op, C_FOUR_THREE) > 0:
            x -= 150.0
    return np.tanh(x / p.eval_scale), 0


@kernel
def prior_weights(values: np.ndarray, n: int, p: Params) -> float:
    """Turn the n move values of ``generate_moves`` into unnormalised prior weights, in place; returns their sum.

    Learned logits (``p.policy_model`` 1) become a softmax at temperature ``p.policy_temperature``; hand-set cell
    values (0) become ``(value + 1) ** prior_power``."""
    total = 0.0
    if p.policy_model != 0:
        top = values[0]
        for i in range(1, n):
            top = max(top, values[i])
        for i in range(n):
            w = np.exp((values[i] - top) / p.policy_temperature)
            values[i] = w
            total += w
        return total
    for i in range(n):
        w = (max(values[i], 0.0) + 1.0) ** p.prior_power
        values[i] = w
        total += w
    return total


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
        if class_count(st, c - 1, C_FIVE) > 0:
            value = 1.0 if c == color else -1.0
            decided = True
            break
        if st.info[I_STONES] >= capacity:
            decided = True  # a full board: a draw
            break
        n = generate_moves(st, c, moves, values, p.rollout_width, ws, p.policy_model != 0)
        if n == 0:
            value = -1.0 if c == color else 1.0
            decided = True
            break
        total = prior_weights(values, n, p)
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
    n = generate_moves(st, color, moves, values, limit, ws, p.policy_model != 0)
    if n == 0:
        tree.proven[node] = -1
        return -1
    if vcf_nodes > 0 and n > 1 and class_count(st, color - 1, C_FOUR_THREE) > 0:
        # a four-three point almost always wins (99% of these calls prove it, in a few nodes): at once
        if find_vcf(st, color, p.vcf_plies, vcf_nodes, ws, p.vcf_chain != 0, limits):
            tree.proven[node] = 1
            return -1
    h = new_block(tree, node, n)
    if h < 0:
        return 0
    _fill_block(tree, node, h, n, moves, values, p, ws.left_out[0])
    return 1


@kernel
def _fill_block(tree: Tree, node: int, h: int, n: int, moves: np.ndarray, values: np.ndarray, p: Params,
                left_out: int) -> None:
    """Write the n generated moves and their priors into the new block h and make it `node`'s; the header keeps
    how many moves the generator `left_out` at its limit. A move the node's old block had keeps its child: a
    widened block starts with the old block's moves, in their order, so its edges with a child still come first
    (``_select`` relies on it)."""
    old = tree.block[node]
    tree.e_prior[h] = left_out
    total = prior_weights(values, n, p)
    for i in range(n):
        e = h + 1 + i
        tree.e_move[e] = moves[i]
        tree.e_prior[e] = values[i] / total
        tree.e_child[e] = -1
        if old >= 0:
            for j in range(old + 1, old + 1 + tree.e_move[old]):
                if tree.e_move[j] == moves[i]:
                    tree.e_child[e] = tree.e_child[j]
                    break
    tree.block[node] = h


@kernel
def _widen(st: State, tree: Tree, node: int, color: int, p: Params, ws: Workspace) -> bool:
    """Every child of `node` is lost, but its block holds only the best ``max_children`` of its moves: give it a
    block of every move worth searching, so that the node is called lost only if they all lose (the solver's rule
    needs all of them: a quiet node's 24 best moves can all lose to a threat sequence that a 25th stops). False
    when there is no room (the node stays unproven; the search values it as lost meanwhile)."""
    moves = ws.moves
    values = ws.values
    n = generate_moves(st, color, moves, values, moves.shape[0], ws, p.policy_model != 0)
    if n <= tree.e_move[tree.block[node]] or not room(tree, 0, n + 1):
        return False
    _fill_block(tree, node, new_block(tree, node, n), n, moves, values, p, ws.left_out[0])
    return True


@kernel
def _select(tree: Tree, node: int, p: Params, prev: int) -> int:
    """The edge to descend along: a proven win at once, else the best PUCT score among unproven children (a child
    never visited, which has no node yet, scores as the first-play urgency). The edges come in descending prior
    (``generate_moves`` sorts them) and a child is only ever made for the first edge without one, so the edges with
    a child come first and of the others only the first can score best: the scan stops there. Deep in the tree a
    node has gone into a few of its 24 children, and the scan reads those few.

    `prev` is the child the last iteration went into from here (-1: none, or the root). With ``p.sticky`` > 0 it is
    kept while its score, its exploration term raised by that share, is still the best: a child overshoots its PUCT
    share by at most about that share of its visits before the search turns to another, and back. Plain PUCT turns
    between its best children at nearly every visit of a node high in the tree, and each turn unmakes and remakes
    every move below it (``search`` keeps the moves the iterations share): 5.5 moves made an iteration on the 15x15
    middle game, 2.7 with a share of 0.25 (README, Speed)."""
    h = tree.block[node]
    visits = tree.visits[node]
    fpu = 0.0
    if visits > 0:
        fpu = -tree.wsum[node] / visits - p.fpu_reduction
    sqrt_n = np.sqrt(max(visits, 1))
    c_puct = p.c_puct
    if p.c_puct_log > 0.0:
        c_puct += p.c_puct_log * np.log1p(visits / p.c_puct_base)
    best = -1
    best_score = -1e30
    kept = -1
    kept_score = 0.0
    for e in range(h + 1, h + 1 + tree.e_move[h]):
        at = np.uint64(e)  # unsigned indices: numba wraps signed ones around, a test and a fix-up per read
        c = tree.e_child[at]
        v = 0
        q = fpu
        if c >= 0:
            child = np.uint64(c)
            pr = tree.proven[child]
            if pr == -1:
                return e
            if pr == 1:
                continue
            v = tree.visits[child]
            if v > 0:
                q = tree.wsum[child] / v
        u = c_puct * tree.e_prior[at] * sqrt_n / (1 + v)
        s = q + u
        if c == prev:
            kept = e
            kept_score = s + p.sticky * u
        if s > best_score:
            best_score = s
            best = e
        if c < 0:
            break  # the edges after it have no child either, and lower priors
    if p.sticky > 0.0 and kept >= 0 and kept_score >= best_score:
        return kept
    return best


@kernel
def _settle(tree: Tree, node: int) -> None:
    """Apply the solver rules to `node` from its children's proofs (a child never visited is not proven)."""
    h = tree.block[node]
    if h < 0:
        return
    all_lost = True
    for e in range(h + 1, h + 1 + tree.e_move[h]):
        c = tree.e_child[e]
        if c < 0:
            all_lost = False
        elif tree.proven[c] == -1:
            tree.proven[node] = 1
            return
        elif tree.proven[c] != 1:
            all_lost = False
    if all_lost and tree.e_prior[h] == 0.0:
        tree.proven[node] = -1


@kernel
def _unwind(st: State, path_moves: Int32Array, made: int, depth: int) -> int:
    """Take back the moves made below `depth` (the board holds path_moves[1..made]); returns the new count of moves
    made, `depth` or fewer."""
    while made > depth:
        unmake(st, path_moves[made])
        made -= 1
    return made


@kernel
def _child_node(tree: Tree, key: np.uint64, p: Params) -> int:
    """The node for a child whose position has Zobrist hash `key`: the node another move order already gave that
    position (``p.graph``), else a new one, entered in the transposition table; -1 when no node fits."""
    if p.graph != 0:
        known = find_position(tree, key)
        if known >= 0:
            tree.meta[M_MERGED] += 1
            return known
    child = new_node(tree)
    if child >= 0 and p.graph != 0:
        enter_position(tree, key, child)
    return child


@kernel
def _fours_proof_due(tree: Tree, node: int, p: Params) -> bool:
    """Whether `node` is due for the VCF of a side to move with fours but no four-three point (see _fours_proof):
    its visits just reached vcf_visits."""
    return p.vcf_nodes > 0 and tree.visits[node] == p.vcf_visits and tree.proven[node] == 0


@kernel
def _fours_proof(st: State, tree: Tree, node: int, color: int, p: Params, ws: Workspace, limits: Int64Array) -> None:
    """Prove `node` won for `color`, its side to move, when it has ``vcf_min_fours`` four points (and no four-three
    point: _expand tries those) and wins by continuous fours. Such a VCF is rarely there (about 1 call in 10 found
    one in the 15x15 middle game) and cost 26 moves made a call, more than all the rest of the search, when it ran
    at every expansion; asked once, when the node has earned ``vcf_visits`` visits, it runs where the search
    spends its effort."""
    me = color - 1
    if class_count(st, me, C_FOUR) < p.vcf_min_fours or class_count(st, me, C_FOUR_THREE) > 0:
        return
    if find_vcf(st, color, p.vcf_plies, p.vcf_nodes, ws, p.vcf_chain != 0, limits):
        tree.proven[node] = 1


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
    if class_count(st, me, C_FOUR) + class_count(st, me, C_FOUR_THREE) + class_count(st, me, C_THREE) \
            + class_count(st, me, C_THREE_THREE) == 0:
        return  # no threat to start with
    if find_vct(st, color, p.vct_plies, min(int(v * p.vct_ratio) + 1, p.vct_call_nodes), vs,
                limits) >= 0:
        tree.proven[node] = 1


@kernel
def back_up(tree: Tree, path: Int32Array, depth: int, value: float) -> None:
    """Count a visit of each node of path[0..depth], with `value` for the side to move at path[depth] (so -value for
    the player who moved into it), and settle the proofs it passes."""
    v = value
    for d in range(depth, -1, -1):
        n = path[d]
        tree.visits[n] += 1
        tree.wsum[n] += -v
        v = -v
        if d < depth and tree.proven[path[d + 1]] != 0:
            _settle(tree, n)


@kernel
def search(st: State, tree: Tree, color: int, iterations: int, p: Params, ws: Workspace, vs: VctSpace,
           limits: Int64Array) -> int:
    """Run up to `iterations` MCTS iterations from the root (side to move: `color`), fewer when `limits` say stop;
    returns how many ran. Each iteration counts one node of `limits` (and each node of an in-tree VCF or VCT one
    more).

    An iteration does not take its moves back at its end: the next one mostly walks down the same first moves, so
    only the part of the old path below where the new one leaves it is unmade (``made`` moves, path[1..made], are
    on the board). Where an iteration reads the state -- at a node without children -- it is that node's: the old
    path cannot have gone deeper through a node without children. Everything is unmade before returning, and before
    a reclaim (which may free the old path's nodes). The path keeps its moves and its positions' hashes: a node is a
    position that several move orders may share (``brain.tree``), so the move into it is the path's, not the node's.

    An iteration makes at most one expansion and one node; when they might not fit, the tree is reclaimed first.
    The search stops short of MAX_VISITS at the root (visits are int32). It counts what its iterations do -- tree
    steps, moves made, expansions, proven ends, in-tree VCF and VCT nodes -- in the tree's meta (``brain.tree``
    M_STEPS...), a few integer adds an iteration, for ``brain.thinkprofile``."""
    path = ws.path
    path_moves = ws.path_moves
    keys = ws.path_keys
    keys[0] = st.hash[0]  # the root's position: nothing is made yet
    made = 0
    moves = ws.moves
    values = ws.values
    line = ws.line
    root = tree.meta[M_ROOT]
    done = 0
    deepest = tree.meta[M_MAXDEPTH]
    charged = limits[L_NODES]
    vct_nodes = 0
    last = tree.meta[M_LAST_DEPTH]  # path[0..last] is the last iteration's path, this call's or the one before
    for _ in range(iterations):
        if tree.proven[root] != 0 or tree.visits[root] >= MAX_VISITS or charge(limits):
            break
        if not room(tree, 1, p.max_children + 1):
            made = _unwind(st, path_moves, made, 0)
            reclaim(tree, RECLAIM_TARGET)
            last = 0
        node = root
        c = color
        depth = 0
        path[0] = root
        value = 0.0
        along = True  # this iteration's path is the last one's so far
        while True:
            pr = tree.proven[node]
            if pr != 0:
                value = float(pr)
                tree.meta[M_PROVEN_ENDS] += 1
                break
            if tree.block[node] < 0:
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
                tree.meta[M_EXPANDED] += 1
            e = _select(tree, node, p, path[depth + 1] if along and 0 < depth < last else -1)
            if e < 0 and tree.e_prior[tree.block[node]] > 0.0:  # every child lost, but some moves were left out
                made = _unwind(st, path_moves, made, depth)
                if _widen(st, tree, node, c, p, ws):
                    e = _select(tree, node, p, -1)
            if e < 0:  # every child lost: settle below
                _settle(tree, node)
                value = float(tree.proven[node]) if tree.proven[node] != 0 else -1.0
                break
            child = tree.e_child[e]
            move = int(tree.e_move[e])
            key = keys[depth] ^ st.zobrist[c - 1, move]
            if child < 0 or made <= depth or path[depth + 1] != child:  # leaving the moves already made
                if child < 0 and p.graph != 0:  # its table slot, fetched while the move is made (a big tree: a miss)
                    slot = key & np.uint64(tree.t_key.shape[0] - 1)
                    prefetch(tree.t_node, slot)
                    prefetch(tree.t_key, slot)
                made = _unwind(st, path_moves, made, depth)
                make(st, move, c)
                tree.meta[M_MAKES] += 1
                made = depth + 1
                path_moves[made] = move
            if child < 0:
                child = _child_node(tree, key, p)
                if child < 0:  # no room even after a reclaim: value the node as a leaf
                    made = _unwind(st, path_moves, made, depth)
                    value, proof = evaluate(st, c, p)
                    break
                tree.e_child[e] = child
            along = along and depth < last and path[depth + 1] == child
            c = 3 - c
            node = child
            depth += 1
            path[depth] = node
            path_moves[depth] = move
            keys[depth] = key
            if _fours_proof_due(tree, node, p):
                made = _unwind(st, path_moves, made, depth)
                _fours_proof(st, tree, node, c, p, ws, limits)
            if depth <= p.vct_depth and _threat_proof_due(tree, node, p):
                made = _unwind(st, path_moves, made, depth)  # the board must hold this node's position
                before = limits[L_NODES]
                _threat_proof(st, tree, node, c, p, vs, limits)
                vct_nodes += limits[L_NODES] - before
        if depth > deepest:
            deepest = depth
        tree.meta[M_STEPS] += depth
        back_up(tree, path, depth, value)
        last = depth
        done += 1
    _unwind(st, path_moves, made, 0)
    tree.meta[M_LAST_DEPTH] = last
    tree.meta[M_MAXDEPTH] = deepest
    tree.meta[M_VCT_NODES] += vct_nodes
    tree.meta[M_VCF_NODES] += limits[L_NODES] - charged - done - vct_nodes
    return done


@kernel
def best_child(tree: Tree, node: int) -> int:
    """The child (node) to play from `node`, in order of priority: a child proven lost for the opponent (a win for
    us); else the most-visited child not proven won for the opponent; else (all lose) the most-visited child. -1 when
    the search has gone into none."""
    h = tree.block[node]
    if h < 0:
        return -1
    first = h + 1
    end = first + tree.e_move[h]
    best = -1
    for e in range(first, end):
        c = tree.e_child[e]
        if c >= 0 and tree.proven[c] == -1:
            if best < 0 or tree.visits[c] > tree.visits[best] or tree.proven[best] != -1:
                best = c
    if best >= 0:
        return best
    for e in range(first, end):
        c = tree.e_child[e]
        if c >= 0 and tree.proven[c] != 1 and (best < 0 or tree.visits[c] > tree.visits[best]):
            best = c
    if best >= 0:
        return best
    for e in range(first, end):
        c = tree.e_child[e]
        if c >= 0 and (best < 0 or tree.visits[c] > tree.visits[best]):
            best = c
    return best


@kernel
def find_child(tree: Tree, node: int, move: int) -> int:
    """The child (node) of `node` reached by `move`, or -1 (not a child, or never visited)."""
    h = tree.block[node]
    if h < 0:
        return -1
    for e in range(h + 1, h + 1 + tree.e_move[h]):
        if tree.e_move[e] == move:
            return tree.e_child[e]
    return -1


@kernel
def expand_root(st: State, tree: Tree, color: int, p: Params, limit: int, ws: Workspace, limits: Int64Array) -> int:
    """Make sure the root has children, up to `limit` of them, each with a node (the root filter marks them, the
    player reads them); the root VCF is the engine's job. Returns the child count (0: none)."""
    root = tree.meta[M_ROOT]
    if tree.block[root] < 0:
        # a root the last search proved (an in-tree VCF, a leaf's evaluation) may have no children yet: it needs
        # them to play the proof out
        tree.proven[root] = 0
        if not room(tree, limit, limit + 1):
            reclaim(tree, RECLAIM_TARGET)
        _expand(st, tree, root, color, p, limit, 0, ws.moves, ws.values, ws, limits)
    h = tree.block[root]
    if h < 0:
        return 0
    n = tree.e_move[h]
    if not room(tree, n, 0):
        reclaim(tree, RECLAIM_TARGET)
    for e in range(h + 1, h + 1 + n):
        if tree.e_child[e] < 0:
            c = _child_node(tree, st.hash[0] ^ st.zobrist[color - 1, tree.e_move[e]], p)
            if c < 0:
                return 0
            tree.e_child[e] = c
    return n
