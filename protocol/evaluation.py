"""One evaluation scale wherever a person reads one: a win rate in per cent, or, once a search has proven the
result, "win in N" / "loss in N".

Engines count a proof in plies (Monte's and Rapfi's ``+M7``: the side to move wins with the 7th ply from here).
People count the winner's stones: a five on the next move is a win in 1, a VCF of 7 plies a win in 4, and a position
where any move lets the opponent make five next is a loss in 1. A proof whose length the search did not measure is
"win" or "loss" alone.
"""

from __future__ import annotations

import re

from monte.brain.codes import UNKNOWN_LOSS_PLIES

UNMEASURED_PLIES = UNKNOWN_LOSS_PLIES
"""Plies the engine reports for a proven result whose length it did not find: shown without a number."""

_MATE = re.compile(r"([+-])M(\d+)")


def winner_moves(plies: int) -> int:
    """The winner's stones in a proof of `plies` plies counted from the side to move (> 0: the side to move wins;
    < 0: it loses)."""
    return (plies + 1) // 2 if plies > 0 else max(1, -plies // 2)


def proof_text(plies: int) -> str:
    """``win in N`` or ``loss in N`` for a proof of `plies` plies (signed as above); "" for 0 (nothing proven)."""
    if plies == 0:
        return ""
    word = "win" if plies > 0 else "loss"
    if abs(plies) >= UNMEASURED_PLIES:
        return word
    return f"{word} in {winner_moves(plies)}"


def percent(winrate: float) -> str:
    """A win rate of 0..1 as people read it: ``62.3%``."""
    return f"{100 * winrate:.1f}%"


def evaluation_text(winrate: float, plies: int = 0) -> str:
    """What a search thinks of the position for the side to move: its proof when it has one, else its win rate."""
    return proof_text(plies) or f"win rate {percent(winrate)}"


def mate_plies(text: str) -> int | None:
    """The signed plies of an engine's proven evaluation (``+M7`` -> 7, ``-M4`` -> -4), None for any other text."""
    found = _MATE.fullmatch(text.strip())
    if found is None:
        return None
    plies = int(found.group(2))
    return plies if found.group(1) == "+" else -plies
