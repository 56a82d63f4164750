"""How the package meets the array libraries: which library an array belongs
to, turning other inputs into arrays, the CUDA stream of a call, and new
arrays of the caller's library. Arrays of NumPy, CuPy and PyTorch pass
through untouched (the extension reads them in place)."""

import sys

import numpy as np

LIBRARIES = ("numpy", "cupy", "torch")


class Device:
    """Where a table lives: kind "cpu" or "cuda", and the GPU's ordinal."""

    __slots__ = ("kind", "ordinal")

    def __init__(self, spec):
        text = str(spec)
        if text == "cpu":
            self.kind, self.ordinal = "cpu", 0
        elif text == "cuda":
            self.kind, self.ordinal = "cuda", _current_cuda_device()
        elif text.startswith("cuda:") and text[5:].isdigit():
            self.kind, self.ordinal = "cuda", int(text[5:])
        else:
            raise ValueError(f"gpuhash: device must be 'cpu', 'cuda' or 'cuda:N', got {spec!r}")

    def __str__(self):
        return "cpu" if self.kind == "cpu" else f"cuda:{self.ordinal}"


def _current_cuda_device():
    """The caller's current GPU, as CuPy or PyTorch knows it (0 without them)."""
    if "cupy" in sys.modules:
        return sys.modules["cupy"].cuda.runtime.getDevice()
    if "torch" in sys.modules and sys.modules["torch"].cuda.is_available():
        return sys.modules["torch"].cuda.current_device()
    return 0


def dtype_name(dtype):
    """'uint64' for "uint64", numpy.uint64, numpy.dtype("u8") or torch.uint64."""
    text = str(dtype)
    if text.startswith("torch."):
        return text[len("torch."):]
    try:
        return np.dtype(dtype).name
    except TypeError as error:
        raise TypeError(f"gpuhash: {dtype!r} is not a dtype") from error


def library_of(array):
    """"numpy", "cupy" or "torch" for arrays of those libraries, else None."""
    root = type(array).__module__.partition(".")[0]
    return root if root in LIBRARIES else None


def as_array(data, dtype, device):
    """`data` as an array that the extension can read, and its library.

    Arrays of NumPy, CuPy and PyTorch are returned as they are (the extension
    checks their dtype, layout and device). Other objects are wrapped without
    a copy where they describe memory (DLPack, the array interfaces); Python
    sequences are converted to `dtype` (on the GPU with CuPy)."""
    library = library_of(data)
    if library is not None:
        return data, library
    has_dtype = hasattr(data, "dtype")
    if device.kind == "cpu":
        if hasattr(data, "__dlpack__") and not (
            hasattr(data, "__array_interface__") or hasattr(data, "__array__")
        ):
            return np.from_dlpack(data), "numpy"
        return np.asarray(data, dtype=None if has_dtype else dtype), "numpy"
    cupy = _import("cupy", "arrays that are not CuPy arrays or PyTorch tensors on a CUDA table")
    with cupy.cuda.Device(device.ordinal):
        if hasattr(data, "__cuda_array_interface__"):
            return cupy.asarray(data), "cupy"
        if hasattr(data, "__dlpack__"):
            return cupy.from_dlpack(data), "cupy"
        return cupy.asarray(data, dtype=None if has_dtype else dtype), "cupy"


def has_dtype(array, library, dtype):
    """Whether `array` (of `library`) has the dtype named `dtype`."""
    return array.dtype == dtype_object(library, dtype)


def checked(array, library, dtype, role, call):
    """`array` as the extension takes it, after checking that its dtype is
    `dtype` (the extension checks only the width: keys and values are stored
    as their bits), as bits_view gives it."""
    if not has_dtype(array, library, dtype):
        name = dtype_name(array.dtype)
        raise TypeError(
            f"gpuhash: {call}: {role} have dtype {name} but this table takes {dtype}: convert "
            f"them ({role}.astype('{dtype}') in NumPy or CuPy, {role}.to(torch.{dtype}) in "
            f"PyTorch) or create the table with that dtype"
        )
    return bits_view(array, library)


_dtype_objects = {}


def dtype_object(library, name):
    """The dtype object of `library` named `name`, cached: comparing dtype
    objects is fast, while NumPy builds a dtype's name in Python code."""
    key = (library, name)
    found = _dtype_objects.get(key)
    if found is None:
        if library == "torch":
            found = torch_dtype(sys.modules["torch"], name)
        else:
            found = np.dtype(name)
        _dtype_objects[key] = found
    return found


def bits_view(array, library):
    """`array` as integers of the same bits (no copy), as the extension takes
    keys and values: floating-point, complex and void elements as unsigned
    integers of their width, and PyTorch's unsigned tensors (of 16 bits and
    more) and floating-point and complex ones as signed integers, which every
    PyTorch exports through DLPack. Anything else as it is."""
    if library == "torch":
        integer = _torch_bits_dtype(sys.modules["torch"], array.dtype)
        return array if integer is None else array.view(integer)
    if array.dtype.kind in "fcV" and array.dtype.itemsize <= 8:
        return array.view(f"uint{8 * array.dtype.itemsize}")
    return array


_torch_bits_dtypes = {}


def _torch_bits_dtype(torch, dtype):
    """The signed integer dtype that bits_view views a PyTorch dtype as, or None."""
    if dtype not in _torch_bits_dtypes:
        unsigned = [getattr(torch, f"uint{bits}", None) for bits in (16, 32, 64)]
        integer = None
        if dtype.is_floating_point or dtype.is_complex or dtype in unsigned:
            size = torch.empty((), dtype=dtype).element_size()
            integer = {1: torch.int8, 2: torch.int16, 4: torch.int32, 8: torch.int64}.get(size)
        _torch_bits_dtypes[dtype] = integer
    return _torch_bits_dtypes[dtype]


def length(array):
    """The length of a one-dimensional array; 0 otherwise (the extension
    then reports the shape)."""
    shape = array.shape
    return shape[0] if len(shape) == 1 else 0


def empty(library, n, dtype, like=None, device=None):
    """A new array of n elements (or of shape n, a tuple) of `library` on the
    device of `like` (or on `device`)."""
    if library == "numpy":
        return np.empty(n, dtype=dtype)
    if library == "cupy":
        cupy = sys.modules.get("cupy") or _import("cupy", "CuPy outputs")
        ordinal = like.device.id if like is not None else device.ordinal
        with cupy.cuda.Device(ordinal):
            return cupy.empty(n, dtype=dtype)
    torch = sys.modules.get("torch") or _import("torch", "PyTorch outputs")
    where = like.device if like is not None else str(device)
    return torch.empty(n, dtype=torch_dtype(torch, dtype), device=where)


def from_host(host, library, device):
    """A copy of the NumPy array `host` in `library` on `device` (`host`
    itself for NumPy)."""
    if library == "numpy":
        return host
    if library == "cupy":
        cupy = sys.modules.get("cupy") or _import("cupy", "CuPy outputs")
        with cupy.cuda.Device(device.ordinal):
            return cupy.asarray(host)
    torch = sys.modules.get("torch") or _import("torch", "PyTorch outputs")
    if not host.flags.writeable:  # PyTorch warns on every read-only array it wraps
        host = host.copy()
    name = host.dtype.name
    if name in ("uint32", "uint64"):  # PyTorch takes NumPy's signed types only: the same bits
        signed = torch.from_numpy(host.view(name[1:])).to(str(device))
        return signed.view(torch_dtype(torch, name))
    return torch.from_numpy(host).to(str(device))


def zeros(library, n, dtype, like):
    if library == "numpy":
        return np.zeros(n, dtype=dtype)
    if library == "cupy":
        cupy = sys.modules["cupy"]
        with cupy.cuda.Device(like.device.id):
            return cupy.zeros(n, dtype=dtype)
    torch = sys.modules["torch"]
    if dtype in ("uint32", "uint64"):  # PyTorch fills only its signed types everywhere
        signed = getattr(torch, dtype[1:])
        return torch.zeros(n, dtype=signed, device=like.device).view(torch_dtype(torch, dtype))
    return torch.zeros(n, dtype=torch_dtype(torch, dtype), device=like.device)


def torch_dtype(torch, name):
    dtype = getattr(torch, name, None)
    if dtype is None:
        raise TypeError(
            f"gpuhash: this PyTorch ({torch.__version__}) has no torch.{name}: "
            "use a signed dtype for the table (int32, int64), stored as the same bits"
        )
    return dtype


def default_library(device):
    """The library of outputs that no input decides: NumPy on the CPU; CuPy
    on a GPU, or PyTorch where CuPy is not importable."""
    if device.kind == "cpu":
        return "numpy"
    for name in ("cupy", "torch"):
        if name in sys.modules:
            return name
    for name in ("cupy", "torch"):
        try:
            __import__(name)
            return name
        except ImportError:
            pass
    raise TypeError("gpuhash: outputs of a CUDA table need CuPy or PyTorch, and neither imports")


class ExtensionTable:
    """An extension table as the package calls it on a GPU: PyTorch tensors
    among a call's arguments go to the extension as DLPack capsules
    (torch.utils.dlpack.to_dlpack), the same memory with no copy and no
    wait. Given the tensor itself, the extension calls its __dlpack__,
    which spends microseconds per array in Python on stream bookkeeping that
    the package does itself (stream_of). Everything else passes through."""

    __slots__ = ("_table",)

    def __init__(self, table):
        self._table = table

    def __getattr__(self, name):
        attribute = getattr(self._table, name)
        torch = sys.modules.get("torch")
        if torch is None or not callable(attribute):
            return attribute
        tensor, capsule = torch.Tensor, torch.utils.dlpack.to_dlpack

        def call(*args):
            return attribute(*[capsule(a) if isinstance(a, tensor) else a for a in args])

        return call


def extension_table(table, device):
    """The extension's table `table` as the package calls it (ExtensionTable
    on a GPU; itself on the CPU, where PyTorch tensors are not taken)."""
    return ExtensionTable(table) if device.kind == "cuda" else table


def stream_of(stream, library, like, device):
    """The CUDA stream of a call, as an integer (cudaStream_t).

    `stream` may be an integer, a CuPy stream (.ptr), a PyTorch stream
    (.cuda_stream) or any object with __cuda_stream__. Without one, the call
    runs on the current stream of the library that owns the keys (CuPy's
    current stream, torch.cuda.current_stream()), else on the default stream.
    A given stream first waits for the work queued on that current stream,
    where the outputs were allocated (and maybe the inputs written). CPU
    tables take no stream."""
    if device.kind == "cpu":
        return 0
    if stream is not None:
        pointer = _stream_pointer(stream)
        _wait_for_current_stream(pointer, library, like)
        return pointer
    if library == "cupy":
        cupy = sys.modules["cupy"]
        with cupy.cuda.Device(like.device.id):
            return cupy.cuda.get_current_stream().ptr
    if library == "torch" and like.device.type == "cuda":
        return _torch_current_stream(sys.modules["torch"], like.device)
    return 0


def _torch_current_stream(torch, device):
    """torch.cuda.current_stream(device).cuda_stream, without making a Stream
    object (microseconds a call) where this PyTorch has the raw query that its
    own kernels' launchers use."""
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is not None:
        return raw(device.index)
    return torch.cuda.current_stream(device).cuda_stream


def _wait_for_current_stream(pointer, library, like):
    """Orders the stream `pointer` after the work queued so far on the
    current stream of `library` (no host wait)."""
    if like is None:
        return
    if library == "cupy":
        cupy = sys.modules["cupy"]
        with cupy.cuda.Device(like.device.id):
            current = cupy.cuda.get_current_stream()
            if current.ptr != pointer:
                cupy.cuda.ExternalStream(pointer).wait_event(current.record())
    elif library == "torch" and like.device.type == "cuda":
        torch = sys.modules["torch"]
        current = torch.cuda.current_stream(like.device)
        if current.cuda_stream != pointer:
            torch.cuda.ExternalStream(pointer, device=like.device).wait_stream(current)


def _stream_pointer(stream):
    if isinstance(stream, int):
        return stream
    if hasattr(stream, "__cuda_stream__"):
        return int(stream.__cuda_stream__()[1])
    for attribute in ("ptr", "cuda_stream"):
        if hasattr(stream, attribute):
            return int(getattr(stream, attribute))
    raise TypeError(
        f"gpuhash: stream must be an int (cudaStream_t), a CuPy or PyTorch stream, or an object "
        f"with __cuda_stream__, got {type(stream).__name__}"
    )


def _import(name, purpose):
    try:
        return __import__(name)
    except ImportError as error:
        raise TypeError(f"gpuhash: {purpose} need {name}, which does not import here") from error
