"""CUDA tables run on the caller's current stream (CuPy's current stream,
torch.cuda.current_stream()) or on `stream=`: work queued there before the
call is finished before the table reads its inputs."""

import numpy as np
import pytest

import gpuhash
from conftest import CUPY, GPU_PLACES, cupy, torch

N = 1 << 20


def slow_keys_cupy(stream):
    """Keys 1..N written on `stream` only after a long computation there."""
    with stream:
        x = cupy.ones((2048, 2048), dtype=cupy.float32)
        for _ in range(20):
            x = (x @ x) * (1.0 / 2048)
        zero = (x[0, 0] - 1.0).astype(cupy.uint64)  # 0, known only when the products are done
        return cupy.arange(1, N + 1, dtype=cupy.uint64) + zero


def slow_keys_torch(stream):
    with torch.cuda.stream(stream):
        x = torch.ones((2048, 2048), device="cuda:0")
        for _ in range(20):
            x = (x @ x) * (1.0 / 2048)
        zero = (x[0, 0] - 1.0).to(torch.int64)
        return torch.arange(1, N + 1, dtype=torch.int64, device="cuda:0") + zero


@pytest.mark.parametrize("place", [GPU_PLACES[0]], ids=["cuda-cupy"])
def test_cupy_current_stream_orders_the_call(place):
    stream = cupy.cuda.Stream(non_blocking=True)
    m = gpuhash.Map(key_dtype="uint64", value_dtype="uint64", capacity=2 * N, device="cuda:0")
    keys = slow_keys_cupy(stream)
    with stream:
        statuses = m.insert(keys, keys)  # no synchronization before: the stream orders it
        found = m.contains(cupy.arange(1, N + 1, dtype=cupy.uint64))
    assert int((statuses == int(gpuhash.Status.inserted)).sum()) == N
    assert bool(found.all())


@pytest.mark.parametrize("place", [GPU_PLACES[0]], ids=["cuda-cupy"])
def test_cupy_stream_argument(place):
    stream = cupy.cuda.Stream(non_blocking=True)
    m = gpuhash.Map(key_dtype="uint64", value_dtype="uint64", capacity=2 * N, device="cuda:0")
    keys = slow_keys_cupy(stream)
    statuses = m.insert(keys, keys, stream=stream)  # the current stream is the default one
    assert int((statuses == int(gpuhash.Status.inserted)).sum()) == N
    values, found = m.find(keys, stream=stream.ptr)
    assert bool(found.all()) and bool((values == keys).all())


@pytest.mark.parametrize("place", [GPU_PLACES[1]], ids=["cuda-torch"])
def test_torch_current_stream_orders_the_call(place):
    stream = torch.cuda.Stream()
    m = gpuhash.Map(key_dtype="int64", value_dtype="int64", capacity=2 * N, device="cuda:0")
    keys = slow_keys_torch(stream)
    with torch.cuda.stream(stream):
        statuses = m.insert(keys, keys)
        values, found = m.find(keys)
    assert int((statuses == int(gpuhash.Status.inserted)).sum()) == N
    assert bool(found.all()) and bool((values == keys).all())


@pytest.mark.parametrize("place", [GPU_PLACES[1]], ids=["cuda-torch"])
def test_torch_stream_argument(place):
    stream = torch.cuda.Stream()
    m = gpuhash.Map(key_dtype="int64", value_dtype="int64", capacity=2 * N, device="cuda:0")
    keys = slow_keys_torch(stream)
    statuses = m.insert(keys, keys, stream=stream)
    assert int((statuses == int(gpuhash.Status.inserted)).sum()) == N


@pytest.mark.parametrize("place", GPU_PLACES, ids=["cuda-cupy", "cuda-torch"])
def test_results_are_written_when_the_call_returns(place):
    """A synchronous call: another stream may use the outputs at once."""
    m = gpuhash.Map(key_dtype="uint32", value_dtype="uint32", device="cuda:0")
    keys = place.array(np.arange(1, N + 1, dtype=np.uint32))
    m.insert(keys, keys)
    values, found = m.find(keys)
    if place is CUPY:
        with cupy.cuda.Stream(non_blocking=True):
            assert bool(found.all()) and bool((values == keys).all())
    else:
        with torch.cuda.stream(torch.cuda.Stream()):
            assert bool(found.all()) and bool((values == keys).all())
