"""The runner's seam to where games are played: a game reported twice is logged and counted once, a pool with no
room yet is waited for, the progress line counts the games playing once the pool is refilled, and a run without a
cluster never imports Dask."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest

from tournament_support import FAKE_BRAIN, config, fake
from monte.tournaments.config import ConfigError, build_config
from monte.tournaments.pool import LocalPool
from monte.tournaments.records import read_jsonl
from monte.tournaments.runner import RunError, run_tournament


class EchoingPool(LocalPool):
    """A local pool that hands every record back twice, as a cluster could after a retry."""

    def completed(self, timeout_s):
        return [record for record in super().completed(timeout_s) for _ in range(2)]


class LatePool(LocalPool):
    """A local pool with no room for its first few polls, as a cluster whose workers have not joined yet."""

    def __init__(self, concurrency: int, empty_polls: int) -> None:
        super().__init__(concurrency)
        self.empty_polls = empty_polls

    def capacity(self):
        if self.empty_polls:
            self.empty_polls -= 1
            return 0
        return super().capacity()


def test_a_game_reported_twice_is_logged_and_counted_once(tmp_path):
    engines = [fake("good"), fake("bad", "crash", "--at", "3")]
    result = run_tournament(config(tmp_path / "out", engines, games=4, concurrency=2), pool=EchoingPool(2))
    assert sorted(record.game_id for record in result.records) == [1, 2, 3, 4]
    assert sorted(record.game_id for record in read_jsonl(tmp_path / "out" / "games.jsonl")) == [1, 2, 3, 4]


def test_a_pool_without_room_yet_is_waited_for(tmp_path):
    engines = [fake("one"), fake("two")]
    pool = LatePool(1, empty_polls=3)
    result = run_tournament(config(tmp_path / "out", engines, games=2), pool=pool)
    assert pool.empty_polls == 0 and len(result.records) == 2


def test_the_progress_line_counts_the_games_playing_after_the_refill(tmp_path):
    """Two at a time, four games: when the first finishes the next one has started (2 playing, not the gap's 1),
    and the last line has none left."""
    progress = io.StringIO()
    run_tournament(config(tmp_path / "out", [fake("one"), fake("two")], games=4, concurrency=2), progress=progress)
    lines = [line for line in progress.getvalue().splitlines() if "playing" in line]
    assert lines[0].endswith(", 2 playing") and lines[-1].endswith(", 0 playing")
    assert lines[-1].startswith("[####################] 4/4 games")


def test_a_config_naming_a_cluster_needs_its_pool(tmp_path):
    with pytest.raises(RunError, match="names the cluster 'local:2': pass its pool"):
        run_tournament(config(tmp_path / "out", [fake("one"), fake("two")], cluster="local:2"))


@pytest.mark.parametrize("address", ["local:0", "local:", "localhost:8786", "tcp://", "two"])
def test_a_bad_cluster_address_is_refused(address):
    engines = {"engine": [{"name": "a", "command": "pbrain-a"}, {"name": "b", "command": "pbrain-b"}]}
    with pytest.raises(ConfigError, match=r"\[tournament\] cluster: must be a scheduler address"):
        build_config(engines, {"cluster": address})


def test_a_run_without_a_cluster_never_imports_dask(tmp_path):
    brain = f"{sys.executable} {FAKE_BRAIN}"
    script = (
        "import sys\n"
        "from monte.cli import main\n"
        f"status = main(['tournament', '--engine', 'a={brain}', '--engine', 'b={brain}', '--games', '2',\n"
        f"               '--timeout-turn-ms', '2000', '--out', {str(tmp_path / 'out')!r}])\n"
        "loaded = sorted(set(sys.modules) & {'dask', 'distributed', 'monte.cluster'})\n"
        "print(status, loaded)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.stdout.splitlines()[-1] == "0 []", done.stderr
    assert len(read_jsonl(tmp_path / "out" / "games.jsonl")) == 2
