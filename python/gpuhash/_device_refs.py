"""gpuhash.DeviceRef: a CUDA map's ref (gpuhash/map_ref.hpp) for the
caller's own kernels, compiled at run time by NVRTC (CuPy's RawModule and
RawKernel). docs/device_api.md, "Kernels compiled at run time"."""

import collections
import functools
import os

import numpy as np

from . import _gpuhash, _items

DeviceRefType = collections.namedtuple("DeviceRefType", ["cuda_type", "header", "nbytes",
                                                         "alignment"])
DeviceRefType.__doc__ = """A ref type as a kernel names it: `cuda_type`, the C++ type of the
kernel's parameter ("gpuhash::bucketed_cuckoo_ref<std::uint64_t, std::uint64_t>"); `header`,
the header that declares it; `nbytes` and `alignment`, its sizeof and alignof."""


@functools.lru_cache(maxsize=None)
def _ref_types():
    """{(design, key bytes, value bytes): DeviceRefType} of the maps with refs."""
    return {(design, key, value): DeviceRefType(cuda_type, header, nbytes, alignment)
            for design, key, value, cuda_type, header, nbytes, alignment in _gpuhash.ref_types()}


def device_ref_type(design="bucketed_cuckoo", key_dtype="uint64", value_dtype="uint64"):
    """The DeviceRefType of the refs of Map(key_dtype, value_dtype, design=design):
    what Map.ref() gives on a GPU, known without one, so that a kernel can be
    compiled before any map exists. The designs linear_probing and
    bucketed_cuckoo with keys and values of 4 or 8 bytes have refs; a ref's
    keys and values are std::uint32_t or std::uint64_t of their width,
    whatever their dtype (a float32 key is passed as its bits). ValueError
    for the other maps."""
    key = _items.ItemType(key_dtype, "key_dtype")
    value = _items.ItemType(value_dtype, "value_dtype")
    found = _ref_types().get((design, key.nbytes, value.nbytes))
    if found is None:
        pairs = sorted({f"{design}: {k}/{v}" for design, k, v in _ref_types()})
        raise ValueError(f"gpuhash: Map(design={design!r}) with {key.nbytes}-byte keys and "
                         f"{value.nbytes}-byte values has no ref for kernels; these maps have "
                         f"one (design: key/value bytes): {', '.join(pairs)}")
    return found


def include_dirs():
    """The folders a kernel that uses a DeviceRef needs on its include path:
    the library's headers, installed with the package, and the folder that
    stands in for the C++ standard headers they include, which NVRTC does
    not have."""
    include = os.path.join(os.path.dirname(os.path.abspath(__file__)), "include")
    return [include, os.path.join(include, *_gpuhash.nvrtc_std_folder().split("/"))]


def nvrtc_options():
    """NVRTC's options for a kernel that uses a DeviceRef, as a tuple for
    cupy.RawModule(options=...): C++20, device code by default (-default-device),
    128-bit integers, and -I for each of include_dirs(). The CUDA toolkit's
    headers (cooperative groups, libcu++) come from the caller: CuPy adds
    its own; with NVRTC alone, add -I for the toolkit's include/ and
    include/cccl/."""
    return tuple(_gpuhash.nvrtc_flags()) + tuple("-I" + folder for folder in include_dirs())


class DeviceRef:
    """A CUDA map's ref: a small, trivially copyable handle to the map's
    storage whose methods (find, contains, insert, insert_or_assign, erase,
    insert_or_apply; docs/device_api.md) each thread of a kernel calls for
    its own key. Made by Map.ref().

    A kernel declares its parameter as `cuda_type`, includes `header`, and is
    compiled with nvrtc_options(); it takes the ref by value from
    as_argument():

        module = cupy.RawModule(code=source, options=gpuhash.nvrtc_options())
        kernel = module.get_function("count")
        kernel((blocks,), (threads,), (ref.as_argument(), keys, n))

    Valid until the map's next call that may rebuild or grow it (insert,
    insert_or_assign, apply, reserve, clear): reserve room first, then take
    a new ref after such calls. An insert through the ref that finds no room
    answers Status.full, and the map does not grow inside a kernel. Launch
    the kernel on the map's GPU, on the stream that the map's next call is
    ordered after (CuPy's current stream, unless that call passes
    `stream=`). Inserts and erases through the ref count in len(map)."""

    __slots__ = ("_map", "_type", "_bytes")

    def __init__(self, map_, ref_type, data):
        self._map = map_  # the map's storage lives at least as long as its ref
        self._type = ref_type
        self._bytes = bytes(data)
        if len(self._bytes) != ref_type.nbytes:
            raise RuntimeError(f"gpuhash: a ref of {ref_type.cuda_type} has "
                               f"{len(self._bytes)} bytes; its type has {ref_type.nbytes}")

    @property
    def cuda_type(self):
        """The ref's C++ type, as a kernel's parameter is declared."""
        return self._type.cuda_type

    @property
    def header(self):
        """The header that declares cuda_type, for #include."""
        return self._type.header

    @property
    def nbytes(self):
        """sizeof(cuda_type)."""
        return self._type.nbytes

    @property
    def alignment(self):
        """alignof(cuda_type)."""
        return self._type.alignment

    @property
    def bytes(self):
        """The ref object's bytes, as the kernel receives them."""
        return self._bytes

    def as_argument(self):
        """The ref as a kernel argument passed by value: a NumPy array of one
        element of nbytes bytes, which CuPy's RawKernel copies into the
        kernel's parameter. (To pass it by pointer instead, copy it to the
        GPU: cupy.asarray(ref.as_argument().view(numpy.uint8)), and declare
        the parameter `const cuda_type*`.)"""
        return np.frombuffer(self._bytes, dtype=np.dtype((np.void, self.nbytes))).copy()

    def __repr__(self):
        return f"gpuhash.DeviceRef({self.cuda_type}, {self.nbytes} bytes, map={self._map!r})"
