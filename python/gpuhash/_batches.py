"""What Map and StringMap share around a batch: the table's device, the
stream of each call, and the result arrays (new ones of the keys' library, or
those the caller passes as `out=`)."""

from . import _arrays


class BatchTable:
    """Base of the tables that grow (`self._table`, the extension's): keeps
    the stream of the last call, on which calls over the whole table (len,
    clear, reserve, items) run."""

    def __init__(self, device, value_dtype):
        self._device = _arrays.Device(device)
        self._value_dtype = value_dtype
        self._last_stream = 0

    def __len__(self):
        return self._table.size(self._last_stream)

    def clear(self, *, stream=None):
        """Removes every key; keeps the capacity."""
        self._table.clear(self._whole_table_stream(stream))

    @property
    def capacity(self):
        """Slots allocated (pool nodes included for chained designs)."""
        return self._table.capacity

    @property
    def memory_bytes(self):
        """Bytes of CPU or GPU memory the table holds."""
        return self._table.memory_bytes

    @property
    def max_load_factor(self):
        return self._table.max_load_factor

    @property
    def device(self):
        return str(self._device)

    @property
    def value_dtype(self):
        return self._value_dtype

    def _stream(self, stream, library, keys):
        self._last_stream = _arrays.stream_of(stream, library, keys, self._device)
        return self._last_stream

    def _whole_table_stream(self, stream):
        if stream is not None:
            self._last_stream = _arrays.stream_of(stream, None, None, self._device)
        return self._last_stream

    def _output_library(self, library):
        """The library of a call's outputs that no input decides: `library`,
        or the device's default."""
        library = library or _arrays.default_library(self._device)
        if library not in _arrays.LIBRARIES:
            raise ValueError(f"gpuhash: library must be one of {_arrays.LIBRARIES}, got {library!r}")
        return library

    @staticmethod
    def _output(library, n, dtype, like):
        """A new output array, and the array the extension writes (the same memory)."""
        array = _arrays.empty(library, n, dtype, like)
        return array, _arrays.bits_view(array, library)

    @staticmethod
    def _given(array, dtype, role, call):
        """An array the caller gave for a result (`out=`), and the array the
        extension writes (the same memory); the extension checks its length,
        layout and device."""
        library = _arrays.library_of(array)
        if library is None:
            raise TypeError(f"gpuhash: {call}: out {role} must be a NumPy or CuPy array or a "
                            f"PyTorch tensor, not {type(array).__name__}")
        if not _arrays.has_dtype(array, library, dtype):
            raise TypeError(f"gpuhash: {call}: out {role} has dtype "
                            f"{_arrays.dtype_name(array.dtype)}; it must be {dtype}")
        return array, _arrays.bits_view(array, library)

    def _result(self, library, n, like, dtype, out, role, call):
        """The one result array of a batch: `out`, or a new one."""
        if out is None:
            return _arrays.empty(library, n, dtype, like)
        return self._given(out, dtype, role, call)[0]

    def _find_outputs(self, library, n, like, value_dtype, out, call):
        """find's (values, found), new or given as `out`, and the values array
        the extension writes."""
        if out is None:
            values, values_passed = self._output(library, n, value_dtype, like)
            return values, values_passed, _arrays.empty(library, n, "bool", like)
        if not (isinstance(out, tuple) and len(out) == 2):
            raise TypeError(f"gpuhash: {call}: out must be a pair of arrays (values, found)")
        values, values_passed = self._given(out[0], value_dtype, "values", call)
        found, _ = self._given(out[1], "bool", "found", call)
        return values, values_passed, found

    def _values(self, values, dtype, call):
        """A batch's values as the array the extension reads."""
        values, library = _arrays.as_array(values, dtype, self._device)
        return _arrays.bits_view(_arrays.checked(values, library, dtype, "values", call), library)
