"""The house's layers, read from the code's own imports: each room imports only rooms below it (data flows one way:
protocol -> brain; tournaments -> protocol client; the tools for people above them), so no package cycle and no
import that runs back up can creep in unnoticed."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAYERS: list[set[str]] = [
    {"brain"},
    {"protocol"},
    {"tournaments"},
    {"cluster", "lab", "small_games"},
    {"analysis"},
    {"play"},
    {"web"},
    {"monte"},
]
"""From the bottom up; rooms on one floor do not import each other."""
FLOOR = {room: level for level, rooms in enumerate(LAYERS) for room in rooms}


def _imported_rooms(path: Path) -> set[str]:
    """The rooms a module imports from (``monte.ROOM...``), lazy imports inside functions included."""
    rooms = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] == "monte" and len(parts) > 1 and parts[1] in FLOOR:
                rooms.add(parts[1])
    return rooms


@pytest.mark.parametrize("room", sorted(FLOOR))
def test_a_room_imports_only_rooms_below_it(room: str) -> None:
    wrong = sorted(f"{path.relative_to(ROOT)} imports monte.{other}"
                   for path in (ROOT / room).rglob("*.py")
                   for other in _imported_rooms(path)
                   if other != room and FLOOR[other] >= FLOOR[room])
    assert not wrong, "imports that run sideways or back up the layers:\n" + "\n".join(wrong)


def test_every_room_of_the_distribution_has_a_floor() -> None:
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    packages = project["tool"]["setuptools"]["packages"]
    assert {name.split(".")[-1] for name in packages} == set(FLOOR)
