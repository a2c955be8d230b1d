"""The search info Monte sends with a move, read by a third-party client as the oracle: PyGomo (``pygomo-lib`` from
PyPI), whose parser follows Rapfi's realtime format, the one GUIs read. Monte's lines must read there as the depth,
win rate, nodes, time and line the search found -- every MESSAGE line of a move, not only the last."""

from __future__ import annotations

import math

import pytest
from pygomo.client.engine import EngineClient
from pygomo.protocol.gomocup import GomocupProtocol
from pygomo.protocol.models import BoardPosition, Move

from monte.brain.player import SearchInfo
from monte.protocol.report import EVAL_SCALE, search_messages
from monte.lab import clockcheck

PYGOMO = GomocupProtocol()


def read(text: str):
    """A MESSAGE line as PyGomo reads it."""
    return PYGOMO.parse_search_info("MESSAGE " + text)


def squares(moves) -> list[tuple[int, int]]:
    return [move.to_tuple() for move in moves]


UNDECIDED = SearchInfo(depth=11, seldepth=15, winrate=0.82, nodes=24288, seconds=0.195,
                       pv=[(8, 6), (9, 5), (6, 7)], note="threat")


def test_every_line_of_a_search_reads_as_its_depth_win_rate_and_line():
    for text in search_messages(UNDECIDED, 15):
        info = read(text)
        assert (info.depth, info.sel_depth) == (11, 15), text
        assert squares(info.pv) == UNDECIDED.pv, text
        assert info.winrate == pytest.approx(0.82, abs=0.001), text


def test_the_last_line_reads_as_rapfis_with_nodes_speed_and_time():
    last = search_messages(UNDECIDED, 15)[-1]
    assert last == "depth 11-15 ev 607 n 24288 n/ms 124 tm 195 pv I7 J6 G8"
    info = read(last)
    assert (info.nodes, info.nps, info.time_ms) == (24288, 124, 195)


def test_the_summary_says_the_win_rate_in_per_cent_and_how_the_move_was_found():
    summary = search_messages(UNDECIDED, 15)[0]
    assert summary.startswith("Monte: winrate 82.0%, depth 11-15, 24288 iterations in 195 ms, threat;")


def test_the_summary_says_how_full_the_tree_is_and_still_reads_as_the_same_search():
    info = SearchInfo(depth=11, seldepth=15, winrate=0.82, nodes=24288, seconds=0.195, pv=[(8, 6), (9, 5), (6, 7)],
                      note="searching", tree=0.634)
    summary = search_messages(info, 15)[0]
    assert summary.startswith("Monte: winrate 82.0%, depth 11-15, 24288 iterations in 195 ms, tree 63%, searching;")
    read_back = read(summary)
    assert (read_back.depth, read_back.sel_depth) == (11, 15) and squares(read_back.pv) == info.pv
    assert read_back.winrate == pytest.approx(0.82, abs=0.001)


@pytest.mark.parametrize("mate, evaluation, winning", [(7, "+M7", True), (-3, "-M3", False)])
def test_a_proven_result_reads_as_a_mate_score(mate, evaluation, winning):
    proven = SearchInfo(depth=7, seldepth=7, winrate=1.0 if winning else 0.0, nodes=0, seconds=0.002,
                        pv=[(1, 1)] * 7, mate=mate, note="vcf")
    for text in search_messages(proven, 15):
        info = read(text)
        assert info.eval.raw_value == evaluation and info.eval.is_mate()
        assert (info.eval.is_winning(), info.eval.is_losing()) == (winning, not winning)
        assert info.winrate > 0.99 if winning else info.winrate < 0.01


def test_extreme_win_rates_stay_finite_and_keep_their_side():
    for winrate, sign in ((1.0, 1), (0.0, -1)):
        info = read(search_messages(SearchInfo(3, 5, winrate, 10, 0.01, [(2, 2)]), 15)[-1])
        assert math.isfinite(float(info.eval.raw_value)) and sign * info.eval.score() > 0


def test_boards_wider_than_the_alphabet_get_x_comma_y_moves():
    wide = SearchInfo(depth=2, seldepth=4, winrate=0.6, nodes=100, seconds=0.1, pv=[(27, 3), (0, 30)])
    for text in search_messages(wide, 32):
        assert squares(read(text).pv) == [(27, 3), (0, 30)]
        assert read(text).eval.raw_value == str(round(EVAL_SCALE * math.log(0.6 / 0.4)))


def test_pygomo_driving_the_installed_brain_sees_its_search(warm_pbrain):
    """PyGomo's own client, as a user runs it: the move it gets is the first move of the line it reads, and the
    info it collected during the think reads the same as the last. (A fresh brain's first moves may come from the
    quick player while the engine loads, which has no search to report: the test asks until the engine answers.)"""
    position = BoardPosition()
    for x, y, field in clockcheck.MIDDLE_GAME:
        position.add_move(Move((x, y)), field)
    with EngineClient(warm_pbrain) as engine:
        assert engine.start(15)
        engine.set_time(turn_time_ms=300)
        for _ in range(100):
            result = engine.board(position, timeout=30)
            if result is not None and result.search_info is not None and result.search_info.depth > 0:
                break
    assert result is not None and result.search_info is not None
    info = result.search_info
    assert info.depth >= 1 and info.nodes > 1000 and info.time_ms > 0
    assert info.pv[0] == result.move
    assert 0.0 < info.winrate < 1.0
    assert all((i.depth, i.eval.raw_value, squares(i.pv)) == (info.depth, info.eval.raw_value, squares(info.pv))
               for i in result.all_info)
