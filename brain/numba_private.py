"""Every part of numba the brain uses that numba does not promise to keep, in one place.

numba's public interface (``njit``, ``typeof``, ``types``, ``intrinsic``) does not give the brain five things it
needs: kernels compiled without the reference-counting runtime (the option ``_nrt``; see ``brain.jit.kernel``), the
class of a compiled function and whether it may still compile (the warm-up finds and compiles the entry points), a
read of a slot that another thread writes which the compiler must make anew every time (the search's stop flag; see
``shared_read``), a hint to fetch memory ahead of its read (``prefetch``), and a say in where a function's cache is
filed (``CacheLocator``, ``add_cache_locator``; see ``brain.jit.BrainCacheLocator``). They are reached here only, and
``tests/test_numba_private.py`` checks each against the installed numba, so that a numba release that changes one
fails there, by name, rather than somewhere in a search. pyproject pins numba to the versions tested.
"""

from __future__ import annotations

from typing import Any, Callable

import numba
from llvmlite import ir
from numba.core import caching, cgutils, types
from numba.core.dispatcher import Dispatcher
from numba.extending import intrinsic

__all__ = ["CacheLocator", "Dispatcher", "add_cache_locator", "can_compile", "njit_without_refcounts", "prefetch",
           "shared_read"]

CacheLocator = caching._CacheLocator
"""The base of numba's cache locators: where a compiled function's cache files go, and the stamp that says they are
its source's."""


def add_cache_locator(locator: type) -> None:
    """Ask `locator` first, before numba's own, where a function's cache goes (once)."""
    implementation = getattr(caching, "CacheImpl", None) or caching._CacheImpl  # older numba: _CacheImpl
    if locator not in implementation._locator_classes:
        implementation._locator_classes.insert(0, locator)


def njit_without_refcounts(function: Callable[..., Any], **options: Any) -> Dispatcher:
    """``numba.njit(**options)`` of `function` without numba's reference-counting runtime (``_nrt=False``): numba
    then refuses to compile any allocation in it."""
    return numba.njit(_nrt=False, **options)(function)


def can_compile(dispatcher: Dispatcher) -> bool:
    """Whether `dispatcher` may still compile new signatures (False once ``disable_compile`` was called, as for a
    function compiled from explicit signatures only)."""
    return bool(dispatcher._can_compile)


def _item_pointer(context: Any, builder: ir.IRBuilder, signature: Any, args: Any) -> ir.Value:
    """The address of ``array[index]`` for an intrinsic called as (array, index), without a bounds check."""
    array_type, index_type = signature.args
    made = context.make_array(array_type)(context, builder, args[0])
    at = context.cast(builder, args[1], index_type, types.intp)
    return cgutils.get_item_pointer(context, builder, array_type, made, [at], wraparound=False)


@intrinsic
def shared_read(typingctx: Any, array: types.Array, index: types.Integer) -> Any:
    """``array[index]`` of an integer array (no bounds check, `index` >= 0), read as an atomic load with
    "monotonic" (relaxed) ordering.

    A plain read of a slot that nothing in a loop writes may be hoisted out of the loop by LLVM, which assumes no other
    thread writes it: the loop then never sees another thread's store (a stop flag set by YXSTOP or the deadline
    timer) and runs to its end. An atomic load is made every time it runs, and sees such a store soon after it is made.
    """
    if not (isinstance(array, types.Array) and isinstance(array.dtype, types.Integer)
            and isinstance(index, types.Integer)):
        return None

    def codegen(context: Any, builder: ir.IRBuilder, signature: Any, args: Any) -> ir.Value:
        pointer = _item_pointer(context, builder, signature, args)
        return builder.load_atomic(pointer, "monotonic", signature.args[0].dtype.bitwidth // 8)

    return array.dtype(array, index), codegen


@intrinsic
def prefetch(typingctx: Any, array: types.Array, index: types.Integer) -> Any:
    """Ask the processor to start bringing ``array[index]``'s cache line in (no bounds check, `index` >= 0), and go
    on: LLVM's prefetch hint, a read kept in every cache level. It neither waits nor faults, so the work done between
    the hint and the read hides the read's wait on memory (the search: a random slot of a transposition table that
    outgrows the caches, read after the move is made)."""
    if not (isinstance(array, types.Array) and isinstance(index, types.Integer)):
        return None

    def codegen(context: Any, builder: ir.IRBuilder, signature: Any, args: Any) -> ir.Value:
        byte_pointer = builder.bitcast(_item_pointer(context, builder, signature, args), ir.IntType(8).as_pointer())
        word = ir.IntType(32)
        hint = ir.FunctionType(ir.VoidType(), [byte_pointer.type, word, word, word])
        function = builder.module.declare_intrinsic("llvm.prefetch", [byte_pointer.type], hint)
        builder.call(function, [byte_pointer, word(0), word(3), word(1)])  # a read, every cache level, data
        return context.get_dummy_value()

    return types.void(array, index), codegen
