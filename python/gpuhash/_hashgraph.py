"""HashGraph's static map and set (the library's gpuhash/hashgraph.hpp, CSR
segments): built from one batch, then queried. No key value is reserved."""

from . import _arrays
from ._gpuhash import StaticTable

_PROBES = {"standard": False, "binned": True}


def _probe(probe):
    try:
        return _PROBES[probe]
    except KeyError:
        raise ValueError(
            f"gpuhash: probe must be 'standard' or 'binned' (Probe-New), got {probe!r}"
        ) from None


def _placement(keys, device):
    """The keys as an array, their library, and the table's device: `device`,
    or where the keys are."""
    if device is None:
        library = _arrays.library_of(keys)
        if library == "cupy":
            device = f"cuda:{keys.device.id}"
        elif library == "torch":
            device = str(keys.device) if keys.device.type == "cuda" else "cpu"
        else:
            device = "cpu"
    device = _arrays.Device(device)
    keys, library = _arrays.as_array(keys, "uint64", device)
    return keys, library, device


class _StaticTable:
    def __init__(self, table, device, key_dtype, value_dtype):
        self._table = _arrays.extension_table(table, device)
        self._device = device
        self._key_dtype = key_dtype
        self._value_dtype = value_dtype

    def __len__(self):
        return self._table.size

    @property
    def memory_bytes(self):
        return self._table.memory_bytes

    @property
    def device(self):
        return str(self._device)

    @property
    def key_dtype(self):
        return self._key_dtype

    def _query(self, keys, stream, call):
        """The keys, their library, the array the extension takes, the stream."""
        keys, library = _arrays.as_array(keys, self._key_dtype, self._device)
        passed = _arrays.checked(keys, library, self._key_dtype, "keys", call)
        return keys, library, passed, _arrays.stream_of(stream, library, keys, self._device)


class HashGraphMap(_StaticTable):
    """A static map: HashGraphMap.build(keys, values), then find(keys).

    Keys and values are one-dimensional arrays of equal width (uint32/int32 or
    uint64/int64). The map lives where the keys are (NumPy: the CPU; CuPy or
    a PyTorch CUDA tensor: their GPU) unless `device` says otherwise. Of equal
    keys, one pair is kept."""

    @classmethod
    def build(cls, keys, values, *, device=None, stream=None):
        keys, library, device = _placement(keys, device)
        key_dtype = _arrays.dtype_name(keys.dtype)
        values, values_library = _arrays.as_array(values, key_dtype, device)
        value_dtype = _arrays.dtype_name(values.dtype)
        table = StaticTable(key_dtype, value_dtype, device.kind, device.ordinal, False)
        table.build_map(_arrays.bits_view(keys, library),
                        _arrays.bits_view(values, values_library),
                        _arrays.stream_of(stream, library, keys, device))
        return cls(table, device, key_dtype, value_dtype)

    @property
    def value_dtype(self):
        return self._value_dtype

    def find(self, keys, *, probe="standard", stream=None):
        """Returns (values, found), as Map.find. probe="binned" groups the
        queries by bins of nearby buckets first (the thesis' Probe-New)."""
        binned = _probe(probe)
        keys, library, passed, on = self._query(keys, stream, "HashGraphMap.find")
        n = _arrays.length(keys)
        values = _arrays.empty(library, n, self._value_dtype, keys)
        found = _arrays.empty(library, n, "bool", keys)
        self._table.find(passed, _arrays.bits_view(values, library), found, binned, on)
        return values, found


class HashGraphSet(_StaticTable):
    """A static set: HashGraphSet.build(keys), then contains(keys)."""

    @classmethod
    def build(cls, keys, *, device=None, stream=None):
        keys, library, device = _placement(keys, device)
        key_dtype = _arrays.dtype_name(keys.dtype)
        table = StaticTable(key_dtype, key_dtype, device.kind, device.ordinal, True)
        table.build_set(_arrays.bits_view(keys, library),
                        _arrays.stream_of(stream, library, keys, device))
        return cls(table, device, key_dtype, key_dtype)

    def contains(self, keys, *, probe="standard", stream=None):
        """Returns a bool array: whether each key is in the set."""
        binned = _probe(probe)
        keys, library, passed, on = self._query(keys, stream, "HashGraphSet.contains")
        found = _arrays.empty(library, _arrays.length(keys), "bool", keys)
        self._table.contains(passed, found, binned, on)
        return found
