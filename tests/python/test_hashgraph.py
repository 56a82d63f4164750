"""HashGraph's static map and set against Python's dict and set."""

import numpy as np
import pytest

import gpuhash

DTYPES = ["uint32", "int32", "uint64", "int64"]


@pytest.mark.parametrize("probe", ["standard", "binned"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_static_map_matches_a_dict(place, dtype, probe, rng):
    bits = np.dtype(dtype).itemsize * 8
    # Every value of the dtype may be a key (none is reserved), duplicates too.
    keys = rng.integers(0, 2**bits - 1, size=5000, dtype=f"uint{bits}", endpoint=True).view(dtype)
    keys = np.concatenate([keys, keys[:100], np.array([-1]).astype(dtype)])
    values = rng.integers(0, 2**31, size=len(keys)).astype(dtype)
    table = gpuhash.HashGraphMap.build(place.array(keys), place.array(values))
    assert table.device == place.device and table.key_dtype == dtype
    expected = {}
    for k, v in zip(keys.tolist(), values.tolist()):
        expected.setdefault(k, set()).add(v)
    assert len(table) == len(expected) and table.memory_bytes > 0

    queries = np.concatenate([keys, rng.integers(0, 2**31, size=2000).astype(dtype)])
    got, found = table.find(place.array(queries), probe=probe)
    assert place.is_own(got) and place.is_own(found)
    got, found = place.numpy(got), place.numpy(found)
    for i, k in enumerate(queries.tolist()):
        assert bool(found[i]) == (k in expected)
        if found[i]:
            assert int(got[i]) in expected[k]


@pytest.mark.parametrize("dtype", ["uint32", "int64"])
def test_static_set_matches_a_set(place, dtype, rng):
    keys = rng.integers(1, 10**6, size=3000).astype(dtype)
    table = gpuhash.HashGraphSet.build(place.array(keys))
    assert len(table) == len(set(keys.tolist()))
    queries = rng.integers(1, 2 * 10**6, size=4000).astype(dtype)
    for probe in ("standard", "binned"):
        found = place.numpy(table.contains(place.array(queries), probe=probe))
        assert found.tolist() == [q in set(keys.tolist()) for q in queries.tolist()]


def test_static_tables_check_their_arguments():
    keys = np.arange(10, dtype=np.uint64)
    with pytest.raises(ValueError, match=r"differ in width"):
        gpuhash.HashGraphMap.build(keys, np.arange(10, dtype=np.uint32))
    with pytest.raises(ValueError, match=r"values have 9 elements but keys have 10"):
        gpuhash.HashGraphMap.build(keys, np.arange(9, dtype=np.uint64))
    table = gpuhash.HashGraphMap.build(keys, keys)
    with pytest.raises(ValueError, match=r"probe must be 'standard' or 'binned'"):
        table.find(keys, probe="fast")
    with pytest.raises(TypeError, match=r"keys have dtype uint32 but this table takes uint64"):
        table.find(np.arange(3, dtype=np.uint32))
    with pytest.raises(TypeError, match=r"key dtype must be one of"):
        gpuhash.HashGraphSet.build(np.arange(3, dtype=np.float64))


def test_an_empty_build():
    table = gpuhash.HashGraphMap.build(np.empty(0, np.uint32), np.empty(0, np.uint32))
    assert len(table) == 0
    values, found = table.find(np.arange(5, dtype=np.uint32))
    assert not found.any()
