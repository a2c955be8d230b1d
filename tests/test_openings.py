"""Openings: both file formats, skipping what does not fit, ordering, and balanced random openings."""

from __future__ import annotations

from pathlib import Path

import pytest

from monte import tournaments
from monte.brain.board import BLACK, MOVE_FORBIDDEN, MOVE_WINS, WHITE, Board
from monte.tournaments.openings import (
    Opening,
    _random_stones,
    arrange_openings,
    load_openings,
    parse_opening_line,
    random_openings,
)

SHIPPED = Path(tournaments.__file__).parent / "openings"


# --- parsing ----------------------------------------------------------------------------------------------------------

def test_offsets_count_from_the_centre_cell_floor_half_the_size():
    line = "0,0, 1,0, 1,3"
    assert parse_opening_line(line, 15, 15).stones == ((7, 7), (8, 7), (8, 10))
    assert parse_opening_line(line, 20, 20).stones == ((10, 10), (11, 10), (11, 13))


def test_offsets_on_a_rectangular_board_use_each_side_half():
    assert parse_opening_line("-1,2, 0,0", 15, 20).stones == ((6, 12), (7, 10))


def test_offsets_accept_negative_numbers_and_loose_spacing():
    assert parse_opening_line("  -7,-5 , -7,-6,-6,-5\r", 15, 15).stones == ((0, 2), (0, 1), (1, 2))


def test_pos_letters_are_columns_from_a_and_numbers_rows_from_1_at_the_top():
    assert parse_opening_line("a1", 15, 15).stones == ((0, 0),)
    assert parse_opening_line("b7d6e6f7", 15, 15).stones == ((1, 6), (3, 5), (4, 5), (5, 6))
    assert parse_opening_line("k10J10", 20, 20).stones == ((10, 9), (9, 9))


def test_the_source_is_kept():
    assert parse_opening_line("0,0", 15, 15, "book.txt:3").source == "book.txt:3"


@pytest.mark.parametrize("line, message", [
    ("", "empty"),
    ("0,0, 1", "odd number of offsets"),
    ("hello world", "not an opening"),
    ("0,0,, 1,1", "not an opening"),
    ("0,0, 0,0", "repeats an earlier stone"),
    ("8,0", r"offset 8,0\) falls on 15,7, off the 15x15 board"),
    ("p3", r"p3\) falls on 15,2, off the 15x15 board"),
])
def test_malformed_or_unfitting_lines_are_refused_with_the_reason(line, message):
    with pytest.raises(ValueError, match=message):
        parse_opening_line(line, 15, 15)


# --- files ------------------------------------------------------------------------------------------------------------

def test_a_file_keeps_what_fits_and_warns_per_skipped_line(tmp_path):
    book = tmp_path / "book.txt"
    book.write_bytes(
        b"\xef\xbb\xbf0,0, 1,1\r\n"       # byte-order mark, CR LF
        b"\r\n"                            # blank: ignored
        b"# a comment\n"                   # comment: ignored
        b"9,9, 0,0\n"                      # off a 15x15 board
        b"nonsense\n"
        b"h8i9\n"
    )
    openings, warnings = load_openings(book, 15, 15)
    assert openings == [Opening(((7, 7), (8, 8)), "book.txt:1"), Opening(((7, 7), (8, 8)), "book.txt:6")]
    assert len(warnings) == 2
    assert warnings[0].startswith("book.txt:4: skipped: ") and "off the 15x15 board" in warnings[0]
    assert warnings[1].startswith("book.txt:5: skipped: not an opening")


def test_a_bigger_board_takes_the_lines_a_smaller_one_skipped(tmp_path):
    book = tmp_path / "book.txt"
    book.write_text("9,9, 0,0\n")
    assert load_openings(book, 15, 15)[0] == []
    assert load_openings(book, 20, 20)[0] == [Opening(((19, 19), (10, 10)), "book.txt:1")]


def test_a_missing_file_is_one_clear_error(tmp_path):
    with pytest.raises(ValueError, match="cannot read openings file .*nope.txt"):
        load_openings(tmp_path / "nope.txt", 15, 15)


@pytest.mark.parametrize("name, size, count", [("freestyle15-3stone.txt", 15, 60), ("freestyle20-5stone.txt", 20, 40)])
def test_shipped_opening_files_load_whole_on_their_board(name, size, count):
    openings, warnings = load_openings(SHIPPED / name, size, size)
    assert warnings == []
    assert len(openings) == count
    assert len({o.stones for o in openings}) == count


# --- order ------------------------------------------------------------------------------------------------------------

def _numbered(n: int) -> list[Opening]:
    return [Opening(((i % 15, i // 15),), f"f:{i}") for i in range(n)]


def test_arranging_without_shuffle_keeps_file_order():
    openings = _numbered(10)
    assert arrange_openings(openings, shuffle=False, seed=7) == openings


def test_shuffling_is_a_reproducible_permutation_that_leaves_the_input_alone():
    openings = _numbered(30)
    original = list(openings)
    first = arrange_openings(openings, shuffle=True, seed=7)
    assert first == arrange_openings(openings, shuffle=True, seed=7)
    assert first != arrange_openings(openings, shuffle=True, seed=8)
    assert first != original and sorted(first, key=lambda o: o.source) == sorted(original, key=lambda o: o.source)
    assert openings == original


# --- random openings --------------------------------------------------------------------------------------------------

def _wins(board: Board, color: int, cells: list[tuple[int, int]]) -> int:
    return sum(1 for x, y in cells if board.is_empty(x, y) and board.judge(x, y, color) == MOVE_WINS)


def assert_balanced(board: Board) -> None:
    """Brute force, independent of the generator: no colour can win at once, and no single move of either colour
    leaves two or more winning cells (which an open three, a broken three or a double four would)."""
    cells = [(x, y) for y in range(board.height) for x in range(board.width)]
    for color in (BLACK, WHITE):
        assert _wins(board, color, cells) == 0, f"{color} can win at once\n{board}"
        for x, y in cells:
            if board.is_empty(x, y):
                board.place(x, y, color)
                assert _wins(board, color, cells) < 2, f"{color} at {x},{y} makes a double threat\n{board}"
                board.undo()


def _board_with(opening: Opening, size: int, rule: int) -> Board:
    board = Board(size, size, rule)
    for x, y in opening.stones:
        assert board.play(x, y) != MOVE_FORBIDDEN, f"black stands on a foul in {opening}"
    return board


def test_random_openings_are_balanced_by_brute_force_check():
    # 20 stones on 9x9 is crowded enough that most unchecked random placements would hold a three or a four.
    for opening in random_openings(6, 9, 9, 0, stones=20, seed=11):
        assert_balanced(_board_with(opening, 9, 0))


def test_random_renju_openings_never_put_black_on_a_foul_and_stay_balanced():
    for opening in random_openings(4, 9, 9, 4, stones=14, seed=5):
        assert_balanced(_board_with(opening, 9, 4))


class _Scripted:
    """Stands in for random.Random: 'draws' the stones in a fixed order."""

    def __init__(self, stones: list[tuple[int, int]]) -> None:
        self.stones = stones

    def sample(self, population, k):
        return self.stones[:k]


def test_a_try_that_would_put_black_on_a_renju_foul_is_dropped():
    # Black builds X.X.XX, then XXX.XX on row 4 -- each quiet under renju, where an overline is no five -- and its
    # next stone, in the gap, would make an overline: a foul. Whites sit in the corners, out of the way.
    blacks = [(1, 4), (3, 4), (5, 4), (6, 4), (2, 4), (4, 4)]
    whites = [(0, 0), (8, 0), (0, 8), (8, 8), (4, 0)]
    order = [stone for pair in zip(blacks, whites) for stone in pair] + blacks[-1:]
    window = [(x, y) for x in range(9) for y in range(9)]
    assert _random_stones(Board(9, 9, 4), window, 10, _Scripted(order)) == order[:10]
    assert _random_stones(Board(9, 9, 4), window, 11, _Scripted(order)) is None


def test_random_openings_are_distinct_near_the_centre_and_labelled():
    openings = random_openings(40, 15, 15, 0)
    assert len({o.stones for o in openings}) == 40
    assert all(len(o.stones) == 3 for o in openings)
    assert all(abs(x - 7) <= 2 and abs(y - 7) <= 2 for o in openings for x, y in o.stones)
    assert [o.source for o in openings[:3]] == ["random:0", "random:1", "random:2"]


def test_random_openings_are_reproducible_from_the_seed():
    assert random_openings(10, 15, 15, 0, seed=3) == random_openings(10, 15, 15, 0, seed=3)
    assert random_openings(10, 15, 15, 0, seed=3) != random_openings(10, 15, 15, 0, seed=4)


def test_shipped_openings_are_balanced():
    for name, size in (("freestyle15-3stone.txt", 15), ("freestyle20-5stone.txt", 20)):
        for opening in load_openings(SHIPPED / name, size, size)[0][:3]:
            assert_balanced(_board_with(opening, size, 0))


def test_impossible_requests_fail_with_a_clear_message():
    with pytest.raises(ValueError, match="do not fit near the centre"):
        random_openings(1, 5, 5, 0, stones=30)
    with pytest.raises(ValueError, match="could only make 25 of 30"):
        random_openings(30, 5, 5, 0, stones=1)   # a 5x5 board has 25 cells for one stone
    with pytest.raises(ValueError, match="count >= 0"):
        random_openings(-1, 15, 15, 0)
