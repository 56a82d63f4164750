"""gpuhash.Map against a Python dict: every design, every dtype, on every
place (the CPU with NumPy; a GPU with CuPy and with PyTorch)."""

import numpy as np
import pytest

import gpuhash
from gpuhash import Operation, Status

from dict_model import DictModel

DTYPES = ["uint32", "int32", "uint64", "int64"]


def key_universe(rng, dtype, size, reserved):
    """`size` distinct keys spread over the dtype's whole range, with the
    design's reserved keys among them."""
    bits = np.dtype(dtype).itemsize * 8
    unsigned = f"uint{bits}"
    drawn = np.unique(rng.integers(0, 2**bits - 1, size=size, dtype=unsigned, endpoint=True))
    keys = np.concatenate([drawn.view(dtype), reserved])
    return np.unique(keys)


class Model(DictModel):
    """The expected contents, and the status each operation must report, by
    the keys' and values' integers."""

    def __init__(self, reserved):
        super().__init__(int(k) for k in reserved)

    def run(self, op, key, value):
        return super().run(op, int(key), int(value))


def check_batch(place, m, model, rng, universe, dtype):
    """One random batch of a random call, its results checked against the model."""
    n = int(rng.integers(0, 600))
    keys_host = rng.choice(universe, size=min(n, len(universe)), replace=False)
    values_host = rng.integers(0, 2**31, size=len(keys_host)).astype(dtype)
    keys, values = place.array(keys_host), place.array(values_host)
    call = rng.choice(["insert", "insert_or_assign", "erase", "find", "contains", "apply"])
    if call in ("insert", "insert_or_assign", "erase"):
        op = {"insert": Operation.insert, "insert_or_assign": Operation.upsert,
              "erase": Operation.erase}[call]
        got = m.erase(keys) if call == "erase" else getattr(m, call)(keys, values)
        assert place.is_own(got) and place.numpy(got).dtype == np.uint8
        expected = [model.run(op, k, v)[0] for k, v in zip(keys_host, values_host)]
        assert place.numpy(got).tolist() == expected, call
    elif call in ("find", "contains"):
        if call == "find":
            found_values, found = m.find(keys)
            assert place.is_own(found_values) and place.numpy(found_values).dtype == dtype
        else:
            found = m.contains(keys)
        assert place.is_own(found) and place.numpy(found).dtype == np.bool_
        expected = [model.run(Operation.search, k, 0) for k in keys_host]
        assert place.numpy(found).tolist() == [s == Status.found for s, _ in expected], call
        if call == "find":
            got_values = place.numpy(found_values)
            for i, (s, v) in enumerate(expected):
                if s == Status.found:
                    assert int(got_values[i]) == v
    else:
        ops_host = rng.integers(0, 5, size=len(keys_host)).astype(np.uint8)
        out_values, statuses = m.apply(place.array(ops_host), keys, values)
        expected = [model.run(Operation(o), k, v) for o, k, v in zip(ops_host, keys_host,
                                                                     values_host)]
        assert place.numpy(statuses).tolist() == [s for s, _ in expected], call
        got_values = place.numpy(out_values)
        for i, (s, v) in enumerate(expected):
            assert int(got_values[i]) == (v if s == Status.found else int(values_host[i]))
    assert len(m) == len(model.pairs)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("design", gpuhash.designs())
def test_random_batches_match_a_dict(place, design, dtype, rng):
    m = gpuhash.Map(key_dtype=dtype, value_dtype=dtype, capacity=64, design=design,
                    device=place.device)
    model = Model(m.reserved_keys)
    universe = key_universe(rng, dtype, 1500, m.reserved_keys)
    for _ in range(25):
        check_batch(place, m, model, rng, universe, dtype)
    keys, values = m.items(library=place.library)
    assert place.is_own(keys) and place.is_own(values)
    got = dict(zip(place.numpy(keys).tolist(), place.numpy(values).tolist()))
    assert got == model.pairs


def test_designs_are_the_registry():
    names = gpuhash.designs()
    assert {"linear_probing", "bucketed_cuckoo", "dachash", "hashgraph", "cuckoo_node"} <= set(
        names)
    assert len(names) == len(set(names))


def test_status_and_operation_mirror_the_library():
    assert [s.name for s in Status][:8] == ["inserted", "updated", "exists", "found", "not_found",
                                            "erased", "full", "invalid_key"]
    assert Status.found == 3 and isinstance(Status.found, int)
    assert [o.name for o in Operation] == ["search", "insert", "update", "upsert", "erase"]


@pytest.mark.parametrize("design", ["bucketed_cuckoo", "dachash", "linear_probing"])
def test_duplicates_in_one_insert_batch_store_one_pair(place, design, rng):
    m = gpuhash.Map(key_dtype="uint64", value_dtype="uint64", design=design, device=place.device)
    distinct = np.arange(1, 2001, dtype=np.uint64)
    keys_host = rng.permutation(np.repeat(distinct, 3))
    values_host = np.arange(len(keys_host), dtype=np.uint64)
    statuses = place.numpy(m.insert(place.array(keys_host), place.array(values_host)))
    inserted = keys_host[statuses == Status.inserted]
    assert sorted(inserted.tolist()) == distinct.tolist()
    assert np.all(statuses[statuses != Status.inserted] == Status.exists)
    values, found = m.find(place.array(distinct))
    assert place.numpy(found).all()
    stored = dict(zip(keys_host[statuses == Status.inserted].tolist(),
                      values_host[statuses == Status.inserted].tolist()))
    assert place.numpy(values).tolist() == [stored[k] for k in distinct.tolist()]


def test_the_map_grows_past_its_capacity_hint(place, rng):
    m = gpuhash.Map(key_dtype="uint32", value_dtype="uint32", capacity=16, device=place.device)
    keys = np.unique(rng.integers(1, 2**31, size=50_000, dtype=np.uint32))
    statuses = place.numpy(m.insert(place.array(keys), place.array(keys)))
    assert np.all(statuses == Status.inserted)
    assert len(m) == len(keys)
    assert m.capacity >= len(keys)
    assert m.memory_bytes > 0
    values, found = m.find(place.array(keys))
    assert place.numpy(found).all() and np.array_equal(place.numpy(values), keys)


def test_clear_keeps_capacity_and_reserve_makes_room(place):
    m = gpuhash.Map(key_dtype="uint64", value_dtype="uint64", capacity=16, device=place.device)
    keys = np.arange(1, 1001, dtype=np.uint64)
    m.insert(place.array(keys), place.array(keys))
    capacity = m.capacity
    m.clear()
    assert len(m) == 0 and m.capacity == capacity
    assert not place.numpy(m.contains(place.array(keys))).any()
    m.reserve(100_000)
    reserved = m.capacity
    assert reserved * m.max_load_factor >= 100_000
    more = np.arange(1, 100_001, dtype=np.uint64)
    m.insert(place.array(more), place.array(more))
    assert m.capacity == reserved and len(m) == 100_000


def test_empty_batches(place):
    m = gpuhash.Map(key_dtype="uint32", value_dtype="uint32", device=place.device)
    empty = place.array(np.empty(0, dtype=np.uint32))
    assert len(place.numpy(m.insert(empty, empty))) == 0
    values, found = m.find(empty)
    assert len(place.numpy(values)) == 0 and len(place.numpy(found)) == 0
    assert len(place.numpy(m.erase(empty))) == 0
    values, statuses = m.apply(place.array(np.empty(0, dtype=np.uint8)), empty)
    assert len(place.numpy(statuses)) == 0
    keys, values = m.items(library=place.library)
    assert len(place.numpy(keys)) == 0


def test_out_arrays_are_written_and_returned(place, rng):
    m = gpuhash.Map(key_dtype="uint64", value_dtype="uint64", device=place.device)
    # 1000 distinct multiples of 977 (plus 1) below 2^40, drawn without
    # building the 1.1 billion candidates.
    keys = np.uint64(1) + np.uint64(977) * rng.choice(
        (1 << 40) // 977, size=1000, replace=False).astype(np.uint64)
    values = keys * np.uint64(3)
    present, absent = keys[:600], keys[600:]
    statuses = place.array(np.zeros(600, dtype=np.uint8))
    assert m.insert(place.array(present), place.array(values[:600]), out=statuses) is statuses
    assert np.all(place.numpy(statuses) == Status.inserted)
    assert m.insert_or_assign(place.array(present[:10]), place.array(present[:10]),
                              out=statuses[:10]) is not None
    assert np.all(place.numpy(statuses)[:10] == Status.updated)
    expected = values.copy()
    expected[:10] = present[:10]
    got = place.array(np.zeros(1000, dtype=np.uint64))
    found = place.array(np.zeros(1000, dtype=bool))
    result = m.find(place.array(keys), out=(got, found))
    assert result[0] is got and result[1] is found
    assert place.numpy(found).tolist() == [True] * 600 + [False] * len(absent)
    assert place.numpy(got)[:600].tolist() == expected[:600].tolist()
    flags = place.array(np.zeros(1000, dtype=bool))
    assert m.contains(place.array(keys), out=flags) is flags
    assert place.numpy(flags).tolist() == place.numpy(found).tolist()
    erased = place.array(np.zeros(1000, dtype=np.uint8))
    assert m.erase(place.array(keys), out=erased) is erased
    assert place.numpy(erased).tolist() == [Status.erased] * 600 + [Status.not_found] * 400
    assert len(m) == 0


def test_out_arrays_are_checked(place):
    m = gpuhash.Map(key_dtype="uint32", value_dtype="uint32", device=place.device)
    keys = place.array(np.arange(1, 5, dtype=np.uint32))
    values = place.array(np.zeros(4, dtype=np.uint32))
    found = place.array(np.zeros(4, dtype=bool))
    with pytest.raises(TypeError, match=r"Map.find: out must be a pair"):
        m.find(keys, out=values)
    with pytest.raises(TypeError, match=r"Map.find: out found has dtype uint8; it must be bool"):
        m.find(keys, out=(values, place.array(np.zeros(4, dtype=np.uint8))))
    with pytest.raises(TypeError, match=r"Map.find: out values has dtype uint64; it must be uint32"):
        m.find(keys, out=(place.array(np.zeros(4, dtype=np.uint64)), found))
    with pytest.raises(TypeError, match=r"Map.contains: out found must be a NumPy or CuPy array"):
        m.contains(keys, out=[False] * 4)
    with pytest.raises(ValueError):
        m.erase(keys, out=place.array(np.zeros(3, dtype=np.uint8)))  # too short


def test_signed_keys_are_stored_as_their_bits(place):
    m = gpuhash.Map(key_dtype="int64", value_dtype="int64", device=place.device)
    keys = np.array([-5, 0, 7, -(2**40)], dtype=np.int64)
    values = np.array([-1, -2, 3, 4], dtype=np.int64)
    assert np.all(place.numpy(m.insert(place.array(keys), place.array(values))) == Status.inserted)
    got, found = m.find(place.array(keys))
    assert place.numpy(found).all() and place.numpy(got).tolist() == values.tolist()
    assert place.numpy(got).dtype == np.int64
    # int64's -1 is uint64's largest value, a sentinel of most designs.
    assert m.reserved_keys.dtype == np.int64 and -1 in m.reserved_keys.tolist()
    assert place.numpy(m.insert(place.array(np.array([-1], np.int64)),
                                place.array(np.array([1], np.int64)))).tolist() == [
                                    Status.invalid_key]


def test_apply_without_values_searches_and_erases(place):
    m = gpuhash.Map(key_dtype="uint32", value_dtype="uint32", device=place.device)
    m.insert(place.array(np.array([1, 2], np.uint32)), place.array(np.array([10, 20], np.uint32)))
    ops = place.array(np.array([Operation.search, Operation.erase, Operation.search], np.uint8))
    values, statuses = m.apply(ops, place.array(np.array([1, 2, 3], np.uint32)))
    assert place.numpy(statuses).tolist() == [Status.found, Status.erased, Status.not_found]
    assert place.numpy(values).tolist() == [10, 0, 0]
    bad = place.array(np.array([9], np.uint8))
    assert place.numpy(m.apply(bad, place.array(np.array([1], np.uint32)))[1]).tolist() == [
        Status.invalid_operation]


def test_python_sequences_are_converted_on_the_cpu():
    m = gpuhash.Map(key_dtype="uint64", value_dtype="uint64")
    assert m.insert([1, 2, 3], [4, 5, 6]).tolist() == [Status.inserted] * 3
    values, found = m.find((3, 4))
    assert found.tolist() == [True, False] and values[0] == 6
    assert m.contains(range(1, 3)).tolist() == [True, True]
    values, statuses = m.apply([Operation.update], [1], [40])
    assert statuses.tolist() == [Status.updated] and m.find([1])[0].tolist() == [40]


def test_dtypes_may_be_given_as_numpy_types():
    m = gpuhash.Map(key_dtype=np.int32, value_dtype=np.dtype("u4"))
    assert (m.key_dtype, m.value_dtype) == ("int32", "uint32")
    assert "int32" in repr(m) and m.device == "cpu" and m.design == "bucketed_cuckoo"
