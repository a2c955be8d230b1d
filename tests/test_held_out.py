"""Which games a fit may learn from (``monte.lab.held_out``): none from an opening strength is measured on."""

from __future__ import annotations

from monte.lab.held_out import canonical, held_out, learnable
from monte.tournaments.records import GameRecord, Termination


def _record(opening, opening_id="random:0"):
    return GameRecord(game_id=1, pairing=("a", "b"), pair_index=0, black="a", white="b", width=15, height=15, rule=0,
                      opening=[tuple(s) for s in opening], moves=[(0, 0, 5)], winner="a",
                      termination=Termination.FIVE, detail="", opening_id=opening_id)


def test_openings_match_under_the_board_s_symmetries():
    stones = [(7, 7), (8, 8), (8, 6)]
    mirrored = [(14 - x, y) for x, y in stones]
    turned = [(y, x) for x, y in stones]
    assert canonical(stones, 15, 15) == canonical(mirrored, 15, 15) == canonical(turned, 15, 15)
    swapped_colours = [(8, 8), (7, 7), (8, 6)]
    assert canonical(stones, 15, 15) != canonical(swapped_colours, 15, 15)


def test_a_held_out_set_is_known_by_its_file_name():
    assert held_out("freestyle15-balanced-test.txt:12")
    assert not held_out("freestyle15-balanced-fit.txt:12")
    assert not held_out("random:3")


def test_games_from_held_out_openings_are_left_out_by_name_and_by_position(tmp_path):
    excluded = tmp_path / "theirs.txt"
    excluded.write_text("0,0, 1,1, 2,0\n")  # centred: the stones (7,7), (8,8), (9,7)
    by_name = _record([(3, 3), (4, 4), (5, 3)], "mine-test.txt:1")
    by_position = _record([(7, 7), (6, 6), (5, 7)], "random:1")  # the excluded opening, turned
    kept = _record([(3, 3), (4, 4), (5, 3)], "random:2")
    assert learnable([by_name, by_position, kept], [excluded]) == ([kept], 2)
