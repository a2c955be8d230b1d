"""The proof check (``monte.lab.proofs``): which proved nodes of a grown tree it takes -- the first proved one on each
path, reached through unproved nodes -- and how it reads the judge's word on them. The judge is scripted here."""

from __future__ import annotations

from monte.brain.bench import board_of
from monte.brain.mcts import find_child
from monte.lab import blunders, proofs

POSITION = "20x20 middle game"   # its tree proves dozens of nodes in its first 30,000 iterations


def test_proved_nodes_are_the_first_proof_on_each_path_and_lead_there_by_legal_moves():
    board = board_of(POSITION)
    tree = proofs.grown_tree(board, 30_000)
    found = proofs.proved_nodes(board, tree)
    assert len(found) > 10
    lines = {tuple(node.line) for node in found}
    for node in found:
        assert node.proof in (1, -1) and node.visits > 0
        replay = board.copy()
        at = 0
        for depth, (x, y) in enumerate(node.line):
            replay.play(x, y)  # raises on an occupied cell
            at = int(find_child(tree, at, board.index(x, y)))
            assert at >= 0
            if depth < len(node.line) - 1:
                assert tree.proven[at] == 0          # reached through unproved nodes
                assert tuple(node.line[:depth + 1]) not in lines
        assert int(tree.proven[at]) == node.proof


def test_the_judges_mate_confirms_or_refutes_a_proof_and_no_mate_leaves_it_unconfirmed(monkeypatch):
    """The scripted judge sees a forced win for the side to move after an odd number of plies from the position, a
    loss after an even number past 2, and nothing after 2."""
    def verdict_after(judge_cmd, nodes, stones, width, height, rule):
        plies = len(stones) - len(board.history)
        if plies == 2:
            return 0, -500, 1
        return (9, 800, 0) if plies % 2 else (-9, -800, 0)
    board = board_of(POSITION)
    monkeypatch.setattr(blunders, "verdict_after", verdict_after)
    position = {"stones": [[m.x, m.y] for m in board.history], "width": 20, "height": 20, "rule": 0}
    lines: list[str] = []
    checks = proofs.check_proofs(["judge"], 1000, [position], 30_000, 40, report=lines.append)
    assert checks
    for check in checks:
        plies = len(check.line)
        if plies == 2:
            assert check.verdict == "unconfirmed"
        else:
            wins = plies % 2 == 1
            assert check.verdict == ("confirmed" if wins == (check.proof > 0) else "refuted")
    listed = [line for line in lines if " after " in line]
    assert len(listed) == sum(check.verdict != "confirmed" for check in checks)
    assert lines[-1].startswith("position 0: ")
    assert proofs.summary(checks).startswith(f"{len(checks)} proofs checked: ")


def test_an_unreadable_positions_file_is_one_line_and_exit_status_2(tmp_path, capsys):
    assert proofs.main(["--judge", "rapfi", "--positions", str(tmp_path / "none.jsonl")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cannot read" in err[0]
