"""A real tournament from the shipped demo config (Monte against its greedy and random baselines): it finishes,
every game ends on the board (no faults), no engine process is left, and Monte scores well above both."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from tournament_support import processes_in
from monte.tournaments.config import build_config, read_toml
from monte.tournaments.records import Termination
from monte.tournaments.report import engine_tallies
from monte.tournaments.runner import run_tournament

DEMO = Path(__file__).resolve().parents[1] / "tournaments" / "configs" / "demo.toml"


def test_monte_beats_its_baselines_in_the_demo_tournament(tmp_path, warm_pbrain):
    config = build_config(read_toml(DEMO), {"out": str(tmp_path / "out"), "games": 2})
    engines_cwd = tmp_path / "engines"
    engines_cwd.mkdir()
    config = replace(config, engines=tuple(replace(e, cwd=str(engines_cwd)) for e in config.engines))

    result = run_tournament(config)

    assert len(result.records) == 4 and not result.interrupted
    for game in result.records:
        assert game.termination in (Termination.FIVE, Termination.DRAW_FULL), game.detail
    tallies = engine_tallies(result.records, ["monte", "greedy", "random"])
    assert tallies["monte"].score >= 3.5
    assert processes_in(engines_cwd) == []
