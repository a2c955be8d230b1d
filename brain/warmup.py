"""The warm-up: compile (or load from numba's cache) every compiled function the brain's Python code calls, build
every rule's pattern tables once, then take all of it out of the garbage collector's way -- so that none of these
costs lands inside a move.

The list of what to compile is not kept by hand (a hand-kept list once missed the kernel behind BOARD's field 3, and
the first such BOARD compiled for a second inside its move). It is read from the brain's own source: every call,
outside compiled functions, of a name that is a numba dispatcher is an *entry point* -- ``f(...)``, ``module.f(...)``
or ``kernels.module("monte.brain.x").f(...)`` (how numba-free code reaches kernels). Each entry point is compiled for
the types its annotations give: ``int``, ``bool``, ``float``, the array aliases of ``brain.jit`` (``Int8Array``...),
and the search's tuples, typed from a sample of each (``SAMPLES``). A compiled function that only compiled functions
call needs nothing: numba compiles it with its callers.

``gc.freeze()`` at the end moves every object alive then (numba's compiler holds most of them) out of the collector's
generations: a full collection took ~40 ms before it, more than the safety margin kept below a time limit, and a few
milliseconds after it.
"""

from __future__ import annotations

import ast
import functools
import gc
import importlib
import inspect
import os
import pkgutil
import tempfile
import typing
from collections.abc import Callable
from types import ModuleType
from typing import Any

from monte import brain
from monte.brain import kernels
from monte.brain.board import Board
from monte.brain.cachedir import BRAIN_CACHE_DIR, cache_is_warm, folder_lock, mark_warm
from monte.brain.jit import Dispatcher, typeof, types
from monte.brain.numba_private import can_compile
from monte.brain.patterns import store_every_rule
from monte.brain.position import State, new_state
from monte.brain.settings import Params
from monte.brain.threats import Workspace, new_workspace
from monte.brain.tree import Tree, new_tree
from monte.brain.vct import VctSpace, new_vct_space

ENTRY_POINTS_FILE = "entry-points.txt"

SCALARS: dict[Any, types.Type] = {int: types.int64, bool: types.boolean, float: types.float64}
"""Python's scalar annotations, as numba types the values Python passes have."""


def _sample_state() -> State:
    return new_state(Board(15))


SAMPLES: dict[type, Callable[[], object]] = {
    State: _sample_state,
    Tree: lambda: new_tree(1024),
    Workspace: lambda: new_workspace(_sample_state().cells.shape[0]),
    VctSpace: new_vct_space,
    Params: Params,
}
"""A small value of each tuple type compiled functions take (numba types a tuple from its fields' arrays)."""

_done = False


def warm_up() -> None:
    """Compile every entry point, store every rule's tables, collect and freeze the heap: once per process (the
    protocol calls this at every START). Freezing once, after a collection, keeps garbage out of the frozen part:
    frozen objects are never freed.

    From a cold cache, processes sharing the cache folder take turns (``brain.cachedir.folder_lock``): one compiles
    and marks the folder warm, the others then load what it wrote instead of compiling it again beside it."""
    global _done
    if not _done:
        if cache_is_warm():
            _compile_every_entry_point()
        else:
            with folder_lock(BRAIN_CACHE_DIR):
                _compile_every_entry_point()
                mark_warm()
        gc.collect()
        gc.freeze()
        _done = True


def _compile_every_entry_point() -> None:
    """Compile (or load from the cache) every entry point, and store every rule's tables."""
    for dispatcher in entry_points():
        dispatcher.compile(signature(dispatcher))
    store_every_rule()


def brain_modules() -> list[ModuleType]:
    """Every module of the brain package, imported."""
    return [importlib.import_module(f"{brain.__name__}.{info.name}") for info in pkgutil.iter_modules(brain.__path__)]


def dispatchers() -> list[Dispatcher]:
    """Every compiled function the brain defines."""
    return [value for module in brain_modules() for value in vars(module).values()
            if isinstance(value, Dispatcher) and value.py_func.__module__ == module.__name__]


def entry_points() -> list[Dispatcher]:
    """The compiled functions that Python code of the brain calls by name (see the module docstring), except those
    compiled for explicit signatures when they are defined.

    Reading the source takes a few tenths of a second, so the names found are kept in this source version's cache
    folder (``brain.cachedir.BRAIN_CACHE_DIR``) and read from there by later processes."""
    listed = os.path.join(BRAIN_CACHE_DIR, ENTRY_POINTS_FILE)
    try:
        with open(listed, encoding="utf-8") as names:
            return [_dispatcher_named(name) for name in names.read().split()]
    except (OSError, ImportError, AttributeError):
        pass
    found = find_entry_points()
    try:
        fd, temporary = tempfile.mkstemp(dir=BRAIN_CACHE_DIR, suffix=".part")
        with os.fdopen(fd, "w", encoding="utf-8") as names:
            names.write("\n".join(f"{d.py_func.__module__}:{d.py_func.__name__}" for d in found))
        os.replace(temporary, listed)  # a reader never sees half a list
    except OSError:
        pass
    return found


def find_entry_points() -> list[Dispatcher]:
    """The entry points, read from the brain's source."""
    found: dict[int, Dispatcher] = {}
    for module in brain_modules():
        for node in _python_code(module):
            if isinstance(node, ast.Call):
                target = _resolve(node.func, module)
                if isinstance(target, Dispatcher) and can_compile(target):
                    found[id(target)] = target
    return list(found.values())


def _dispatcher_named(name: str) -> Dispatcher:
    module, _, function = name.partition(":")
    dispatcher = getattr(importlib.import_module(module), function)
    if not isinstance(dispatcher, Dispatcher):
        raise AttributeError(f"{name} is not a compiled function")
    return dispatcher


def _python_code(module: ModuleType) -> typing.Iterator[ast.AST]:
    """Every node of the module's source outside the bodies of its compiled functions."""
    for statement in ast.parse(inspect.getsource(module)).body:
        if isinstance(statement, ast.FunctionDef) and isinstance(vars(module).get(statement.name), Dispatcher):
            continue
        yield from ast.walk(statement)


def _resolve(expression: ast.expr, module: ModuleType) -> object:
    """What a called name (``f``, ``some_module.f`` or ``kernels.module("monte.brain.x").f``) means in `module`, or
    None."""
    if isinstance(expression, ast.Name):
        return vars(module).get(expression.id)
    if isinstance(expression, ast.Attribute):
        base = _resolve(expression.value, module)
        if inspect.ismodule(base):
            return getattr(base, expression.attr, None)
    if isinstance(expression, ast.Call) and _resolve(expression.func, module) is kernels.module:
        name = expression.args[0] if len(expression.args) == 1 else None
        if isinstance(name, ast.Constant) and isinstance(name.value, str):
            return importlib.import_module(name.value)
    return None


def signature(dispatcher: Dispatcher) -> tuple[types.Type, ...]:
    """The numba types of a compiled function's parameters, from its annotations; TypeError names a parameter whose
    annotation says too little (a bare ``np.ndarray``, say)."""
    function = dispatcher.py_func
    hints = typing.get_type_hints(function, include_extras=True)
    return tuple(_numba_type(hints.get(name), f"{function.__module__}.{function.__name__}({name})")
                 for name in inspect.signature(function).parameters)


def _numba_type(hint: object, where: str) -> types.Type:
    if typing.get_origin(hint) is typing.Annotated:
        return hint.__metadata__[0]
    if hint in SCALARS:
        return SCALARS[hint]
    if hint in SAMPLES:
        return _sample_type(hint)
    raise TypeError(f"cannot compile {where} ahead of a game: annotate it with a brain.jit array alias, a scalar or "
                    f"a tuple type of brain.warmup.SAMPLES, not {hint!r}")


@functools.cache
def _sample_type(kind: type) -> types.Type:
    return typeof(SAMPLES[kind]())


if __name__ == "__main__":  # python -m brain.warmup: how a brain compiles in a child process (brain.loading)
    warm_up()
