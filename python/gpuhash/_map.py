"""gpuhash.Map: every design of the library behind one class, on the CPU or
a GPU."""

import numpy as np

from . import _arrays, _device_refs, _items
from ._batches import BatchTable
from ._gpuhash import MapTable


class Map(BatchTable):
    """A concurrent hash map of fixed-width keys and values.

    Batches take arrays: NumPy arrays (or anything NumPy converts) on
    device="cpu"; CuPy arrays or PyTorch CUDA tensors on device="cuda" (or
    "cuda:N"), read and written in place, on the caller's current CUDA
    stream (or `stream=`). Outputs are new arrays of the keys' library on the
    keys' device. Every call returns when its results are written.

    Keys and values are stored as their bytes, whatever their dtype: any
    dtype of 4 or 8 bytes (uint32, int64, float32, float64, ...; a float key
    is its bits, so -0.0 and 0.0, and NaNs of different payloads, are
    different keys), 16-byte keys and values (numpy.dtype("V16"), a
    structured dtype of 16 bytes, or rows: ("uint64", 2)), and values that
    are rows ("float32", 32): an embedding of 32 float32 per key, passed and
    returned as arrays of shape (n, 32). A row dtype (base, k) takes arrays
    (n, k) of base; a 16-byte scalar dtype takes arrays of that dtype, or
    rows of two 8-byte or four 4-byte integers, the form CuPy and PyTorch
    have for it. Every design takes keys and values of 4/4 and 8/8 bytes;
    linear_probing, hashgraph and bucketed_cuckoo also take keys and values
    of 4, 8 or 16 bytes each, and linear_probing and hashgraph 8-byte keys
    with rows of 32, 64 or 128 bytes (gpuhash.designs(key_dtype,
    value_dtype) names the designs of a pair).

    Each design keeps a few key values as sentinels (`reserved_keys`); a batch
    reports them as Status.invalid_key rather than raising. `capacity` is a
    hint: the map grows before a batch that would pass its load limit.
    """

    def __init__(self, key_dtype="uint64", value_dtype="uint64", capacity=None,
                 design="bucketed_cuckoo", device="cpu", *, max_load_factor=0.0, seed=None):
        self._key = _items.ItemType(key_dtype, "key_dtype")
        self._value = _items.ItemType(value_dtype, "value_dtype")
        super().__init__(device, self._value.dtype)
        self._sequence_dtypes = (self._key.sequence_dtype(self._device),
                                 self._value.sequence_dtype(self._device))
        self._design = design
        self._table = _arrays.extension_table(
            MapTable(design, self._key.nbytes, self._value.nbytes, self._device.kind,
                     self._device.ordinal, capacity, max_load_factor, seed), self._device)

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
        n = _items.length(keys)
        if out is None:
            values, values_passed = self._value.empty(library, n, like=keys)
            found = _arrays.empty(library, n, "bool", keys)
        else:
            if not (isinstance(out, tuple) and len(out) == 2):
                raise TypeError("gpuhash: Map.find: out must be a pair of arrays (values, found)")
            values, values_passed = self._given_values(out[0], "Map.find")
            found, _ = self._given(out[1], "bool", "found", "Map.find")
        self._table.find(passed, values_passed, found, self._stream(stream, library, keys))
        return values, found

    def contains(self, keys, *, stream=None, out=None):
        """Returns a bool array: whether each key is stored."""
        keys, library, passed = self._keys(keys, "Map.contains")
        found = self._result(library, _items.length(keys), keys, "bool", out, "found",
                             "Map.contains")
        self._table.contains(passed, found, self._stream(stream, library, keys))
        return found

    def erase(self, keys, *, stream=None, out=None):
        """Removes keys. Returns Status erased or not_found (invalid_key for sentinels)."""
        keys, library, passed = self._keys(keys, "Map.erase")
        statuses = self._result(library, _items.length(keys), keys, "uint8", out, "statuses",
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
        n = _items.length(keys)
        ops, _ = _arrays.as_array(ops, "uint8", self._device)
        if values is None:
            values = self._value.zeros(library, n, keys)
        values = self._values(values, "Map.apply")
        result, result_passed = self._value.empty(library, n, like=keys)
        statuses = _arrays.empty(library, n, "uint8", keys)
        self._table.apply(ops, passed, values, result_passed, statuses,
                          self._stream(stream, library, keys))
        return result, statuses

    # ---- Refs for the caller's kernels ---------------------------------------

    def ref(self):
        """A DeviceRef of this map, for kernels of the caller's compiled at run
        time (cupy.RawModule with gpuhash.nvrtc_options()), whose threads call
        find, insert, insert_or_apply, ... for their own keys. device="cuda"
        only; the designs linear_probing and bucketed_cuckoo with keys and
        values of 4 or 8 bytes (gpuhash.device_ref_type). Valid until the
        map's next call that may rebuild or grow it (insert,
        insert_or_assign, apply, reserve, clear): reserve room first, and take
        a new ref after such calls."""
        if self._device.kind != "cuda":
            raise ValueError("gpuhash: Map.ref() is for kernels on a GPU: make the map with "
                             "device='cuda'")
        ref_type = _device_refs.device_ref_type(self._design, self._key.dtype, self._value.dtype)
        return _device_refs.DeviceRef(self, ref_type, self._table.ref())

    # ---- The whole map ------------------------------------------------------

    def items(self, *, library=None, stream=None):
        """Returns (keys, values), every stored pair in no particular order, as
        arrays of `library` ("numpy", "cupy" or "torch"; default NumPy on the
        CPU, CuPy on a GPU, or PyTorch where CuPy is not importable)."""
        library = self._output_library(library)
        n = self._table.size(self._whole_table_stream(stream))
        keys, keys_passed = self._key.empty(library, n, device=self._device)
        values, values_passed = self._value.empty(library, n, device=self._device)
        count = self._table.items(keys_passed, values_passed, self._last_stream)
        return keys[:count], values[:count]

    def reserve(self, n, *, stream=None):
        """Makes room for n keys in all, so that later batches do not grow the map."""
        self._table.reserve(n, self._whole_table_stream(stream))

    @property
    def reserved_keys(self):
        """The keys this design keeps as sentinels, as a NumPy array of
        key_dtype (of rows, for a row dtype)."""
        return np.frombuffer(self._table.reserved_keys, dtype=self._key.dtype).copy()

    @property
    def design(self):
        return self._design

    @property
    def key_dtype(self):
        """The keys' NumPy dtype (it compares equal to its name: "uint64");
        a row dtype such as ("uint64", 2) is a subarray dtype."""
        return self._key.dtype

    def __repr__(self):
        return (f"gpuhash.Map(design={self._design!r}, key_dtype={str(self._key)!r}, "
                f"value_dtype={str(self._value)!r}, device={self.device!r}, size={len(self)}, "
                f"capacity={self.capacity})")

    # ---- Helpers --------------------------------------------------------------

    def _keys(self, keys, call):
        """The keys as an array, its library, and the array the extension takes."""
        keys, library = _arrays.as_array(keys, self._sequence_dtypes[0], self._device)
        return keys, library, self._key.checked(keys, library, "keys", call)

    def _values(self, values, call):
        """A batch's values as the array the extension reads."""
        values, library = _arrays.as_array(values, self._sequence_dtypes[1], self._device)
        return self._value.checked(values, library, "values", call)

    def _given_values(self, array, call):
        """Values the caller gave as `out`, and the array the extension writes."""
        library = _arrays.library_of(array)
        if library is None:
            raise TypeError(f"gpuhash: {call}: out values must be a NumPy or CuPy array or a "
                            f"PyTorch tensor, not {type(array).__name__}")
        return array, self._value.checked(array, library, "values", call, given=True)

    def _write(self, call_name, call, keys, values, stream, out):
        keys, library, passed = self._keys(keys, call_name)
        values = self._values(values, call_name)
        statuses = self._result(library, _items.length(keys), keys, "uint8", out, "statuses",
                                call_name)
        call(passed, values, statuses, self._stream(stream, library, keys))
        return statuses
