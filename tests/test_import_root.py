"""The house as installed and as layered: one top-level package (``monte``), a ``monte --help`` and every
``monte COMMAND --help`` that load no numba, and rooms that import only the rooms below them."""

from __future__ import annotations

import ast
import importlib.metadata
import subprocess
import sys
from pathlib import Path

import pytest

from monte.cli import COMMANDS

REPO = Path(__file__).resolve().parent.parent
TIMEOUT_S = 120  # a Python start-up on a loaded machine; the help itself takes no time

LAYERS = ["monte.errors", "brain", "protocol", "tournaments", "cluster", "lab", "analysis", "small_games", "play",
          "web", "monte.tournament_command", "monte.package_command", "monte.cli", "monte.__main__"]
"""The rooms from the bottom up (a folder, or a module of ``monte/``): each imports only rooms before it."""

ROOMS = [name for name in LAYERS if not name.startswith("monte.")]


def test_the_installed_distribution_holds_one_top_level_package() -> None:
    distribution = importlib.metadata.distribution("monte-gomoku")
    assert (distribution.read_text("top_level.txt") or "").split() == ["monte"]


@pytest.mark.parametrize("room", ROOMS)
def test_a_room_imports_as_a_subpackage_of_monte_only(room: str, tmp_path: Path) -> None:
    # run away from the checkout, whose folders would otherwise be found on the path as top-level packages
    probe = (f"import importlib, importlib.util; importlib.import_module('monte.{room}'); "
             f"print(importlib.util.find_spec('{room}') is None)")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path,
                            timeout=TIMEOUT_S)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True"], f"'import {room}' works: the install put {room} at the top level"


@pytest.mark.parametrize("words", [[]] + [[command.name] for command in COMMANDS],
                         ids=lambda words: " ".join(["monte", *words, "--help"]))
def test_help_imports_no_numba(words: list[str], monte_executable: str) -> None:
    result = subprocess.run([sys.executable, "-X", "importtime", monte_executable, *words, "--help"],
                            capture_output=True, text=True, timeout=TIMEOUT_S)
    assert result.returncode == 0, result.stderr
    assert "usage: monte" in result.stdout
    imported = [line.rsplit("|", 1)[-1].strip() for line in result.stderr.splitlines() if "|" in line]
    assert len(imported) > 10, "no -X importtime report: the check would see nothing"
    assert [name for name in imported if name.split(".")[0] == "numba"] == []


def _room(module: str) -> str | None:
    """The room of an imported module name: ``monte.brain.board`` -> ``brain``, ``monte.cli.main`` -> ``monte.cli``;
    None outside the project."""
    parts = module.split(".")
    if parts[0] != "monte":
        return None
    if len(parts) > 1 and parts[1] in ROOMS:
        return parts[1]
    return ".".join(parts[:2])


def _imports(path: Path, package: str) -> set[str]:
    """Every module `path` imports, at its top or inside a function, as absolute names."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + [base]).strip(".")
            names.update(f"{base}.{alias.name}" for alias in node.names)  # a name may be a submodule
    return names


def _room_files() -> dict[str, list[Path]]:
    files = {room: sorted((REPO / room).glob("*.py")) for room in ROOMS}
    files.update({name: [REPO / "monte" / f"{name.split('.')[1]}.py"] for name in LAYERS if name.startswith("monte.")})
    return files


def test_every_module_of_the_project_has_a_place_in_the_layers() -> None:
    placed = {path for paths in _room_files().values() for path in paths}
    present = {path for room in ROOMS for path in (REPO / room).glob("*.py")} | set((REPO / "monte").glob("*.py"))
    assert sorted(str(p.relative_to(REPO)) for p in present - placed) == ["monte/__init__.py"]


def test_rooms_import_only_the_rooms_below_them() -> None:
    upward = []
    for room, paths in _room_files().items():
        below = set(LAYERS[: LAYERS.index(room) + 1])
        package = f"monte.{room}" if room in ROOMS else "monte"
        for path in paths:
            for name in _imports(path, package):
                target = _room(name)
                if target in LAYERS and target not in below:
                    upward.append(f"{path.relative_to(REPO)} imports {name} ({target} is above {room})")
    assert upward == []
