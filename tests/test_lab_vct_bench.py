"""The VCT bench (``monte.lab.vct_bench``): the questions it asks of each position, and its report."""

from __future__ import annotations

import json

from monte.lab import vct_bench

# A real game's position (tests/test_vct.py's THREAT_WIN, stones black first): black to move wins by threats.
STONES = [[7, 6], [9, 8], [7, 7], [6, 9], [8, 7], [8, 9]]


def test_each_position_asks_own_threat_and_after_and_the_report_compares_the_searches(tmp_path, capsys):
    """Black wins by threats here; so would white, by a longer sequence, if black passed (or played 0,0, as good as a
    pass): the complete search proves it, the focused one -- whose white threats after the first must stay near
    white's earlier ones -- does not. Two stones leave nothing to prove for either side."""
    positions = tmp_path / "positions.jsonl"
    positions.write_text(json.dumps({"stones": STONES, "width": 15, "height": 15, "rule": 0, "played": [0, 0]}) + "\n"
                         + json.dumps({"stones": STONES[:2], "width": 15, "height": 15, "rule": 0}) + "\n")
    out = tmp_path / "answers.json"
    assert vct_bench.main(["--positions", str(positions), "--nodes", "60000", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("focused: 5 questions, 1 proved, 4 disproved, 0 left open; ")
    assert "\ncomplete: 5 questions, 3 proved, 2 disproved, 0 left open; " in printed
    assert "proved by the focused search only: 0, by the complete one only: 2" in printed
    answers = json.loads(out.read_text())
    expected = {"focused": {(0, "own"): 1, (0, "threat"): 0, (0, "after"): 0, (1, "own"): 0, (1, "threat"): 0},
                "complete": {(0, "own"): 1, (0, "threat"): 1, (0, "after"): 1, (1, "own"): 0, (1, "threat"): 0}}
    for mode, results in expected.items():
        assert {(a["position"], a["question"]): a["result"] for a in answers[mode]} == results
        assert all(0 < a["nodes"] <= 60000 for a in answers[mode])


def test_an_unreadable_file_is_one_line_and_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    assert vct_bench.main(["--positions", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("monte.lab.vct_bench: cannot read")
