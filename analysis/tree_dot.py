"""The top of Monte's search tree in Graphviz DOT, as the tree-search article drew it: one box per node with its
move, visits and win rate, children ranked by visits from left to right. ``dot`` (Graphviz) renders it when
installed."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from monte.protocol.notation import point_name
from monte.brain.search_view import TreeNode


def tree_dot(root: TreeNode, height: int) -> str:
    """`root` and the nodes below it as a DOT digraph; points are named for a board `height` rows high."""
    lines = ["digraph monte {", '  node [shape=box, fontname="sans-serif"];', "  ordering=out;"]
    counter = 0

    def add(node: TreeNode, parent: int | None) -> None:
        nonlocal counter
        name = counter
        counter += 1
        move = "root" if node.move is None else point_name(*node.move, height)
        proof = {1: "\\nlost for the side that moved", -1: "\\nwon for the side that moved"}.get(node.proven, "")
        rate = "" if node.move is None else f"\\n{100 * node.winrate:.1f}%"
        lines.append(f'  n{name} [label="{move}\\n{node.visits} visits{rate}{proof}"];')
        if parent is not None:
            lines.append(f"  n{parent} -> n{name};")
        for child in node.children:
            add(child, name)

    add(root, None)
    lines.append("}")
    return "\n".join(lines) + "\n"


def render_dot(dot_path: Path) -> Path | None:
    """``dot -Tsvg`` next to `dot_path` (same name, .svg) when Graphviz is installed; the SVG's path, or None
    without Graphviz. ValueError if dot fails."""
    tool = shutil.which("dot")
    if tool is None:
        return None
    svg = dot_path.with_suffix(".svg")
    result = subprocess.run([tool, "-Tsvg", str(dot_path), "-o", str(svg)], capture_output=True, text=True)
    if result.returncode != 0:
        raise ValueError(f"dot failed: {result.stderr.strip()}")
    return svg
