"""The tables read the caller's arrays in place, write outputs that the
caller's library allocated, and release the GIL while a batch runs."""

import sys
import threading
import time

import numpy as np
import pytest

import gpuhash
from gpuhash import _arrays, _gpuhash


def address(place, array):
    if place.library == "numpy":
        return array.ctypes.data
    if place.library == "cupy":
        return array.data.ptr
    return array.data_ptr()


def test_inputs_are_read_in_place(place):
    for dtype in ("uint32", "int64", "uint8", "bool"):
        array = place.array(np.ones(1000, dtype=dtype))
        # What the package hands the extension: the array, or for PyTorch's
        # unsigned tensors a signed view of it.
        passed = _arrays.bits_view(array, place.library)
        assert _gpuhash.data_pointer(passed) == address(place, array)
        # The same through the hand-off the tables' calls go through on a
        # GPU (PyTorch tensors as DLPack capsules).
        handed = _arrays.ExtensionTable(_gpuhash).data_pointer(passed)
        assert handed == address(place, array)
    # A slice is a view, not a copy: the tables read from its first element.
    whole = place.array(np.arange(100, dtype=np.int64))
    part = whole[10:]
    assert _gpuhash.data_pointer(part) == address(place, whole) + 10 * 8


def test_read_only_numpy_arrays_are_accepted_without_a_copy():
    keys = np.arange(1, 101, dtype=np.uint64)
    keys.flags.writeable = False
    assert _gpuhash.data_pointer(keys) == keys.ctypes.data
    m = gpuhash.Map()
    assert np.all(m.insert(keys, keys) == gpuhash.Status.inserted)


def test_outputs_are_fresh_arrays_of_the_keys_library(place):
    m = gpuhash.Map(key_dtype="uint32", value_dtype="uint32", device=place.device)
    keys = place.array(np.arange(1, 11, dtype=np.uint32))
    statuses = m.insert(keys, keys)
    values, found = m.find(keys)
    for output in (statuses, values, found):
        assert place.is_own(output)
        assert address(place, output) != address(place, keys)
    assert address(place, values) != address(place, found)


def test_the_gil_is_released_during_a_batch():
    """A thread that needs the GIL makes progress while a long find runs."""
    m = gpuhash.Map(key_dtype="uint64", value_dtype="uint64")
    keys = np.arange(1, (1 << 21) + 1, dtype=np.uint64)
    m.insert(keys, keys)
    m.find(keys)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-4)
    try:
        ticks = []
        running = threading.Event()
        finished = threading.Event()

        def ticker():
            running.set()
            while not finished.is_set():
                ticks.append(time.perf_counter())
                time.sleep(0)

        thread = threading.Thread(target=ticker)
        thread.start()
        running.wait()
        calls = []
        for _ in range(3):
            begin = time.perf_counter()
            m.find(keys)
            calls.append((begin, time.perf_counter()))
        finished.set()
        thread.join()
    finally:
        sys.setswitchinterval(interval)
    # Holding the GIL, a find would let the ticker run only before it enters
    # the extension (a tick or two); released, the ticker runs all along it
    # (about a tick per 50 us there, a find taking milliseconds).
    for begin, end in calls:
        during = sum(begin < t < end for t in ticks)
        assert during >= 10, f"{during} ticks during a find of {end - begin:.4f} s"
