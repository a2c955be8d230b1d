"""What Monte thinks of a position, as data: the move it would play and, for its top root moves, the visits, win
rate, prior, principal variation and proof that its search found.

This is the brain's one public window onto the search's statistics for tools (``monte analyze``, the hint of
``monte play``): they call ``analyze`` and never read the tree's arrays themselves. It runs the same move as
``pbrain-monte`` would (the root VCF and VCT, the root filter, MCTS) under the given ``ThinkLimits`` -- a node budget
(``max_nodes``) makes the answer depend on the position alone -- on a fresh tree, then reads the root's children.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable

from monte.brain.board import MOVE_WINS, Board
from monte.brain.engine import MctsPlayer
from monte.brain.move_report import principal_variation
from monte.brain.player import SearchInfo
from monte.brain.player import ThinkLimits
from monte.brain.tree import M_ROOT, Tree, child_moves, child_priors, children

PROOF_WIN = "win"
PROOF_LOSS = "loss"


@dataclass(frozen=True)
class MoveStats:
    """One root move as the search saw it (win rate and proof from the side to move's point of view)."""

    move: tuple[int, int]
    visits: int
    winrate: float
    """0..1; 0.5 for a move the search never visited."""
    prior: float
    """The pattern prior the search started the move with (root moves' priors add up to 1)."""
    proof: str = ""
    """``PROOF_WIN``, ``PROOF_LOSS`` or "" (not proven)."""
    proof_by: str = ""
    """How it was proven: "vcf" or "vct" (the root's threat searches), "refuted" (the root filter found the
    opponent's forced win after it), "solver" (MCTS-Solver backed a proof up the tree), "forced" (the only move
    that does not lose at once, proven by the search of the position after it)."""
    pv: list[tuple[int, int]] = field(default_factory=list)
    """The move and the most-visited line after it."""


@dataclass(frozen=True)
class TreeNode:
    """A node of the top of the search tree (``Analysis.tree``): the move into it, its statistics from the side
    that played that move, and its children ranked by visits."""

    move: tuple[int, int] | None
    """None for the root."""
    visits: int
    winrate: float
    proven: int
    """+1 the side to move here wins, -1 it loses, 0 unknown (MCTS-Solver's view)."""
    children: list["TreeNode"] = field(default_factory=list)


@dataclass(frozen=True)
class Analysis:
    """A position's analysis (see the module docstring)."""

    move: tuple[int, int]
    """The move Monte plays here."""
    winrate: float
    """Of the side to move, 0..1 (1 or 0 once proven)."""
    note: str
    """What decided the move beyond MCTS: "vcf", "vct N plies", "forced", "threat", "lost, ...", or ""."""
    iterations: int
    nodes: int
    """Every node searched: MCTS iterations, VCF and VCT nodes (what ``ThinkLimits.max_nodes`` caps)."""
    seconds: float
    depth: int
    """The deepest path of the MCTS tree."""
    pv: list[tuple[int, int]]
    moves: list[MoveStats]
    """The top root moves: the move played first, then proven wins, the most visited, proven losses last."""
    tree: TreeNode | None = None
    """The top of the tree, when asked for (``tree_depth`` > 0)."""
    mate: int = 0
    """Plies to a proven win (> 0) or loss (< 0) for the side to move, as ``SearchInfo.mate``; 0: not proven."""


def analyze(board: Board, limits: ThinkLimits, top: int = 10, tree_depth: int = 0, tree_width: int = 4,
            player: MctsPlayer | None = None, on_progress: Callable[[Analysis], None] | None = None) -> Analysis:
    """Search `board` (side to move: ``board.to_move``) under `limits` on a fresh tree and report the `top` root
    moves; with `tree_depth` > 0, also the tree's top `tree_depth` plies, `tree_width` most-visited children a node.
    `player` lets a caller keep one engine (and its compiled scratch space) across calls; its tree is cleared.
    `on_progress`, if given, is told the top root moves so far now and then while a long search runs (each time the
    engine reports its progress, ``ThinkLimits.progress``), for a board that shows the search as it deepens."""
    player = player or MctsPlayer()
    player.new_game(board)
    asked = limits
    if on_progress is not None:
        limits = replace(limits, progress=lambda info: on_progress(_so_far(board, player, info, top)))
    choice = player.choose(board, limits)
    report = choice.search
    tree = player.tree
    move = (choice.x, choice.y)
    if report is None or tree is None:  # the engine fell back to any legal move: it has nothing more to say
        if not _opponent_wins_after(board, move):
            return Analysis(move, 0.0, choice.info or "", 0, 0, 0.0, 0, [move], [])
        return Analysis(move, 0.0, "lost", 0, 0, 0.0, 0, [move],
                        [MoveStats(move, 0, 0.0, 0.0, PROOF_LOSS, "refuted", [move])], mate=-2)
    if report.note == "forced" and report.mate == 0:  # one move saves the game: what matters is the position after
        return _after_forced(board, move, asked, player, on_progress)
    root = int(tree.meta[M_ROOT])
    moves = _root_moves(board, tree, root, report, move, player.last_refuted)[:max(top, 1)]
    return Analysis(move, report.winrate, report.note, report.nodes, player.last_nodes, report.seconds,
                    report.seldepth, report.pv, moves,
                    _subtree(board, tree, root, None, tree_depth, tree_width) if tree_depth > 0 else None,
                    mate=report.mate)


def _so_far(board: Board, player: MctsPlayer, info: SearchInfo, top: int) -> Analysis:
    """What a search still running has found (called from inside it, between its batches of iterations)."""
    tree = player.tree
    move = info.pv[0]
    moves = _root_moves(board, tree, int(tree.meta[M_ROOT]), info, move, set())[:max(top, 1)]
    return Analysis(move, info.winrate, "", info.nodes, info.nodes, info.seconds, info.seldepth, info.pv, moves,
                    mate=info.mate)


def _opponent_wins_after(board: Board, move: tuple[int, int]) -> bool:
    """Whether the opponent has a winning move once the side to move has played `move` (the engine found no move
    that saves the game: it is lost at once)."""
    after = board.copy()
    after.play(*move)
    return any(after.judge(x, y) == MOVE_WINS for x, y in after.empty_cells())


def _after_forced(board: Board, move: tuple[int, int], limits: ThinkLimits, player: MctsPlayer,
                  on_progress: Callable[[Analysis], None] | None) -> Analysis:
    """The analysis of a forced move (the only one that does not lose at once): the position after it is searched
    from the opponent's side, under what is left of `limits`, and its verdict turned round, so that a forced block
    gets a win rate and a forced line its proof, not the 50% of a search that never ran (its progress too)."""
    after = board.copy()
    after.play(*move)
    if after.is_full():
        return Analysis(move, 0.5, "forced", 0, 0, 0.0, 1, [move], [MoveStats(move, 0, 0.5, 1.0)])
    told = None if on_progress is None else (lambda so_far: on_progress(_turned(move, so_far)))
    return _turned(move, analyze(after, limits, top=1, player=player, on_progress=told))


def _turned(move: tuple[int, int], reply: Analysis) -> Analysis:
    """The analysis of the forced `move` from that of the position after it (`reply`, the opponent's)."""
    mate = 0 if reply.mate == 0 else -reply.mate + (1 if reply.mate < 0 else -1)  # one ply longer, turned round
    winrate = 1.0 - reply.winrate
    pv = [move, *reply.pv]
    proof = PROOF_WIN if mate > 0 else PROOF_LOSS if mate < 0 else ""
    stats = MoveStats(move, reply.iterations, winrate, 1.0, proof, "forced" if proof else "", pv)
    return Analysis(move, winrate, "forced", reply.iterations, reply.nodes, reply.seconds, reply.depth + 1, pv,
                    [stats], mate=mate)


def _winrate(tree: Tree, node: int) -> float:
    """The win rate of the side that moved into `node`."""
    visits = int(tree.visits[node])
    return 0.5 if visits == 0 else float(0.5 + 0.5 * tree.wsum[node] / visits)


def _line(board: Board, tree: Tree, move: int, node: int, length: int = 10) -> list[tuple[int, int]]:
    """`move` into `node` and the most-visited line below it (as the engine's own MESSAGE reports it)."""
    return [board.coords(move), *principal_variation(board, tree, node, length - 1)]


def _root_moves(board: Board, tree: Tree, root: int, report: SearchInfo, chosen: tuple[int, int],
                refuted: set[int]) -> list[MoveStats]:
    note = report.note
    threat_win = note == "vcf" or note.startswith("vct")
    stats = []
    for child, index, prior in zip(children(tree, root).tolist(), child_moves(tree, root).tolist(),
                                   child_priors(tree, root).tolist()):
        move = board.coords(index)
        proven = int(tree.proven[child])  # from the opponent's side: -1 means the move wins
        proof, proof_by = "", ""
        if threat_win and move == chosen:
            proof, proof_by = PROOF_WIN, note.split()[0]
        elif proven == -1:
            proof, proof_by = PROOF_WIN, "solver"
        elif proven == 1:
            proof, proof_by = PROOF_LOSS, "refuted" if child in refuted else "solver"
        winrate = {PROOF_WIN: 1.0, PROOF_LOSS: 0.0}.get(proof, _winrate(tree, child))
        line = report.pv if proof_by in ("vcf", "vct") else _line(board, tree, index, child)  # the threat win's line
        stats.append(MoveStats(move, int(tree.visits[child]), winrate, prior, proof, proof_by, line))
    # the move played first: it is not always the most visited (brain.root_choice), and a reader of the list -- the
    # terminal's table, the web board's ringed candidate and numbered line -- takes the first row for Monte's move
    stats.sort(key=lambda s: (s.move != chosen, s.proof != PROOF_WIN, s.proof == PROOF_LOSS, -s.visits, -s.prior))
    return stats


def _subtree(board: Board, tree: Tree, node: int, move: tuple[int, int] | None, depth: int,
             width: int) -> TreeNode:
    kids = []
    if depth > 0:
        slots = sorted(zip(children(tree, node).tolist(), child_moves(tree, node).tolist()),
                       key=lambda kid: -int(tree.visits[kid[0]]))
        kids = [_subtree(board, tree, c, board.coords(m), depth - 1, width)
                for c, m in slots[:width] if tree.visits[c] > 0 or tree.proven[c] != 0]
    return TreeNode(move, int(tree.visits[node]), _winrate(tree, node), int(tree.proven[node]), kids)
