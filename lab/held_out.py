"""Which games a fit may learn from: none played from an opening strength is measured on.

Strength is judged on held-out openings (``tournaments/openings/*-test.txt``, and any other set a report names, such
as Piskvork's own openings). A fit that learned from games played from them could look strong there for having seen
them. Games are left out by name (an ``opening_id`` from a ``-test`` file) and by position: random openings can
coincide with a held-out one, so every opening is compared under the board's symmetries.
"""

from __future__ import annotations

import glob
import random
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from monte.tournaments.records import GameRecord

HELD_OUT_MARK = "-test"
"""An openings file whose name holds this is a held-out half (``tournaments/openings/*-test.txt``): strength is
measured on its openings, so no fit may learn from games played from them."""
OPENINGS = Path(__file__).resolve().parent.parent / "tournaments" / "openings"
"""The shipped opening files (package data of monte.tournaments when installed, the folder in a checkout)."""


def held_out(opening_id: str) -> bool:
    """Whether a game's ``opening_id`` (``file:line``) names an opening of a held-out set."""
    return HELD_OUT_MARK in opening_id.rpartition(":")[0]


def shipped_held_out_files() -> list[str]:
    """The shipped held-out opening files (``*-test.txt``)."""
    return sorted(glob.glob(str(OPENINGS / f"*{HELD_OUT_MARK}.txt")))


def canonical(stones: Sequence[tuple[int, int]], width: int, height: int) -> tuple:
    """The opening's stones (colours alternating, black first) under the board's symmetry that sorts first."""
    forms = []
    transforms = [lambda x, y: (x, y), lambda x, y: (width - 1 - x, y), lambda x, y: (x, height - 1 - y),
                  lambda x, y: (width - 1 - x, height - 1 - y)]
    if width == height:
        transforms += [lambda x, y, t=t: t(y, x) for t in list(transforms)]
    for t in transforms:
        moved = [t(x, y) for x, y in stones]
        forms.append((tuple(sorted(moved[0::2])), tuple(sorted(moved[1::2]))))
    return min(forms)


def held_out_positions(paths: Iterable[str | Path], width: int, height: int) -> set[tuple]:
    """The canonical forms of every opening in the held-out opening files `paths` that fits the board."""
    from monte.tournaments.openings import load_openings

    forms = set()
    for path in paths:
        openings, _ = load_openings(path, width, height)
        forms |= {canonical(o.stones, width, height) for o in openings}
    return forms


def learnable(records: Iterable[GameRecord], excluded_files: Sequence[str | Path]) -> tuple[list[GameRecord], int]:
    """(the games of `records` a fit may learn from, how many were left out): those played from a held-out set by
    name, or from an opening of `excluded_files` under the board's symmetries, are left out."""
    forms: dict[tuple[int, int], set] = {}
    kept, left = [], 0
    for record in records:
        size = (record.width, record.height)
        if size not in forms:
            forms[size] = held_out_positions(excluded_files, *size)
        if held_out(record.opening_id) or canonical(record.opening, *size) in forms[size]:
            left += 1
            continue
        kept.append(record)
    return kept, left


def held_out_mask(game: np.ndarray, holdout: float, seed: int) -> np.ndarray:
    """For each example's game number in `game`, whether its game is among the `holdout` share of the games held
    out, chosen at random with `seed` (whole games: all of a game's examples fall on one side)."""
    games = sorted(set(game.tolist()))
    random.Random(seed).shuffle(games)
    held = set(games[:int(round(holdout * len(games)))])
    return np.array([g in held for g in game.tolist()], dtype=bool)
