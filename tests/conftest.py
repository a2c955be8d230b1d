"""Fixtures shared by several test files. Each fixture is its own small function; add yours beside them."""

from __future__ import annotations

import shutil
import subprocess

import pytest

WARMUP_TIMEOUT_S = 300  # a cold numba compile of every engine on a busy machine


def installed(script: str) -> str:
    """The path of an INSTALLED console script (not the source tree's module); a clear failure, never a skip, when
    the package is not installed."""
    path = shutil.which(script)
    if path is None:
        pytest.fail(f"{script} is not on PATH: install the package first with  pip install -e '.[test]'")
    return path


@pytest.fixture(scope="session")
def pbrain_executable() -> str:
    """The installed ``pbrain-monte``."""
    return installed("pbrain-monte")


@pytest.fixture(scope="session")
def monte_executable() -> str:
    """The installed ``monte``."""
    return installed("monte")


@pytest.fixture(scope="session")
def warm_pbrain(pbrain_executable: str) -> str:
    """The installed ``pbrain-monte``, after ``pbrain-monte --warmup`` has compiled or loaded its kernels once,
    so that no test waits for a cold compile."""
    result = subprocess.run(
        [pbrain_executable, "--warmup"], capture_output=True, text=True, timeout=WARMUP_TIMEOUT_S
    )
    if result.returncode != 0:
        pytest.fail(f"pbrain-monte --warmup failed with status {result.returncode}: {result.stderr.strip()}")
    return pbrain_executable
