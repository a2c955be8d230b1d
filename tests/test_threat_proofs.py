"""Proofs checked from outside: every win the threat searches claim -- a VCT, a quiet move then a VCT (ours, and the
opponent's after each of our candidates), a VCT asked again once the game has gone on -- asked in the engine's order
with ONE df-pn table kept throughout (as the player keeps it), then checked move by move: after the claimed move,
EVERY empty cell is tried as the defender's reply, and a fresh table (nothing proved for the claim reused) must find
the attacker's win again. A reply that escapes is a false proof (issue 19: a pass search's results, read with the
other side to move, made a continued game claim wins that were not there; with that key, position (1, 11) fails
here).

The positions come from real games: Monte against PentaZen and Rapfi (tournaments/reports/sparring/spar-r19-before),
where both sides' threats are many."""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

import pytest

from monte.brain.board import Board
from monte.brain.limits import SearchLimits, new_limits
from monte.brain.patterns import C_FIVE
from monte.brain.player import ThinkLimits
from monte.brain.position import State, class_count, make, new_state, unmake
from monte.brain.quiet_threats import QuietBudget, QuietThreats, quiet_moves
from monte.brain.rules import EMPTY
from monte.brain.settings import Options
from monte.brain.threat_search import ThreatSearch
from monte.brain.vct import V_FOCUS, VctSpace, find_vct, new_vct_space

GAMES = Path(__file__).resolve().parents[1] / "tournaments/reports/sparring/spar-r19-before/games.jsonl"
CHECKED = [(1, 10), (1, 11), (4, 16), (5, 14)]  # (game id, plies): claims of every kind; at (1, 11) the key without
# the side to move claimed a quiet win for black (8,4 after white 4,3) that white escapes
QUESTION_NODES = 20_000                           # each VCT the player-like questions ask (the quiet share's size)
CHECK_NODES = 200_000                             # each fresh VCT of the check (ten times more: it must not miss)
BUDGET = QuietBudget(moves=8, vct_nodes=QUESTION_NODES)


class Claim(NamedTuple):
    """A claimed win: `attacker` wins after playing `move`, once the `setup` stones (cell, colour) are on the board."""

    kind: str
    attacker: int
    move: int
    setup: list[tuple[int, int]]


def position(game_id: int, plies: int) -> Board:
    """The board of game `game_id` of the record after `plies` stones (the opening's included)."""
    for line in GAMES.read_text().splitlines():
        game = json.loads(line)
        if game["game_id"] == game_id:
            board = Board(game["width"])
            stones = [tuple(m[:2]) for m in game["opening"]] + [tuple(m[:2]) for m in game["moves"]]
            for x, y in stones[:plies]:
                board.play(x, y)
            return board
    raise ValueError(f"no game {game_id} in {GAMES}")


def claims_in_engine_order(st: State, me: int, threats: ThreatSearch) -> list[Claim]:
    """Every win the searches claim here, asked as a move and the next one ask them, with the one kept table: our
    VCT, our quiet win, the opponent's threats (a pass search: we are to move), its quiet wins after our candidates,
    then -- the game going on -- our VCT after each of our tried quiet moves and a spread of the opponent's
    answers."""
    opp = 3 - me
    quiet = QuietThreats(threats)
    found = []
    with SearchLimits(ThinkLimits.seconds(600.0)) as limits:
        end = limits.now() + 600.0
        move = threats.vct(st, me, QUESTION_NODES, limits)
        if move >= 0:
            found.append(Claim("vct", me, move, []))
        win = quiet.find(st, me, BUDGET, limits, end)
        if win is not None:
            found.append(Claim("quiet", me, win.move, []))
        threats.vct(st, opp, QUESTION_NODES, limits)
        near = [int(c) for c in st.interior if st.cells[c] == EMPTY and st.near[c] > 0]
        for c in near[:6]:
            make(st, c, me)
            win = quiet.find(st, opp, BUDGET, limits, end)
            unmake(st, c)
            if win is not None:
                found.append(Claim("quiet", opp, win.move, [(c, me)]))
        for c in quiet_moves(st, me, 3):
            make(st, c, me)
            answers = [int(o) for o in st.interior if st.cells[o] == EMPTY and st.near[o] > 0]
            for o in answers[::max(1, len(answers) // 4)]:
                make(st, o, opp)
                move = threats.vct(st, me, QUESTION_NODES, limits)
                unmake(st, o)
                if move >= 0:
                    found.append(Claim("vct, game gone on", me, move, [(c, me), (o, opp)]))
            unmake(st, c)
    return found


def escapes(st: State, attacker: int, space: VctSpace) -> list[int]:
    """The defender's replies (every empty cell) after which a fresh VCT -- a complete one, every threat searched
    (``V_FOCUS`` 0 in `space`) -- finds no win for `attacker` (the defender to move here); a five of the defender's is
    an escape at once."""
    defender = 3 - attacker
    if class_count(st, defender - 1, C_FIVE) > 0:
        return [-1]
    left = []
    for c in st.interior.tolist():
        if st.cells[c] != EMPTY:
            continue
        make(st, c, defender)
        space.tt_keys[:] = 0
        if find_vct(st, attacker, Options().root_vct_plies, CHECK_NODES, space, new_limits()) < 0:
            left.append(c)
        unmake(st, c)
    return left


@pytest.mark.parametrize("game_id,plies", CHECKED)
def test_every_claimed_win_survives_every_reply(game_id, plies):
    board = position(game_id, plies)
    st = new_state(board)
    threats = ThreatSearch(Options())
    claims = claims_in_engine_order(st, board.to_move, threats)
    assert claims, "a position that tests nothing"
    check = new_vct_space()
    check.info[V_FOCUS] = 0
    for claim in claims:
        for cell, colour in claim.setup:
            make(st, cell, colour)
        make(st, claim.move, claim.attacker)
        left = escapes(st, claim.attacker, check)
        unmake(st, claim.move)
        for cell, _ in reversed(claim.setup):
            unmake(st, cell)
        assert not left, (f"{claim.kind} of player {claim.attacker} with {board.coords(claim.move)} after "
                          f"{[board.coords(c) for c, _ in claim.setup]}: the defender escapes with "
                          f"{[board.coords(c) for c in left[:5] if c >= 0]}")
