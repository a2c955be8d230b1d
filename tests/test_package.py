"""``monte package``: the brain as one zip that runs with no Python, numpy or numba installed and no cache.

Building the zip takes minutes (PyInstaller, then the frozen brain's compile of every kernel: 4-6 min on this 2-core
machine under load), too long for every run of the suite: the whole package is tested with MONTE_TEST_PACKAGE=1 in
the environment and PyInstaller installed (``pip install '.[package]'``; ``pytest -ra`` names the test it skips
otherwise), and its pieces always -- the zip's layout,
the sources it freezes, the frozen brain's cache folder, portable code and compile children, and the cache locator
that lets a cache compiled in one folder serve in another.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from monte import package_command
from monte.brain import cachedir, jit, loading, mcts
from monte.protocol import brain_main

PACKAGE_TIMEOUT_S = 1800
MAX_MEMORY = 350 * 2**20


def test_the_zip_holds_the_folder_at_its_root_with_each_files_mode(tmp_path):
    folder = tmp_path / "dist"
    (folder / "_internal").mkdir(parents=True)
    (folder / "pbrain-monte").write_bytes(b"#!/bin/sh\n")
    (folder / "pbrain-monte").chmod(0o755)
    (folder / "_internal" / "lib.so").write_bytes(b"x" * 1000)
    package_command.write_zip(folder, tmp_path / "monte.zip")
    with zipfile.ZipFile(tmp_path / "monte.zip") as archive:
        assert sorted(archive.namelist()) == ["_internal/lib.so", "pbrain-monte"]
        assert stat.S_IMODE(archive.getinfo("pbrain-monte").external_attr >> 16) == 0o755
    assert not list(tmp_path.glob("*.part"))


def test_the_frozen_sources_are_the_brains_own_as_plain_files(tmp_path):
    site = package_command.copy_sources(tmp_path)
    assert (site / "monte" / "brain" / "mcts.py").read_bytes() == Path(mcts.__file__).read_bytes()
    assert (site / "monte" / "protocol" / "brain_main.py").is_file()
    assert (site / "monte" / "__init__.py").is_file()


def test_a_frozen_brain_keeps_its_cache_in_its_own_folder_and_compiles_for_a_generic_cpu(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", str(tmp_path / "pbrain-monte"))
    monkeypatch.delenv("MONTE_CACHE_DIR", raising=False)
    monkeypatch.delenv("NUMBA_CPU_NAME", raising=False)
    assert cachedir.cache_dir("abc") == str(tmp_path / cachedir.FROZEN_CACHE / "numba-abc")
    brain_main.use_portable_code()
    assert os.environ["NUMBA_CPU_NAME"] == "generic"
    assert loading.compile_child_command() == [sys.executable, "--compile-child", str(os.getpid())]


def test_the_brains_functions_are_cached_by_its_fingerprint_not_by_their_folder():
    locator = jit.BrainCacheLocator.from_function(mcts.search.py_func, mcts.__file__)
    assert locator.get_cache_path() == os.path.join(cachedir.BRAIN_CACHE_DIR, jit.KERNELS)
    assert locator.get_source_stamp() == cachedir.SOURCE_FINGERPRINT
    assert jit.BrainCacheLocator.from_function(pytest.fail, pytest.__file__) is None  # not the brain's: numba's


@pytest.fixture(scope="session")
def package(tmp_path_factory, monte_executable) -> Path:
    """``monte package`` built once and unzipped into an empty folder."""
    if os.environ.get("MONTE_TEST_PACKAGE") != "1":
        pytest.skip("building the package takes minutes: set MONTE_TEST_PACKAGE=1 to test it whole")
    work = tmp_path_factory.mktemp("package")
    result = subprocess.run([monte_executable, "package", "-o", str(work / "monte.zip")], capture_output=True,
                            text=True, timeout=PACKAGE_TIMEOUT_S)
    assert result.returncode == 0, result.stderr
    unpacked = work / "unpacked"
    subprocess.run(["unzip", "-q", str(work / "monte.zip"), "-d", str(unpacked)], check=True)
    return unpacked


def test_the_package_plays_the_judges_way_with_its_shipped_compiled_engine(package, tmp_path):
    from monte.brain import kernels
    from monte.lab.judge import play

    home, temporary = tmp_path / "home", tmp_path / "tmp"
    home.mkdir()
    temporary.mkdir()
    before = sorted(str(path) for path in package.rglob("*"))
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "TMPDIR": str(temporary)}
    kernels.hold()  # the referee's rules interpreted here: nothing compiles in this process
    try:
        run = play([str(package / "pbrain-monte")], 4, env, timeout_turn_ms=2000, max_memory=MAX_MEMORY)
    finally:
        kernels.release()
    # the engine's search line, not "quick: ...": from the first move unless the start-up and the load outlast it
    assert any(move.message.startswith("MESSAGE depth ") for move in run.moves), run.moves
    assert max(move.tree_uss for move in run.moves) < MAX_MEMORY
    assert run.exit_status == 0 and run.survivors == []
    assert not any(home.iterdir())
    assert sorted(str(path) for path in package.rglob("*")) == before  # its shipped cache served: nothing compiled
    shutil.rmtree(temporary)
