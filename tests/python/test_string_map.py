"""gpuhash.StringMap against a Python dict, on every place (the CPU with
NumPy; a GPU with CuPy and with PyTorch), with keys in each form it takes."""

import numpy as np
import pytest

import gpuhash
from conftest import cupy, torch
from gpuhash import Status

VALUE_DTYPES = ["uint32", "int32", "float32", "uint64", "int64", "float64"]


def host(array):
    """Any output array as NumPy (an output's library may be the default
    one, not the place's, where no input decided it)."""
    if isinstance(array, np.ndarray):
        return array
    if cupy is not None and isinstance(array, cupy.ndarray):
        return cupy.asnumpy(array)
    name = str(array.dtype).removeprefix("torch.")
    if name in ("uint32", "uint64"):
        return array.view(getattr(torch, name[1:])).cpu().numpy().view(name)
    return array.cpu().numpy()


def packed(keys, offset_dtype="int64", lead=b""):
    """Arrow's layout of a list of bytes: offsets and data, with `lead`
    bytes before the first key (so its offsets do not start at 0)."""
    lengths = [len(k) for k in keys]
    offsets = len(lead) + np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)])
    return offsets.astype(offset_dtype), byte_array(lead + b"".join(keys))


def byte_array(data):
    """bytes as a (writable) uint8 NumPy array."""
    return np.frombuffer(data, dtype=np.uint8).copy()


def forms(place):
    """The forms of keys: each turns a list of bytes (UTF-8 text, without
    trailing NUL bytes, where `text` is required) into what a call takes."""
    def column(offset_dtype, lead=b""):
        def make(keys):
            offsets, data = packed(keys, offset_dtype, lead)
            return place.array(offsets), place.array(data)
        return make

    def sliced(keys):
        # a slice of a longer column: its first key is dropped
        offsets, data = packed([b"dropped"] + keys)
        return place.array(offsets)[1:], place.array(data)

    def text(keys):
        return [k.decode() for k in keys]

    return {
        "bytes-list": lambda keys: list(keys),
        "str-list": text,
        "str-tuple": lambda keys: tuple(text(keys)),
        "S-array": lambda keys: np.array(keys, dtype="S"),
        "U-array": lambda keys: np.array(text(keys), dtype="U"),
        "object-array": lambda keys: np.array(text(keys), dtype=object),
        "column-int32": column("int32"),
        "column-int64": column("int64"),
        "column-offset": column("int64", lead=b"unused bytes"),
        "column-slice": sliced,
    }


def universe(rng, size):
    """Distinct UTF-8 keys without trailing NULs: the empty string, shared
    prefixes, multibyte characters, interior NULs and long keys."""
    alphabet = list("abc/_-xyz0") + ["\u00e9", "\u4e2d", "\U0001f600", "\x00"]
    keys = {"", "a", "ab", "abc", "abcd", "prefix/", "x" * 1000, "x" * 1001, "x" * 999 + "y"}
    while len(keys) < size:
        length = int(rng.choice([1, 2, 5, 8, 9, 16, 17, 40, 300]))
        key = "".join(rng.choice(alphabet, size=length))
        if int(rng.integers(0, 3)) == 0:
            key = "prefix/" + key
        keys.add(key.rstrip("\x00"))
    return sorted(k.encode() for k in keys)


class Model:
    """The expected contents, checked batch by batch. Duplicates within a
    batch: of an insert, one is inserted (whichever came first) and the
    others exist; of an upsert, one inserts or all update and one value wins;
    of an erase, one erases."""

    def __init__(self):
        self.pairs = {}

    def check_write(self, m, keys, values, statuses, assign):
        groups = {}
        for i, key in enumerate(keys):
            groups.setdefault(key, []).append(i)
        for key, rows in groups.items():
            got = [statuses[i] for i in rows]
            present = key in self.pairs
            if assign:
                expected_first = Status.updated if present else Status.inserted
                assert sorted(got) == sorted([expected_first] + [Status.updated] * (len(rows) - 1))
            elif present:
                assert got == [Status.exists] * len(rows), key
            else:
                assert sorted(got) == sorted([Status.inserted] + [Status.exists] * (len(rows) - 1))
                self.pairs[key] = values[rows[got.index(Status.inserted)]].item()
        if assign:
            # one of each key's values won: read which, then check it was given
            distinct = list(groups)
            found_values, found = m.find(distinct)
            found_values, found = host(found_values), host(found)
            assert found.all()
            for key, value in zip(distinct, found_values.tolist()):
                assert value in [values[i].item() for i in groups[key]]
                self.pairs[key] = value

    def check_erase(self, keys, statuses):
        groups = {}
        for i, key in enumerate(keys):
            groups.setdefault(key, []).append(statuses[i])
        for key, got in groups.items():
            if key in self.pairs:
                assert sorted(got) == sorted([Status.erased] + [Status.not_found] * (len(got) - 1))
                del self.pairs[key]
            else:
                assert got == [Status.not_found] * len(got), key

    def check_find(self, keys, values, found):
        for key, value, hit in zip(keys, values.tolist(), found.tolist()):
            assert hit == (key in self.pairs), key
            if hit:
                assert value == self.pairs[key], key


def test_random_batches_match_a_dict(place, rng):
    m = gpuhash.StringMap("uint64", capacity=4, device=place.device, arena_bytes=16)
    model = Model()
    keys_universe = universe(rng, 600)
    made = forms(place)
    names = sorted(made)
    for _ in range(40):
        n = int(rng.integers(0, 300))
        keys = [keys_universe[i] for i in rng.integers(0, len(keys_universe), size=n)]
        values = rng.integers(0, 2**63, size=n, dtype=np.uint64)
        form = names[int(rng.integers(0, len(names)))]
        passed = made[form](keys)
        call = ["insert", "insert_or_assign", "erase", "find"][int(rng.integers(0, 4))]
        if call == "find":
            found_values, found = m.find(passed)
            model.check_find(keys, host(found_values), host(found))
        elif call == "erase":
            model.check_erase(keys, host(m.erase(passed)).tolist())
        else:
            statuses = getattr(m, call)(passed, place.array(values))
            assert place.is_own(statuses) and host(statuses).dtype == np.uint8
            model.check_write(m, keys, values, host(statuses).tolist(),
                              assign=call == "insert_or_assign")
        assert len(m) == len(model.pairs), (call, form)
    keys, values = m.items(library=place.library)
    assert place.is_own(values)
    assert dict(zip(keys, host(values).tolist())) == model.pairs
    assert m.capacity >= len(model.pairs) and m.arena_capacity > 0


@pytest.mark.parametrize("form", sorted(forms(None)))
def test_each_form_of_keys(place, form):
    m = gpuhash.StringMap("int64", device=place.device)
    keys = [b"", b"apple", b"apple pie", "\u00e9t\u00e9".encode(), b"a\x00b", b"z" * 70]
    make = forms(place)[form]
    values = np.arange(-3, 3, dtype=np.int64)
    statuses = host(m.insert(make(keys), place.array(values)))
    assert statuses.tolist() == [Status.inserted] * len(keys)
    got, found = m.find(make(keys + [b"pear"]))
    assert host(found).tolist() == [True] * len(keys) + [False]
    assert host(got)[:len(keys)].tolist() == values.tolist()
    assert host(m.erase(make(keys[:2]))).tolist() == [Status.erased] * 2
    assert len(m) == len(keys) - 2


def test_bytes_differing_in_trailing_nuls_are_distinct(place):
    m = gpuhash.StringMap("uint32", device=place.device)
    keys = [b"a", b"a\x00", b"a\x00\x00", b"\x00", b""]
    values = place.array(np.arange(5, dtype=np.uint32))
    assert host(m.insert(keys, values)).tolist() == [Status.inserted] * 5
    got, found = m.find(list(reversed(keys)))
    assert host(found).all() and host(got).tolist() == [4, 3, 2, 1, 0]
    # NumPy's 'S' arrays drop trailing NULs: b"a\x00" is read as b"a"
    got, found = m.find(np.array([b"a\x00"], dtype="S3"))
    assert host(got).tolist() == [0]


def test_str_keys_are_stored_as_utf8(place):
    m = gpuhash.StringMap(device=place.device)
    m.insert(["na\u00efve", "\u4e2d\u6587"], place.array(np.array([1, 2], dtype=np.uint64)))
    assert "na\u00efve" in m and "na\u00efve".encode() in m and "naive" not in m
    assert b"\xe4\xb8\xad\xe6\x96\x87" in m
    keys, _ = m.items()
    assert sorted(keys) == sorted(["na\u00efve".encode(), "\u4e2d\u6587".encode()])


@pytest.mark.parametrize("dtype", VALUE_DTYPES)
def test_value_dtypes_round_trip(place, dtype):
    m = gpuhash.StringMap(dtype, device=place.device)
    if dtype.startswith("float"):
        values = np.array([-1.5, 0.0, 3.25, np.inf, 1e-30], dtype=dtype)
    elif dtype.startswith("int"):
        values = np.array([-1, 0, 7, np.iinfo(dtype).min, np.iinfo(dtype).max], dtype=dtype)
    else:
        values = np.array([0, 1, 7, 12345, np.iinfo(dtype).max], dtype=dtype)
    keys = ["k0", "k1", "k2", "k3", "k4"]
    m.insert(keys, place.array(values))
    got, found = m.find(keys)
    assert host(found).all()
    assert host(got).dtype == np.dtype(dtype) and host(got).tolist() == values.tolist()
    stored, stored_values = m.items()
    assert host(stored_values).dtype == np.dtype(dtype)
    assert dict(zip(stored, host(stored_values).tolist())) == {
        k.encode(): v for k, v in zip(keys, values.tolist())}
    assert m.value_dtype == dtype and dtype in repr(m)


def test_python_values_are_converted(place):
    m = gpuhash.StringMap("float64", device=place.device)
    m.insert(["a", "b"], [0.5, 2.5])
    got, _ = m.find(["b"])
    assert host(got).tolist() == [2.5]


def test_out_of_order_offsets_are_invalid_keys(place):
    m = gpuhash.StringMap("uint32", device=place.device)
    data = place.array(byte_array(b"abcdef"))
    offsets = place.array(np.array([0, 3, 1, 6], dtype=np.int32))
    values = place.array(np.array([1, 2, 3], dtype=np.uint32))
    assert host(m.insert((offsets, data), values)).tolist() == [
        Status.inserted, Status.invalid_key, Status.inserted]
    assert len(m) == 2
    got, found = m.find((offsets, data))
    assert host(found).tolist() == [True, False, True]
    assert host(m.erase((offsets, data))).tolist() == [
        Status.erased, Status.invalid_key, Status.erased]


def test_erase_then_reinsert(place):
    m = gpuhash.StringMap("uint64", device=place.device)
    keys = [f"key-{i}" for i in range(1000)]
    m.insert(keys, place.array(np.arange(1000, dtype=np.uint64)))
    assert host(m.erase(keys[::2])).tolist() == [Status.erased] * 500
    assert host(m.erase(keys[::2])).tolist() == [Status.not_found] * 500
    assert len(m) == 500 and keys[0] not in m and keys[1] in m
    statuses = host(m.insert(keys, place.array(np.full(1000, 7, dtype=np.uint64))))
    assert statuses.tolist() == [Status.inserted, Status.exists] * 500
    got, found = m.find(keys)
    assert host(found).all()
    assert host(got).tolist() == [7 if i % 2 == 0 else i for i in range(1000)]


def test_the_map_grows_from_a_small_capacity(place, rng):
    m = gpuhash.StringMap("uint32", capacity=2, device=place.device)
    capacity, arena = m.capacity, m.arena_capacity
    keys = [f"{i:x}".encode() * int(rng.integers(1, 20)) for i in range(20_000)]
    keys = list(dict.fromkeys(keys))
    offsets, data = packed(keys)
    column = (place.array(offsets), place.array(data))
    values = place.array(np.arange(len(keys), dtype=np.uint32))
    assert (host(m.insert(column, values)) == Status.inserted).all()
    assert len(m) == len(keys)
    assert m.capacity > capacity and m.arena_capacity > arena and m.arena_capacity >= len(data)
    assert m.memory_bytes >= m.arena_capacity
    got, found = m.find(column)
    assert host(found).all() and host(got).tolist() == list(range(len(keys)))


def test_clear_and_reserve(place):
    m = gpuhash.StringMap("uint32", capacity=16, device=place.device)
    m.insert(["a", "b"], place.array(np.array([1, 2], dtype=np.uint32)))
    capacity = m.capacity
    m.clear()
    assert len(m) == 0 and m.capacity == capacity and "a" not in m
    m.reserve(10_000, 1 << 20)
    assert m.capacity * m.max_load_factor >= 10_000 and m.arena_capacity >= 1 << 20
    reserved = (m.capacity, m.arena_capacity)
    keys = [f"{i:08d}" for i in range(10_000)]
    m.insert(keys, place.array(np.zeros(10_000, dtype=np.uint32)))
    assert (m.capacity, m.arena_capacity) == reserved and len(m) == 10_000


def test_retrieve_all_is_arrows_layout(place):
    m = gpuhash.StringMap("int32", device=place.device)
    pairs = {b"": -1, b"one": 1, b"three": 3, b"x" * 500: 500}
    m.insert(list(pairs), place.array(np.array(list(pairs.values()), dtype=np.int32)))
    offsets, data, values = m.retrieve_all(library=place.library)
    assert place.is_own(offsets) and place.is_own(data) and place.is_own(values)
    offsets, data, values = host(offsets), host(data), host(values)
    assert offsets.dtype == np.int64 and data.dtype == np.uint8 and values.dtype == np.int32
    assert offsets[0] == 0 and offsets[-1] == len(data) and len(offsets) == len(pairs) + 1
    got = {data[offsets[i]:offsets[i + 1]].tobytes(): values[i].item() for i in range(len(pairs))}
    assert got == pairs
    # the retrieved column is a valid batch of keys
    found_values, found = m.find((place.array(offsets), place.array(data)))
    assert host(found).all() and host(found_values).tolist() == values.tolist()


def test_empty_batches_and_an_empty_map(place):
    m = gpuhash.StringMap(device=place.device)
    no_values = place.array(np.empty(0, dtype=np.uint64))
    assert len(host(m.insert([], no_values))) == 0
    values, found = m.find([])
    assert len(host(values)) == 0 and len(host(found)) == 0
    empty_column = (place.array(np.zeros(1, dtype=np.int64)),
                    place.array(np.empty(0, dtype=np.uint8)))
    assert len(host(m.erase(empty_column))) == 0
    assert m.items(library=place.library)[0] == []
    offsets, data, values = m.retrieve_all()
    assert host(offsets).tolist() == [0] and len(host(data)) == 0 and len(host(values)) == 0


def test_out_arrays_are_written_and_returned(place):
    m = gpuhash.StringMap("uint32", device=place.device)
    keys = ["a", "b", "c"]
    statuses = place.array(np.zeros(3, dtype=np.uint8))
    assert m.insert(keys, place.array(np.array([1, 2, 3], np.uint32)), out=statuses) is statuses
    assert host(statuses).tolist() == [Status.inserted] * 3
    values = place.array(np.zeros(4, dtype=np.uint32))
    found = place.array(np.zeros(4, dtype=bool))
    result = m.find(keys + ["d"], out=(values, found))
    assert result[0] is values and result[1] is found
    assert host(found).tolist() == [True, True, True, False]
    assert host(values)[:3].tolist() == [1, 2, 3]
    erased = place.array(np.zeros(3, dtype=np.uint8))
    assert m.erase(keys, out=erased) is erased
    with pytest.raises(TypeError, match=r"StringMap.find: out must be a pair"):
        m.find(keys, out=values)
    with pytest.raises(ValueError, match=r"statuses have 3 elements but keys have 2"):
        m.erase(keys[:2], out=erased)


def test_pyarrow_arrays(place):
    pa = pytest.importorskip("pyarrow")
    m = gpuhash.StringMap("uint64", device=place.device)
    keys = ["", "arrow", "\u00e9", "long" * 50]
    values = place.array(np.arange(4, dtype=np.uint64))
    for kind in (pa.string(), pa.large_string(), pa.binary(), pa.large_binary()):
        m.clear()
        column = pa.array([k.encode() for k in keys], type=pa.binary()).cast(kind)
        assert host(m.insert(column, values)).tolist() == [Status.inserted] * 4
        got, found = m.find(column.slice(1, 2))
        assert host(found).all() and host(got).tolist() == [1, 2]
        got, found = m.find(pa.chunked_array([column[:2], column[2:]]))
        assert host(found).all() and host(got).tolist() == [0, 1, 2, 3]
    with pytest.raises(ValueError, match=r"1 nulls"):
        m.find(pa.array(["a", None]))


def test_bad_input_is_explained(place):
    m = gpuhash.StringMap("uint32", device=place.device)
    data = place.array(byte_array(b"abcd"))
    four = place.array(np.zeros(4, dtype=np.uint32))
    with pytest.raises(TypeError, match=r"offsets have dtype float32; Arrow's offsets are int32"):
        m.find((place.array(np.zeros(3, dtype=np.float32)), data))
    with pytest.raises(TypeError, match=r"data have dtype int32; the keys' bytes are uint8"):
        m.find((place.array(np.array([0, 1], dtype=np.int64)),
                place.array(np.zeros(4, dtype=np.int32))))
    with pytest.raises(ValueError, match=r"offsets must hold n \+ 1 entries for n keys, got none"):
        m.find((place.array(np.zeros(0, dtype=np.int64)), data))
    with pytest.raises(ValueError, match=r"offsets must lie in \[0, len\(data\)\] = \[0, 4\], "
                                         r"got offsets from 0 to 5"):
        m.find((place.array(np.array([0, 2, 5], dtype=np.int64)), data))
    with pytest.raises(ValueError, match=r"got offsets from -1 to 2"):
        m.insert((place.array(np.array([-1, 2], dtype=np.int32)), data), four[:1])
    with pytest.raises(ValueError, match=r"values have 4 elements but keys have 2"):
        m.insert(["a", "b"], four)
    with pytest.raises(ValueError, match=r"values have 4 elements but keys have 1"):
        m.insert((place.array(np.array([0, 2], dtype=np.int32)), data), four)
    with pytest.raises(TypeError, match=r"values have dtype uint64 but this table takes uint32"):
        m.insert(["a"], place.array(np.zeros(1, dtype=np.uint64)))
    with pytest.raises(TypeError, match=r"keys must be str or bytes; key 1 is int"):
        m.insert(["a", 5], [1, 2])
    with pytest.raises(TypeError, match=r"keys must be a sequence of keys, got one str: pass"):
        m.find("abc")
    with pytest.raises(TypeError, match=r"keys have dtype int64; StringMap takes str or bytes"):
        m.find(np.arange(3))
    with pytest.raises(ValueError, match=r"keys must be one-dimensional"):
        m.find(np.array([["a", "b"]]))
    with pytest.raises(TypeError, match=r"StringMap keys are str or bytes, not int"):
        5 in m  # noqa: B015
    with pytest.raises(TypeError, match=r"value_dtype must be one of uint32, int32, float32"):
        gpuhash.StringMap("int16")
    with pytest.raises(ValueError, match=r"device must be 'cpu', 'cuda' or 'cuda:N'"):
        gpuhash.StringMap(device="tpu")
    with pytest.raises(ValueError, match=r"max_load_factor must be in \(0, 1\]"):
        gpuhash.StringMap(max_load_factor=1.5)


def test_device_arrays_must_be_a_column_pair(gpu_place):
    m = gpuhash.StringMap(device=gpu_place.device)
    with pytest.raises(TypeError, match=r"come as an \(offsets, data\) pair"):
        m.find(gpu_place.array(byte_array(b"abc")))
    with pytest.raises(ValueError, match=r"offsets are on cpu but this table is on cuda:0"):
        m.find((np.array([0, 1], dtype=np.int64), gpu_place.array(np.zeros(1, dtype=np.uint8))))


def test_a_column_is_read_in_place(place):
    m = gpuhash.StringMap(device=place.device)
    offsets = place.array(np.array([0, 2, 4], dtype=np.int64))
    data = place.array(byte_array(b"abcd"))
    passed_offsets, passed_data, _, _ = m._keys((offsets, data), None, "test")
    assert passed_offsets is offsets and passed_data is data
