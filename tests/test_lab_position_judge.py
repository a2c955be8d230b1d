"""The judge's reader (``monte.lab.position_judge``): Rapfi's realtime lines -- evaluations, mates and node counts with
their K/M suffixes -- read for the side to move. No engine is run here."""

from __future__ import annotations

from monte.lab.position_judge import MATE_SCORE, parse_verdict


def test_an_evaluation_and_a_node_count_with_a_suffix():
    lines = ["MESSAGE Speed 403K | Depth 15-14 | Eval -137 | Node 18K | Time 46ms", "MESSAGE Bestline J6 K7"]
    verdict = parse_verdict(lines, (9, 5))
    assert (verdict.eval, verdict.mate, verdict.nodes, verdict.move) == (-137, 0, 18_000, (9, 5))


def test_the_last_evaluation_counts():
    lines = ["MESSAGE Speed 1M | Depth 6-9 | Eval 12 | Node 1089 | Time 1ms",
             "MESSAGE Speed 1.2M | Depth 9-15 | Eval 40 | Node 1.5M | Time 900ms"]
    verdict = parse_verdict(lines, (7, 7))
    assert (verdict.eval, verdict.nodes) == (40, 1_500_000)


def test_mates_for_and_against_the_side_to_move():
    won = parse_verdict(["MESSAGE Speed 578K | Depth 7-17 | Eval +M13 | Node 3470 | Time 6ms"], (1, 1))
    lost = parse_verdict(["MESSAGE Speed 578K | Depth 7-17 | Eval -M8 | Node 3470 | Time 6ms"], (1, 1))
    assert (won.mate, won.eval) == (13, MATE_SCORE - 13)
    assert (lost.mate, lost.eval) == (-8, -(MATE_SCORE - 8))


def test_no_evaluation_no_verdict():
    assert parse_verdict(["MESSAGE Bestline J6 K7", "DEBUG hello"], (0, 0)) is None
