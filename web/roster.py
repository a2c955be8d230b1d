"""The engines ``monte gui`` may run: Monte, plus those named on the command line (``--engine NAME=COMMAND``) or in
a config file's ``[[engine]]`` tables (the tournament runner's format, so a tournament's config serves as it is).

The page picks engines by name only: a command typed into the page is never run. Every program is checked (a
``pbrain-monte@REV`` revision installed) when the server starts, so a misspelt command fails then, in one line.
"""

from __future__ import annotations

import sys

from monte.tournaments.config import engines_from_toml, read_toml
from monte.tournaments.engines import EngineError, EngineSpec, prepare
from monte.web.messages import HUMAN

MONTE = EngineSpec("monte", ("pbrain-monte",))


def load_roster(engine_flags: list[str], config: str | None) -> dict[str, EngineSpec]:
    """The engines by name, ready to run: Monte, then the config file's, then the flags' (a later one replaces an
    earlier one of the same name). EngineError (a ValueError) names a bad engine."""
    specs = [MONTE]
    if config:
        specs += engines_from_toml(read_toml(config))
    specs += [EngineSpec.parse(flag) for flag in engine_flags]
    roster: dict[str, EngineSpec] = {}
    for spec in specs:
        if spec.name == HUMAN:
            raise EngineError(f"engine name {HUMAN!r} is taken by the page's person seat: choose another")
        roster[spec.name] = spec
    return {name: prepare(spec, note=lambda text: print(text, file=sys.stderr)) for name, spec in roster.items()}
