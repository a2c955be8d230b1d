"""The ``monte bench``, ``monte warmup`` and ``monte clock`` subcommands, run as a user runs them (the installed console
script)."""

from __future__ import annotations

import json
import subprocess


def test_bench_reports_every_engine_on_every_position_with_the_ratios(monte_executable: str, warm_pbrain: str) -> None:
    out = subprocess.run([monte_executable, "bench", "--seconds", "0.05", "--repeats", "1", "--json"],
                         capture_output=True, text=True, timeout=300, check=True).stdout
    report = json.loads(out)
    lines = {(r["engine"], r["position"]): r["iterations_per_second"] for r in report["results"]}
    positions = {"15x15 opening", "15x15 middle game", "20x20 middle game"}
    assert set(lines) == {(e, p) for e in ("mcts", "mcts0", "uct") for p in positions}
    assert all(speed > 0 for speed in lines.values())
    assert set(report["over_uct"]) == {"mcts", "mcts0"}
    for engine, ratios in report["over_uct"].items():
        assert ratios == {p: lines[engine, p] / lines["uct", p] for p in positions}


def test_bench_iterations_reports_cpu_seconds_and_the_tree_of_each_monte_evaluation(monte_executable: str,
                                                                                    warm_pbrain: str) -> None:
    out = subprocess.run([monte_executable, "bench", "--iterations", "3000", "--repeats", "2", "--json"],
                         capture_output=True, text=True, timeout=300, check=True).stdout
    runs = json.loads(out)["fixed_iterations"]
    positions = {"15x15 opening", "15x15 middle game", "20x20 middle game"}
    assert {(r["engine"], r["position"]) for r in runs} == {(e, p) for e in ("mcts", "mcts0") for p in positions}
    assert all(r["iterations"] == 3000 and len(r["runs"]) == 2 and r["cpu_seconds"] > 0 for r in runs)
    digests = {(r["engine"], r["position"]): r["tree_digest"] for r in runs}
    assert len(set(digests.values())) == len(digests)  # two evaluations, three positions: six trees


def test_bench_iterations_rejects_a_count_below_one(monte_executable: str) -> None:
    done = subprocess.run([monte_executable, "bench", "--iterations", "0"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2
    assert "whole number of iterations" in done.stderr and "Traceback" not in done.stderr


def test_fixed_iterations_grow_the_same_tree_every_time_and_a_longer_search_another() -> None:
    """The digest is what lets two builds be compared on equal trees: it must repeat, and it must see a change."""
    from monte.brain.bench import board_of, fixed_iterations

    board = board_of("15x15 middle game")
    first = fixed_iterations(board, 2000)
    again = fixed_iterations(board, 2000)
    longer = fixed_iterations(board, 2100)
    assert first[0] == again[0] == 2000 and longer[0] == 2100
    assert first[2] == again[2] != longer[2]


def test_bench_positions_are_unfinished_games() -> None:
    """A benchmark position the solver proves at once would measure an idle search."""
    from monte.brain.bench import POSITIONS, board_of
    from monte.brain.limits import new_limits
    from monte.brain.mcts import search
    from monte.brain.position import new_state
    from monte.brain.settings import Params
    from monte.brain.threats import new_workspace
    from monte.brain.tree import new_tree
    from monte.brain.vct import new_vct_space

    for name in POSITIONS:
        board = board_of(name)
        st = new_state(board)
        tree = new_tree(4 * 2**20)
        done = search(st, tree, board.to_move, 5000, Params(), new_workspace(st.cells.shape[0]), new_vct_space(),
                      new_limits())
        assert done == 5000 and tree.proven[0] == 0, name


def test_warmup_names_every_engine(monte_executable: str, warm_pbrain: str) -> None:
    out = subprocess.run([monte_executable, "warmup"], capture_output=True, text=True, timeout=300, check=True).stdout
    assert out.startswith("monte warmup:") and all(name in out for name in ("mcts", "uct", "greedy", "random"))


def test_clock_refuses_a_count_below_one(monte_executable: str) -> None:
    result = subprocess.run([monte_executable, "clock", "--count", "0"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "--count must be at least 1" in result.stderr


def test_clock_rows_give_the_limits_median_worst_and_worst_lateness() -> None:
    from monte.lab.clockcheck import PathResult

    turn = PathResult("turn", [(100.0, 200), (300.0, 200), (150.0, 200)])
    assert turn.row() == "| turn | 200 | 3 | 150 | 300 | +100 |"
    assert PathResult("clock", [(10.0, 300), (20.0, 100)]).row() == "| clock | 100-300 | 2 | 15 | 20 | -80 |"
    assert PathResult("stop", [(1.0, None), (3.0, None)]).row() == "| stop | - | 2 | 2 | 3 | - |"
