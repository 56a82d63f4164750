"""Shared pieces of the Python tests: the places a table can live (the CPU
with NumPy, a GPU with CuPy or with PyTorch), each skipped with its reason
where it cannot run, and seeded random generators that print their seed."""

import os
import random

import numpy as np
import pytest

import gpuhash


def _import(name):
    try:
        return __import__(name)
    except ImportError:
        return None


cupy = _import("cupy")
torch = _import("torch")


class Place:
    """Where a table lives and the library of its arrays."""

    def __init__(self, name, device, library):
        self.name = name
        self.device = device
        self.library = library

    def array(self, data, dtype=None):
        """`data` (NumPy or a sequence) as an array of this place's library."""
        host = np.ascontiguousarray(np.asarray(data, dtype=dtype))
        if self.library == "numpy":
            return host
        if self.library == "cupy":
            return cupy.asarray(host)
        if host.dtype == np.uint32 or host.dtype == np.uint64:
            # PyTorch builds tensors from NumPy's signed types only: the same bits.
            signed = host.view(host.dtype.str.replace("u", "i"))
            return torch.from_numpy(signed).to(self.device).view(getattr(torch, host.dtype.name))
        return torch.from_numpy(host).to(self.device)

    def numpy(self, array):
        if self.library == "numpy":
            return array
        if self.library == "cupy":
            return cupy.asnumpy(array)
        name = str(array.dtype).removeprefix("torch.")
        if name in ("uint32", "uint64"):
            signed = array.view(getattr(torch, name.replace("u", ""))).cpu().numpy()
            return signed.view(name)
        return array.cpu().numpy()

    def is_own(self, array):
        """Whether `array` belongs to this place's library and device."""
        if self.library == "numpy":
            return isinstance(array, np.ndarray)
        if self.library == "cupy":
            return isinstance(array, cupy.ndarray) and array.device.id == 0
        return isinstance(array, torch.Tensor) and str(array.device) == self.device

    def __repr__(self):
        return self.name


def _cuda_reason(library, module):
    if module is None:
        return f"{library} is not installed"
    if not gpuhash.built_with_cuda():
        return "gpuhash was built without the CUDA backend (no nvcc)"
    if not gpuhash.cuda_available():
        return "no CUDA GPU is present"
    if library == "torch" and not torch.cuda.is_available():
        return "this PyTorch has no CUDA"
    return None


CPU = Place("cpu-numpy", "cpu", "numpy")
CUPY = Place("cuda-cupy", "cuda:0", "cupy")
TORCH = Place("cuda-torch", "cuda:0", "torch")
GPU_PLACES = [
    pytest.param(CUPY, marks=pytest.mark.skipif(_cuda_reason("cupy", cupy) is not None,
                                                reason=str(_cuda_reason("cupy", cupy)))),
    pytest.param(TORCH, marks=pytest.mark.skipif(_cuda_reason("torch", torch) is not None,
                                                 reason=str(_cuda_reason("torch", torch)))),
]
ALL_PLACES = [CPU, *GPU_PLACES]


@pytest.fixture(params=ALL_PLACES, ids=lambda place: place.name)
def place(request):
    return request.param


@pytest.fixture(params=GPU_PLACES, ids=lambda place: place.name)
def gpu_place(request):
    return request.param


@pytest.fixture
def rng(request):
    """A seeded generator; the seed is printed (shown when a test fails) and
    can be fixed with GPUHASH_TEST_SEED."""
    seed = int(os.environ.get("GPUHASH_TEST_SEED", random.randrange(2**32)))
    print(f"{request.node.name}: seed {seed} (GPUHASH_TEST_SEED={seed} repeats it)")
    return np.random.default_rng(seed)
