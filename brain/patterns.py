"""Line patterns: what one more stone on an empty cell makes along one line, for one side, under one rule.

A cell's *window* in one direction is the five cells on each side of it. Seen by one side, each window cell is
empty (0), own (1) or blocked (2: an opponent stone or the board's wall), so a window is a 10-digit base-3 number,
the *key*. ``pattern_tables`` map every key to the pattern the side makes by playing the centre cell:

    P_FIVE      a winning row (per rule: exactly five, or five or more; caro: not blocked at both ends)
    P_FOUR_OPEN two or more distinct points would then complete five (a straight four, or two fours on one line)
    P_FOUR      exactly one such point
    P_THREE     one more stone can make P_FOUR_OPEN (an open three)
    P_THREE_C   one more stone can make P_FOUR (a closed three)
    P_TWO       one more stone can make P_THREE
    P_TWO_C     one more stone can make P_THREE_C
    P_NONE      nothing (or, renju black, P_OVERLINE: the move makes six or more on this line)

Caro alone must tell the wall from an opponent stone (only opponent stones block a caro five), so under caro there
is one table per *edge code* -- how many board cells the window has on each side before the wall -- and each cell
knows its edge code per direction.

Five cells a side is exactly what the rules need: every row of five through the centre, and the two cells that end
it (for exactly-five and caro), lie inside the window.

The four patterns of a cell are then folded into a *class* for that side (five, open four, four-three, ...), which
drives move generation, priors, the static evaluation and the threat searches.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from functools import cache, partial
from itertools import product
from typing import NamedTuple

import numpy as np

from monte.brain.cachedir import BRAIN_CACHE_DIR
from monte.brain.jit import Int32Array, njit
from monte.brain.rules import RULE_CARO, RULE_EXACT_FIVE, RULE_RENJU

WINDOW_HALF = 5
WINDOW_CELLS = 2 * WINDOW_HALF
TABLE_SIZE = 3 ** WINDOW_CELLS
WALL_CELL = 3      # in a decoded line only (keys have no such digit): the wall, which blocks a row but not a caro five

P_NONE = 0
P_TWO_C = 1
P_TWO = 2
P_THREE_C = 3
P_THREE = 4
P_FOUR = 5
P_FOUR_OPEN = 6
P_FIVE = 7
P_OVERLINE = 8
PATTERN_COUNT = 9

# Cell classes, from the strongest threat down. Comparisons (>=) are meaningful between them.
C_NONE = 0
C_WEAK = 1          # twos only
C_THREE_C = 2       # a closed three (can make a four next)
C_THREE = 3         # one open three
C_FOUR = 4          # one four, nothing more
C_THREE_THREE = 5   # two open threes (renju black: may be forbidden)
C_FOUR_THREE = 6    # a four and an open three
C_OPEN_FOUR = 7     # a straight four or a double four: two five points at once
C_FIVE = 8
C_FORBIDDEN = 9     # renju black only: overline or double four without five (never a move for black)
CLASS_COUNT = 10

# Digit weight of each window offset -5..-1, +1..+5 (the centre has no digit).
_OFFSETS = np.array([-5, -4, -3, -2, -1, 1, 2, 3, 4, 5], dtype=np.int64)


@njit(cache=True)
def offset_weight(offset: int) -> int:
    """The base-3 weight of the window cell `offset` steps from the centre (offset in -5..-1, 1..5)."""
    digit = offset + 5 if offset < 0 else offset + 4
    w = 1
    for _ in range(digit):
        w *= 3
    return w


@njit(cache=True)
def _decode(key: int, line: np.ndarray) -> None:
    """Fill line[0..10] (centre at 5, left EMPTY) from a window key."""
    for i in range(WINDOW_CELLS):
        pos = i if i < WINDOW_HALF else i + 1
        line[pos] = key % 3
        key //= 3
    line[WINDOW_HALF] = 0


@njit(cache=True)
def _five_through(line: np.ndarray, centre: int, exact: bool, caro: bool) -> int:
    """1 if own stones through `centre` make a winning row, 2 if they make an overline only, else 0."""
    lo = centre
    while lo > 0 and line[lo - 1] == 1:
        lo -= 1
    hi = centre
    while hi < 2 * WINDOW_HALF and line[hi + 1] == 1:
        hi += 1
    length = hi - lo + 1
    if length < 5:
        return 0
    if exact and length > 5:
        return 2
    if caro:
        # only opponent stones (2) block a caro five; the wall (WALL_CELL) does not
        left = line[lo - 1] if lo > 0 else 0
        right = line[hi + 1] if hi < 2 * WINDOW_HALF else 0
        if left == 2 and right == 2:
            return 0
    return 1


@njit(cache=True)
def _five_points(line: np.ndarray, exact: bool, caro: bool) -> int:
    """How many empty window cells would complete a winning row through the (own) centre."""
    n = 0
    for q in range(2 * WINDOW_HALF + 1):
        if line[q] != 0:
            continue
        line[q] = 1
        if _five_through(line, WINDOW_HALF, exact, caro) == 1:
            n += 1
        line[q] = 0
    return n


@njit(cache=True)
def _four_level(line: np.ndarray, exact: bool, caro: bool) -> int:
    """P_FOUR_OPEN, P_FOUR or P_NONE for the line as it stands (centre own)."""
    n = _five_points(line, exact, caro)
    if n >= 2:
        return P_FOUR_OPEN
    if n == 1:
        return P_FOUR
    return P_NONE


@njit(cache=True)
def _one_more(line: np.ndarray, exact: bool, caro: bool, fours: bool) -> int:
    """What one more own stone anywhere in the window can make, short of a five: 2 if it can make the strong shape
    (with `fours`, an open four; else an open three), 1 the weak one (a four; a closed three), else 0."""
    best = 0
    for q in range(2 * WINDOW_HALF + 1):
        if line[q] != 0:
            continue
        line[q] = 1
        if _five_through(line, WINDOW_HALF, exact, caro) == 0:
            if fours:
                level = _four_level(line, exact, caro)
                strong, weak = level == P_FOUR_OPEN, level == P_FOUR
            else:
                level = _three_level(line, exact, caro)
                strong, weak = level == P_THREE, level == P_THREE_C
            if strong:
                best = 2
            elif weak and best < 1:
                best = 1
        line[q] = 0
        if best == 2:
            break
    return best


@njit(cache=True)
def _three_level(line: np.ndarray, exact: bool, caro: bool) -> int:
    """P_THREE / P_THREE_C / P_NONE: the best four one more own stone in the window can make."""
    reach = _one_more(line, exact, caro, True)
    return P_THREE if reach == 2 else (P_THREE_C if reach == 1 else P_NONE)


@njit(cache=True)
def classify_line(line: np.ndarray, exact: bool, caro: bool, overline_flag: bool) -> int:
    """The pattern an own stone at the centre of `line` (values 0 empty, 1 own, 2 blocked) makes."""
    line[WINDOW_HALF] = 1
    five = _five_through(line, WINDOW_HALF, exact, caro)
    if five == 1:
        result = P_FIVE
    elif five == 2 and overline_flag:
        result = P_OVERLINE
    else:
        result = _four_level(line, exact, caro)
        if result == P_NONE:
            result = _three_level(line, exact, caro)
        if result == P_NONE:
            reach = _one_more(line, exact, caro, False)
            result = P_TWO if reach == 2 else (P_TWO_C if reach == 1 else P_NONE)
    line[WINDOW_HALF] = 0
    return result


@njit(cache=True)
def build_table(exact: bool, overline_flag: bool) -> np.ndarray:
    """The pattern of every window key for one side under one rule other than caro (see build_edge_tables)."""
    table = np.zeros(TABLE_SIZE, dtype=np.uint8)
    line = np.zeros(2 * WINDOW_HALF + 1, dtype=np.int64)
    for key in range(TABLE_SIZE):
        _decode(key, line)
        table[key] = classify_line(line, exact, False, overline_flag)
    return table


@njit(cache=True)
def edge_code(left: int, right: int) -> int:
    """The index of the caro table for a window with `left` board cells before the wall on its left and `right`
    on its right (each 0..WINDOW_HALF; WINDOW_HALF means no wall in the window on that side)."""
    return left * (WINDOW_HALF + 1) + right


@njit(cache=True)
def build_edge_tables(exact: bool, overline_flag: bool) -> np.ndarray:
    """Caro's tables, one per edge code (see edge_code): in a key, the wall reads 2 like an opponent stone, but a caro
    five is blocked only by opponent stones, so each table knows which of the window's 2s are the wall. Only the keys
    with 2s on the wall cells can occur, and only those are classified."""
    codes = (WINDOW_HALF + 1) * (WINDOW_HALF + 1)
    tables = np.zeros((codes, TABLE_SIZE), dtype=np.uint8)
    line = np.zeros(2 * WINDOW_HALF + 1, dtype=np.int64)
    for left in range(WINDOW_HALF + 1):
        for right in range(WINDOW_HALF + 1):
            code = edge_code(left, right)
            # digits 0..4 are offsets -5..-1, digits 5..9 offsets 1..5: the wall is the lowest and highest digits
            low = WINDOW_HALF - left
            wall_key = 0
            weight = 1
            for digit in range(WINDOW_CELLS):
                if digit < low or digit >= WINDOW_HALF + right:
                    wall_key += 2 * weight
                weight *= 3
            scale = 1
            for _ in range(low):
                scale *= 3
            free = 1
            for _ in range(left + right):
                free *= 3
            for inner in range(free):
                key = wall_key + inner * scale
                _decode(key, line)
                for pos in range(low):
                    line[pos] = WALL_CELL
                for pos in range(WINDOW_HALF + 1 + right, 2 * WINDOW_HALF + 1):
                    line[pos] = WALL_CELL
                tables[code, key] = classify_line(line, exact, True, overline_flag)
    return tables


Tables = dict[str, np.ndarray]


def stored_tables(name: str, build: Callable[[], Tables]) -> Tables:
    """The named arrays `name`, read from this source version's cache folder (``brain.cachedir.BRAIN_CACHE_DIR``), or
    built and saved there first. Building caro's tables takes a quarter to half a second and renju's a tenth: that
    is paid once per machine and source version (``pbrain-monte --warmup`` builds them all), not in a game. Where the
    folder cannot be written, the tables are simply built."""
    path = _table_path(name)
    try:
        with np.load(path) as stored:
            return {key: stored[key] for key in stored.files}
    except (OSError, ValueError, EOFError):
        pass
    tables = build()
    try:
        fd, temporary = tempfile.mkstemp(dir=BRAIN_CACHE_DIR, suffix=".part")
    except OSError:
        return tables
    try:
        with os.fdopen(fd, "wb") as out:
            np.savez_compressed(out, **tables)
        os.replace(temporary, path)  # readers never see half a file
    except OSError:
        os.unlink(temporary)
    return tables


def _table_path(name: str) -> str:
    return os.path.join(BRAIN_CACHE_DIR, f"{name}.npz")


def pattern_tables(rule: int) -> np.ndarray:
    """The window-key tables under `rule` (the protocol's bitmask), shape (2, edge codes x TABLE_SIZE): [0] for
    black, [1] for white. Under caro the table also depends on where the wall is (build_edge_tables): the tables of
    the edge codes lie end to end, and a cell's key carries ``edge code x TABLE_SIZE`` (``brain.position`` adds it
    once; moves change only the digits), so a lookup costs the same under every rule.

    Renju: black wins with exactly five and an overline is flagged P_OVERLINE (a foul); white wins with five or more.
    """
    key = _pattern_key(rule)
    if key not in _TABLE_CACHE:
        _TABLE_CACHE[key] = stored_tables(_pattern_name(key), lambda: _build_pattern_tables(*key))["tables"]
    return _TABLE_CACHE[key]


NARROW_HALF = 4
"""Window cells a side that a freestyle state reads (``window``)."""
NARROW_SIZE = 3 ** (2 * NARROW_HALF)


class Window(NamedTuple):
    """How a search state reads line windows under one rule: `half` cells on each side of a cell, each offset's digit
    weight in a key (``weights[offset + WINDOW_HALF]``; 0 at the centre and beyond `half`), and the pattern tables
    those keys index (shape (2, ...), as ``pattern_tables``)."""

    half: int
    weights: np.ndarray
    tables: np.ndarray


@cache
def window(rule: int) -> Window:
    """The window a search state reads under `rule` (built once a rule: every state shares it, reading only).

    Five cells a side is what exactly five, renju and caro need (the cells that end a row of five); under freestyle
    an overline wins too, and the fifth cell on each side never changes a pattern (a test checks every key). So a
    freestyle state reads four a side: 8-digit keys index a table of 6,561 patterns a side (13 kB in all, where the
    10-digit one takes 118 kB and competes with the tree for the caches), and a make or an unmake updates the keys of
    32 cells of its lines instead of 40: the same trees in 2-4% less CPU on a fastgame move's tree (README, Speed)."""
    full = pattern_tables(rule)
    weights = np.zeros(2 * WINDOW_HALF + 1, dtype=np.int64)
    if rule & (RULE_EXACT_FIVE | RULE_RENJU | RULE_CARO):
        for o in range(-WINDOW_HALF, WINDOW_HALF + 1):
            if o != 0:
                weights[o + WINDOW_HALF] = offset_weight(o)
        return Window(WINDOW_HALF, weights, full)
    narrow_offsets = [o for o in range(-NARROW_HALF, NARROW_HALF + 1) if o != 0]
    full_keys = np.zeros(NARROW_SIZE, dtype=np.int64)
    keys = np.arange(NARROW_SIZE)
    for digit, o in enumerate(narrow_offsets):
        weights[o + WINDOW_HALF] = 3 ** digit
        full_keys += (keys // 3 ** digit) % 3 * offset_weight(o)
    return Window(NARROW_HALF, weights, np.ascontiguousarray(full[:, full_keys]))


def _pattern_key(rule: int) -> tuple[bool, bool, bool]:
    """(exact five, caro, renju): what the window-key tables depend on."""
    return bool(rule & RULE_EXACT_FIVE), bool(rule & RULE_CARO), bool(rule & RULE_RENJU)


def _pattern_name(key: tuple[bool, bool, bool]) -> str:
    return "patterns-" + "".join(str(int(bit)) for bit in key)


def _build_pattern_tables(exact: bool, caro: bool, renju: bool) -> Tables:
    if caro:
        black = build_edge_tables(exact or renju, renju)
        white = black if not renju else build_edge_tables(exact, False)
    else:
        black = build_table(exact or renju, renju)[np.newaxis, :]
        white = black if not renju else build_table(exact, False)[np.newaxis, :]
    return {"tables": np.stack([black.reshape(-1), white.reshape(-1)])}


def store_every_rule() -> None:
    """Make sure the tables of every rule are in the cache folder (see stored_tables), building the missing ones
    but keeping none in memory."""
    every = [(_pattern_name(key), partial(_build_pattern_tables, *key)) for key in product((False, True), repeat=3)]
    every += [(_cells_name(renju), partial(_build_cell_tables, renju)) for renju in (False, True)]
    for name, build in every:
        if not os.path.exists(_table_path(name)):
            stored_tables(name, build)


_TABLE_CACHE: dict[tuple[bool, bool, bool], np.ndarray] = {}


@njit(cache=True)
def classify_cell(p0: int, p1: int, p2: int, p3: int, renju_black: bool) -> int:
    """Fold the four line patterns of one cell for one side into a cell class (C_*)."""
    fives = 0
    open_fours = 0
    fours = 0
    threes = 0
    closed_threes = 0
    twos = 0
    overline = False
    for p in (p0, p1, p2, p3):
        if p == P_FIVE:
            fives += 1
        elif p == P_OVERLINE:
            overline = True
        elif p == P_FOUR_OPEN:
            open_fours += 1
        elif p == P_FOUR:
            fours += 1
        elif p == P_THREE:
            threes += 1
        elif p == P_THREE_C:
            closed_threes += 1
        elif p >= P_TWO_C:
            twos += 1
    if fives > 0:
        return C_FIVE
    if renju_black and (overline or open_fours + fours >= 2):
        return C_FORBIDDEN
    if open_fours > 0 or fours >= 2:
        return C_OPEN_FOUR
    if fours > 0 and threes > 0:
        return C_FOUR_THREE
    if threes >= 2:
        return C_THREE_THREE
    if fours > 0:
        return C_FOUR
    if threes > 0:
        return C_THREE
    if closed_threes > 0:
        return C_THREE_C
    if twos > 0:
        return C_WEAK
    return C_NONE


# Forks in the making: a cell where one more stone would make a three and a two at once, for the value network
# (``brain.evaluation``). Each includes the next: an open three with an open two is also a three with a two.
F_NONE = 0
F_THREE_TWO = 1       # a three (closed or open, or more) and one more line that holds at least a closed two
F_OPEN_THREE_TWO = 2  # an open three (or more) and one more line that holds at least an open two
FORK_COUNT = 3
KIND_COUNT = CLASS_COUNT * FORK_COUNT
"""A cell's *kind* is its class and fork as one number, class x FORK_COUNT + fork: the search state keeps one count
per kind, not one per class and one per fork (``brain.position``)."""


@njit(cache=True)
def cell_fork(p0: int, p1: int, p2: int, p3: int) -> int:
    """The fork (F_*) of one cell's four line patterns: a stone there would make a three and a two at once -- the
    seed of the next move's four-three or three-three. The class (classify_cell) reads the strongest lines only; these
    cells are where the coming double threats grow. Counted per side, they cut the value network's held-out
    cross-entropy to Rapfi's judgement from 0.540 to 0.533 (``monte fit-eval``, 60,061 positions)."""
    threes = 0
    open_threes = 0
    twos = 0
    open_twos = 0
    for p in (p0, p1, p2, p3):
        if p == P_OVERLINE or p == P_NONE:
            continue
        twos += 1
        open_twos += p >= P_TWO
        threes += p >= P_THREE_C
        open_threes += p >= P_THREE
    if open_threes > 0 and open_twos >= 2:
        return F_OPEN_THREE_TWO
    if threes > 0 and twos >= 2:
        return F_THREE_TWO
    return F_NONE


# How much each line pattern is worth to the side that makes it (move ordering, priors, evaluation).
PATTERN_SCORE = np.array([0, 2, 6, 8, 24, 20, 400, 10000, 0], dtype=np.int32)
# Extra for cell classes whose threats combine (a four-three wins; two open threes usually do).
CLASS_BONUS = np.array([0, 0, 0, 0, 0, 60, 300, 400, 0, 0], dtype=np.int32)

COMBO_SIZE = PATTERN_COUNT ** 4
COMBO_WEIGHT = (PATTERN_COUNT ** 3, PATTERN_COUNT ** 2, PATTERN_COUNT, 1)   # direction d's digit in a cell code


@njit(cache=True)
def build_cell_tables(renju_black: bool, pattern_score: Int32Array, class_bonus: Int32Array
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Class, score and fork of every cell code (the four line patterns as base-9 digits), so that the search
    looks them up instead of folding four patterns at every change."""
    classes = np.zeros(COMBO_SIZE, dtype=np.uint8)
    scores = np.zeros(COMBO_SIZE, dtype=np.int32)
    forks = np.zeros(COMBO_SIZE, dtype=np.uint8)
    for code in range(COMBO_SIZE):
        p0 = code // (PATTERN_COUNT ** 3)
        p1 = (code // (PATTERN_COUNT ** 2)) % PATTERN_COUNT
        p2 = (code // PATTERN_COUNT) % PATTERN_COUNT
        p3 = code % PATTERN_COUNT
        c = classify_cell(p0, p1, p2, p3, renju_black)
        classes[code] = c
        scores[code] = (pattern_score[p0] + pattern_score[p1] + pattern_score[p2] + pattern_score[p3]
                        + class_bonus[c])
        forks[code] = cell_fork(p0, p1, p2, p3)
    return classes, scores, forks


def cell_tables(rule: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Class, score and kind (class x FORK_COUNT + fork) tables per side ([0] black, [1] white) under `rule`."""
    renju = bool(rule & RULE_RENJU)
    if renju not in _CELL_CACHE:
        tables = stored_tables(_cells_name(renju), lambda: _build_cell_tables(renju))
        kinds = (tables["classes"].astype(np.int32) * FORK_COUNT + tables["forks"]).astype(np.uint8)
        _CELL_CACHE[renju] = (tables["classes"], tables["scores"], kinds)
    return _CELL_CACHE[renju]


def _cells_name(renju: bool) -> str:
    return f"cells-{int(renju)}"


def _build_cell_tables(renju: bool) -> Tables:
    black = build_cell_tables(renju, PATTERN_SCORE, CLASS_BONUS)
    white = build_cell_tables(False, PATTERN_SCORE, CLASS_BONUS)
    return {"classes": np.stack([black[0], white[0]]), "scores": np.stack([black[1], white[1]]),
            "forks": np.stack([black[2], white[2]])}


_CELL_CACHE: dict[bool, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
