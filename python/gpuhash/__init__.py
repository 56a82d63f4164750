"""gpuhash: concurrent hash tables on NVIDIA GPUs and on the CPU, one API.

    import numpy as np, gpuhash
    m = gpuhash.Map(key_dtype="uint64", value_dtype="uint64", device="cpu")
    statuses = m.insert(np.arange(1, 5, dtype=np.uint64), np.arange(10, 14, dtype=np.uint64))
    values, found = m.find(np.array([2, 7], dtype=np.uint64))

device="cuda" takes CuPy arrays and PyTorch CUDA tensors, without copies, on
the caller's current stream. gpuhash.StringMap takes byte-string keys (lists
of str or bytes, NumPy string arrays, or Arrow's offsets and bytes). A CUDA
map's ref() is a DeviceRef for the caller's own kernels, compiled at run time
(cupy.RawModule with gpuhash.nvrtc_options()). See README.md, "Python".
"""

import enum

from . import _gpuhash, _items
from ._device_refs import DeviceRef, DeviceRefType, device_ref_type, include_dirs, nvrtc_options
from ._hashgraph import HashGraphMap, HashGraphSet
from ._map import Map
from ._string_map import StringMap

Status = enum.IntEnum("Status", _gpuhash.status_names(), module=__name__)
Status.__doc__ = "What a batch did with each key (one uint8 per key; gpuhash/status.hpp)."

Operation = enum.IntEnum("Operation", _gpuhash.operation_names(), module=__name__)
Operation.__doc__ = "The verbs of Map.apply's mixed batches (gpuhash/operation.hpp)."


def designs(key_dtype=None, value_dtype=None):
    """The names of the map designs, for Map(design=...); with key_dtype and
    value_dtype, those that take keys and values of those dtypes (every
    design takes 4/4- and 8/8-byte pairs; README.md, "Python", lists the
    others)."""
    if key_dtype is None and value_dtype is None:
        return _gpuhash.designs()
    key = _items.ItemType("uint64" if key_dtype is None else key_dtype, "key_dtype")
    value = _items.ItemType("uint64" if value_dtype is None else value_dtype, "value_dtype")
    return [design for design, key_bytes, value_bytes in _gpuhash.map_shapes()
            if (key_bytes, value_bytes) == (key.nbytes, value.nbytes)]


def built_with_cuda():
    """Whether this build has the CUDA backend (nvcc was found when it was built)."""
    return _gpuhash.built_with_cuda()


def cuda_available():
    """Whether the CUDA backend is built and a GPU can be used now."""
    return _gpuhash.cuda_available()


__all__ = [
    "DeviceRef",
    "DeviceRefType",
    "HashGraphMap",
    "HashGraphSet",
    "Map",
    "Operation",
    "Status",
    "StringMap",
    "built_with_cuda",
    "cuda_available",
    "designs",
    "device_ref_type",
    "include_dirs",
    "nvrtc_options",
]
