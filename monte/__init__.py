"""Monte: a Gomocup Gomoku engine (an anytime MCTS under numba), its tournament runner and the tools around them.

The one import root of the distribution. Its rooms are folders at the top of the repository, installed as
subpackages (see ``[tool.setuptools.package-dir]`` in pyproject.toml), from the bottom up:

- ``monte.brain``: the engine -- rules, board, patterns, search, the time and memory budget, the baselines;
- ``monte.protocol``: the Gomocup protocol, both sides (the brain's stdin/stdout loop, the manager-side client);
- ``monte.tournaments``: the tournament runner (engines, schedules, referee, statistics, records);
- ``monte.cluster``: the runner's games on a Dask cluster;
- ``monte.lab``: tools for Monte's own developers (fitting the evaluation, checking the clock);
- ``monte.analysis``, ``monte.play``, ``monte.web``, ``monte.small_games``: the tools for people;
- ``monte.cli``: the ``monte`` command, above them all.

Run from a source checkout without installing (``python -m monte ...`` in the repository's folder), this package
is the ``monte/`` folder alone; the rooms beside it are then found on its path, as an install would place them.
"""

from __future__ import annotations

from pathlib import Path

_CHECKOUT = Path(__file__).resolve().parent.parent
if (_CHECKOUT / "pyproject.toml").is_file() and (_CHECKOUT / "brain" / "__init__.py").is_file():
    __path__.append(str(_CHECKOUT))  # noqa: F821 -- a package's own __path__: monte.brain is ./brain in a checkout
