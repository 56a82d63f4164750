"""gpuhash.Map: every design of the library behind one class, on the CPU or
a GPU."""

import numpy as np

from . import _arrays
from ._batches import BatchTable
from ._gpuhash import MapTable


class Map(BatchTable):
    """A concurrent hash map of fixed-width keys and values.

    Batches take one-dimensional arrays: NumPy arrays (or anything NumPy
    converts) on device="cpu"; CuPy arrays or PyTorch CUDA tensors on
    device="cuda" (or "cuda:N"), read and written in place, on the caller's
    current CUDA stream (or `stream=`). Outputs are new arrays of the keys'
    library on the keys' device. Every call returns when its results are
    written. Keys and values are uint32/int32 or uint64/int64 (key and value
    of one width); signed dtypes are stored as their bits.

    Each design keeps a few key values as sentinels (`reserved_keys`); a batch
    reports them as Status.invalid_key rather than raising. `capacity` is a
    hint: the map grows before a batch that would pass its load limit.
    """

    def __init__(self, key_dtype="uint64", value_dtype="uint64", capacity=None,
                 design="bucketed_cuckoo", device="cpu", *, max_load_factor=0.0, seed=None):
        super().__init__(device, _arrays.dtype_name(value_dtype))
        self._key_dtype = _arrays.dtype_name(key_dtype)
        self._design = design
        self._table = MapTable(design, self._key_dtype, self._value_dtype, self._device.kind,
                               self._device.ordinal, capacity, max_load_factor, seed)

    # ---- Batches ------------------------------------------------------------

    # Each batch takes `out=`: arrays to write its results into, which it
    # returns, so that nothing is allocated (an array per result, as long as
    # the keys, on the table's device, of the result's dtype; not overlapping
    # the inputs).

    def insert(self, keys, values, *, stream=None, out=None):
        """Inserts absent keys. Returns a uint8 array of Status: inserted,
        exists (value unchanged) or invalid_key (`out`: that array)."""
        return self._write("Map.insert", self._table.insert, keys, values, stream, out)

    def insert_or_assign(self, keys, values, *, stream=None, out=None):
        """Inserts or overwrites. Returns Status inserted, updated or invalid_key."""
        return self._write("Map.insert_or_assign", self._table.insert_or_assign, keys, values,
                           stream, out)

    def find(self, keys, *, stream=None, out=None):
        """Returns (values, found): found is a bool array; values[i] is
        undefined where found[i] is False (`out`: those two arrays)."""
        keys, library, passed = self._keys(keys, "Map.find")
        values, values_passed, found = self._find_outputs(
            library, _arrays.length(keys), keys, self._value_dtype, out, "Map.find")
        self._table.find(passed, values_passed, found, self._stream(stream, library, keys))
        return values, found

    def contains(self, keys, *, stream=None, out=None):
        """Returns a bool array: whether each key is stored."""
        keys, library, passed = self._keys(keys, "Map.contains")
        found = self._result(library, _arrays.length(keys), keys, "bool", out, "found",
                             "Map.contains")
        self._table.contains(passed, found, self._stream(stream, library, keys))
        return found

    def erase(self, keys, *, stream=None, out=None):
        """Removes keys. Returns Status erased or not_found (invalid_key for sentinels)."""
        keys, library, passed = self._keys(keys, "Map.erase")
        statuses = self._result(library, _arrays.length(keys), keys, "uint8", out, "statuses",
                                "Map.erase")
        self._table.erase(passed, statuses, self._stream(stream, library, keys))
        return statuses

    def apply(self, ops, keys, values=None, *, stream=None):
        """A mixed batch run concurrently in one pass: ops[i] (an Operation:
        search, insert, update, upsert, erase) on keys[i] with values[i].

        Returns (values, statuses): a new array holding the given values, with
        the value of each search that found its key written in its place, and
        one Status per key. For each key the outcome equals some serial order
        of the batch's operations on it."""
        keys, library, passed = self._keys(keys, "Map.apply")
        n = _arrays.length(keys)
        ops, _ = _arrays.as_array(ops, "uint8", self._device)
        if values is None:
            values = _arrays.zeros(library, n, self._value_dtype, keys)
        values = self._values(values, self._value_dtype, "Map.apply")
        result, result_passed = self._output(library, n, self._value_dtype, keys)
        statuses = _arrays.empty(library, n, "uint8", keys)
        self._table.apply(ops, passed, values, result_passed, statuses,
                          self._stream(stream, library, keys))
        return result, statuses

    # ---- The whole map ------------------------------------------------------

    def items(self, *, library=None, stream=None):
        """Returns (keys, values), every stored pair in no particular order, as
        arrays of `library` ("numpy", "cupy" or "torch"; default NumPy on the
        CPU, CuPy on a GPU, or PyTorch where CuPy is not importable)."""
        library = self._output_library(library)
        n = self._table.size(self._whole_table_stream(stream))
        keys = _arrays.empty(library, n, self._key_dtype, device=self._device)
        values = _arrays.empty(library, n, self._value_dtype, device=self._device)
        count = self._table.items(_arrays.bits_view(keys, library),
                                  _arrays.bits_view(values, library), self._last_stream)
        return keys[:count], values[:count]

    def reserve(self, n, *, stream=None):
        """Makes room for n keys in all, so that later batches do not grow the map."""
        self._table.reserve(n, self._whole_table_stream(stream))

    @property
    def reserved_keys(self):
        """The key values this design keeps as sentinels, as a NumPy array of key_dtype."""
        bits = np.array(self._table.reserved_keys, dtype=np.uint64)
        unsigned = np.dtype(self._key_dtype).str.replace("i", "u")
        return bits.astype(unsigned).view(self._key_dtype)

    @property
    def design(self):
        return self._design

    @property
    def key_dtype(self):
        return self._key_dtype

    def __repr__(self):
        return (f"gpuhash.Map(design={self._design!r}, key_dtype={self._key_dtype!r}, "
                f"value_dtype={self._value_dtype!r}, device={self.device!r}, size={len(self)}, "
                f"capacity={self.capacity})")

    # ---- Helpers --------------------------------------------------------------

    def _keys(self, keys, call):
        """The keys as an array, its library, and the array the extension takes."""
        keys, library = _arrays.as_array(keys, self._key_dtype, self._device)
        return keys, library, _arrays.checked(keys, library, self._key_dtype, "keys", call)

    def _write(self, call_name, call, keys, values, stream, out):
        keys, library, passed = self._keys(keys, call_name)
        values = self._values(values, self._value_dtype, call_name)
        statuses = self._result(library, _arrays.length(keys), keys, "uint8", out, "statuses",
                                call_name)
        call(passed, values, statuses, self._stream(stream, library, keys))
        return statuses
