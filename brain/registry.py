"""The registry of engines the brain can play with: one name per player, chosen by ``pbrain-monte --engine``.

Every engine is built through ``make_player`` so the protocol loop, the warm-up and the tournament tools all
agree on the names. The engines' modules are imported when one is made, not with this module: ``pbrain-monte``
reads the names before it loads the compiler.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from monte.brain.player import Player
from monte.brain.settings import configure

DEFAULT_ENGINE = "mcts"
"""The engine ``pbrain-monte`` plays when no ``--engine`` is given."""


def _mcts(seed: int | None, settings: dict[str, str]) -> Player:
    from monte.brain.engine import MctsPlayer

    return MctsPlayer(*configure(settings))  # the search is deterministic: no seed


def _greedy(seed: int | None, settings: dict[str, str]) -> Player:
    from monte.brain.baselines import GreedyPlayer

    return GreedyPlayer()


def _random(seed: int | None, settings: dict[str, str]) -> Player:
    from monte.brain.baselines import RandomPlayer

    return RandomPlayer(seed)


def _uct(seed: int | None, settings: dict[str, str]) -> Player:
    from monte.brain.uct import UctPlayer

    return UctPlayer(seed=seed)


_FACTORIES: dict[str, Callable[[int | None, dict[str, str]], Player]] = {
    "mcts": _mcts,
    "greedy": _greedy,
    "random": _random,
    "uct": _uct,
}


def engine_names() -> list[str]:
    """The engine names ``make_player`` knows, sorted."""
    return sorted(_FACTORIES)


def check_settings(name: str, settings: dict[str, str]) -> None:
    """ValueError, naming what is wrong, unless engine `name` exists and takes `settings` (name -> value text; only
    the mcts engine has any, see ``brain.settings.configure``)."""
    if name not in _FACTORIES:
        raise ValueError(f"unknown engine {name!r}; choose one of {', '.join(engine_names())}")
    if settings:
        if name != "mcts":
            raise ValueError(f"engine {name!r} has no settings; only mcts does")
        configure(settings)


def make_player(name: str, seed: int | None = None, settings: dict[str, str] | None = None) -> Player:
    """A new player of engine `name`; `seed` makes a random engine reproducible (deterministic ones ignore it);
    `settings` tune the mcts engine (see ``check_settings``). ValueError names what is wrong."""
    settings = settings or {}
    check_settings(name, settings)
    return _FACTORIES[name](seed, settings)


def warm_up_all() -> tuple[list[str], float]:
    """Compile (or load from the cache) every engine's kernels; returns the engine names and the seconds taken."""
    started = time.monotonic()
    names = engine_names()
    for name in names:
        make_player(name).warm_up()
    return names, time.monotonic() - started
