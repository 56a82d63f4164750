"""gpuhash.StringMap: byte-string keys of any length (the library's
gpuhash::string_map), on the CPU or a GPU."""

import numpy as np

from . import _arrays, _string_keys
from ._batches import BatchTable
from ._gpuhash import StringMapTable

# The library compiles string_map for 32- and 64-bit values: a value dtype is
# stored as the bits of the integer dtype of its width.
_VALUE_STORAGE = {"uint32": "uint32", "int32": "int32", "float32": "uint32",
                  "uint64": "uint64", "int64": "int64", "float64": "uint64"}


class StringMap(BatchTable):
    """A concurrent hash map from byte strings of any length to values.

    Keys come as a list or tuple of str (stored as UTF-8) or bytes; a NumPy
    array of dtype 'S' (trailing NUL bytes dropped, as NumPy reads them), 'U'
    or object; a pyarrow string or binary array; or Arrow's layout as an
    (offsets, data) pair: n + 1 int32 or int64 offsets into uint8 (or int8)
    bytes, key i being data[offsets[i]:offsets[i + 1]]. A pair is read in
    place (NumPy arrays on device="cpu"; CuPy arrays or PyTorch CUDA tensors
    on device="cuda"); the other forms are packed into one on the host and,
    for a CUDA table, copied to its GPU. Every byte string is a key, the
    empty one included; a key whose offsets are out of order comes back as
    Status.invalid_key. Offsets outside [0, len(data)] raise ValueError.

    Values are uint32, int32, float32, uint64, int64 or float64, stored as
    their bits. Outputs are new arrays of the keys' library (of the values'
    for an insert of packed keys; NumPy on the CPU, else CuPy, else PyTorch),
    on the table's device, and calls take `stream=` and `out=` as Map's do.
    `capacity` (slots) and `arena_bytes` (key bytes) are hints: the table
    grows before a batch that would not fit.
    """

    def __init__(self, value_dtype="uint64", capacity=None, device="cpu", *, max_load_factor=0.0,
                 seed=None, arena_bytes=0):
        super().__init__(device, _arrays.dtype_name(value_dtype))
        storage = _VALUE_STORAGE.get(self._value_dtype)
        if storage is None:
            raise TypeError(f"gpuhash: StringMap's value_dtype must be one of "
                            f"{', '.join(_VALUE_STORAGE)}, got {self._value_dtype!r}")
        self._table = _arrays.extension_table(
            StringMapTable(storage, self._device.kind, self._device.ordinal, capacity,
                           max_load_factor, seed, arena_bytes), self._device)

    # ---- Batches ------------------------------------------------------------

    def insert(self, keys, values, *, stream=None, out=None):
        """Inserts absent keys. Returns a uint8 array of Status: inserted,
        exists (value unchanged) or invalid_key."""
        return self._write("StringMap.insert", self._table.insert, keys, values, stream, out)

    def insert_or_assign(self, keys, values, *, stream=None, out=None):
        """Inserts or overwrites. Returns Status inserted, updated or invalid_key."""
        return self._write("StringMap.insert_or_assign", self._table.insert_or_assign, keys,
                           values, stream, out)

    def find(self, keys, *, stream=None, out=None):
        """Returns (values, found): found is a bool array; values[i] is
        undefined where found[i] is False (`out`: those two arrays)."""
        offsets, data, library, n = self._keys(keys, None, "StringMap.find")
        values, values_passed, found = self._find_outputs(library, n, offsets, self._value_dtype,
                                                          out, "StringMap.find")
        self._table.find(offsets, data, values_passed, found,
                         self._stream(stream, library, offsets))
        return values, found

    def erase(self, keys, *, stream=None, out=None):
        """Removes keys. Returns Status erased, not_found or invalid_key."""
        offsets, data, library, n = self._keys(keys, None, "StringMap.erase")
        statuses = self._result(library, n, offsets, "uint8", out, "statuses", "StringMap.erase")
        self._table.erase(offsets, data, statuses, self._stream(stream, library, offsets))
        return statuses

    def __contains__(self, key):
        """Whether one key (str or bytes) is stored."""
        if not isinstance(key, (str, bytes, bytearray, memoryview)):
            raise TypeError(f"gpuhash: StringMap keys are str or bytes, not {type(key).__name__}")
        _, found = self.find([key])
        return bool(found[0])

    # ---- The whole map ------------------------------------------------------

    def items(self, *, library=None, stream=None):
        """Returns (keys, values), every stored pair in no particular order:
        the keys as a list of bytes, the values as an array of `library`
        ("numpy", "cupy" or "torch"; default NumPy on the CPU, CuPy on a GPU,
        or PyTorch where CuPy is not importable)."""
        offsets, data, values = self._retrieve(stream)
        bounds, raw = offsets.tolist(), data.tobytes()
        keys = [raw[begin:end] for begin, end in zip(bounds, bounds[1:])]
        return keys, _arrays.from_host(values, self._output_library(library), self._device)

    def retrieve_all(self, *, library=None, stream=None):
        """Returns (offsets, data, values), every stored pair in no particular
        order as Arrow's layout: int64 offsets, uint8 bytes and the values,
        arrays of `library` (as for items)."""
        library = self._output_library(library)
        return tuple(_arrays.from_host(array, library, self._device)
                     for array in self._retrieve(stream))

    def reserve(self, keys, bytes=0, *, stream=None):
        """Makes room for `keys` keys in all and `bytes` more key bytes, so
        that batches up to that much do not grow the map."""
        self._table.reserve(keys, bytes, self._whole_table_stream(stream))

    @property
    def arena_capacity(self):
        """Bytes of the arena that holds the keys' bytes."""
        return self._table.arena_capacity

    def __repr__(self):
        return (f"gpuhash.StringMap(value_dtype={self._value_dtype!r}, device={self.device!r}, "
                f"size={len(self)}, capacity={self.capacity}, "
                f"arena_capacity={self.arena_capacity})")

    # ---- Helpers --------------------------------------------------------------

    def _keys(self, keys, library, call):
        """The keys as (offsets, data) on the table's device, the library of
        the call's outputs, and the number of keys."""
        offsets, data, library = _string_keys.column(keys, self._device, library, call)
        return offsets, data, library, offsets.shape[0] - 1

    def _write(self, call_name, call, keys, values, stream, out):
        values_library = _arrays.library_of(values)
        offsets, data, library, n = self._keys(keys, values_library, call_name)
        values = self._values(values, self._value_dtype, call_name)
        statuses = self._result(library, n, offsets, "uint8", out, "statuses", call_name)
        call(offsets, data, values, statuses, self._stream(stream, library, offsets))
        return statuses

    def _retrieve(self, stream):
        """(offsets, data, values) as NumPy arrays."""
        offsets, data, values = self._table.retrieve_all(self._whole_table_stream(stream))
        return offsets, data, values.view(np.dtype(self._value_dtype))
