"""numba's private parts that the brain uses (``brain.numba_private``), checked against the installed numba: a numba
release that renames or changes one fails here, by name. And the stop flag's read: a compiled loop that polls only
the stop slot ends when another thread sets it."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import numba
from numba.core.errors import TypingError
from monte.brain.limits import L_STOP, charge, new_limits
from monte.brain.numba_private import (CacheLocator, Dispatcher, add_cache_locator, can_compile, njit_without_refcounts,
                                        prefetch, shared_read)
from monte.brain.stopflag import StopFlag

WAIT_S = 60.0  # how long a stopped loop may take to come back before the test calls it hung (never a speed bound)


def _sum(values: np.ndarray) -> int:
    total = 0
    for value in values:
        total += value
    return total


def _allocates(n: int) -> np.ndarray:
    return np.zeros(n, dtype=np.int64)


def test_njit_without_refcounts_compiles_a_kernel_and_refuses_an_allocation() -> None:
    assert njit_without_refcounts(_sum)(np.arange(5, dtype=np.int64)) == 10
    assert list(numba.njit(_allocates)(3)) == [0, 0, 0]  # with the runtime it compiles
    with pytest.raises(TypingError):
        njit_without_refcounts(_allocates)(3)


def test_a_compiled_function_is_a_dispatcher_that_can_compile_until_told_not_to() -> None:
    compiled = numba.njit(_sum)
    assert isinstance(compiled, Dispatcher) and isinstance(charge, Dispatcher)
    assert can_compile(compiled)
    compiled(np.arange(3, dtype=np.int64))
    compiled.disable_compile()
    assert not can_compile(compiled)


def _sum_fetching_ahead(values: np.ndarray, slots: np.ndarray) -> float:
    total = 0.0
    for i in range(slots.shape[0]):
        if i + 1 < slots.shape[0]:
            prefetch(values, slots[i + 1])
        total += values[slots[i]]
    return total


def test_prefetch_compiles_to_the_hint_and_changes_no_result() -> None:
    values = np.arange(1000, dtype=np.float64)
    slots = np.array([999, 3, 512, 3, 0], dtype=np.uint64)
    fetching = numba.njit(_sum_fetching_ahead)
    assert fetching(values, slots) == 999 + 3 + 512 + 3 + 0
    assert fetching(values, slots[1:2]) == 3
    assert any("call void @llvm.prefetch" in line for line in
               fetching.inspect_llvm(fetching.signatures[0]).splitlines())


def test_shared_read_reads_the_slot_with_a_relaxed_atomic_load() -> None:
    values = np.array([3, -7, 11], dtype=np.int64)
    read = numba.njit(lambda array, index: shared_read(array, index))
    assert [read(values, i) for i in range(3)] == [3, -7, 11]
    assert read(np.array([5], dtype=np.int8), 0) == 5
    fresh = numba.njit(charge.py_func)  # charge itself comes from the cache, whose code numba does not show
    fresh(new_limits())
    assert any("load atomic" in line and "monotonic" in line for line in
               fresh.inspect_llvm(fresh.signatures[0]).splitlines())


@numba.njit(nogil=True)
def _wait_for_stop(limits: np.ndarray) -> int:
    """Spin until the stop slot is set: nothing in the loop writes memory, so a plain read of the slot would be
    hoisted out of it and the loop would never end."""
    spins = 0
    while shared_read(limits, L_STOP) == 0:
        spins += 1
    return spins


@numba.njit(nogil=True)
def _search_until_stopped(limits: np.ndarray) -> int:
    nodes = 0
    while not charge(limits):
        nodes += 1
    return nodes


@pytest.mark.parametrize("loop", [_wait_for_stop, _search_until_stopped], ids=["shared_read", "charge"])
def test_a_stop_set_from_another_thread_ends_a_long_compiled_loop(loop) -> None:
    stopped = new_limits()
    stopped[L_STOP] = 1
    loop(stopped)  # compiled before the clock starts
    limits, flag, done = new_limits(), StopFlag(), []
    flag.link(limits)
    runner = threading.Thread(target=lambda: done.append(loop(limits)), daemon=True)
    runner.start()
    threading.Timer(0.2, flag.set).start()
    runner.join(WAIT_S)
    assert done, f"the compiled loop did not see the stop flag within {WAIT_S:.0f} s"


class _Asked(CacheLocator):
    """A cache locator that only notes which source files numba asked it about (and leaves them to numba's own)."""

    files: list[str] = []

    @classmethod
    def from_function(cls, py_func, py_file):
        cls.files.append(py_file)
        return None


def _cached_sum(values: np.ndarray) -> int:
    return int(values.sum())


def test_a_cache_locator_added_is_asked_first_where_a_functions_cache_goes() -> None:
    add_cache_locator(_Asked)
    add_cache_locator(_Asked)  # once is enough
    numba.njit(cache=True)(_cached_sum)(np.arange(4, dtype=np.int64))
    assert _Asked.files == [__file__]  # asked once, for this file, before numba's own locators filed it
