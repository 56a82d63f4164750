"""StringMap's keys as Arrow's column layout, the one form the extension
takes: n + 1 offsets (int32 or int64) into one array of bytes (uint8), key i
being data[offsets[i]:offsets[i + 1]].

A column the caller passes as an (offsets, data) pair is used in place;
Python strings and bytes, NumPy's 'S', 'U' and object arrays and pyarrow's
string and binary arrays are packed into one on the host (pyarrow's CPU
buffers are read in place), then copied to the table's GPU for a CUDA
table."""

import sys

import numpy as np

from . import _arrays

_OFFSET_DTYPES = ("int32", "int64")
_BYTE_DTYPES = ("uint8", "int8")
_KEY_OBJECTS = (str, bytes, bytearray, memoryview)


def column(keys, device, library, call):
    """(offsets, data, library): the keys as a column on the table's device,
    and the array library of the call's outputs. `library` is the one the
    caller's other arrays decide (None: the device's default); a column
    given as arrays decides for itself."""
    if _is_column_pair(keys):
        return _given_column(keys, device, call)
    offsets, data = _packed_on_host(keys, call)
    if device.kind == "cpu":
        return offsets, data, "numpy"
    library = library if library in ("cupy", "torch") else _arrays.default_library(device)
    return (_arrays.from_host(offsets, library, device), _arrays.from_host(data, library, device),
            library)


def _is_column_pair(keys):
    return (isinstance(keys, tuple) and len(keys) == 2
            and all(hasattr(part, "shape") for part in keys))


def _given_column(keys, device, call):
    """An (offsets, data) pair, checked: the dtypes, and that every offset
    points into data (the table reads no byte outside it). Offsets out of
    order are left to the table, which answers Status.invalid_key for their key."""
    offsets, library = _arrays.as_array(keys[0], "int64", device)
    data, data_library = _arrays.as_array(keys[1], "uint8", device)
    offsets_dtype = _arrays.dtype_name(offsets.dtype)
    if offsets_dtype not in _OFFSET_DTYPES:
        raise TypeError(f"gpuhash: {call}: offsets have dtype {offsets_dtype}; Arrow's offsets "
                        "are int32 (string, binary) or int64 (large_string, large_binary)")
    data_dtype = _arrays.dtype_name(data.dtype)
    if data_dtype not in _BYTE_DTYPES:
        raise TypeError(f"gpuhash: {call}: data have dtype {data_dtype}; the keys' bytes are "
                        "uint8 or int8")
    if data_dtype == "int8":
        data = data.view(sys.modules["torch"].uint8 if data_library == "torch" else "uint8")
    if len(offsets.shape) != 1 or len(data.shape) != 1:
        raise ValueError(f"gpuhash: {call}: offsets and data must be one-dimensional, got "
                         f"{len(offsets.shape)} and {len(data.shape)} dimensions")
    if offsets.shape[0] == 0:
        raise ValueError(f"gpuhash: {call}: offsets must hold n + 1 entries for n keys, got none")
    lowest, highest = int(offsets.min()), int(offsets.max())
    if lowest < 0 or highest > data.shape[0]:
        raise ValueError(f"gpuhash: {call}: offsets must lie in [0, len(data)] = "
                         f"[0, {data.shape[0]}], got offsets from {lowest} to {highest}")
    return offsets, data, library


def _packed_on_host(keys, call):
    """(offsets, data) as NumPy arrays, for keys that are not a column pair."""
    if isinstance(keys, _KEY_OBJECTS):
        raise TypeError(f"gpuhash: {call}: keys must be a sequence of keys, got one "
                        f"{type(keys).__name__}: pass [key]")
    if type(keys).__module__.partition(".")[0] == "pyarrow":
        return _arrow_buffers(keys, call)
    library = _arrays.library_of(keys)
    if library in ("cupy", "torch"):
        raise TypeError(f"gpuhash: {call}: keys in a {library} array come as an (offsets, data) "
                        "pair (Arrow's layout), or as a list of str or bytes")
    if library == "numpy":
        if keys.ndim != 1:
            raise ValueError(f"gpuhash: {call}: keys must be one-dimensional, got {keys.ndim} "
                             f"dimensions: flatten them (keys.ravel())")
        if keys.dtype.kind == "S":
            return _fixed_width_bytes(keys)
        if keys.dtype.kind in "UO":
            return _packed(keys.tolist(), call)
        raise TypeError(f"gpuhash: {call}: keys have dtype {keys.dtype}; StringMap takes str or "
                        "bytes ('U', 'S' or object arrays, lists, or an (offsets, data) pair)")
    return _packed(keys, call)


def _packed(keys, call):
    """A sequence of str (stored as UTF-8) and bytes, packed."""
    encoded = []
    for key in keys:
        if isinstance(key, str):
            encoded.append(key.encode("utf-8"))
        elif isinstance(key, _KEY_OBJECTS):
            encoded.append(bytes(key))
        else:
            raise TypeError(f"gpuhash: {call}: keys must be str or bytes; key {len(encoded)} is "
                            f"{type(key).__name__} ({key!r})")
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded)),
              out=offsets[1:])
    return offsets, np.frombuffer(b"".join(encoded), dtype=np.uint8)


def _fixed_width_bytes(keys):
    """A NumPy 'S' array, packed: each key without its trailing NUL bytes,
    as NumPy reads it."""
    n, width = keys.shape[0], keys.dtype.itemsize
    raw = np.ascontiguousarray(keys).view(np.uint8).reshape(n, width)
    nonzero = raw != 0
    lengths = np.where(nonzero.any(axis=1), width - np.argmax(nonzero[:, ::-1], axis=1), 0)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return offsets, raw[np.arange(width) < lengths[:, None]]


def _arrow_buffers(keys, call):
    """A pyarrow string or binary array (or chunked array): its offsets and
    bytes, read in place."""
    pa = sys.modules["pyarrow"]
    if isinstance(keys, pa.ChunkedArray):
        keys = keys.combine_chunks()
    if not isinstance(keys, pa.Array):
        raise TypeError(f"gpuhash: {call}: pyarrow keys must be an Array or ChunkedArray, "
                        f"got {type(keys).__name__}")
    kind = keys.type
    if pa.types.is_string(kind) or pa.types.is_binary(kind):
        offset_dtype = np.int32
    elif pa.types.is_large_string(kind) or pa.types.is_large_binary(kind):
        offset_dtype = np.int64
    else:
        raise TypeError(f"gpuhash: {call}: pyarrow keys must be string, binary, large_string or "
                        f"large_binary, got {kind}")
    if keys.null_count:
        raise ValueError(f"gpuhash: {call}: the keys hold {keys.null_count} nulls; StringMap's "
                         "keys are values (fill or drop the nulls)")
    _, offsets_buffer, data_buffer = keys.buffers()[:3]
    n = len(keys)
    if offsets_buffer is None:
        offsets = np.zeros(n + 1, dtype=offset_dtype)
    else:
        offsets = np.frombuffer(offsets_buffer, dtype=offset_dtype)[keys.offset:keys.offset + n + 1]
    if data_buffer is None:
        return offsets, np.empty(0, dtype=np.uint8)
    return offsets, np.frombuffer(data_buffer, dtype=np.uint8)
