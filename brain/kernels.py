"""Where the brain's kernels come from: numba's compiled code, or -- while a process holds compiling back -- the very
same functions run by the Python interpreter.

numba compiles a kernel when it is first called (or loads it from the cache). From a cold cache the brain's kernels
take a minute to compile, and a thread that calls a kernel not compiled yet waits for it (numba compiles one function
at a time, under one lock). ``pbrain-monte`` must answer its manager long before that: it compiles on a loader thread
(``brain.loading``), and until that is done its protocol thread runs the kernels it needs -- the rules behind
``Board``, the baselines' scan behind the quick player (``brain.quick``) -- as plain Python.

``interpreted(name)`` executes a brain module's own source as plain Python: ``brain.jit``'s decorators are replaced
by ones that leave a function as it is, and every module of the brain that uses ``brain.jit`` which that source
imports is loaded the same way (other modules are imported as usual). Nothing is shared with the compiled modules,
nothing imports numba, nothing compiles; being the same source, the functions give the same answers, slowly (a rules
call costs tens of microseconds instead of tens of nanoseconds).

``module(name)`` is what the brain's Python code asks for: the compiled module, unless the process holds compiling
back (``hold()`` until ``release()``), in which case its interpreted twin.
"""

from __future__ import annotations

import builtins
import functools
import importlib
import importlib.util
import re
import threading
from types import ModuleType

import numpy as np

JIT_MODULE = "monte.brain.jit"
BRAIN = "monte.brain"
_USES_JIT = re.compile(r"^(from monte\.brain\.jit import|import monte\.brain\.jit)", re.MULTILINE)

_compiled_allowed = threading.Event()
_compiled_allowed.set()
_loading = threading.RLock()
_interpreted: dict[str, ModuleType] = {}


def hold() -> None:
    """From now on ``module`` gives interpreted modules: this process compiles on another thread only."""
    _compiled_allowed.clear()


def release() -> None:
    """From now on ``module`` gives the compiled modules again (the loader has compiled every kernel)."""
    _compiled_allowed.set()


def module(name: str) -> ModuleType:
    """The brain module `name` as the calling code should use it now: compiled, or interpreted while held."""
    if _compiled_allowed.is_set():
        return importlib.import_module(name)
    return interpreted(name)


def interpreted(name: str) -> ModuleType:
    """Brain module `name` executed from its source as plain Python (see the module docstring); loaded once."""
    with _loading:
        if name not in _interpreted:
            spec = importlib.util.find_spec(name)
            twin = ModuleType(name, f"{name}, interpreted (brain.kernels)")
            twin.__file__ = spec.origin
            twin.__dict__["__builtins__"] = _BUILTINS
            _interpreted[name] = twin  # before it runs, as sys.modules does for an import
            try:
                exec(compile(spec.loader.get_source(name), spec.origin, "exec"), twin.__dict__)
            except BaseException:
                del _interpreted[name]
                raise
        return _interpreted[name]


@functools.cache
def _uses_jit(name: str) -> bool:
    spec = importlib.util.find_spec(name)
    return bool(spec and spec.origin and spec.origin.endswith(".py") and _USES_JIT.search(spec.loader.get_source(name)))


def _import(name, globals=None, locals=None, fromlist=(), level=0):
    """The ``__import__`` of interpreted modules: brain.jit is the plain stand-in, a brain module that uses it is
    interpreted too, anything else is imported as usual."""
    if level == 0 and name == JIT_MODULE:
        return PLAIN_JIT
    if level == 0 and name.startswith(BRAIN + ".") and _uses_jit(name):
        if not fromlist:
            raise ImportError(f"interpreted brain modules import {name} with 'from {name} import ...' only")
        return interpreted(name)
    if level == 0 and name == BRAIN and any(_uses_jit(f"{BRAIN}.{item}") for item in fromlist or ()):
        raise ImportError(f"interpreted brain modules import compiled modules with 'from {BRAIN}.X import ...' only")
    return builtins.__import__(name, globals, locals, fromlist, level)


def _njit(*args, **options):
    """``brain.jit.njit`` that compiles nothing: bare, with options or with a signature, the function stays as it is."""
    if len(args) == 1 and callable(args[0]) and not options:
        return args[0]
    return lambda function: function


PLAIN_JIT = ModuleType(JIT_MODULE, "brain.jit's names for interpreted modules: decorators that compile nothing")
PLAIN_JIT.njit = _njit
PLAIN_JIT.kernel = lambda function: function
PLAIN_JIT.shared_read = lambda array, index: array[index]  # the interpreter reads memory anew every time
for _alias in ("BoolArray", "Int8Array", "UInt8Array", "Int32Array", "Int64Array", "Float32Array"):
    setattr(PLAIN_JIT, _alias, np.ndarray)  # the array annotations of brain.jit: plain numpy arrays here

_BUILTINS = {**vars(builtins), "__import__": _import}
