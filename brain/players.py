"""The registry of engines the brain can play with: one name per player, chosen by ``pbrain-monte --engine``.

Every engine is built through ``make_player`` so the protocol loop, the warm-up and the tournament tools all
agree on the names.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from brain.baselines import GreedyPlayer, RandomPlayer
from brain.engine import MctsPlayer, configure
from brain.player import Player
from brain.uct import UctPlayer

DEFAULT_ENGINE = "mcts"
"""The engine ``pbrain-monte`` plays when no ``--engine`` is given."""

def _mcts(seed: int | None, settings: dict[str, str]) -> Player:
    params, options = configure(settings)
    return MctsPlayer(params, options)  # the search is deterministic: no seed


_FACTORIES: dict[str, Callable[[int | None], Player]] = {
    "mcts": lambda seed: MctsPlayer(),
    "greedy": lambda seed: GreedyPlayer(),
    "random": RandomPlayer,
    "uct": lambda seed: UctPlayer(seed=seed),
}


def engine_names() -> list[str]:
    """The engine names ``make_player`` knows, sorted."""
    return sorted(_FACTORIES)


def make_player(name: str, seed: int | None = None, settings: dict[str, str] | None = None) -> Player:
    """A new player of engine `name`; `seed` makes a random engine reproducible (deterministic ones ignore it);
    `settings` (name -> value text) tune the mcts engine (see ``brain.engine.configure``). ValueError names what
    is wrong."""
    try:
        factory = _FACTORIES[name]
    except KeyError:
        raise ValueError(f"unknown engine {name!r}; choose one of {', '.join(engine_names())}") from None
    if settings:
        if name != "mcts":
            raise ValueError(f"engine {name!r} has no settings; only mcts does")
        return _mcts(seed, settings)
    return factory(seed)


def warm_up_all() -> tuple[list[str], float]:
    """Compile (or load from the cache) every engine's kernels; returns the engine names and the seconds taken."""
    started = time.monotonic()
    names = engine_names()
    for name in names:
        make_player(name).warm_up()
    return names, time.monotonic() - started
