"""gpuhash.Map with the key types of docs/key_types.md against a Python dict
keyed by the items' bytes, on every place (the CPU with NumPy; a GPU with
CuPy and with PyTorch): dtypes of 4 and 8 bytes stored as their bits (floats
included), keys and values of different widths, 16-byte keys and values, and
rows of values (embeddings)."""

import numpy as np
import pytest

import gpuhash
from gpuhash import Operation, Status

from dict_model import DictModel

STRUCT16 = np.dtype([("hi", "<u8"), ("lo", "<u8")])

# (key dtype, value dtype), one or more of each family.
FAMILIES = {
    "float-values": ("uint32", "float32"),
    "float-keys": ("float64", "int64"),
    "int64-float32": ("int64", "float32"),
    "uint32-float64": ("uint32", "float64"),
    "complex64-uint32": ("complex64", "uint32"),
    "void8-float32": ("V8", "float32"),
    "V16-uint64": ("V16", "uint64"),
    "struct16-float32": (STRUCT16, "float32"),
    "rows16-rows16": (("uint64", 2), ("int64", 2)),
    "int64-V16": ("int64", "V16"),
    "uint32-rows16": ("uint32", ("uint32", 4)),
    "complex128-complex128": ("complex128", "complex128"),
    "int64-embedding8": ("int64", ("float32", 8)),
    "uint64-embedding16": ("uint64", ("float32", 16)),
    "int64-embedding32": ("int64", ("float32", 32)),
    "uint64-float64-rows": ("uint64", ("float64", 4)),
    "uint64-float16-rows": ("uint64", ("float16", 64)),
}

# The designs each family runs on: those that take its widths, at most
# these (the precompiled 4/4 and 8/8 pairs of every design are test_map's).
DESIGNS = ("linear_probing", "hashgraph", "bucketed_cuckoo")


def family_cases():
    for name, (key, value) in FAMILIES.items():
        for design in gpuhash.designs(key, value):
            if design in DESIGNS:
                yield pytest.param(key, value, design, id=f"{name}-{design}")


def numpy_dtype(spec):
    if isinstance(spec, tuple):
        return np.dtype((spec[0], (spec[1],)))
    return np.dtype(spec)


def from_bytes(raw, dtype):
    """Rows of bytes (n, itemsize) as n items of `dtype` (rows for a row dtype)."""
    raw = np.ascontiguousarray(raw, dtype=np.uint8)
    if dtype.subdtype is not None:
        return raw.view(dtype.base).reshape(len(raw), dtype.shape[0])
    return raw.view(dtype).reshape(len(raw))


def item_bytes(array):
    """The bytes of each item of a NumPy array of items (or rows of them)."""
    array = np.ascontiguousarray(array)
    flat = array.view(np.uint8).reshape(array.shape[0], -1) if array.size else np.zeros((0, 0))
    return [row.tobytes() for row in flat]


def on_place(place, host):
    """A NumPy array of items as `place`'s library holds them: CuPy and
    PyTorch have no void dtypes, so 16-byte ones travel as rows of two uint64
    and narrower ones as the unsigned integer of their width."""
    if place.library != "numpy" and host.dtype.kind == "V":
        size = host.dtype.itemsize
        host = host.view(np.uint64).reshape(-1, 2) if size == 16 else host.view(f"uint{8 * size}")
    return place.array(host)


def random_keys(rng, dtype, size, reserved):
    """`size` distinct random keys (any bit pattern, NaNs and -0.0 among the
    floats), with the design's reserved keys among them."""
    raw = np.unique(rng.integers(0, 256, size=(size, dtype.itemsize), dtype=np.uint8), axis=0)
    reserved_raw = np.ascontiguousarray(reserved).view(np.uint8).reshape(len(reserved), -1)
    return from_bytes(np.unique(np.concatenate([raw, reserved_raw]), axis=0), dtype)


def random_values(rng, dtype, n):
    return from_bytes(rng.integers(0, 256, size=(n, dtype.itemsize), dtype=np.uint8), dtype)


class Model(DictModel):
    """The expected contents (bytes to bytes) and each operation's status."""

    def __init__(self, reserved):
        super().__init__(item_bytes(reserved))


def check_batch(place, m, model, rng, universe, value_dtype):
    """One random batch of a random call, checked against the model."""
    n = int(rng.integers(0, 400))
    keys_host = universe[rng.choice(len(universe), size=min(n, len(universe)), replace=False)]
    values_host = random_values(rng, value_dtype, len(keys_host))
    key_list, value_list = item_bytes(keys_host), item_bytes(values_host)
    keys, values = on_place(place, keys_host), on_place(place, values_host)
    call = rng.choice(["insert", "insert_or_assign", "erase", "find", "contains", "apply"])
    if call in ("insert", "insert_or_assign", "erase"):
        op = {"insert": Operation.insert, "insert_or_assign": Operation.upsert,
              "erase": Operation.erase}[call]
        got = m.erase(keys) if call == "erase" else getattr(m, call)(keys, values)
        expected = [model.run(op, k, v)[0] for k, v in zip(key_list, value_list)]
        assert place.numpy(got).tolist() == expected, call
    elif call == "contains":
        expected = [model.run(Operation.search, k, None)[0] == Status.found for k in key_list]
        assert place.numpy(m.contains(keys)).tolist() == expected, call
    elif call == "find":
        found_values, found = m.find(keys)
        assert place.is_own(found_values) and place.is_own(found)
        expected = [model.run(Operation.search, k, None) for k in key_list]
        assert place.numpy(found).tolist() == [s == Status.found for s, _ in expected], call
        got = item_bytes(place.numpy(found_values))
        for i, (s, v) in enumerate(expected):
            if s == Status.found:
                assert got[i] == v, (call, i)
    else:
        ops_host = rng.integers(0, 5, size=len(keys_host)).astype(np.uint8)
        out_values, statuses = m.apply(place.array(ops_host), keys, values)
        expected = [model.run(Operation(o), k, v) for o, k, v in zip(ops_host, key_list,
                                                                     value_list)]
        assert place.numpy(statuses).tolist() == [s for s, _ in expected], call
        got = item_bytes(place.numpy(out_values))
        for i, (s, v) in enumerate(expected):
            assert got[i] == (v if s == Status.found else value_list[i]), (call, i)
    assert len(m) == len(model.pairs)


@pytest.mark.parametrize("key_dtype, value_dtype, design", family_cases())
def test_random_batches_match_a_dict(place, key_dtype, value_dtype, design, rng):
    m = gpuhash.Map(key_dtype=key_dtype, value_dtype=value_dtype, capacity=64, design=design,
                    device=place.device)
    key, value = numpy_dtype(key_dtype), numpy_dtype(value_dtype)
    assert m.key_dtype == key and m.value_dtype == value
    reserved = m.reserved_keys
    assert len(reserved) > 0 and item_bytes(reserved) and reserved.shape[1:] == key.shape
    model = Model(reserved)
    universe = random_keys(rng, key, 1200, reserved)
    for _ in range(20):
        check_batch(place, m, model, rng, universe, value)
    keys, values = m.items(library=place.library)
    assert place.is_own(keys) and place.is_own(values)
    assert dict(zip(item_bytes(place.numpy(keys)), item_bytes(place.numpy(values)))) == model.pairs


def test_float_keys_are_their_bits(place):
    m = gpuhash.Map(key_dtype="float32", value_dtype="int32", design="linear_probing",
                    device=place.device)
    quiet_nan, payload_nan = np.array([0x7FC00000, 0x7FC00001], np.uint32).view(np.float32)
    keys = np.array([0.0, -0.0, quiet_nan, payload_nan, 1.5], np.float32)
    statuses = m.insert(place.array(keys), place.array(np.arange(5, dtype=np.int32)))
    assert place.numpy(statuses).tolist() == [Status.inserted] * 5  # five distinct keys
    values, found = m.find(place.array(keys))
    assert place.numpy(found).all() and place.numpy(values).tolist() == [0, 1, 2, 3, 4]
    # NumPy's NaN is the quiet NaN without a payload: the third key.
    assert np.array(np.nan, np.float32).view(np.uint32) == 0x7FC00000
    assert place.numpy(m.contains(place.array(np.array([np.nan], np.float32)))).tolist() == [True]


def test_float_values_come_back_bit_for_bit(place):
    m = gpuhash.Map(key_dtype="int64", value_dtype="float64", design="bucketed_cuckoo",
                    device=place.device)
    values = np.array([-0.0, np.inf, np.nan, 1e-310, -2.5], np.float64)
    values[2:3].view(np.uint64)[0] |= np.uint64(0xBEEF)  # a NaN with a payload
    keys = np.arange(5, dtype=np.int64)
    m.insert(place.array(keys), place.array(values))
    got, found = m.find(place.array(keys))
    assert place.numpy(got).dtype == np.float64
    assert item_bytes(place.numpy(got)) == item_bytes(values)


def test_embedding_rows(place, rng):
    dim = 32
    m = gpuhash.Map(key_dtype="int64", value_dtype=("float32", dim), design="linear_probing",
                    device=place.device)
    ids = rng.permutation(np.unique(rng.integers(1, 1 << 40, size=1100, dtype=np.int64))[:1000])
    rows = rng.standard_normal((1000, dim)).astype(np.float32)
    assert np.all(place.numpy(m.insert(place.array(ids), place.array(rows))) == Status.inserted)
    values, found = m.find(place.array(ids[::-1].copy()))
    assert place.is_own(values) and tuple(values.shape) == (1000, dim)
    assert place.numpy(found).all() and np.array_equal(place.numpy(values), rows[::-1])
    # out= takes rows too, and an update rewrites whole rows.
    m.insert_or_assign(place.array(ids[:10]), place.array(np.zeros((10, dim), np.float32)))
    out = (place.array(np.full((3, dim), 7, np.float32)), place.array(np.zeros(3, bool)))
    result = m.find(place.array(np.array([ids[0], -5, ids[500]], np.int64)), out=out)
    assert result[0] is out[0]
    assert place.numpy(out[1]).tolist() == [True, False, True]
    got = place.numpy(out[0])
    assert not got[0].any() and (got[1] == 7).all() and np.array_equal(got[2], rows[500])
    keys, values = m.items(library=place.library)
    assert tuple(values.shape) == (1000, dim) and place.numpy(values).dtype == np.float32


def test_empty_batches_of_rows(place):
    """A batch of no items, its keys or values in rows, is taken whatever
    strides its library gives it: CuPy gives empty rows strides of 0 (NumPy
    reports them contiguous, so on the CPU this only checks the results)."""
    cases = [("V16", "float32", "bucketed_cuckoo", (0, 2), np.uint64, None),
             ("uint64", ("float16", 64), "linear_probing", (0,), np.uint64, (0, 64))]
    for key_dtype, value_dtype, design, key_shape, key_type, row_shape in cases:
        m = gpuhash.Map(key_dtype=key_dtype, value_dtype=value_dtype, design=design,
                        device=place.device)
        keys = place.array(np.zeros(key_shape, key_type))
        values = place.array(np.zeros(row_shape or (0,), np.float16 if row_shape else np.float32))
        assert len(m.insert(keys, values)) == 0
        found_values, found = m.find(keys)
        assert len(found) == 0 and tuple(found_values.shape)[0] == 0
        assert len(m.contains(keys)) == 0 and len(m.erase(keys)) == 0 and len(m) == 0


def test_sixteen_byte_keys_in_every_form(place):
    m = gpuhash.Map(key_dtype="V16", value_dtype="uint32", design="linear_probing",
                    device=place.device)
    words = np.array([[1, 2], [3, 4], [5, 6]], np.uint64)
    m.insert(place.array(words), place.array(np.array([10, 20, 30], np.uint32)))
    # The same keys as four 4-byte words each, and (NumPy) as V16 elements.
    forms = [place.array(words), place.array(words.view(np.uint32)),
             place.array(words.view(np.int64))]
    if place.library == "numpy":
        forms.append(words.view("V16").reshape(3))
    for keys in forms:
        values, found = m.find(keys)
        assert place.numpy(found).all() and place.numpy(values).tolist() == [10, 20, 30]
    keys, _ = m.items(library=place.library)
    if place.library == "numpy":
        assert keys.dtype == np.dtype("V16") and keys.shape == (3,)
    else:
        assert place.numpy(keys).dtype == np.uint64 and tuple(keys.shape) == (3, 2)
    assert sorted(item_bytes(place.numpy(keys))) == item_bytes(words)
    assert m.reserved_keys.dtype == np.dtype("V16")


def test_structured_keys_on_the_cpu():
    m = gpuhash.Map(key_dtype=STRUCT16, value_dtype="float32", design="hashgraph")
    keys = np.array([(1, 2), (3, 4), (1, 3)], STRUCT16)
    assert m.insert(keys, np.array([0.5, 1.5, 2.5], np.float32)).tolist() == [Status.inserted] * 3
    values, found = m.find(np.array([(3, 4), (4, 3)], STRUCT16))
    assert found.tolist() == [True, False] and values[0] == 1.5
    got, _ = m.items()
    assert got.dtype == STRUCT16 and sorted(got.tolist()) == [(1, 2), (1, 3), (3, 4)]
    assert m.key_dtype == STRUCT16


def test_designs_of_a_pair():
    assert gpuhash.designs("uint32", "float32") == gpuhash.designs()  # 4/4: every design
    word_designs = {"linear_probing", "hashgraph", "bucketed_cuckoo"}
    assert set(gpuhash.designs("uint64", "float32")) == word_designs
    assert set(gpuhash.designs("V16", "uint32")) == word_designs
    assert set(gpuhash.designs(STRUCT16, "complex128")) == word_designs
    assert set(gpuhash.designs("V16", ("float32", 32))) == set()
    assert set(gpuhash.designs("int64", np.dtype((np.float32, 32)))) == {"linear_probing",
                                                                         "hashgraph"}


def test_dtypes_are_numpy_dtypes_and_print_as_written():
    m = gpuhash.Map(key_dtype="int64", value_dtype=("float32", 8), design="linear_probing")
    assert m.key_dtype == "int64" and m.value_dtype == np.dtype((np.float32, (8,)))
    assert "value_dtype=\"('float32', 8)\"" in repr(m)
