"""The schedule: round-robin and gauntlet pairings, pairs with colours swapped on one opening, openings cycled per
pairing, and a schedule that is the same every time it is built (resume depends on it)."""

from __future__ import annotations

from collections import Counter

import pytest

from monte.tournaments.openings import Opening
from monte.tournaments.scheduler import EMPTY_OPENING, pairings, schedule

BOOK = [Opening(((7, 7),), "book:1"), Opening(((7, 7), (8, 8), (6, 8)), "book:2"), Opening(((1, 1),), "book:3")]


def test_round_robin_meets_every_two_engines_and_gauntlet_only_the_first():
    assert pairings(["a", "b", "c"], "round-robin") == [("a", "b"), ("a", "c"), ("b", "c")]
    assert pairings(["a", "b", "c"], "gauntlet") == [("a", "b"), ("a", "c")]


def test_games_come_in_pairs_with_colours_swapped_on_one_opening():
    games = schedule(["a", "b", "c"], "round-robin", BOOK, games=4, rounds=2)
    assert len(games) == 3 * 4 * 2
    by_pair: dict[int, list] = {}
    for game in games:
        by_pair.setdefault(game.pair_index, []).append(game)
    for first, second in by_pair.values():
        assert (first.black, first.white) == (second.white, second.black) == first.pairing
        assert first.opening == second.opening


def test_each_pairing_walks_the_same_openings_in_order():
    games = schedule(["a", "b", "c"], "gauntlet", BOOK, games=4, rounds=2)
    for pairing in [("a", "b"), ("a", "c")]:
        sources = [g.opening.source for g in games if g.pairing == pairing and g.black == pairing[0]]
        assert sources == ["book:1", "book:2", "book:3", "book:1"]


def test_every_engine_plays_black_as_often_as_white():
    games = schedule(["a", "b", "c", "d"], "round-robin", [], games=2, rounds=3)
    assert Counter(g.black for g in games) == Counter(g.white for g in games)
    assert {g.opening for g in games} == {EMPTY_OPENING}


def test_game_ids_run_from_one_and_the_schedule_is_reproducible():
    first = schedule(["a", "b"], "round-robin", BOOK, games=6, rounds=1)
    assert [g.game_id for g in first] == list(range(1, 7))
    assert schedule(["a", "b"], "round-robin", BOOK, games=6, rounds=1) == first


def test_an_odd_number_of_games_is_refused():
    with pytest.raises(ValueError, match="even"):
        schedule(["a", "b"], "round-robin", BOOK, games=3, rounds=1)
